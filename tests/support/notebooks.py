"""Reading stored notebooks in tests: their code cells, what their outputs say, their language."""

from __future__ import annotations

import pathlib
import re

import nbformat

from llm_from_scratch.book.text import LANGUAGES

LANGUAGE_LINE = re.compile(r'^set_language\("(\w+)"\)$', re.M)
EXERCISE_CALL = re.compile(r'^(exercise|challenge)\("([a-z-]+)"', re.M)


def exercises_asked(source: str) -> list[str]:
    """The exercises a code cell asks, in order: ``exercise("id")`` one, ``challenge("id", plane)`` its
    prediction and then its move."""
    asked = []
    for call, exercise_id in EXERCISE_CALL.findall(source):
        asked += [f"{exercise_id}-prediction", exercise_id] if call == "challenge" else [exercise_id]
    return asked


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


def language_of(notebook: nbformat.NotebookNode) -> str | None:
    """The language the notebook's first code cell chooses, if it chooses one."""
    cells = code_cells(notebook)
    found = LANGUAGE_LINE.findall(cells[0].source) if cells else []
    return found[0] if found and found[0] in LANGUAGES else None


