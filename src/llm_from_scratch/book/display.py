"""How a notebook shows what the book computes: ``show`` plainly, ``show_folded`` folded until opened.

Both take sections (``book.blocks``) and figures (``book.figures``). A figure is shown
as an image with its text table folded beneath it (a section beside it often prints the
same numbers, and a reader who needs the table opens it); a section as text.

A stored cell's outputs can be collapsed with JupyterLab's ``jupyter.outputs_hidden``
metadata, but JupyterLab expands them again as soon as the cell runs, and shows them
collapsed as a line of the first output's HTML source. An HTML ``<details>`` element
stays closed after Restart and Run All as well, in trusted and untrusted notebooks alike
and on pages that render notebooks, and shows its summary: a cell whose output answers a
question shows it through ``show_folded`` alone.
"""

from __future__ import annotations

from html import escape

from IPython.display import display

from .blocks import Section, to_text
from .figures import Figure, without_answers
from .text import book_text, language


def _html(part: Section | Figure) -> str:
    if isinstance(part, Figure):
        return part._repr_html_() + f"<pre>{escape(part.table)}</pre>"
    return f"<pre>{escape(to_text(part))}</pre>"


FOLDED_CLASS = "llm-folded"  # an answer folded until the learner opens it (a form's reveal opens it too)


def figure_bundle(figure: Figure) -> dict[str, str]:
    """One output of a figure: the image with its table folded beneath it (HTML, what JupyterLab shows), the SVG
    (which nbval compares by meaning) and the table as plain text."""
    table = (f"<details><summary>{escape(book_text('figure.table_summary'))}</summary>"
             f"<pre>{escape(figure.table)}</pre></details>")
    return {"text/html": figure._repr_html_() + table, "image/svg+xml": figure.described_svg(),
            "text/plain": figure.table}


def show(*parts: Section | Figure) -> None:
    """Display sections as text (one blank line between them) and each figure with its text table folded beneath it."""
    sections: list[Section] = []
    for part in (*parts, None):
        if isinstance(part, Section):
            sections.append(part)
            continue
        if sections:
            print(to_text(*sections))
            sections = []
        if isinstance(part, Figure):
            display(figure_bundle(part), raw=True)


def folded_html(*parts: Section | Figure) -> str:
    """The parts inside a closed <details>, whose summary says to open it after answering."""
    body = "".join(_html(part) for part in parts)
    summary = escape(book_text("folded.summary"))
    return (f'<details class="{FOLDED_CLASS}" lang="{language()}"><summary>{summary}</summary>'
            f"{body}</details>")


def show_folded(*parts: Section | Figure) -> None:
    """Display sections and at most one figure, folded.

    JupyterLab shows the HTML, whose tables hold every number (nbval compares them). The fallbacks
    that a plain-text viewer or a diff shows hold no answer: the plain text only says what is folded,
    and the figure's SVG, which nbval compares by meaning as for any figure, has its numbers blanked and its
    cells in one grey.
    """
    figures = [part for part in parts if isinstance(part, Figure)]
    if len(figures) > 1:
        raise ValueError("show_folded takes at most one figure: one output holds one SVG")
    bundle = {"text/html": folded_html(*parts), "text/plain": book_text("folded.summary")}
    if figures:
        bundle["image/svg+xml"] = without_answers(figures[0].described_svg())
    display(bundle, raw=True)


def show_note(message: str) -> None:
    """Display a note the learner should read before going on (as HTML, and as text for nbval)."""
    display({"text/html": f'<div role="note" lang="{language()}" style="border-left:4px dotted #000;padding:4px 8px">'
                          f"{escape(message)}</div>", "text/plain": message}, raw=True)
