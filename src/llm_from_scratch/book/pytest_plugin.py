"""The book's pytest plugin (``-p llm_from_scratch.book.pytest_plugin`` in pyproject's addopts).

nbval masks what may differ between runs with the patterns in ``nbval_sanitize.cfg``
beside this file, found from any working directory; a ``--nbval-sanitize-with``
given on the command line takes its place.
"""

from __future__ import annotations

import pathlib

SANITIZE = pathlib.Path(__file__).with_name("nbval_sanitize.cfg")


def pytest_configure(config) -> None:
    if getattr(config.option, "nbval_sanitize_with", "absent") is None:
        config.option.nbval_sanitize_with = str(SANITIZE)
