"""Heatmaps and plots as deterministic SVG, each with a text-table alternative.

Readable without colour: every cell prints its value, the colormap is
cividis (colour-blind safe, and monotonic in lightness, so it reads in greyscale),
each number is black or white, whichever contrasts more with its cell (at least
4.5:1 over the whole colormap, WCAG's ratio for text), and the frame's line style
names the role (query thin solid, key dashed, value double, score dotted,
weight thick solid).
"""

from __future__ import annotations

import base64
import io
import math
import re
import textwrap
from dataclasses import dataclass
from html import escape

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import Normalize
from matplotlib.figure import Figure as MplFigure
from matplotlib.patches import Rectangle

from .blocks import FRAMES
from .formatting import cell, num, places, powers_of_two, table
from .text import book_text, language

matplotlib.rcParams.update({
    "svg.hashsalt": "llm-from-scratch",  # fixed ids: the same figure gives the same bytes
    "svg.fonttype": "none",  # text stays text: searchable, readable by screen readers, smaller
    "font.family": "DejaVu Sans",
    "font.size": 10,
})
COLORMAP = "cividis"
SVG_TEXT = re.compile(r"(<text[^>]*>)([^<]*)(</text>)")
NUMBER = re.compile(r"(?<![\w.])[−-]?\d+(?:\.\d+)?(?:e[−+-]?\d+)?")
# a hatch pattern's id: a hash of its hatch, its colours and, after matplotlib 3.8, its line width, so it differs
# between releases; to_svg names each pattern by the order it is first used in, which every release gives alike
HATCH_ID = re.compile(r'(?<=url\(#)h[0-9a-f]{10}(?=\))|(?<=<pattern id=")h[0-9a-f]{10}(?=")')


FOLDED_GREY = "#bfbfbf"  # the one colour a folded figure's fallback draws its cells in: a colour would answer
COLOUR = re.compile(r"(?<=fill: |roke: )#(?!000000|ffffff)[0-9a-f]{6}")


def without_answers(svg: str) -> str:
    """``svg`` with every number its texts print replaced by … and every cell's colour made one grey: what a folded
    answer keeps in the fallbacks a plain-text viewer or a diff shows (titles, labels, captions and frames stay, and
    nbval compares them), so that neither a number nor a shade of the map gives the answer away."""
    return COLOUR.sub(FOLDED_GREY, SVG_TEXT.sub(lambda m: m[1] + NUMBER.sub("…", m[2]) + m[3], svg))


@dataclass(frozen=True)
class Figure:
    """An SVG figure, its title, and the same numbers as a plain-text table.

    A notebook stores it twice: as SVG text, which nbval compares by meaning, and as
    HTML, which JupyterLab shows (HTML outranks SVG), trusted or not: an image with a
    text alternative. The image is the same SVG, base64-encoded; a test checks that.
    """

    svg: str
    title: str
    table: str

    @property
    def alt(self) -> str:
        return f"{self.title}. {book_text('figure.alt')}"

    def described_svg(self, description: str | None = None) -> str:
        """The SVG with its title and description (by default: where its numbers are written) as its first
        children, for screen readers."""
        start = self.svg.index(">", self.svg.index("<svg")) + 1
        head = f"<title>{escape(self.title)}</title><desc>{escape(description or book_text('figure.alt'))}</desc>"
        return self.svg[:start] + head + self.svg[start:]

    def _repr_svg_(self) -> str:
        return self.described_svg()

    def _repr_html_(self) -> str:
        data = base64.b64encode(self.described_svg().encode()).decode()
        return f'<img alt="{escape(self.alt)}" src="data:image/svg+xml;base64,{data}" lang="{language()}">'

    def __repr__(self) -> str:
        return self.title


