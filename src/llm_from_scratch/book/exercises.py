"""Predict-then-check exercises: the machinery every chapter shares.

A chapter lists its exercises (``book.declare``) in an ``ExerciseBook`` with its catalogue and its evidence.

Pieces that do not call each other: the judge (``ExerciseBook.verdict``: an answer, an example's evidence and
a snapshot of the records it reads in, a ``Judgement`` or an ``Unread`` out, no store written), the
store (``book.progress``), the presenter (``ExerciseBook.present``: a verdict in, the ``Feedback``
the learner reads out) and the report (``progress``, ``mastery``). ``check`` calls them in that
order and gets values back: a snapshot read under the store's lock, the answer judged with no lock
held, the attempt written under the lock (judged again only if the records the verdict read changed
meanwhile), the verdict presented. It never raises for any answer. A form shows the ``Feedback``
``check`` returns; nothing calls back. ``reveal`` (which opens the answer only after an attempt) and ``progress`` see
attempts from every notebook and kernel.

An exercise that ``varies`` has fresh examples: variant 0 is the one the notebooks show,
and variant n ≥ 1 is made for the learner by the chapter's ``Variants`` (the same learner
gets the same n-th variant again). ``check``, ``hint``, ``reveal`` and the form take the
variant; ``mastery`` reads the skills the exercises serve (``book.mastery``).
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ..engine import Tensor
from .answers import AnswerFormatError
from .clock import today
from .declare import Exercise, Notebook
from .feedback import Feedback, Hint, Solution
from .formatting import matrix, shape
from .mastery import SkillMastery, mastery
from .progress import SURE_LEVELS, Learner, StoreNotice, add_attempt, attempts_of, learner_of, store
from .progress.summary import Progress, summary
from .review import SURE, Due, ReviewPolicy, attempted
from .text import LANGUAGES, Catalogue, language
from .tolerances import FLOAT_NOISE, ROUNDED
from .verdicts import Judgement, Own, Phrase, Unread, as_array, own

SEEN_KEPT = 5  # how many of the variants a learner has seen a judge is told of

@dataclass(frozen=True)
class Said:
    """What an attempt says besides its verdict: computed by the engine, how sure, in place of which exercise."""

    computed: bool = False
    sure: int | None = None
    review_of: str = ""


class Variants(Protocol):
    """A chapter's fresh examples: the evidence of a family's variant n ≥ 1 for a learner, and its inputs."""

    def evidence(self, family: str, learner: str, n: int) -> Any: ...

    def inputs(self, family: str, ev: Any) -> dict[str, object]: ...


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
    the order given."""

    def __init__(self, chapter: str, exercises: tuple[Exercise, ...], strings: Catalogue,
                 evidence: Callable[[], Any], variants: Variants | None = None, review_notebook: str = "") -> None:
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
        self.evidence = evidence
        self.variants = variants
        self.review = ReviewPolicy(exercises, review_notebook)  # review_notebook: the stem of review's notebook

    def said(self, exercise: Exercise, key: str | Own, fields: Mapping[str, object] | None = None,
             lang: str | None = None) -> str:
        """The catalogue string ``key`` (or the exercise's own one) with ``fields``, any ``Own`` or ``Phrase`` among
        them said first, in ``lang`` (by default the chosen language)."""
        if isinstance(key, Own):
            key, fields = exercise.key(key.field), {**key.fields, **(fields or {})}
        filled = {name: self.said(exercise, value, lang=lang) if isinstance(value, Own) else
                  self.said(exercise, value.key, value.fields, lang) if isinstance(value, Phrase) else value
                  for name, value in (fields or {}).items()}
        return self.strings.text_in(lang or language(), key, **filled)

    def __getitem__(self, exercise_id: str) -> Exercise:
        if not isinstance(exercise_id, str) or exercise_id not in self.exercises:
            raise KeyError(self._unknown(exercise_id))
        return self.exercises[exercise_id]

    def _unknown(self, exercise_id: object) -> str:
        """That there is no such exercise, with the nearest id if one is near, in the learner's language."""
        known = ", ".join(self.exercises)
        near = difflib.get_close_matches(str(exercise_id), list(self.exercises), n=1)
        if near:
            return self.strings.text("exercise.unknown_near", id=exercise_id, near=near[0], known=known)
        return self.strings.text("exercise.unknown", id=exercise_id, known=known)

    def misuse(self, exercise_id: object, variant: object = 0) -> str:
        """What is wrong with asking for ``exercise_id`` on ``variant`` (no such exercise; a variant that is no
        whole number ≥ 0, or of an exercise without variants), in the learner's language; "" when nothing is.
        check, hint and reveal answer with it instead of a traceback."""
        if not isinstance(exercise_id, str) or exercise_id not in self.exercises:
            return self._unknown(exercise_id)
        try:
            self._valid(self.exercises[exercise_id], variant)
        except ValueError as error:
            return str(error)
        return ""

    # variants
    def _evidence(self, exercise: Exercise, variant: int, learner: Callable[[], Learner] | None = None) -> Any:
        """The evidence of ``variant`` of ``exercise`` (0: the chapter's own); a fresh variant is the learner's
        (``learner()``: by default, the store's)."""
        self._valid(exercise, variant)
        if variant == 0:
            return self.evidence()
        return self.variants.evidence(exercise.varies, (learner or self.learner)().id, int(variant))

    def _valid(self, exercise: Exercise, variant: int) -> None:
        """Refuse, in the learner's language, a variant that is no whole number ≥ 0, or one of an exercise with none."""
        if isinstance(variant, bool) or not isinstance(variant, (int, np.integer)) or variant < 0:
            raise ValueError(self.strings.text("variant.invalid", variant=repr(variant)))
        if variant and (not exercise.varies or self.variants is None):
            raise ValueError(self.strings.text("variant.none", title=self.title(exercise.id)))

    def _seeing(self, ev: Any, exercise: Exercise, variant: int, records: Mapping[str, Any],
                learner: Callable[[], Learner]) -> Any:
        """``ev`` told the variants of the exercise's family that the learner has seen (the notebook's own one and
        the latest they answered, variants being drawn in order; SEEN_KEPT in all, this one aside), so a judge can
        name an answer made on one of them."""
        if not exercise.varies:
            return ev
        answered = [a["variant"] for e in self.exercises.values() if e.varies == exercise.varies
                    for a in records.get(e.id, {}).get("attempts", [])]
        seen = [n for n in dict.fromkeys([0, *sorted(answered, reverse=True)]) if n != variant][:SEEN_KEPT]
        if not seen:
            return ev
        told = copy.copy(ev)  # shares what ev computed already
        told.seen = tuple(self._evidence(exercise, n, learner) for n in seen)
        return told

    def variant(self, exercise_id: str, n: int) -> dict[str, object]:
        """The inputs of variant ``n`` of an exercise (for a head: "query", "key", "value", arrays [1, T, d])."""
        exercise = self[exercise_id]
        ev = self._evidence(exercise, n)
        if not exercise.varies:
            raise ValueError(self.strings.text("variant.none", title=self.title(exercise_id)))
        return self.variants.inputs(exercise.varies, ev)

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

    def set_name(self, name: str) -> Learner:
        """Add a display name beside the learner's id (what a teacher's table shows)."""
        return store().name(name)

    # what a form shows
    def title(self, exercise_id: str) -> str:
        return self.strings.text(self[exercise_id].title)

    def prompt(self, exercise_id: str, variant: int = 0, snapshot: dict | None = None) -> str:
        """The task, filled in with the variant's inputs; a fresh variant's own wording where the exercise has one
        (``variant_prompt``: the notebook's asks about numbers its cells show, a variant shows them itself)."""
        exercise = self[exercise_id]
        if not exercise.prompt:
            return ""
        key = exercise.key("variant_prompt") if variant and exercise.has("variant_prompt") else exercise.prompt
        return self.said(exercise, key, exercise.inputs(self._evidence(exercise, variant,
                                                                       lambda: self.learner(snapshot))))

    def form(self, exercise_id: str, variant: int = 0, snapshot: dict | None = None) -> str:
        exercise = self[exercise_id]
        if not exercise.form:
            return ""
        return self._form(exercise, self._evidence(exercise, variant, lambda: self.learner(snapshot)))

    def _form(self, exercise: Exercise, ev: Any) -> str:
        return self.said(exercise, exercise.form, exercise.inputs(ev)) if exercise.form else ""

    def options(self, exercise_id: str) -> tuple[tuple[str, str], ...]:
        exercise = self[exercise_id]
        return tuple((letter, self.said(exercise, own(letter))) for letter in exercise.options)

    # checking
    def judge(self, exercise: Exercise, answer: object, ev: Any, values: Mapping[str, object] | None = None
              ) -> Judgement | Unread:
        """The verdict on ``answer`` to ``exercise`` on the example's evidence ``ev``, or on the learner's own
        ``values`` where they are not the example's; or why it cannot be read. It reads no store and writes none."""
        read = None
        try:
            read = exercise.read(answer, self._form(exercise, ev))
            if values and not self._are_the_exercises(exercise, values, ev):
                return self._on_own_values(exercise, read, values, ev)
            return exercise.judge(read, exercise.expected(ev), ev)
        except AnswerFormatError as error:
            message = error.args[0]  # a judge's refusal may be the exercise's own string ("form_hint")
            why = self.said(exercise, message) if isinstance(message, Own) else str(message)
            numbers = issubclass(type(read), np.ndarray)  # type(): a hostile answer's __class__ may raise
            return Unread(f"{self._read_as(read)} {why}" if numbers else why, error.pending)

    def own_values(self, exercise_id: str, values: Mapping[str, object]) -> str:
        """The values an answer cell passes, written out, where they are not those of the exercise's example (a
        cell above changed); "" where they are (or none are given)."""
        exercise = self[exercise_id]
        if not values or self._misgiven(exercise_id, 0, values) or self._are_the_exercises(
                exercise, values, self.evidence()):
            return ""
        arrays = {name: as_array(value) for name, value in values.items()}
        return "; ".join(f"{name} = {matrix(a[0] if a.ndim == 3 and len(a) == 1 else a)}" for name, a in arrays.items())

    @staticmethod
    def _are_the_exercises(exercise: Exercise, values: Mapping[str, object], ev: Any) -> bool:
        """Whether the given values are those of the exercise's own inputs (to float64's noise)."""
        ours = exercise.given.chapter(getattr(ev, exercise.example))
        return all(as_array(values[name]).shape == ours[name].shape and np.allclose(
            as_array(values[name]), ours[name], rtol=0.0, atol=FLOAT_NOISE) for name in exercise.given.names)

    def _on_own_values(self, exercise: Exercise, read: np.ndarray, values: Mapping[str, object], ev: Any
                       ) -> Judgement:
        """The verdict on values that are not the exercise's (a cell above changed): right if right for them (to a
        rounding to two decimals); the exercise's own answer named as such; said with how the values differ."""
        try:
            expected = np.asarray(exercise.given.answer({name: as_array(v) for name, v in values.items()}))
        except (ValueError, IndexError):  # values of shapes that do not make the answer
            raise AnswerFormatError(self.strings.text("given.unfit", names=", ".join(values))) from None
        if read.shape != expected.shape:
            raise AnswerFormatError(self.strings.text("given.form", shape=shape(expected.shape)))
        fields = {"difference": exercise.given.differs(values, ev, getattr(ev, exercise.example))}
        tolerance = max(exercise.given.tolerance, ROUNDED)
        if np.abs(read - expected).max(initial=0.0) <= tolerance:
            return Judgement(True, "given.right", None, fields, own=True)
        ours = np.asarray(exercise.expected(ev), dtype=np.float64)
        if ours.shape == read.shape and np.abs(read - ours).max(initial=0.0) <= tolerance:
            return Judgement(False, "given.exercises_answer", "exercises-answer-on-own-values", fields, own=True)
        return Judgement(False, "given.wrong", None, {**fields, "names": ", ".join(values)}, own=True)

    def check(self, exercise_id: str, answer: object, variant: int = 0, sure: int | None = None,
              review_of: str = "", **values: object) -> Feedback:
        """Judge ``answer`` on ``variant``; a missing or unreadable answer gets a message, never an exception.
        ``sure`` is how sure the learner said they were (SURE_LEVELS: 1 a guess, 2 probably right, 3 sure; None if
        not said: the attempt stays out of calibration); ``review_of`` the exercise this one is asked in place
        of, in review (``book.review``).
        An answer cell passes by keyword the values its answer is computed from (``Exercise.given``): values
        that are not the exercise's own are judged as the learner's (``_on_own_values``) and kept apart.
        One straight path, no lock held while judging: a snapshot of the store is read, the answer judged on it
        (``verdict``), the attempt written in one locked read-modify-write if the records the verdict read are
        still those of the snapshot (else judged again on the fresh ones), and the verdict turned into what the
        learner reads (``present``)."""
        misused = (self.misuse(exercise_id, variant) or self._misgiven(exercise_id, variant, values)
                   or self._unsure(sure) or (self.misuse(review_of) if review_of else ""))
        if misused:
            return Feedback(str(exercise_id), False, misused, readable=False, pending=True)  # no verdict: a misuse
        exercise = self[exercise_id]
        computed = issubclass(type(answer), Tensor) and answer.op != "input"  # the engine did the arithmetic
        lasting = store()
        snapshot = lasting.snapshot()
        while True:
            verdict = self.verdict(exercise, answer, variant, snapshot, values)
            if not isinstance(verdict, Judgement):
                break
            said = Said(computed, sure, review_of)
            changed = lasting.transact(self._recording(exercise, variant, verdict, said, snapshot))
            if changed is None:
                break
            snapshot = changed
        confident_miss = (isinstance(verdict, Judgement) and not verdict.correct and not verdict.own
                          and sure == SURE and not self._missed_sure_today(exercise.id, snapshot))
        return self.present(exercise, verdict, computed, lasting.take_notices(), confident_miss)

    def _unsure(self, sure: object) -> str:
        """What is wrong with a confidence that is not one of SURE_LEVELS (nor None), in the learner's language."""
        if sure is None or (isinstance(sure, (int, np.integer)) and not isinstance(sure, bool)
                            and int(sure) in SURE_LEVELS):
            return ""
        return self.strings.text("sure.invalid", sure=repr(sure))

    def _missed_sure_today(self, exercise_id: str, snapshot: dict) -> bool:
        """Whether the snapshot (the store before this attempt) holds a confident miss of the exercise made today."""
        record = snapshot["chapters"].get(self.chapter, {}).get(exercise_id, {"attempts": [], "hints": {}})
        return any(a.sure == SURE and not a.correct and not a.own and a.day == today() for a in attempts_of(record))

    def _misgiven(self, exercise_id: str, variant: object, values: Mapping[str, object]) -> str:
        """What is wrong with the values given by keyword (names the exercise does not read, values on a variant,
        which has inputs of its own, or values that are not numbers), in the learner's language; "" if nothing."""
        if not values:
            return ""
        names = self[exercise_id].given.names if self[exercise_id].given else ()
        given = ", ".join(sorted(values))
        if set(values) != set(names):
            key = "given.names" if names else "given.none"
            return self.strings.text(key, id=exercise_id, names=", ".join(names), given=given)
        if variant:
            return self.strings.text("given.variant", id=exercise_id, variant=variant)
        ours = self[exercise_id].given.chapter(getattr(self.evidence(), self[exercise_id].example))
        for name, value in values.items():
            try:
                if not np.isfinite(as_array(value)).all():
                    raise ValueError
            except (TypeError, ValueError):
                return self.strings.text("given.not_numbers", name=name)
            if as_array(value).ndim != ours[name].ndim:
                return self.strings.text("given.rank", name=name, rank=ours[name].ndim)
        return ""

    def verdict(self, exercise: Exercise, answer: object, variant: int, snapshot: dict,
                values: Mapping[str, object] | None = None) -> Judgement | Unread:
        """The judge's verdict on ``answer`` given a snapshot of the store (``Store.snapshot``): it reads the
        prediction the exercise follows, the learner (whose variant it is) and the variants they have seen, and
        writes nothing. A snapshot with no learner yet is given the one the store will have (``learner_of``)."""
        records = snapshot["chapters"].get(self.chapter, {})
        if exercise.after and not records.get(exercise.after, {}).get("attempts"):
            return Unread(self.strings.text("exercise.predict_first", title=self.title(exercise.after)))
        def learner() -> Learner:
            return learner_of(snapshot)

        ev = self._evidence(exercise, variant, learner)
        return self.judge(exercise, answer, self._seeing(ev, exercise, variant, records, learner), values)

    def _read_by_verdict(self, exercise: Exercise, variant: int, data: dict) -> tuple:
        """What of the store a verdict on ``exercise`` reads: the learner (of a variant), whether the prediction it
        follows was answered, and which variants of its family were answered."""
        records = data["chapters"].get(self.chapter, {})
        learner = data["learner"].id if variant and data["learner"] else None
        followed = bool(exercise.after and records.get(exercise.after, {}).get("attempts"))
        family = sorted({a["variant"] for e in self.exercises.values()
                         if exercise.varies and e.varies == exercise.varies
                         for a in records.get(e.id, {}).get("attempts", [])})
        return learner, followed, family

    def _recording(self, exercise: Exercise, variant: int, verdict: Judgement, said: Said,
                   snapshot: dict) -> Callable[[dict], dict | None]:
        """The change that records ``verdict`` in the store as it is under the lock: None once recorded; the store
        as it is, unchanged, when what the verdict read from ``snapshot`` has changed meanwhile."""
        read = self._read_by_verdict(exercise, variant, snapshot)

        def record(data: dict) -> dict | None:
            if data["learner"] is None:
                data["learner"] = snapshot["learner"]  # the learner the verdict was made for (if it needed one)
            if self._read_by_verdict(exercise, variant, data) != read:
                return copy.deepcopy(data)
            add_attempt(data, self.chapter, exercise.id, verdict.correct, variant, said.computed, verdict.own,
                        said.sure, said.review_of)
            return None

        return record

    def present(self, exercise: Exercise, verdict: Judgement | Unread, computed: bool = False,
                notices: Sequence[StoreNotice] = (), confident_miss: bool = False) -> Feedback:
        """What the learner reads of ``verdict``: its message in their language, the verdict's word, what they
        must know of the store and, after the day's first confident miss of the exercise, that it comes back."""
        wrong_word = self.strings.text("feedback.wrong")
        if isinstance(verdict, Unread):
            return Feedback(exercise.id, False, verdict.message, readable=False, verdict_word=wrong_word,
                            pending=verdict.pending)
        said = [self.strings.text("feedback.computed")] if computed else []
        said += [self.strings.text("feedback.confident_miss")] if confident_miss else []
        note = " ".join([*said, *(self.notice_text(notice) for notice in notices)])
        return Feedback(exercise.id, verdict.correct, self.said(exercise, verdict.key, verdict.fields),
                        verdict.misconception, verdict_word=self.strings.text(
                            "feedback.correct") if verdict.correct else wrong_word, note=note)

    def status(self, exercise_id: str, variant: int = 0, snapshot: dict | None = None) -> str:
        """What the store (or ``snapshot``) says of the exercise on ``variant`` ("" if never tried): attempts, and
        whether one was right. A form opens with it, so an answer given before a restart is not lost from view."""
        tried = [a for a in self.records(snapshot).get(exercise_id, {}).get("attempts", [])
                 if a["variant"] == variant]
        if not tried:
            return ""
        key = "status.right" if any(a["correct"] for a in tried) else "status.tried"
        return self.strings.text(key, attempts=len(tried))

    def check_code(self, exercise_id: str, function: object, variant: int = 0, sure: int | None = None) -> Feedback:
        """Judge the learner's function for a code exercise (``check`` with a function as the answer)."""
        if not self.misuse(exercise_id) and self[exercise_id].kind != "code":
            return Feedback(exercise_id, False, self.strings.text("exercise.not_code", id=exercise_id),
                            readable=False, pending=True)
        return self.check(exercise_id, function, variant, sure)

    def _read_as(self, read: np.ndarray) -> str:
        """What was read of an answer whose form is wrong: its numbers and its shape."""
        numbers = np.array2string(read, separator=", ", max_line_width=10_000, threshold=12, edgeitems=3,
                                  formatter={"float_kind": lambda x: f"{x:g}"})
        return self.strings.text("answer.read_as", numbers=numbers, shape=shape(read.shape))

    def notice_text(self, notice: StoreNotice) -> str:
        return self.strings.text(notice.key, **notice.fields)

    def attempted(self, exercise_id: str, variant: int | None = None, snapshot: dict | None = None) -> bool:
        """Whether the exercise was tried (in the store, or in ``snapshot``): on any variant, or on ``variant``."""
        return attempted(self.records(snapshot), exercise_id, variant)

    def reveal(self, exercise_id: str, variant: int = 0) -> Solution:
        """The expected answer, computed now, with its explanation; only after an attempt on that variant."""
        misused = self.misuse(exercise_id, variant)
        if misused:
            return Solution(str(exercise_id), False, misused)
        exercise = self[exercise_id]
        ev = self._evidence(exercise, variant)
        if not self.attempted(exercise_id, variant):
            return Solution(exercise_id, False, self.strings.text("reveal.locked"))
        facts = exercise.facts(exercise.expected(ev), ev)
        return Solution(exercise_id, True, self.said(exercise, "reveal.answer", {"answer": facts["answer"]})
                        + " " + self.said(exercise, exercise.explain, facts))

    def hint(self, exercise_id: str, variant: int = 0) -> Hint:
        """The next, smaller step towards the answer, after an attempt on that variant; each hint is recorded
        (it is no attempt, and an attempt after it no longer counts for mastery)."""
        misused = self.misuse(exercise_id, variant)
        if misused:
            return Hint(str(exercise_id), 0, 0, misused)
        exercise = self[exercise_id]
        ev = self._evidence(exercise, variant)
        if not self.attempted(exercise_id, variant):
            return Hint(exercise_id, 0, 0, self.strings.text("hint.locked"))
        expected = exercise.expected(ev)
        facts = exercise.facts(expected, ev)
        steps = [(key, facts) for key in exercise.hints]
        if exercise.kind == "code":
            steps.append(("hint.first_row", {"first": facts["first"]}))
        lasting = store()
        step = min(lasting.hints(self.chapter, exercise_id, variant), len(steps) - 1)
        lasting.record_hint(self.chapter, exercise_id, variant)
        key, fields = steps[step]
        message = self.strings.text("hint.step", step=step + 1, steps=len(steps), hint=self.said(exercise, key, fields))
        return Hint(exercise_id, step + 1, len(steps), message)

    def mastery(self) -> dict[str, SkillMastery]:
        """Each skill of the chapter: its attempts, first-attempt successes without hints, hints, and mastered."""
        return mastery(self.review.served, self.records())

    def review_queue(self) -> tuple[list[Due], list[Due]]:
        """What is due today (or earlier), interleaved for one session, and what is due later, by day."""
        return self.review.queue(self.records(), today())

    def progress(self) -> Progress:
        """Which exercises were checked anywhere and which were answered right, by notebook, with each notebook's
        total and the chapter's; then which skills are mastered."""
        return summary(self)

    def reset_progress(self) -> Progress:
        """Start the chapter over: forget every recorded attempt at its exercises, in every kernel."""
        store().reset(self.chapter)
        return self.progress()
