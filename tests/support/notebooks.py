"""Reading stored notebooks in tests: their code cells, what their outputs say, their language."""

from __future__ import annotations

import io
import pathlib
import re
import tokenize
from html import unescape
from html.parser import HTMLParser

import nbformat
from nbval.plugin import get_sanitize_patterns

from llm_from_scratch.book.text import LANGUAGES
from tools.pytest_plugin import SANITIZE

NBVAL_PATTERNS = get_sanitize_patterns(SANITIZE.read_text(encoding="utf-8"))
LANGUAGE_LINE = re.compile(r'^set_language\("(\w+)"\)$', re.M)
EXERCISE_CALL = re.compile(r'^(exercise|challenge)\("([a-z-]+)"', re.M)


def sanitized(value):
    """``value`` (a string, or outputs: lists and dicts of them) with every string put through the project's nbval
    sanitizers in their order: what nbval compares."""
    if isinstance(value, str):
        for regex, replace in NBVAL_PATTERNS:
            value = re.sub(regex, replace, value)
        return value
    if isinstance(value, list):
        return [sanitized(item) for item in value]
    if isinstance(value, dict):
        return {key: sanitized(item) for key, item in value.items()}
    return value


def exercises_asked(source: str) -> list[str]:
    """The exercises a code cell asks, in order: ``exercise("id")`` one, ``challenge("id", plane)`` its
    prediction and then its move."""
    asked = []
    for call, exercise_id in EXERCISE_CALL.findall(source):
        asked += [f"{exercise_id}-prediction", exercise_id] if call == "challenge" else [exercise_id]
    return asked


def without_comments(source: str) -> str:
    """A cell's code with its comments cut off (a line that was only a comment goes): what every edition shares,
    since a comment speaks the edition's language."""
    lines = source.splitlines()
    commented = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            row, column = token.start
            lines[row - 1] = lines[row - 1][:column].rstrip()
            commented.add(row - 1)
    return "\n".join(line for i, line in enumerate(lines) if line or i not in commented)


def comments(source: str) -> str:
    """A cell's comments, a line each: what a reader reads in the code besides the code."""
    return "\n".join(token.string for token in tokenize.generate_tokens(io.StringIO(source).readline)
                     if token.type == tokenize.COMMENT)


def load(path: pathlib.Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def code_cells(notebook: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [c for c in notebook.cells if c.cell_type == "code" and c.source.strip()]


def outputs_text(cell: nbformat.NotebookNode) -> str:
    """Everything a cell's outputs say as text (streams and text/* data)."""
    parts = []
    for output in cell.get("outputs", []):
        parts.append(output.get("text", ""))
        for mime, value in output.get("data", {}).items():
            if mime.startswith("text/"):
                parts.append(value if isinstance(value, str) else "".join(value))
    return "\n".join(parts)


def run_edited(path: pathlib.Path, edits: dict[str, tuple[str, str]], twice: str = "") -> nbformat.NotebookNode:
    """The notebook at ``path`` with each code cell that contains a pair's first string changed as the pair says
    (and the cell that contains ``twice`` run a second time right after itself), run in a fresh kernel."""
    notebook = load(path)
    for cell in code_cells(notebook):
        for old, new in edits.values():
            if old in cell.source:
                cell.source = cell.source.replace(old, new, 1)
    if twice:
        at = next(i for i, cell in enumerate(notebook.cells) if cell.cell_type == "code" and twice in cell.source)
        notebook.cells.insert(at + 1, nbformat.from_dict({**notebook.cells[at], "id": "again"}))
    return execute(notebook, path.parent)


def execute(notebook: nbformat.NotebookNode, folder: pathlib.Path) -> nbformat.NotebookNode:
    """Run ``notebook`` top to bottom in a fresh kernel (over IPC: tools/kernels.py) working in ``folder``."""
    from nbclient import NotebookClient

    from tools.kernels import AsyncIPCKernelManager

    NotebookClient(notebook, timeout=300, kernel_name="python3", kernel_manager_class=AsyncIPCKernelManager,
                   resources={"metadata": {"path": str(folder)}}).execute()
    return notebook


def outputs_of(notebook: nbformat.NotebookNode, needle: str, kind: str = "text/plain") -> str:
    """The outputs of the code cell that contains ``needle``, of one kind (a stream's text for text/plain too)."""
    cell = next(cell for cell in code_cells(notebook) if needle in cell.source)
    return "".join(output.get("data", {}).get(kind, "") + (output.get("text", "") if kind == "text/plain" else "")
                   for output in cell.outputs)


def figure_table(data: dict) -> str:
    """A figure output's text table, as its HTML shows it (a folded one keeps its numbers there alone)."""
    html = data["text/html"] if isinstance(data["text/html"], str) else "".join(data["text/html"])
    return unescape(re.search(r"<pre>(.*?)</pre>", html, re.S)[1])


def language_of(notebook: nbformat.NotebookNode) -> str | None:
    """The language the notebook's first code cell chooses, if it chooses one."""
    cells = code_cells(notebook)
    found = LANGUAGE_LINE.findall(cells[0].source) if cells else []
    return found[0] if found and found[0] in LANGUAGES else None




BLOCK_TAGS = {"p", "div", "tr", "li", "ul", "ol", "pre", "br", "section", "caption", "table", "details", "summary",
              "h1", "h2", "h3", "h4", "h5", "h6"}


class _ShownText(HTMLParser):
    """The text of HTML as a reader sees it: a line per block, an image by its alternative text, a folded
    ``<details>`` by its summary alone (what it holds is not on screen until the reader opens it)."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.hidden = 0  # inside a style, a script, or a closed details outside its summary
        self.folds: list[bool] = []  # for each details we are in: closed

    def handle_starttag(self, tag, attrs):
        if tag in ("style", "script"):
            self.hidden += 1
        elif tag == "details":
            closed = "open" not in dict(attrs)
            self.folds.append(closed)
            self.hidden += closed
        elif tag == "summary" and self.folds and self.folds[-1]:
            self.hidden -= 1
        if tag in BLOCK_TAGS:
            self.parts.append("\n")
        elif tag == "img" and not self.hidden:
            self.parts.append("\n" + (dict(attrs).get("alt") or "") + "\n")
        elif tag in ("td", "th"):
            self.parts.append(" ")

    def handle_endtag(self, tag):
        if tag in ("style", "script"):
            self.hidden -= 1
        elif tag == "details" and self.folds:
            self.hidden -= self.folds.pop()
        elif tag == "summary" and self.folds and self.folds[-1]:
            self.hidden += 1
        if tag in BLOCK_TAGS:
            self.parts.append("\n")

    def handle_data(self, data):
        if not self.hidden:
            self.parts.append(data)


def shown_lines(output: dict) -> list[str]:
    """What a reader sees of one stored output, as non-empty lines with their spaces collapsed: its HTML when it
    has some (what JupyterLab shows), else its plain text or stream."""
    data = output.get("data", {})
    joined = lambda value: value if isinstance(value, str) else "".join(value)  # noqa: E731
    if "text/html" in data:
        parser = _ShownText()
        parser.feed(joined(data["text/html"]))
        text = "".join(parser.parts)
    else:
        text = joined(data.get("text/plain", output.get("text", "")))
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]
