"""Predict-then-check exercises: the machinery every chapter shares.

A chapter lists its exercises in an ``ExerciseBook`` with its string catalogue and
the function that computes its evidence. An exercise's judge reads the answer
(``book.answers``) and returns a ``Judgement``: right or wrong, the catalogue key of
the message, and the misconception it recognised. ``check`` turns that into
``Feedback`` and never raises for any answer; every readable attempt, from any kind
of check, is recorded through ``record_attempt`` in the lasting store
(``book.progress``), so ``reveal`` (which opens the answer only after an attempt)
and ``progress`` see attempts from every notebook and kernel. Expected answers are
computed when checking.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape
from typing import Any

import numpy as np

from .answers import AnswerFormatError, read_choice, read_numbers
from .progress import Note, store
from .text import Catalogue, language

OPTIONS = ("a", "b", "c", "d")
NUMERIC_TOLERANCE = 5e-4  # answers are typed from six printed decimals, or rounded


@dataclass(frozen=True)
class Judgement:
    """A judge's verdict: the message is the catalogue string ``key`` filled with ``fields``."""

    correct: bool
    key: str
    misconception: str | None = None
    fields: dict[str, object] = field(default_factory=dict)


def right(key: str = "feedback.right", **fields: object) -> Judgement:
    return Judgement(True, key, None, fields)


def wrong(misconception: str | None, key: str, **fields: object) -> Judgement:
    return Judgement(False, key, misconception, fields)


@dataclass(frozen=True)
class Feedback:
    exercise_id: str
    correct: bool
    message: str
    misconception: str | None = None
    readable: bool = True  # False: the answer could not be read at all
    verdict_word: str = ""
    note: str = ""  # what the learner must know about the progress store, if anything

    def __repr__(self) -> str:
        return f"{self.verdict_word} {self.message}" + (f"\n{self.note}" if self.note else "")

    def _repr_html_(self) -> str:
        mark = "✔" if self.correct else "✘"
        note = f"<p><em>{escape(self.note)}</em></p>" if self.note else ""
        return (f'<div role="status" lang="{language()}" style="border-left:4px {"solid" if self.correct else "dashed"}'
                f' #000;padding:4px 8px"><strong>{mark} {escape(self.verdict_word)}</strong> {escape(self.message)}'
                f"{note}</div>")


@dataclass(frozen=True)
class Solution:
    exercise_id: str
    shown: bool
    message: str

    def __repr__(self) -> str:
        return self.message

    def _repr_html_(self) -> str:
        return (f'<div role="status" lang="{language()}" style="border-left:4px double #000;padding:4px 8px;'
                f'white-space:pre-wrap">'
                f"{escape(self.message)}</div>")


@dataclass(frozen=True)
class Progress:
    rows: tuple[tuple[str, int, bool], ...]  # id, attempts, right at least once
    words: dict[str, str]
    notes: tuple[str, ...] = ()  # about the store: a backup made, or progress kept in memory only
    titles: dict[str, str] = field(default_factory=dict)  # what the learner reads instead of an id

    def __repr__(self) -> str:
        names = {i: self.titles.get(i, i) for i, _, _ in self.rows}
        width = max(len(name) for name in names.values())
        lines = [self.words["header"]]
        for exercise_id, count, correct in self.rows:
            state = self.words["right"] if correct else (self.words["tried"] if count else self.words["open"])
            lines.append(f"{names[exercise_id].ljust(width)}  {state} ({self.words['attempts']}: {count})")
        return "\n".join([*lines, *self.notes])


@dataclass(frozen=True)
class Exercise:
    id: str
    kind: str  # "numbers", "choice" or "code"
    judge: Callable[[object, Any], Judgement]  # (answer, evidence) -> Judgement
    facts: Callable[[Any], dict[str, str]]  # "answer" and the numbers its explanation cites


