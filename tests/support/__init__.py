"""What the tests share beyond fixtures: reading notebooks (notebooks.py), driving a browser (browser.py)."""

import pathlib
import shutil

ROOT = pathlib.Path(__file__).resolve().parents[2]


def copy_configuration(project: pathlib.Path) -> None:
    """Give a throwaway project this one's pytest configuration: pyproject.toml, the root conftest.py and the
    plugin it loads (tools/), as a maintainer's checkout has them."""
    shutil.copy(ROOT / "pyproject.toml", project)
    shutil.copy(ROOT / "conftest.py", project)
    shutil.copytree(ROOT / "tools", project / "tools", ignore=shutil.ignore_patterns("__pycache__"))
