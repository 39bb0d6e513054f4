"""nbval's figure guard (tools/nbval_sanitize.cfg): what a reader sees is compared, where it is drawn is not.

Copies of the stored notebooks that hold the figures changed below (a heatmap of each role's frame, a line plot, a
slider's figure: 02 and 04 of both editions) get every figure's layout changed (coordinates shifted, path data
re-encoded, ids renamed, fonts written as matplotlib 3.8 writes them) and, in one figure cell each, one change a
reader would see; a single ``pytest --nbval`` over the copies must fail exactly those cells. The other notebooks'
figures are drawn by the same code and compared through the same patterns (the last two tests read every stored
figure), so executing them again here would prove nothing more.
"""

import json
import pathlib
import re
import subprocess
import sys

import pytest
from support import copy_configuration
from support.notebooks import sanitized

from llm_from_scratch.book.chapters import chapters
from llm_from_scratch.ch27.strings import text_in

ROOT = pathlib.Path(__file__).resolve().parents[1]
CH27 = next(c for c in chapters(ROOT) if c.name == "chapter27")
SVG = "image/svg+xml"
TABLE = "the figure's table"  # the plain text of the output that holds a figure: its table of numbers
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def joined(value) -> str:
    return value if isinstance(value, str) else "".join(value)


def shift_layout(svg: str) -> str:
    """What another matplotlib release may write for the same figure."""
    def shifted(match: re.Match) -> str:
        numbers = NUMBER.sub(lambda n: f"{float(n[0]) + 1.5:.4f}", match[2])  # every number moves
        return match[1] + " ".join(numbers.split()) + '"'

    svg = re.sub(r'(\s(?:x|y|width|height|viewBox|transform|d)=")([^"]*)"', shifted, svg)
    svg = re.sub(r"\b([pm])([0-9a-f]{10})\b", lambda m: m[1] + m[2][::-1], svg)  # clip-path and marker ids
    svg = re.sub(r'id="(\w+?)_(\d+)"', lambda m: f'id="{m[1]}_{int(m[2]) + 10}"', svg)
    return re.sub(r"font-size: (\d+)px; font-family: ([^;\"]+)", r"font: \1px \2", svg)


def replace_once(old: str, new: str):
    def change(s: str) -> str:
        assert old in s, f"{old!r} is not in the output to change"
        return s.replace(old, new, 1)
    return change


def first_number_in_cell(s: str) -> str:
    value = re.search(r">(-?\d+(?:\.\d+)?)</text>", s)[1]
    return s.replace(f">{value}</text>", f">{value[:-1]}{(int(value[-1]) + 1) % 10}</text>", 1)


def cell_colour(s: str) -> str:
    fill = re.search(r'fill: (#[0-9a-f]{6}); stroke: \1', s)[1]  # a cell: filled and edged in its colour
    return s.replace(f"fill: {fill}", "fill: #ff0000", 1)


def dashed_frame(s: str) -> str:
    frame = re.search(r"fill: none; stroke: #000000; stroke-width: [\d.]+", s)[0]  # the role's frame
    return s.replace(frame, frame.replace("fill: none;", "fill: none; stroke-dasharray: 5.92,2.56;"), 1)


def first_plotted_value(s: str) -> str:
    value = re.search(r"^\S+  (\d+\.\d{4})", s, re.M)[1]
    return s.replace(f"  {value}", f"  {value[:-1]}{(int(value[-1]) + 1) % 10}", 1)


# (edition, the figure cell's call, what the change is, the output it changes, how)
CHANGES = [
    ("ru", 'show(scores, "scores")', "a number in a heatmap cell", SVG, first_number_in_cell),
    ("ru", 'show(S, "scaled")', "a heatmap cell's colour", SVG, cell_colour),
    ("ru", 'show_folded(A, "weights", answers="weights")', "a number's colour (contrast)", SVG,
     replace_once("; fill: #ffffff", "")),
    ("ru", 'show_folded(O, "output", sections.mixture_of(A, V, O))', "the frame's line style (its role)", SVG,
     dashed_frame),
    ("ru", "WidthExplorer()", "a legend entry", SVG, replace_once(f">{text_in('ru', 'widget.width.raw')}<", ">?<")),
    ("ru", "ScaleExplorer()", "a tick label", SVG, replace_once(">q_1<", ">q_2<")),
    ("en", 'show(scores, "scores")', "an axis label", SVG,
     replace_once(f">{text_in('en', 'figure.axis.key_columns')}<", ">key positions<")),
    ("en", 'show(S, "scaled")', "the title", SVG,
     replace_once(f">{text_in('en', 'figure.scaled')}<", ">S<")),
    ("en", 'show_folded(A, "weights", answers="weights")', "the caption", SVG,
     replace_once(f">{text_in('en', 'figure.frame.weight')}<", ">a frame<")),
    ("en", "WidthExplorer()", "a plotted value (the table beside the plot)", TABLE, first_plotted_value),
]
LAYOUT_ONLY = [("en", 'show_folded(O, "output", sections.mixture_of(A, V, O))'), ("en", "ScaleExplorer()")]


def figure_cells(notebook: dict) -> list[tuple[int, dict]]:
    """(nbval's cell number, cell) for every code cell that shows an SVG figure nbval compares."""
    code = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
    return [(number, cell) for number, cell in enumerate(code)
            if any(SVG in output.get("data", {}) for output in cell["outputs"])
            and "nbval-ignore-output" not in cell["metadata"].get("tags", [])]