class ExerciseBook:
    """A chapter's exercises, their strings and its evidence; attempts last in the store, under ``chapter``."""

    def __init__(self, chapter: str, exercises: tuple[Exercise, ...], strings: Catalogue,
                 evidence: Callable[[], Any], prompt_fields: Callable[[Any], dict[str, str]] = lambda ev: {}) -> None:
        self.chapter = chapter
        self.exercises = {e.id: e for e in exercises}
        self.strings = strings
        self.evidence = evidence
        self.prompt_fields = prompt_fields

    @property
    def attempts(self) -> dict[str, list[bool]]:
        """Results of every recorded attempt by exercise id, from every notebook and kernel."""
        return store().attempts(self.chapter)

    def __getitem__(self, exercise_id: str) -> Exercise:
        if exercise_id not in self.exercises:
            raise KeyError(f"unknown exercise {exercise_id!r}; known: {', '.join(self.exercises)}")
        return self.exercises[exercise_id]

    # what a form shows
    def prompt(self, exercise_id: str) -> str:
        return self.strings.text(f"ex.{exercise_id}.prompt", **self.prompt_fields(self.evidence()))

    def form(self, exercise_id: str) -> str:
        return self.strings.text(f"ex.{exercise_id}.form") if self[exercise_id].kind == "numbers" else ""

    def title(self, exercise_id: str) -> str:
        """The exercise's name for the learner (ids are for code)."""
        return self.strings.text(f"ex.{self[exercise_id].id}.title")

    def options(self, exercise_id: str) -> tuple[tuple[str, str], ...]:
        if self[exercise_id].kind != "choice":
            return ()
        return tuple((letter, self.strings.text(f"ex.{exercise_id}.{letter}")) for letter in OPTIONS)

    # checking
    def check(self, exercise_id: str, answer: object) -> Feedback:
        """Judge ``answer``; a missing or unreadable answer gets a message, never an exception."""
        exercise = self[exercise_id]
        try:
            judgement = exercise.judge(answer, self.evidence())  # the expected answer is computed now
        except AnswerFormatError as error:
            return Feedback(exercise_id, False, str(error), readable=False,
                            verdict_word=self.strings.text("feedback.wrong"))
        note = self.record_attempt(exercise_id, judgement.correct)
        return Feedback(exercise_id, judgement.correct, self.strings.text(judgement.key, **judgement.fields),
                        judgement.misconception,
                        verdict_word=self.strings.text("feedback.correct" if judgement.correct else "feedback.wrong"),
                        note=note)

    def record_attempt(self, exercise_id: str, correct: bool) -> str:
        """Record one readable attempt in the lasting store (every kind of check goes through here).

        Returns what the learner must now be told about the store ("" when nothing).
        """
        lasting = store()
        lasting.record(self.chapter, exercise_id, bool(correct))
        return " ".join(self._say(note) for note in lasting.take_notes())

    def _say(self, note: Note) -> str:
        return self.strings.text(note.key, **note.fields)

    def attempted(self, exercise_id: str) -> bool:
        return bool(self.attempts.get(exercise_id))

    def reveal(self, exercise_id: str) -> Solution:
        """The expected answer, computed now, with its explanation; only after an attempt."""
        exercise = self[exercise_id]
        if not self.attempted(exercise_id):
            return Solution(exercise_id, False, self.strings.text("reveal.locked"))
        facts = exercise.facts(self.evidence())
        return Solution(exercise_id, True, self.strings.text("reveal.answer", answer=facts["answer"])
                        + " " + self.strings.text(f"ex.{exercise_id}.explain", **facts))

    def progress(self) -> Progress:
        """Which exercises were checked anywhere, and which were answered right (recorded ids of other
        checks, such as code exercises, follow the book's own)."""
        lasting = store()
        attempts = lasting.attempts(self.chapter)
        notes = lasting.take_notes()
        if lasting.memory_note and lasting.memory_note not in notes:
            notes.append(lasting.memory_note)
        words = {w: self.strings.text(f"progress.{w}") for w in ("header", "right", "tried", "open", "attempts")}
        ids = [*self.exercises, *(i for i in attempts if i not in self.exercises)]
        return Progress(tuple((i, len(attempts.get(i, [])), any(attempts.get(i, []))) for i in ids), words,
                        tuple(self._say(note) for note in notes),
                        {i: self.title(i) for i in ids if i in self.exercises})

    def reset_progress(self) -> Progress:
        """Start the chapter over: forget every recorded attempt at its exercises, in every kernel."""
        store().reset(self.chapter)
        return self.progress()


# --- judges every chapter can use --------------------------------------------------------

def same(a: np.ndarray, b: np.ndarray, tolerance: float | np.ndarray = NUMERIC_TOLERANCE) -> bool:
    return a.shape == b.shape and bool(np.allclose(a, b, atol=tolerance, rtol=0))


def rows_swapped(answer: np.ndarray, expected: np.ndarray) -> bool:
    return len(expected) > 1 and not same(expected, expected[::-1]) and same(answer, expected[::-1])


def row_labels(prefix: str, count: int) -> tuple[str, ...]:
    return tuple(f"{prefix}_{i}" for i in range(count))


def partial(exercise_id: str, answer: np.ndarray, expected: np.ndarray, labels: tuple[str, ...],
            tolerance: float | np.ndarray = NUMERIC_TOLERANCE) -> Judgement:
    """Name the rows (``labels``) that are right and those that are not (or the exercise's own 'wrong' message)."""
    correct = [i for i in range(len(expected)) if same(answer[i], expected[i], tolerance)]
    if correct:
        return wrong(None, "feedback.partial", right=", ".join(labels[i] for i in correct),
                     wrong=", ".join(labels[i] for i in range(len(expected)) if i not in correct))
    return wrong(None, f"ex.{exercise_id}.wrong")


def index_per_row(exercise_id: str, expected_of: Callable[[Any], np.ndarray], swapped: str,
                  form: Callable[[str], str]) -> Callable[[object, Any], Judgement]:
    """A judge of one 0/1 index per row; reversed rows are the misconception ``swapped``.

    ``form(key)`` gives the catalogue string ``key`` (the chapter's answer forms).
    """
    def judge(answer, ev):
        expected = expected_of(ev).astype(float)
        a = read_numbers(answer, form(f"ex.{exercise_id}.form"))
        if a.shape != expected.shape or not np.isin(a, (0, 1)).all():
            raise AnswerFormatError(form(f"ex.{exercise_id}.form_hint"))
        if same(a, expected):
            return right()
        if rows_swapped(a, expected):
            return wrong(swapped, f"mis.{swapped}")
        return partial(exercise_id, a, expected, row_labels("q", len(expected)))
    return judge


def choice_exercise(exercise_id: str, correct: str, misconceptions: dict[str, str],
                    facts: Callable[[Any], dict[str, str]]) -> Exercise:
    """A choice among OPTIONS; each wrong letter may name a misconception, and every message
    (``ex.<id>.right``, ``ex.<id>.why_<letter>``) may cite ``facts``."""
    def facts_with_answer(ev):
        return {**facts(ev), "answer": correct}

    def judge(answer, ev):
        letter = read_choice(answer, OPTIONS)
        fields = facts_with_answer(ev)
        if letter == correct:
            return right(f"ex.{exercise_id}.right", **fields)
        return wrong(misconceptions.get(letter), f"ex.{exercise_id}.why_{letter}", **fields)
    return Exercise(exercise_id, "choice", judge, facts_with_answer)
