"""What the tests share beyond fixtures: reading notebooks (notebooks.py), driving a browser (browser.py)."""

import pathlib
import re
import shutil

ROOT = pathlib.Path(__file__).resolve().parents[2]


def copy_configuration(project: pathlib.Path) -> None:
    """Give a throwaway project this one's pytest configuration: pyproject.toml, the root conftest.py and the
    plugin it loads (tools/), as a maintainer's checkout has them."""
    shutil.copy(ROOT / "pyproject.toml", project)
    shutil.copy(ROOT / "conftest.py", project)
    shutil.copytree(ROOT / "tools", project / "tools", ignore=shutil.ignore_patterns("__pycache__"))


def stable_id(value: object) -> str:
    """A test parameter's id as its repr without a memory address, the same in every process (pytest-xdist's
    workers compare the ids they collect)."""
    return re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value))


def tiered(cases: list, quick, ids=None) -> list:
    """The cases of an exhaustive walk for ``pytest.mark.parametrize``: those in ``quick`` (a set, or a test of a
    case), chosen to prove the same idea, run in every tier (``make check``); the others are marked ``slow`` and
    ``walk`` and run in ``make test`` (``make test-lowest`` leaves them out)."""
    import pytest

    chosen = quick if callable(quick) else quick.__contains__
    return [pytest.param(*(case if isinstance(case, tuple) else (case,)), id=ids(case) if ids else None,
                         marks=() if chosen(case) else (pytest.mark.slow, pytest.mark.walk)) for case in cases]
