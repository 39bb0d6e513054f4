"""The lock, the lowest versions, environment.yml and pyproject agree; a failing cell names the versions."""

import json
import pathlib
import re
import subprocess
import sys
from importlib import metadata

import pytest
from packaging.requirements import Requirement
from packaging.version import Version
from support import copy_configuration

from tools.pytest_plugin import LOCK, PIN

ROOT = pathlib.Path(__file__).resolve().parents[1]
LOWEST = "requirements/lowest.txt"


def pins(path: pathlib.Path) -> dict[str, str]:
    return {name.lower(): version for name, version in PIN.findall(path.read_text(encoding="utf-8"))}


def declared() -> list[Requirement]:
    """pyproject's dependencies and its test extra (as installed: `make` reinstalls when pyproject changes)."""
    requirements = [Requirement(r) for r in metadata.requires("llm-from-scratch")]
    return [r for r in requirements if r.marker is None or r.marker.evaluate({"extra": "test"})]


def test_environment_yml_pins_exactly_the_lock():
    listed = re.findall(r"^      - ([^\s=]+)==(\S+)$", (ROOT / "environment.yml").read_text(encoding="utf-8"), re.M)
    assert {name.lower(): version for name, version in listed} == pins(ROOT / LOCK)
    assert re.search(r"^  - python=3\.11$", (ROOT / "environment.yml").read_text(encoding="utf-8"), re.M)
    assert "--python-version 3.11" in (ROOT / "Makefile").read_text(encoding="utf-8")


def test_the_lock_is_inside_the_declared_ranges():
    locked = pins(ROOT / LOCK)
    for requirement in declared():
        assert requirement.specifier.contains(locked[requirement.name], prereleases=True), requirement


def test_the_lowest_versions_are_the_declared_lower_bounds():
    lowest = pins(ROOT / LOWEST)
    for requirement in declared():
        [bound] = [s.version for s in requirement.specifier if s.operator == ">="]
        found = lowest[requirement.name]
        assert Version(found) == Version(bound), f"{requirement}: {LOWEST} has {found}"


def failing_notebook_run(tmp_path: pathlib.Path, lock: str) -> str:
    """pytest --nbval in a throwaway project whose one stored output is wrong, with ``lock`` as its lock."""
    copy_configuration(tmp_path)
    (tmp_path / "requirements").mkdir()
    (tmp_path / LOCK).write_text(lock, encoding="utf-8")
    (tmp_path / "chapter99").mkdir()
    notebook = {"cells": [{"cell_type": "code", "execution_count": 1, "id": "a", "metadata": {},
                           "outputs": [{"name": "stdout", "output_type": "stream", "text": "29\n"}],
                           "source": "print(28)"}],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "chapter99" / "01_wrong.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    (tmp_path / "tests").mkdir()
    result = subprocess.run([sys.executable, "-m", "pytest", "--nbval"], cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 1 and "chapter99/01_wrong.ipynb::Cell 0" in result.stdout, result.stdout
    return result.stdout


@pytest.mark.parametrize("drift", [True, False], ids=["other versions", "locked versions"])
def test_a_failing_cell_names_the_versions_that_made_the_stored_outputs(tmp_path, drift):
    numpy, nbval = metadata.version("numpy"), metadata.version("nbval")
    locked_numpy = "1.0.0" if drift else numpy
    out = failing_notebook_run(tmp_path, f"numpy=={locked_numpy}\n    # via x\nnbval=={nbval}\n")
    hint = f"numpy: {locked_numpy} in the lock, {numpy} here"
    assert (hint in out) == drift, out
    assert ("make test" in out and f"pip install -r {LOCK}" in out) == drift, out
    assert "nbval:" not in out, "a package installed as locked is not named"
