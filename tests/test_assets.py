"""The widgets' JavaScript and CSS live in files (package data): each is loaded, agrees with the Python that
names its classes, draws one focus ring, and goes into the wheel."""

import pathlib
import re
import shutil
import subprocess
import sys
import zipfile

import pytest

from llm_from_scratch.book import widgets
from llm_from_scratch.book.display import FOLDED_CLASS
from llm_from_scratch.ch27 import plane

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "llm_from_scratch"
ASSETS = sorted(PACKAGE.glob("*/assets/*.js")) + sorted(PACKAGE.glob("*/assets/*.css"))
WIDGETS = {  # each widget class: its module's file, its CSS file (if any), and the classes it is given
    widgets._LiveMark: ("mark.js", "live.css", {"live_class": widgets.LIVE_CLASS,
                                                "snapshot_class": widgets.SNAPSHOT_CLASS}),
    widgets._Unfold: ("unfold.js", None, {"exercise_class": widgets.EXERCISE_CLASS, "folded_class": FOLDED_CLASS}),
    widgets.Slider: ("slider.js", "slider.css", {"css_class": widgets.SLIDER_CLASS}),
    widgets.AnswerBox: ("answer.js", "answer.css", {"css_class": widgets.ANSWER_CLASS}),
    plane.VectorPlane: ("plane.js", "plane.css", {"css_class": plane.PLANE_CLASS}),
}


def made(cls):
    return cls(options=[1, 2], value=1) if cls is widgets.Slider else cls()


@pytest.mark.parametrize("cls", list(WIDGETS), ids=lambda c: c.__name__)
def test_each_widget_loads_its_files_and_is_given_the_classes_its_css_styles(cls):
    module, css, classes = WIDGETS[cls]
    widget = made(cls)
    script = str(widget._esm)
    assert script.startswith((widgets.ASSETS / "render.js").read_text(encoding="utf-8"))
    assert script.endswith(next(p for p in ASSETS if p.name == module).read_text(encoding="utf-8"))
    assert script.count("export default { render };") == 1
    for trait, name in classes.items():
        assert getattr(widget, trait) == name and f'model.get("{trait}")' in script
    if css:
        styles = str(widget._css)
        assert styles == next(p for p in ASSETS if p.name == css).read_text(encoding="utf-8")
        assert any(f".{name}" in styles for name in classes.values()), "the CSS styles the class the kernel gives"


def test_no_module_reads_a_value_the_kernel_does_not_send():
    """Every model.get("x") of a module names a synced trait of its widget."""
    for cls, (module, _, _) in WIDGETS.items():
        widget = made(cls)
        synced = set(widget.traits(sync=True))
        asked = set(re.findall(r'model\.get\("(\w+)"\)', (next(p for p in ASSETS if p.name == module)).read_text()))
        assert asked <= synced, (cls.__name__, asked - synced)


def test_every_focus_ring_is_the_same_2px_ring():
    rules = [re.sub(r"/\*.*?\*/", "", path.read_text(encoding="utf-8"), flags=re.S)  # comments aside
             for path in ASSETS if path.suffix == ".css"]
    rings = {ring for css in rules for ring in re.findall(r"outline:\s*([^;}]+)", css)}
    assert rings == {"2px solid #1a56db !important"}


def test_no_javascript_or_css_is_left_in_python_strings():
    for path in PACKAGE.rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        assert "export default" not in source and "function render(" not in source, path


@pytest.mark.slow
def test_the_wheel_carries_every_asset(tmp_path):
    """Built as pip builds it for an install that is not editable (from a copy: a build writes beside it): the
    assets and every catalogue of strings, in every language."""
    source = tmp_path / "source"
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("*.egg-info", "__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(tmp_path), str(source)],
                   check=True, timeout=600)
    [wheel] = tmp_path.glob("llm_from_scratch-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {path.relative_to(ROOT / "src").as_posix() for path in ASSETS}
    assert len(expected) == 10 and expected <= names, expected - names
    catalogues = {path.relative_to(ROOT / "src").as_posix() for path in (ROOT / "src").glob("*/*/catalogues/*/*.toml")}
    assert len(catalogues) == 2 * 12 and catalogues <= names, catalogues - names  # book, chapter, slips, 9 notebooks
