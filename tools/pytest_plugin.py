"""The book's pytest plugin, loaded by the project's root ``conftest.py`` (so a plain ``pytest --nbval``
from the root, or ``pytest --nbval ROOT`` from anywhere, has it).

nbval masks what may differ between runs with the patterns in ``nbval_sanitize.cfg``
beside this file, found from any working directory; a ``--nbval-sanitize-with``
given on the command line takes its place. The session's kernels keep exercise
progress in a fresh temporary store, never in the user's own, under one fixed learner
id, on one fixed day (``book.clock``): stored notebooks show no progress, the same variants and the same review
on any date, and a test run adds none.

Every kernel the session starts talks over IPC, with its connection file and sockets in a short temporary
directory of this process (``tools/kernels.py``): nbval's, an edited notebook's, a JupyterLab server's. Kernels
started side by side cannot collide on a port, and one that still does not start is reported as a failure of the
environment that names the test and the kernel.

When a notebook cell fails and the installed libraries are not the versions of the
lock (``requirements/lock.txt`` under the rootdir), which made the stored outputs,
the summary names both and how to get the locked ones.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import tempfile
from importlib import metadata

import nbval.kernel
import pytest

from llm_from_scratch.book.clock import PINNED, TODAY_ENV
from llm_from_scratch.book.progress import ENV as PROGRESS_ENV
from llm_from_scratch.book.progress import LEARNER_ENV

from .kernels import RUNTIME_ENV, EnvironmentFailure, IPCKernelManager, short_runtime_dir
from .lock import LOCK, pins

SANITIZE = pathlib.Path(__file__).with_name("nbval_sanitize.cfg")
LEARNER = "stored-notebooks"  # the learner of every test and of the stored notebooks: their variants never change


def pytest_configure(config) -> None:
    if getattr(config.option, "nbval_sanitize_with", "absent") is None:
        config.option.nbval_sanitize_with = str(SANITIZE)
    config.progress_dir = tempfile.mkdtemp(prefix="llm-from-scratch-progress-")
    os.environ[PROGRESS_ENV] = os.path.join(config.progress_dir, "progress.json")
    os.environ.setdefault(LEARNER_ENV, LEARNER)
    os.environ[TODAY_ENV] = PINNED
    config.runtime_dir = os.environ[RUNTIME_ENV] = short_runtime_dir()
    nbval.kernel.KernelManager = IPCKernelManager  # the name nbval's start_new_kernel makes its manager from


def pytest_unconfigure(config) -> None:
    shutil.rmtree(getattr(config, "progress_dir", ""), ignore_errors=True)
    shutil.rmtree(getattr(config, "runtime_dir", ""), ignore_errors=True)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A kernel or a server that did not start fails its test as the environment's failure, in one line, not as a
    traceback that reads like the test's assertion."""
    report = yield
    if call.excinfo is not None and call.excinfo.errisinstance(EnvironmentFailure):
        report.longrepr = f"ENVIRONMENT FAILURE, not this test's: {item.nodeid}: {call.excinfo.value}"
    return report


def installed(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def drift(lock: pathlib.Path) -> list[tuple[str, str, str | None]]:
    """(name, locked version, installed version or None) for every pin of the lock, as it is on this Python
    and platform, that is not installed as pinned."""
    locked = [(name, version, installed(name)) for name, version in pins(lock).items()]
    return [pin for pin in locked if pin[1] != pin[2]]


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    lock = config.rootpath / LOCK
    failed_cells = [r for r in terminalreporter.stats.get("failed", []) if ".ipynb::" in r.nodeid]
    if not failed_cells or not lock.is_file():
        return
    differences = drift(lock)
    if not differences:
        return
    write = terminalreporter.write_line
    terminalreporter.write_sep("=", "the stored outputs were made with other library versions")
    write(f"{len(failed_cells)} notebook cell(s) failed. Their stored outputs were made with the versions in "
          f"{LOCK}; here these differ:")
    for name, locked, found in differences:
        write(f"  {name}: {locked} in the lock, {found or 'not installed'} here")
    write("A cell may differ only because of them. For the locked versions run `make test`, "
          f"or `pip install -r {LOCK}` and then `pip install --no-deps -e .`.")
