"""The lock, the lowest versions, environment.yml and pyproject agree; a failing cell names the versions."""

import json
import os
import pathlib
import re
import subprocess
import sys
from importlib import metadata

import pytest
from packaging.requirements import Requirement
from packaging.version import Version
from support import copy_configuration

from tools.lock import CONDA_PYTHON, LOCK, LOWEST, SUPPORTED, environment_yml, linux, pins

ROOT = pathlib.Path(__file__).resolve().parents[1]


def declared() -> list[Requirement]:
    """pyproject's dependencies and its test extra (as installed: `make` reinstalls when pyproject changes)."""
    requirements = [Requirement(r) for r in metadata.requires("llm-from-scratch")]
    return [r for r in requirements if r.marker is None or r.marker.evaluate({"extra": "test"})]


def test_environment_yml_pins_exactly_the_lock_on_its_one_python():
    text = (ROOT / "environment.yml").read_text(encoding="utf-8")
    listed = re.findall(r"^      - ([^\s=]+)==(\S+)$", text, re.M)
    assert {name.lower(): version for name, version in listed} == pins(ROOT / LOCK, linux(CONDA_PYTHON))
    assert re.search(rf"^  - python={re.escape(CONDA_PYTHON)}$", text, re.M)
    assert text == environment_yml(), "make lock writes environment.yml from the lock"


def test_one_universal_lock_serves_every_supported_python_with_the_same_releases():
    """The stored outputs are the same bytes everywhere: numpy, matplotlib and the notebook stack are one release."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert f"SUPPORTED := {' '.join(SUPPORTED)}" in makefile and "--universal --fork-strategy fewest" in makefile
    on = {python: pins(ROOT / LOCK, linux(python)) for python in SUPPORTED}
    for name in ("numpy", "matplotlib", "ipywidgets", "jupyterlab", "anywidget", "nbval", "ipykernel"):
        assert len({on[python][name] for python in SUPPORTED}) == 1, name
    assert "requires-python = \">=3.11\"" in (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def python_saying(minor: int, path: pathlib.Path) -> pathlib.Path:
    """A Python that says it is 3.``minor`` to every ``-c`` it runs (all make asks a Python before making a venv)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexec " + sys.executable + f" -c 'import sys; sys.version_info = (3, {minor}, 0); "
                    "exec(sys.argv[2])' -c \"$2\"\n")
    path.chmod(0o755)
    return path


def make(*arguments: str) -> subprocess.CompletedProcess:
    """make in the project, as a newcomer runs it: not inside `make test`, nor `make PYTHON=… test`, whose
    PYTHON make exports to the tests."""
    outer = {name: value for name, value in os.environ.items()
             if name not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "PYTHON")}
    return subprocess.run(["make", "-s", *arguments], cwd=ROOT, capture_output=True, text=True, env=outer)


def test_a_python_outside_the_range_is_refused_in_one_line_before_anything_is_made(tmp_path):
    """make names the range, makes no venv, and says how to choose another Python."""
    fake, venv = python_saying(14, tmp_path / "python3"), tmp_path / "venv"
    result = make(f"VENV={venv}", f"PYTHON={fake}", "test")
    assert result.returncode != 0 and not venv.exists()
    [line] = [line for line in result.stderr.splitlines() if not re.match(r"make(\[\d+\])?:", line)]
    assert "is Python 3.14; this needs Python 3.11 3.12 3.13" in line and "make PYTHON=python3.13 test" in line


def test_a_venv_made_by_another_python_than_the_one_given_is_said_in_one_line_and_made_anew(tmp_path):
    """make PYTHON=… after a venv was made by another Python: one line says so, and the venv goes (here the new
    Python can only answer questions, so making the new venv then fails); without PYTHON, or with one of the same
    version, the venv stays as it is."""
    venv = tmp_path / "venv"
    python_saying(11, venv / "bin" / "python")
    (venv / ".locked").touch()
    given = python_saying(12, tmp_path / "other" / "python3")
    assert make(f"VENV={venv}", "-n", str(venv / ".locked")).stdout == ""
    assert make(f"VENV={venv}", f"PYTHON={python_saying(11, tmp_path / 'same' / 'python3')}", "-n",
                str(venv / ".locked")).stdout == ""
    result = make(f"VENV={venv}", f"PYTHON={given}", str(venv / ".locked"))
    assert result.stdout.splitlines()[0] == (f"make: {venv} was made by Python 3.11 and PYTHON={given} is Python 3.12: "
                                             f"making {venv} anew")
    assert not (venv / ".locked").exists()


def test_the_lock_is_inside_the_declared_ranges():
    locked = pins(ROOT / LOCK)  # as it is on this Python
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


@pytest.mark.notebook
@pytest.mark.parametrize("drift", [True, False], ids=["other versions", "locked versions"])
def test_a_failing_cell_names_the_versions_that_made_the_stored_outputs(tmp_path, drift):
    numpy, nbval = metadata.version("numpy"), metadata.version("nbval")
    locked_numpy = "1.0.0" if drift else numpy
    out = failing_notebook_run(tmp_path, f"numpy=={locked_numpy}\n    # via x\nnbval=={nbval}\n")
    hint = f"numpy: {locked_numpy} in the lock, {numpy} here"
    assert (hint in out) == drift, out
    assert ("make test" in out and f"pip install -r {LOCK}" in out) == drift, out
    assert "nbval:" not in out, "a package installed as locked is not named"
