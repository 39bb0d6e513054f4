"""Progress as a picture: mastery per skill, what review holds and when, and calibration, in three panels of bars.

Readable without colour as every figure of the book: black outlines, fills told apart by hatching, and every
bar's value printed beside it; the same numbers stand in the figure's text table.
"""

from __future__ import annotations

from matplotlib.figure import Figure as MplFigure
from matplotlib.ticker import MaxNLocator

from .figures import Figure, to_svg
from .progress import SURE_LEVELS
from .review import SAID, Calibration
from .text import book_text

BAR = {"height": 0.6, "edgecolor": "black", "linewidth": 1.0}
DONE, OPEN = {"facecolor": "0.55", "hatch": ""}, {"facecolor": "white", "hatch": "///"}  # mastered or not: by hatch
ROW_INCHES = 0.34  # the height of one bar's row
WIDTH_INCHES = 8.5


def progress_figure(skills: list[tuple[str, int, int, bool]], due: list[tuple[str, int]],
                    calibration: Calibration) -> Figure:
    """``skills`` (name, answers counted, needed, mastered), ``due`` (a day's label, questions due then: today
    first) and ``calibration`` as three panels of horizontal bars, one under another."""
    levels = [book_text(SAID[level]) for level in SURE_LEVELS]
    rows = [max(len(skills), 1), max(len(due), 1), len(levels)]
    fig = MplFigure(figsize=(WIDTH_INCHES, ROW_INCHES * sum(rows) + 3.2))
    top, middle, bottom = fig.subplots(3, 1, gridspec_kw={"height_ratios": rows, "hspace": 0.9})
    tables = []

    needed = max((required for _, _, required, _ in skills), default=1)
    said = [book_text("progress.figure.counted", first_right=right, required=required)
            + (f", {book_text('progress.mastered')}" if mastered else "") for _, right, required, mastered in skills]
    for row, (_, right, required, mastered) in enumerate(skills):
        top.barh(row, min(right, required), **BAR, **(DONE if mastered else OPEN))
        top.barh(row, required, height=BAR["height"], fill=False, edgecolor="black", linestyle="dotted")
        top.text(required + 0.05, row, said[row], va="center", fontsize=9)
    _axis(top, [name for name, *_ in skills] or [""], book_text("progress.figure.skills"),
          book_text("progress.figure.skill_axis"), needed + 0.9)
    top.xaxis.set_major_locator(MaxNLocator(integer=True))
    tables.append(_table(book_text("progress.figure.skills"), [name for name, *_ in skills] or [""], said))

    most = max((count for _, count in due), default=0)
    for row, (_, count) in enumerate(due):
        middle.barh(row, count, **BAR, **OPEN)
        middle.text(count + 0.05 * max(most, 1), row, str(count), va="center", fontsize=9)
    if not due:
        middle.text(0.02, 0, book_text("progress.figure.nothing_due"), va="center", fontsize=9)
    _axis(middle, [label for label, _ in due] or [""], book_text("progress.figure.due"),
          book_text("progress.figure.due_axis"), max(most, 1) * 1.25)
    middle.xaxis.set_major_locator(MaxNLocator(integer=True))
    tables.append(_table(book_text("progress.figure.due"), [label for label, _ in due] or [""],
                         [str(count) for _, count in due] or [book_text("progress.figure.nothing_due")]))

    shares = []
    for row, level in enumerate(SURE_LEVELS):
        share = calibration.share(level)
        shares.append(book_text("progress.figure.no_answers") if share is None else book_text(
            "progress.figure.share", right=calibration.right[level], said=calibration.said[level]))
        bottom.barh(row, share or 0.0, **BAR, **OPEN)
        bottom.text((share or 0.0) + 0.02, row, shares[-1], va="center", fontsize=9)
    _axis(bottom, levels, book_text("progress.figure.calibration"), book_text("progress.figure.share_axis"), 1.45)
    bottom.set_xticks([0, 0.25, 0.5, 0.75, 1], ["0", "0.25", "0.5", "0.75", "1"])
    tables.append(_table(book_text("progress.figure.calibration"), levels, shares))
    fig.subplots_adjust(left=0.34, right=0.97, top=1 - 0.45 / fig.get_figheight(), bottom=0.6 / fig.get_figheight())
    return Figure(to_svg(fig), book_text("progress.figure.title"), "\n\n".join(tables))


def _axis(ax, labels: list[str], title: str, xlabel: str, right: float) -> None:
    ax.set_yticks(range(len(labels)), labels, fontsize=9)
    ax.set_ylim(len(labels) - 0.5, -0.5)  # the first row on top, as the table reads
    ax.set_xlim(0, right)
    ax.set_title(title, fontsize=10, loc="left")
    ax.set_xlabel(xlabel, fontsize=9)
    ax.tick_params(axis="y", length=0)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def _table(title: str, labels: list[str], values: list[str]) -> str:
    width = max(len(label) for label in labels)
    return "\n".join([title, *(f"{label.ljust(width)}  {value}" for label, value in zip(labels, values))])
