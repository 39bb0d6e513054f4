"""The chapter's summary that ``progress()`` returns: a picture (``picture``), then, folded, a table per notebook,
the skills and the review, aligned in columns as the learner reads them. It is made from one snapshot of the
store's records; it reads no store itself."""

from __future__ import annotations

import functools
import itertools
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from html import escape

from .declare import Exercise, Notebook
from .figures import Figure
from .mastery import SkillMastery, mastery
from .picture import progress_figure
from .progress import SURE_LEVELS, attempts_of
from .review import SAID, ReviewPolicy, calibration
from .text import Catalogue, book_text, language


def _shown_width(words: str) -> int:
    """How many columns ``words`` take on screen: a combining mark (the bar of V̄) or a zero-width character takes
    none, a wide character (東) two."""
    return sum(0 if unicodedata.category(char) in ("Mn", "Me", "Cf") else
               2 if unicodedata.east_asian_width(char) in ("W", "F") else 1 for char in words)


def _aligned(rows: Sequence[tuple[str, ...]]) -> list[str]:
    """Rows of cells in columns: each cell but a row's last is padded to its column's shown width. A row of one
    cell (a heading) or of none (a blank line) stands as it is and widens no column."""
    table = [row for row in rows if len(row) > 1]
    widths = [max(_shown_width(cell) for cell in column) for column in zip(*table)]
    return ["  ".join([*(cell + " " * (width - _shown_width(cell)) for cell, width in zip(row[:-1], widths)),
                       *row[-1:]]) for row in rows]


@dataclass(frozen=True)
class Progress:
    """The chapter's summary: ``rows`` for code, ``table`` and ``skill_rows`` as the learner reads them."""

    rows: tuple[tuple[str, int, bool], ...]  # id, attempts, right at least once; in the order shown
    header: str
    table: tuple[tuple[str, ...], ...]  # per notebook a heading, its exercises and its total; the chapter's total
    notes: tuple[str, ...] = ()  # about the store: a backup made, or progress kept in memory only
    skills: tuple[SkillMastery, ...] = ()
    skills_header: str = ""
    skill_rows: tuple[tuple[str, str], ...] = ()  # each skill's name and what is said of it
    review: str = ""  # what review holds today and next, and how often each confidence was right
    drawn: tuple = ()  # what ``picture.progress_figure`` draws: skills, what is due when, calibration

    @functools.cached_property
    def figure(self) -> Figure | None:
        """The picture, drawn the first time it is shown (None for a summary with nothing to draw)."""
        return progress_figure(*self.drawn) if self.drawn else None

    def __repr__(self) -> str:
        lines = [self.header, *_aligned(self.table)]
        if self.skill_rows:
            lines += ["", self.skills_header, *_aligned(self.skill_rows)]
        return "\n".join([*lines, *([""] + [self.review] if self.review else []), *self.notes])

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, str]:
        """The picture with its table of numbers folded beneath it, then the text summary, folded too (HTML); the
        SVG; the text summary as plain text."""
        text = repr(self)
        if self.figure is None:
            return {"text/plain": text}
        folded = "".join(f"<details><summary>{escape(summary)}</summary><pre>{escape(body)}</pre></details>"
                         for summary, body in ((book_text("figure.table_summary"), self.figure.table),
                                               (book_text("progress.figure.text"), text)))
        return {"text/html": f'<div lang="{language()}">{self.figure._repr_html_()}{folded}</div>',
                "image/svg+xml": self.figure.described_svg(), "text/plain": text}