def relative_luminance(colour) -> float:
    """WCAG 2's relative luminance of an sRGB colour given as fractions (r, g, b[, a])."""
    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(float(c)) for c in colour[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(first, second) -> float:
    """WCAG 2's contrast ratio of two colours, from 1 (same) to 21 (black on white)."""
    light, dark = sorted((relative_luminance(first), relative_luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def text_colour(background) -> str:
    """Black or white text, whichever contrasts more with ``background`` (never less than 4.58:1)."""
    return "black" if contrast_ratio(background, (0, 0, 0)) >= contrast_ratio(background, (1, 1, 1)) else "white"


# matplotlib writes its line joins and caps as a style rule for every element ("*"). A live widget draws its
# SVG inline, where that rule restyles the whole page, and replacing it on each slider step made the browser
# recompute the style of all of JupyterLab's elements (about 40 ms a step). As attributes of the figure's root
# the same defaults are inherited by the figure alone.
MATPLOTLIB_STYLE = re.compile(r'\s*<defs>\s*<style type="text/css">\*\{stroke-linejoin: round; '
                              r'stroke-linecap: butt\}</style>\s*</defs>')


def to_svg(fig: MplFigure, tight: bool = True) -> str:
    """The figure as SVG, cropped to what is drawn unless ``tight`` is false, styling nothing outside itself.

    Figures are made without pyplot: no global figure list, and no display hook
    installed into IPython (matplotlib 3.8's hook needs a function IPython 9 removed).
    """
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight" if tight else None, metadata={"Date": None, "Creator": None})
    svg = MATPLOTLIB_STYLE.sub("", buffer.getvalue(), count=1)
    names: dict[str, str] = {}
    svg = HATCH_ID.sub(lambda m: names.setdefault(m[0], f"hatch{len(names) + 1}"), svg)
    return svg.replace("<svg ", '<svg stroke-linejoin="round" stroke-linecap="butt" ', 1)


def _frame(ax: Axes, role: str) -> None:
    """The role's frame on the edge of the axes; a double frame's second line runs just inside it, so
    neither line crosses a tick label or the caption."""
    frame = FRAMES[role]
    for spine in ax.spines.values():
        spine.set_visible(False)
    for inset in (0.0, 0.025) if frame.double else (0.0,):
        ax.add_patch(Rectangle((inset, inset), 1 - 2 * inset, 1 - 2 * inset, transform=ax.transAxes,
                               fill=False, linestyle=frame.line, linewidth=frame.width, edgecolor="black",
                               clip_on=False))


CAPTION_CHARACTERS_PER_INCH = 13  # at font size 9: a longer line under a heatmap is broken into lines


def heatmap(matrix, row_labels, column_labels, title: str, row_axis: str, column_axis: str,
            role: str | None = "score", row_sums: bool = False,
            value_range: tuple[float, float] | None = None, note: str = "") -> Figure:
    """A labelled heatmap of a 2-D matrix, every value printed in its cell; the axes are titled
    ``row_axis`` and ``column_axis`` and the frame's style names the ``role`` (None: a matrix of no role,
    unframed). A ``note`` goes under the map, after the frame's caption, and under its text table."""
    matrix = np.asarray(matrix, dtype=np.float64)
    rows, columns = matrix.shape
    fig = MplFigure(figsize=(1.3 * columns + 2.4, 0.75 * rows + 1.4))
    ax = fig.subplots()
    finite = matrix[np.isfinite(matrix)]
    low, high = value_range or ((float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0))
    if math.isclose(low, high, rel_tol=1e-9, abs_tol=1e-12):
        # values that differ only by rounding (row sums of 1 and 1 − 2⁻⁵³, which depend on numpy's order of
        # summing) are one value: one colour, not the colormap's two ends
        high = low + 1
    norm, colormap = Normalize(low, high), matplotlib.colormaps[COLORMAP]
    decimals = places(matrix)
    for (i, j), value in np.ndenumerate(matrix):
        # one patch per cell, so its colour is written into the SVG as text (an image would be opaque bytes);
        # a thin edge of the same colour leaves no light seam between neighbouring cells. A cell with no finite
        # number (−∞, a masked score; NaN) is white in a grey edge: no colour of the map, black text on it
        colour = colormap(norm(value)) if np.isfinite(value) else (1.0, 1.0, 1.0, 1.0)
        edge = colour if np.isfinite(value) else "0.45"
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor=colour, edgecolor=edge, linewidth=0.5))
        ax.text(j, i, cell(value, decimals), ha="center", va="center", fontsize=10, color=text_colour(colour))
    ax.set_xlim(-0.5, columns - 0.5)
    ax.set_ylim(rows - 0.5, -0.5)  # the first row on top, as a matrix is written
    ax.set_xticks(range(columns), column_labels)
    ax.set_yticks(range(rows), row_labels)
    ax.tick_params(length=0)
    ax.xaxis.set_ticks_position("top")
    ax.xaxis.set_label_position("top")
    ax.set_xlabel(column_axis)
    ax.set_ylabel(row_axis)
    ax.set_title(title, pad=12)
    if role is not None:
        _frame(ax, role)
    alt = table(matrix, row_labels, column_labels)
    if row_sums:
        sums = matrix.sum(axis=1)
        for i, total in enumerate(sums):
            ax.text(columns - 0.4, i, f"Σ = {cell(total)}", ha="left", va="center", fontsize=10)
        alt = "\n".join(line + ("" if i == 0 else f"   Σ = {cell(sums[i - 1])}")
                        for i, line in enumerate(alt.splitlines()))
    words = [book_text(key) for key, found in (("figure.infinite", np.isinf(matrix).any()),
                                                ("figure.no_number", np.isnan(matrix).any())) if found]
    note = "\n".join(line for line in (note, *words) if line)  # what −∞ and — mean, for every reader
    caption = "\n".join(line for line in (role and book_text(FRAMES[role].caption), note) if line)
    caption = "\n".join(textwrap.fill(line, int(CAPTION_CHARACTERS_PER_INCH * fig.get_figwidth()))
                        for line in caption.splitlines())  # within the figure's width, never widening it
    if caption:
        fig.text(0.5, -0.06, caption, ha="center", va="top", fontsize=9, style="italic", transform=ax.transAxes)
    return Figure(to_svg(fig), title, alt + (f"\n{note}" if note else ""))


@dataclass(frozen=True)
class Panel:
    title: str
    ylabel: str
    series: dict[str, np.ndarray]
    log2_y: bool = False  # plot log2 of the values, each tick labelled with its power of two (powers_of_two)


# one line style and marker per series, so no series is told apart by colour alone (or dropped)
LINE_STYLES = (("solid", "o"), ("dashed", "s"), ("dotted", "^"), ("dashdot", "D"), ((0, (6, 2, 1, 2, 1, 2)), "v"),
               ((0, (1, 4)), "x"))
# a panel's size in inches, and the margins around the grid of panels (room for tick labels, axis titles,
# panel titles and the mark's caption); two columns of panels fit a notebook column of 964 px
PANEL_SIZE = (4.6, 3.5)
MARGINS = {"left": 0.8, "right": 0.15, "bottom": 0.8, "top": 0.45}  # inches
TITLE_CHARACTERS_PER_INCH = 12  # at font size 10: a longer panel title is broken into lines


def wrap_title(title: str, width: int) -> str:
    """``title`` in lines of at most ``width`` characters, never broken inside an expression such as
    "B = 8" (the spaces around = are kept together with their neighbours) or inside parentheses."""
    kept = re.sub(r" ?= ?", "\u00a0=\u00a0", title)
    kept = re.sub(r"\([^()]*\)", lambda group: group[0].replace(" ", "\u00a0"), kept)
    return textwrap.fill(kept, width).replace("\u00a0", " ")


def line_panels(x_labels: list[str], xlabel: str, panels: list[Panel], mark: int | None = None,
                columns: int | None = None) -> Figure:
    """Line plots over evenly spaced x positions (e.g. powers of two), ``columns`` panels to a row
    (all in one row when not given).

    Lines differ by style and marker, not colour; ``mark`` draws a labelled vertical
    line at that x position. Linear axes with explicit ticks keep rendering fast
    enough for a slider.
    """
    x = np.arange(len(x_labels), dtype=float)
    columns = columns or len(panels)
    rows = -(-len(panels) // columns)
    width, height = PANEL_SIZE[0] * columns, PANEL_SIZE[1] * rows
    fig = MplFigure(figsize=(width, height))
    axes = np.atleast_1d(fig.subplots(rows, columns)).ravel()
    for spare in axes[len(panels):]:
        fig.delaxes(spare)
    title_width = int(TITLE_CHARACTERS_PER_INCH * (PANEL_SIZE[0] - 0.9))
    tables = []
    for ax, panel in zip(axes, panels):
        if len(panel.series) > len(LINE_STYLES):
            raise ValueError(f"a panel draws at most {len(LINE_STYLES)} series, got {len(panel.series)}")
        for (label, values), (style, marker) in zip(panel.series.items(), LINE_STYLES):
            y = np.log2(values) if panel.log2_y else values
            ax.plot(x, y, linestyle=style, marker=marker, color="black", label=label, markersize=5,
                    markerfacecolor="white")
        if panel.log2_y:
            low, high = ax.get_ylim()
            ticks = np.arange(np.floor(low), np.ceil(high) + 1, 2)
            ax.set_yticks(ticks, powers_of_two(ticks))
        if mark is not None:
            ax.axvline(mark, color="0.35", linewidth=1.2, linestyle=(0, (1, 2)))
        ax.set_xticks(x, x_labels, fontsize=8)
        ax.set_title(wrap_title(panel.title, title_width), fontsize=10)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(panel.ylabel)
        ax.grid(True, linewidth=0.3, color="0.8")
        ax.legend(frameon=False, fontsize=8)
        header = [xlabel, *panel.series]
        decimals = [places(v, 4) for v in panel.series.values()]
        rows = ["  ".join(header)] + [
            "  ".join([x_labels[i], *(num(v[i], d) for v, d in zip(panel.series.values(), decimals))])
            for i in range(len(x_labels))]
        tables.append(panel.title + "\n" + "\n".join(rows))
    if mark is not None:
        fig.text(0.5, 0.005, book_text("figure.mark", label=x_labels[mark]), ha="center", fontsize=9, style="italic")
    fig.subplots_adjust(left=MARGINS["left"] / width, right=1 - MARGINS["right"] / width,
                        bottom=MARGINS["bottom"] / height, top=1 - MARGINS["top"] / height, wspace=0.3,
                        hspace=0.55)
    return Figure(to_svg(fig, tight=False), " · ".join(p.title for p in panels), "\n\n".join(tables))
