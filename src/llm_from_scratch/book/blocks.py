"""The blocks a chapter's sections are built of, described once as data and rendered as text or as HTML.

A ``Section`` is a title and parts: a ``Matrix`` (a labelled table of numbers), a
``Value`` (a label and a value), a ``Verdict`` (a check and its outcome), a ``Note``
(a sentence), a ``Table`` (rows of text cells) and a ``Group`` (parts framed together,
the frame's line style naming their role). ``to_text`` renders a section for the
report and for notebook cells, ``to_html`` for the trace and for widgets; both walk
the same description, so what they show cannot disagree.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from html import escape

import numpy as np

from .formatting import num, places, shape, table
from .text import book_text


@dataclass(frozen=True)
class Frame:
    """How one role's frame looks, in HTML and in a figure alike, and what it says in words."""

    border: str  # CSS
    line: str  # matplotlib's line style of the figure's frame
    width: float  # its width in points
    double: bool  # a second line just inside the first
    caption: str  # catalogue key: the frame's caption in figures and legends
    name: str  # catalogue key: its name for a screen reader


# Frames by role, so no meaning is carried by colour and no two roles share a frame: the one table of them
FRAMES = {
    "query": Frame("1px solid #000", "solid", 1.2, False, "figure.frame.query", "frame.name.query"),
    "key": Frame("2px dashed #000", "dashed", 1.6, False, "figure.frame.key", "frame.name.key"),
    "value": Frame("4px double #000", "solid", 1.2, True, "figure.frame.value", "frame.name.value"),
    "score": Frame("2px dotted #000", "dotted", 1.8, False, "figure.frame.score", "frame.name.score"),
    "weight": Frame("5px solid #000", "solid", 4.0, False, "figure.frame.weight", "frame.name.weight"),
}


@dataclass(frozen=True)
class Matrix:
    name: str
    values: np.ndarray  # 2-D
    rows: tuple[str, ...]
    columns: tuple[str, ...]
    caption: str = ""
    shape: tuple[int, ...] | None = None  # the whole tensor's shape, printed beneath


@dataclass(frozen=True)
class Value:
    label: str
    value: str
    sep: str = " = "  # ": " after a label in words


@dataclass(frozen=True)
class Verdict:
    label: str
    passed: bool
    outcome: str  # the verdict in words ("passed", "bitwise identical")
    detail: str = ""


@dataclass(frozen=True)
class Note:
    text: str
    width: int | None = None  # as text, wrapped at spaces to lines this long (a browser would break words)


@dataclass(frozen=True)
class Table:
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    align: str = ""  # one letter a column, "l" or "r"; left when not given


@dataclass(frozen=True)
class Group:
    parts: tuple[Part, ...]
    role: str | None = None
    caption: str = ""


Part = Matrix | Value | Verdict | Note | Table | Group


@dataclass(frozen=True)
class Section:
    title: str
    parts: tuple[Part, ...]

    def __repr__(self) -> str:
        return to_text(self)


# --- text ------------------------------------------------------------------------------

def _mark(passed: bool) -> str:
    return "✔" if passed else "✘"


def _text_table(part: Table) -> list[str]:
    rows = (part.header, *part.rows)
    widths = [max(len(row[i]) for row in rows) for i in range(len(part.header))]
    align = part.align.ljust(len(widths), "l")
    return ["  ".join(cell.rjust(w) if a == "r" else cell.ljust(w) for cell, w, a in zip(row, widths, align)).rstrip()
            for row in rows]


def _part_text(part: Part) -> list[str]:
    if isinstance(part, Matrix):
        lines = [f"{part.name}  ({part.caption})" if part.caption else part.name]
        lines += table(part.values, list(part.rows), list(part.columns)).splitlines()
        return lines + ([f"{book_text('shape')}: {shape(part.shape)}"] if part.shape is not None else [])
    if isinstance(part, Value):
        return [f"{part.label}{part.sep}{part.value}"]
    if isinstance(part, Verdict):
        return [f"{part.label}: {_mark(part.passed)} {part.outcome}" + (f" ({part.detail})" if part.detail else "")]
    if isinstance(part, Note):
        return textwrap.wrap(part.text, part.width, subsequent_indent="   ") if part.width else [part.text]
    if isinstance(part, Table):
        return _text_table(part)
    lines = [part.caption] if part.caption else []
    return lines + ["  " + line for p in part.parts for line in _part_text(p)]