def summary(notebooks: Sequence[Notebook], exercises: Mapping[str, Exercise], review: ReviewPolicy,
            strings: Catalogue, records: Mapping[str, Mapping], notes: Sequence[str], now: date) -> Progress:
    """A chapter's summary from its ``records`` (one snapshot of the store): which exercises were checked anywhere
    and which were answered right, by notebook, with each notebook's total and the chapter's; then which skills are
    mastered, what review holds ``now`` and later, and calibration; ``notes`` about the store close it."""
    attempts = _results(records, own=False)
    own = _results(records, own=True)
    skills = tuple(mastery(review.served, records).values())
    text = strings.text
    titles = {i: text(e.title) for i, e in exercises.items()}
    groups = _groups(notebooks, exercises, attempts, text)
    table: list[tuple[str, ...]] = []
    for heading, ids in groups:
        table += [(), (heading,), *(_exercise_row(titles, i, attempts.get(i, []), len(own.get(i, [])), text)
                                    for i in ids),
                  _total_row("progress.total", ids, attempts, text)]
    table += [(), _total_row("progress.chapter_total", tuple(exercises), attempts, text)]
    skill_rows = tuple((text(m.skill), text(
        "progress.skill_row", state=text("progress.mastered" if m.mastered else "progress.not_mastered"),
        first_right=m.first_right, required=m.required, attempts=m.attempts, hints=m.hints)) for m in skills)
    rows = tuple((i, len(attempts.get(i, [])), any(attempts.get(i, []))) for _, ids in groups for i in ids)
    due_now, later = review.queue(records, now)
    due = [(text("progress.figure.now"), len(due_now))] if due_now else []
    due += [(day.isoformat(), len(list(items))) for day, items in itertools.groupby(later, key=lambda i: i.day)]
    next_day = (text("progress.due_next", day=later[0].day.isoformat(), count=sum(i.day == later[0].day
                                                                                for i in later))
                if later else text("progress.due_none"))
    tried = calibration(a for record in records.values() for a in attempts_of(record))
    drawn = ([(text(m.skill), m.first_right, m.required, m.mastered) for m in skills], due, tried)
    levels = "; ".join(f"{text(SAID[level])} — " + (text("progress.figure.no_answers") if not tried.said[level] else
                                                    text("progress.figure.share", right=tried.right[level],
                                                         said=tried.said[level])) for level in SURE_LEVELS)
    return Progress(rows, text("progress.header"), tuple(table), tuple(notes),
                    skills, text("progress.skills_header"), skill_rows,
                    text("progress.due_now", count=len(due_now), later=next_day) + "\n"
                    + text("progress.calibration", levels=levels), drawn)


def _results(records: Mapping[str, Mapping], own: bool) -> dict[str, list[bool]]:
    """Results of every attempt at each exercise (any variant): those on the exercise's values, or (``own``)
    those on the learner's own."""
    return {i: [a["correct"] for a in record["attempts"] if a.get("own", False) == own]
            for i, record in records.items()}


def _groups(notebooks: Sequence[Notebook], exercises: Mapping[str, Exercise], attempts: Mapping[str, list[bool]],
            text) -> list[tuple[str, tuple[str, ...]]]:
    """Each notebook's heading and the exercises it asks; last, any exercise of the book or of the store that
    no notebook asks (one recorded by an earlier version of the chapter, say)."""
    groups = [(text("progress.notebook", number=n.stem[:2], title=text(n.title)), n.asks) for n in notebooks]
    asked = {i for _, ids in groups for i in ids}
    other = tuple(dict.fromkeys(i for i in (*exercises, *attempts) if i not in asked))
    return [*groups, (text("progress.other"), other)] if other else groups


def _exercise_row(titles: Mapping[str, str], exercise_id: str, tried: list[bool], own: int, text
                  ) -> tuple[str, str, str]:
    """An exercise's title (its id if the chapter does not know it), its state and its attempts, with those on the
    learner's own values (which the state does not read) told apart."""
    state = "progress.right" if any(tried) else "progress.tried" if tried else "progress.open"
    counts = [text("progress.attempts", attempts=len(tried))]
    counts += [text("progress.own", own=own)] if own else []
    return titles.get(exercise_id, exercise_id), text(state), " ".join(counts)


def _total_row(label: str, ids: tuple[str, ...], attempts: Mapping[str, list[bool]], text) -> tuple[str, str, str]:
    """The catalogue string ``label``, then how many of ``ids`` were answered right and how many only wrong."""
    tried = [attempts.get(i, []) for i in ids]
    count = text("progress.count", right=sum(map(any, tried)), total=len(ids),
                 tried=sum(bool(t) and not any(t) for t in tried))
    return text(label), count, text("progress.attempts", attempts=sum(map(len, tried)))