def read(path: pathlib.Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


FIGURE_NOTEBOOKS = [path for path in CH27.notebooks() if any(
    call in "".join(cell["source"]) for _, cell in figure_cells(read(path)) for _, call, *_ in CHANGES + LAYOUT_ONLY)]


def change_output(cell: dict, target: str, how) -> None:
    for output in cell["outputs"]:
        if target == SVG and SVG in output.get("data", {}):
            output["data"][SVG] = how(joined(output["data"][SVG]))
            return
        if target == TABLE and SVG in output.get("data", {}):
            output["data"]["text/plain"] = how(joined(output["data"]["text/plain"]))
            return
        if output.get("name") == target:
            output["text"] = how(joined(output["text"]))
            return
    raise AssertionError(f"no {target} output")


@pytest.fixture(scope="module")
def failed_cells(tmp_path_factory) -> dict[str, object]:
    """Change the copies, run nbval once over them; the failed cells and the cells changed."""
    folder = tmp_path_factory.mktemp("guard")
    editions = {edition: lang for lang, edition in CH27.editions().items()}
    expected, layout_only, copies = {}, set(), []
    for path in FIGURE_NOTEBOOKS:
        lang, notebook = editions[path.parent], read(path)
        copy = pathlib.Path(lang, path.name)
        for number, cell in figure_cells(notebook):
            for output in cell["outputs"]:
                if SVG in output.get("data", {}):
                    before = joined(output["data"][SVG])
                    output["data"][SVG] = shift_layout(before)
                    assert output["data"][SVG] != before and sanitized(output["data"][SVG]) == sanitized(before)
            source = joined(cell["source"])
            for change_lang, call, what, target, how in CHANGES:
                if change_lang == lang and call in source:
                    change_output(cell, target, how)
                    expected[what] = f"{copy}::Cell {number}"
            if any(layout_lang == lang and call in source for layout_lang, call in LAYOUT_ONLY):
                layout_only.add(f"{copy}::Cell {number}")
        (folder / lang).mkdir(exist_ok=True)
        (folder / copy).write_text(json.dumps(notebook), encoding="utf-8")
        copies.append(str(copy))
    assert len(expected) == len(CHANGES) and len(layout_only) == len(LAYOUT_ONLY)
    copy_configuration(folder)  # the project's configuration and its plugin, beside the copies
    result = subprocess.run([sys.executable, "-m", "pytest", "--nbval", "-q", "-rf", *copies], cwd=folder,
                            capture_output=True, text=True)
    failed = set(re.findall(r"^FAILED (\S+::Cell \d+)", result.stdout, re.M))
    return {"failed": failed, "expected": expected, "layout_only": layout_only, "stdout": result.stdout}


@pytest.mark.notebook  # nbval runs over edited copies of the notebooks
@pytest.mark.parametrize("what", [change[2] for change in CHANGES])
def test_a_change_a_reader_would_see_fails_its_cell(failed_cells, what):
    assert failed_cells["expected"][what] in failed_cells["failed"], failed_cells["stdout"][-3000:]


@pytest.mark.notebook
def test_a_layout_change_alone_passes(failed_cells):
    """Every figure's layout changed; only the cells with a visible change fail."""
    assert failed_cells["failed"] == set(failed_cells["expected"].values()), failed_cells["stdout"][-3000:]
    assert failed_cells["layout_only"] and not failed_cells["layout_only"] & failed_cells["failed"]


def stored_outputs():
    """(notebook, mime type or stream name, text) of every stored output string nbval compares."""
    for path in CH27.notebooks():
        for cell in read(path)["cells"]:
            for output in cell.get("outputs", []):
                for mime, value in output.get("data", {}).items():
                    if isinstance(value, (str, list)):
                        yield path, mime, joined(value)
                if "text" in output:
                    yield path, output["name"], joined(output["text"])
                if "evalue" in output:
                    yield path, "evalue", output["evalue"]


def test_the_sanitizers_change_no_output_but_figures():
    """Text, tables and HTML (which also carry style and tag attributes) are compared exactly as stored;
    in a figure's HTML form only the image's bytes are left out (they are the SVG, guarded above)."""
    image = re.compile(r"data:image/svg\+xml;base64,[A-Za-z0-9+/=]+")
    for path, mime, value in stored_outputs():
        if mime != SVG:
            kept = image.sub("", value)
            assert sanitized(kept) == kept, f"{path.name}: {mime} {value[:200]!r}"


def test_a_sanitized_figure_keeps_every_text_and_colour():
    svgs = [value for _, mime, value in stored_outputs() if mime == SVG]
    assert svgs
    colour = re.compile(r'fill(?:: |=")(#[0-9a-f]{6})')
    stroke = re.compile(r'stroke[-\w]*: [^;"}]*')
    for svg in svgs:
        kept = sanitized(svg)
        assert re.findall(r">([^<>]+)</text>", kept) == re.findall(r">([^<>]+)</text>", svg)
        assert colour.findall(kept) == colour.findall(svg)
        assert stroke.findall(kept) == stroke.findall(svg)
        assert not re.search(r'\s(?:x|y|d|id|transform)="', kept), "a coordinate or id is still compared"