def to_text(*sections: Section) -> str:
    """Sections as plain text, each under its underlined title."""
    out = []
    for section in sections:
        out += [section.title, "-" * len(section.title)]
        out += [line for part in section.parts for line in _part_text(part)]
        out.append("")
    return "\n".join(out[:-1])


# --- HTML ------------------------------------------------------------------------------

def _code(value: str) -> str:
    return f'<code style="font-family:monospace">{escape(value)}</code>'


def _html_matrix(part: Matrix) -> str:
    head = "".join(f'<th scope="col" style="padding:2px 8px">{escape(c)}</th>' for c in part.columns)
    decimals = places(part.values)
    rows = "".join(
        f'<tr><th scope="row" style="padding:2px 8px">{escape(label)}</th>'
        + "".join(f'<td style="padding:2px 8px;text-align:right;font-family:monospace">{num(x, decimals)}</td>'
                  for x in row)
        + "</tr>"
        for label, row in zip(part.rows, np.asarray(part.values))
    )
    caption = escape(part.name) + (f" <em>({escape(part.caption)})</em>" if part.caption else "")
    shape_line = (f"<div>{escape(book_text('shape'))}: {_code(shape(part.shape))}</div>" if part.shape is not None
                  else "")
    return (f'<table style="border-collapse:collapse"><caption style="font-weight:bold;text-align:left">{caption}'
            f"</caption><thead><tr><th></th>{head}</tr></thead><tbody>{rows}</tbody></table>{shape_line}")


def _html_table(part: Table) -> str:
    align = ["right" if a == "r" else "left" for a in part.align.ljust(len(part.header), "l")]
    head = "".join(f'<th scope="col" style="padding:2px 8px;text-align:{a}">{escape(c)}</th>'
                   for c, a in zip(part.header, align))
    rows = "".join(
        f'<tr><th scope="row" style="padding:2px 8px;text-align:{align[0]};font-weight:normal">{escape(row[0])}</th>'
        + "".join(f'<td style="padding:2px 8px;text-align:{a}">{_code(cell)}</td>'
                  for cell, a in zip(row[1:], align[1:])) + "</tr>"
        for row in part.rows
    )
    return f'<table style="border-collapse:collapse"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'


def _part_html(part: Part) -> str:
    if isinstance(part, Matrix):
        return _html_matrix(part)
    if isinstance(part, Value):
        return f"<div>{escape(part.label)}{escape(part.sep)}{_code(part.value)}</div>"
    if isinstance(part, Verdict):
        detail = f" ({_code(part.detail)})" if part.detail else ""
        return f"<div>{escape(part.label)}: <strong>{_mark(part.passed)} {escape(part.outcome)}</strong>{detail}</div>"
    if isinstance(part, Note):
        return f"<p>{escape(part.text)}</p>"
    if isinstance(part, Table):
        return _html_table(part)
    body = "".join(_part_html(p) for p in part.parts)
    caption = f'<div style="font-style:italic;margin-bottom:4px">{escape(part.caption)}</div>' if part.caption else ""
    if part.role is None:
        return f"<div>{caption}{body}</div>"
    frame = FRAMES[part.role]
    return (f'<div role="group" aria-label="{escape(part.caption or book_text(frame.name))}" '
            f'style="border:{frame.border};padding:6px 8px;margin:6px;display:inline-block;vertical-align:top">'
            f"{caption}{body}</div>")


def to_html(*sections: Section) -> str:
    """Sections as HTML, each under an ``h4`` title."""
    return "".join(f'<section style="margin:10px 0"><h4 style="margin:4px 0">{escape(s.title)}</h4>'
                   + "".join(_part_html(p) for p in s.parts) + "</section>" for s in sections)


def to_folded_html(*sections: Section) -> str:
    """Sections as HTML, each folded under its title until the reader opens it."""
    return "".join(f'<details style="margin:4px 0"><summary><strong>{escape(s.title)}</strong></summary>'
                   + "".join(_part_html(p) for p in s.parts) + "</details>" for s in sections)


def legend() -> str:
    """Every role's frame, with its meaning in words."""
    return "".join(_part_html(Group((Note(book_text(frame.caption)),), role)) for role, frame in FRAMES.items())
