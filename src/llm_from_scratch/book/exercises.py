"""Predict-then-check exercises: the front every chapter's exercises are served through.

A chapter declares its exercises (``book.declare``) and lists them in an ``ExerciseBook`` with its catalogue, its
evidence and its variants; ``book.lab`` binds the book's answers to the functions its notebooks call. An answer
goes one way through steps that each do one job: the call is checked (``misuse``), the store read once
(``record``), the example drawn (``draw``), the answer judged (``judge``: a pure function of the answer, the values
and what it read of the store), the attempt recorded (``record``: one locked read-modify-write), and the verdict
presented (``present``). ``check`` never raises for any answer. ``reveal`` (which opens the answer only after an
attempt), ``hint`` and ``progress`` see attempts from every notebook and kernel; ``mastery`` reads the skills the
exercises serve (``book.mastery``), ``review`` is the book's review policy (``book.review``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from ..engine import Tensor
from .clock import today
from .code_check import calls_the_engine
from .declare import Exercise, Notebook
from .draw import Examples, Variants
from .feedback import Feedback, Hint, Solution
from .judge import CellsDiffer, Judge, ReadFrom
from .mastery import SkillMastery, mastery
from .misuse import Misuse
from .present import Presenter
from .progress import Learner, store
from .record import Entry, missed_sure_today, recorded
from .review import SURE, Due, ReviewPolicy, attempted
from .summary import Progress, summary
from .text import LANGUAGES, Catalogue
from .verdicts import Judgement


def _with_strings(exercise: Exercise, strings: Catalogue) -> Exercise:
    """``exercise`` with the names of its strings and its ``gives_away`` per language, read from ``strings``."""
    prefix = exercise.key("")
    names = tuple(key.removeprefix(prefix) for key in strings.strings[LANGUAGES[0]] if key.startswith(prefix))
    if "title" not in names:
        raise ValueError(f"{strings.folder}: no strings for the exercise {exercise.id!r} (a table [ex.{exercise.id}])")
    patterns = {lang: strings.lists[lang].get(exercise.key("gives_away"), ()) for lang in LANGUAGES}
    return dataclasses.replace(exercise, fields=names, gives_away=patterns)


class ExerciseBook:
    """A chapter's exercises, their strings and its evidence; attempts last in the store, under ``chapter``.
    Its catalogue (``strings``, the chapter's) holds every exercise's strings under their derived keys: each
    exercise is given the names of its fields and its ``gives_away`` from it, and a table of the catalogue that no
    exercise declares is refused by its name; ``notebooks`` list the exercises by the notebook that asks them, in
    the order given; ``review_notebook`` is the stem of the notebook whose practice review is."""

    def __init__(self, chapter: str, exercises: tuple[Exercise, ...], strings: Catalogue,
                 evidence: Callable[[], Any], variants: Variants | None = None, review_notebook: str = "",
                 read_from: ReadFrom | None = None, cells_differ: CellsDiffer | None = None) -> None:
        self.chapter = chapter
        self.strings = strings
        self.exercises = {e.id: _with_strings(e, strings) for e in exercises}
        declared = {key.split(".")[1] for key in strings.strings[LANGUAGES[0]] if key.startswith("ex.")}
        strays = declared - set(self.exercises)
        if strays:
            raise ValueError(f"{strings.folder}: strings of no exercise of {chapter}: {sorted(strays)}")
        exercises = tuple(self.exercises.values())
        stems = sorted({e.notebook for e in exercises})
        self.notebooks = tuple(Notebook(stem, f"notebook.{stem}", tuple(e.id for e in exercises if e.notebook == stem))
                               for stem in stems)
        self.examples = Examples(evidence, variants, strings)
        self.misuse = Misuse(self.exercises, self.examples, strings)
        self.judge = Judge(chapter, self.exercises, self.examples, strings, read_from, cells_differ)
        self.present = Presenter(strings)
        self.review = ReviewPolicy(exercises, review_notebook)

    def __getitem__(self, exercise_id: str) -> Exercise:
        if not isinstance(exercise_id, str) or exercise_id not in self.exercises:
            raise KeyError(self.misuse.unknown(exercise_id))
        return self.exercises[exercise_id]

    def check(self, exercise_id: str, answer: object, variant: int = 0, sure: int | None = None,
              review_of: str = "", **values: object) -> Feedback:
        """Judge ``answer`` on ``variant``; a missing or unreadable answer gets a message, never an exception.
        ``sure`` is how sure the learner said they were (SURE_LEVELS: 1 a guess, 2 probably right, 3 sure; None if
        not said: the attempt stays out of calibration); ``review_of`` the exercise this one is asked in place
        of, in review (``book.review``). An answer cell passes by keyword the values its answer is computed from
        (``Exercise.given``): values that are not the exercise's own are judged as the learner's and kept apart."""
        misused = self.misuse.of_check(exercise_id, variant, sure, review_of, values)
        if misused:
            return Feedback(str(exercise_id), False, misused, readable=False, pending=True)  # no verdict: a misuse
        exercise = self[exercise_id]
        # the engine did the arithmetic: a tensor it computed, or a function that calls it
        computed = (issubclass(type(answer), Tensor) and answer.op != "input") or (
            exercise.kind == "code" and calls_the_engine(answer))
        lasting = store()
        verdict, snapshot = recorded(
            lasting, Entry(self.chapter, exercise.id, variant, computed, sure, review_of),
            lambda data: self.judge.store_read(exercise, variant, data),
            lambda read: self.judge.verdict(exercise, answer, variant, read, values))
        confident_miss = (isinstance(verdict, Judgement) and not verdict.correct and not verdict.own
                          and sure == SURE and not missed_sure_today(self.records(snapshot), exercise.id))
        return self.present.feedback(exercise, verdict, computed, lasting.take_notices(), confident_miss)

    def check_code(self, exercise_id: str, function: object, variant: int = 0, sure: int | None = None) -> Feedback:
        """Judge the learner's function for a code exercise (``check`` with a function as the answer)."""
        if not self.misuse.of(exercise_id) and self[exercise_id].kind != "code":
            return Feedback(exercise_id, False, self.strings.text("exercise.not_code", id=exercise_id),
                            readable=False, pending=True)
        return self.check(exercise_id, function, variant, sure)

    def drawn(self, exercise_id: str, variant: int = 0, snapshot: dict | None = None) -> Any:
        """The evidence ``exercise_id`` is asked on, on ``variant`` (a fresh one is the learner's of ``snapshot``,
        or of the store)."""
        return self.examples.of(self[exercise_id], variant, lambda: self.learner(snapshot).id)

    def prompt(self, exercise_id: str, variant: int = 0, snapshot: dict | None = None) -> str:
        """The task, filled in with the variant's inputs; a fresh variant's own wording where the exercise has one
        (``variant_prompt``: the notebook's asks about numbers its cells show, a variant shows them itself)."""
        exercise = self[exercise_id]
        if not exercise.prompt:
            return ""
        key = exercise.key("variant_prompt") if variant and exercise.has("variant_prompt") else exercise.prompt
        return self.present.said(exercise, key, exercise.inputs(self.drawn(exercise_id, variant, snapshot)))

    def form(self, exercise_id: str, variant: int = 0, snapshot: dict | None = None,
             values: Mapping[str, object] | None = None) -> str:
        """How the exercise's answer is written on ``variant``, or on the learner's own ``values`` ("" where it is
        no numbers exercise)."""
        exercise = self[exercise_id]
        return self.judge.form(exercise, self.drawn(exercise_id, variant, snapshot), values) if exercise.form else ""

    def title(self, exercise_id: str) -> str:
        return self.present.title(self[exercise_id])

    def variant(self, exercise_id: str, n: int) -> dict[str, object]:
        """The inputs of variant ``n`` of an exercise (for a head: "query", "key", "value", arrays [1, T, d])."""
        exercise = self[exercise_id]
        ev = self.drawn(exercise_id, n)
        if not exercise.varies:
            raise ValueError(self.strings.text("variant.none", title=self.title(exercise_id)))
        return self.examples.inputs(exercise, ev)

    def next_variant(self, exercise_id: str, snapshot: dict | None = None) -> int:
        """The variant (n ≥ 1) to practise on next (``ReviewPolicy.next_variant``), from ``snapshot`` (the store's,
        read now, by default)."""
        return self.review.next_variant(self[exercise_id].id, self.records(snapshot))

    def records(self, snapshot: dict | None = None) -> dict[str, dict]:
        """The chapter's records in ``snapshot`` (``Store.snapshot``), or in the store as it is now."""
        return store().records(self.chapter) if snapshot is None else snapshot["chapters"].get(self.chapter, {})

    def learner(self, snapshot: dict | None = None) -> Learner:
        """The learner of ``snapshot`` (of the store by default: made and written if it has none yet)."""
        return store().learner() if snapshot is None or snapshot["learner"] is None else snapshot["learner"]

    def attempted(self, exercise_id: str, variant: int | None = None, snapshot: dict | None = None) -> bool:
        """Whether the exercise was tried (in the store, or in ``snapshot``): on any variant, or on ``variant``."""
        return attempted(self.records(snapshot), exercise_id, variant)

    def reveal(self, exercise_id: str, variant: int = 0) -> Solution:
        """The expected answer, computed now, with its explanation; only after an attempt on that variant."""
        misused = self.misuse.of(exercise_id, variant)
        if misused:
            return Solution(str(exercise_id), False, misused)
        exercise = self[exercise_id]
        ev = self.drawn(exercise_id, variant)
        if not self.attempted(exercise_id, variant):
            return Solution(exercise_id, False, self.strings.text("reveal.locked"))
        facts = exercise.facts(exercise.expected(ev), ev)
        said = self.present.said
        return Solution(exercise_id, True, said(exercise, "reveal.answer", {"answer": facts["answer"]})
                        + " " + said(exercise, exercise.explain, facts))

    def hint(self, exercise_id: str, variant: int = 0) -> Hint:
        """The next, smaller step towards the answer, after an attempt on that variant; each hint given is recorded
        once (it is no attempt, and an attempt after it no longer counts for mastery)."""
        misused = self.misuse.of(exercise_id, variant)
        if misused:
            return Hint(str(exercise_id), 0, 0, misused)
        exercise = self[exercise_id]
        ev = self.drawn(exercise_id, variant)
        if not self.attempted(exercise_id, variant):
            return Hint(exercise_id, 0, 0, self.strings.text("hint.locked"))
        facts = exercise.facts(exercise.expected(ev), ev)
        steps = [(key, facts) for key in exercise.hints]
        if exercise.kind == "code":
            steps.append(("hint.first_row", {"first": facts["first"]}))
        lasting = store()
        given = lasting.hints(self.chapter, exercise_id, variant)
        step = min(given, len(steps) - 1)
        if given < len(steps):  # the last hint asked again is shown again, and counted once
            lasting.record_hint(self.chapter, exercise_id, variant)
        key, fields = steps[step]
        message = self.strings.text("hint.step", step=step + 1, steps=len(steps),
                                    hint=self.present.said(exercise, key, fields))
        return Hint(exercise_id, step + 1, len(steps), message)

    def mastery(self) -> dict[str, SkillMastery]:
        """Each skill of the chapter: its attempts, first-attempt successes without hints, hints, and mastered."""
        return mastery(self.review.served, self.records())

    def review_queue(self) -> tuple[list[Due], list[Due]]:
        """What is due today (or earlier), interleaved for one session, and what is due later, by day."""
        return self.review.queue(self.records(), today())

    def progress(self) -> Progress:
        """Which exercises were checked anywhere and which were answered right, by notebook, with each notebook's
        total and the chapter's; then which skills are mastered; from one read of the store."""
        lasting = store()
        records = self.records(lasting.snapshot())
        notices = lasting.take_notices()
        if lasting.memory_notice and lasting.memory_notice not in notices:
            notices.append(lasting.memory_notice)
        return summary(self.notebooks, self.exercises, self.review, self.strings, records,
                       [self.present.notice(notice) for notice in notices], today())

    def reset_progress(self) -> Progress:
        """Start the chapter over: forget every recorded attempt at its exercises, in every kernel."""
        store().reset(self.chapter)
        return self.progress()

    def set_name(self, name: str) -> Learner:
        """Add a display name beside the learner's id (what a teacher's table shows)."""
        return store().name(name)
