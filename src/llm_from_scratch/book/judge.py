"""Judge: a verdict on an answer, a pure function of the answer, the example's values and what it read of the store.

All a verdict reads of the store is a ``StoreRead``, taken from a snapshot before judging: the learner (whose
variant it is), whether the prediction the exercise follows was answered, and which variants of its family were.
The record step compares it with the store as it is under the lock, so anything new a judge reads from the store
is a field here, or the judge cannot read it. A verdict is a ``Judgement`` or, for an answer that cannot be read
(or may not be judged yet), an ``Unread`` saying why; nothing here writes the store or shows anything.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .answers import AnswerFormatError
from .declare import Exercise, say
from .draw import Examples
from .formatting import num, places, shape
from .progress import learner_of
from .text import Catalogue
from .tolerances import FLOAT_NOISE, ROUNDED
from .verdicts import Judgement, Own, Phrase, Unread, as_array


@dataclass(frozen=True)
class StoreRead:
    """What a verdict on an exercise read of the store: the learner whose variants it draws (None where it draws
    none: variant 0, no fresh variant of its family seen), whether the prediction it follows was answered, and the
    variants of its family that were answered."""

    learner: str | None
    followed: bool
    answered: tuple[int, ...]


# a chapter's reading of where an answer's numbers came from: the names of the learner's values they are a view
# of, and how those differ from the example's (None: typed in, computed anew, or the example's own)
ReadFrom = Callable[[object, Any], tuple[str, Phrase] | None]
# a chapter's reading of which of the learner's inputs, as their cells hold them, differ from an example's (none
# where the cells hold one of the chapter's own examples): what an answer judged on the example must say it is
CellsDiffer = Callable[[Any], tuple[str, ...]]


class Judge:
    """The chapter's judge: its exercises, their examples (``draw``) and its strings."""

    def __init__(self, chapter: str, exercises: Mapping[str, Exercise], examples: Examples,
                 strings: Catalogue, read_from: ReadFrom | None = None,
                 cells_differ: CellsDiffer | None = None) -> None:
        self.chapter = chapter
        self.exercises = exercises
        self.examples = examples
        self.strings = strings
        self.read_from = read_from
        self.cells_differ = cells_differ

    def store_read(self, exercise: Exercise, variant: int, data: dict) -> StoreRead:
        """What a verdict on ``variant`` of ``exercise`` reads of ``data`` (a snapshot, or the store under the lock).
        A store with no learner yet is given the one it will have (``learner_of``) where a variant needs one."""
        records = data["chapters"].get(self.chapter, {})
        family = sorted({a["variant"] for e in self.exercises.values()
                         if exercise.varies and e.varies == exercise.varies
                         for a in records.get(e.id, {}).get("attempts", [])})
        followed = bool(exercise.after and records.get(exercise.after, {}).get("attempts"))
        drawn = variant or any(family)  # this variant or one seen before is the learner's own draw
        return StoreRead(learner_of(data).id if drawn else None, followed, tuple(family))

    def verdict(self, exercise: Exercise, answer: object, variant: int, read: StoreRead,
                values: Mapping[str, object] | None = None) -> Judgement | Unread:
        """The verdict on ``answer`` given what was ``read`` of the store; an exercise that follows a prediction is
        judged only once that one was answered."""
        if exercise.after and not read.followed:
            return Unread(self.strings.text("exercise.predict_first",
                                            title=self.strings.text(self.exercises[exercise.after].title)))
        ev = self.examples.of(exercise, variant, lambda: read.learner)
        found = self.judge(exercise, answer, self.examples.seeing(ev, exercise, variant, read.answered,
                                                                  lambda: read.learner), values)
        if isinstance(found, Judgement) and not (values or variant or found.own) and self.cells_differ \
                and not self._on_a_widget(exercise):
            names = self.cells_differ(exercise.example(ev))
            if names:  # the learner's cells changed: the words are about the example's numbers, and say so
                return replace(found, aside=Phrase("given.judged_on_example", {"names": ", ".join(names)}))
        return found

    def _on_a_widget(self, exercise: Exercise) -> bool:
        """A move on a widget, or its prediction: judged on the widget, which holds the cells' own values."""
        return exercise.kind == "state" or any(e.after == exercise.id for e in self.exercises.values())

    def judge(self, exercise: Exercise, answer: object, ev: Any, values: Mapping[str, object] | None = None
              ) -> Judgement | Unread:
        """The verdict on ``answer`` to ``exercise`` on the example's evidence ``ev``, or on the learner's own
        ``values`` where they are not the example's; or why it cannot be read."""
        read = None
        try:
            read = exercise.read(answer, self.form(exercise, ev, values))
            if values and not are_the_exercises(exercise, values, ev):
                return self._on_own_values(exercise, read, values, ev)
            verdict = exercise.judge(read, exercise.expected(ev), ev)
            return verdict if verdict.correct else self._read_from_cells(exercise, answer, ev) or verdict
        except AnswerFormatError as error:
            message = error.args[0]  # a judge's refusal may be the exercise's own string ("form_hint")
            why = say(self.strings, exercise, message) if isinstance(message, Own) else str(message)
            numbers = issubclass(type(read), np.ndarray)  # type(): a hostile answer's __class__ may raise
            return Unread(f"{self._read_as(read)} {why}" if numbers else why, error.pending)

    def form(self, exercise: Exercise, ev: Any, values: Mapping[str, object] | None = None) -> str:
        """How a numbers exercise's answer is written on ``ev`` ("" for other kinds); on the learner's own
        ``values``, where the answer they make has another shape, that shape in words (``shape_form``)."""
        if values and exercise.given:
            try:  # values that are not numbers, or not of the names it reads, are told when checked, not here
                own = None if are_the_exercises(exercise, values, ev) else np.shape(
                    exercise.given.answer({name: as_array(v) for name, v in values.items()}))
            except (TypeError, ValueError, IndexError, KeyError):
                own = None
            if own is not None and own != np.shape(exercise.expected(ev)):
                return shape_form(self.strings, own)
        return say(self.strings, exercise, exercise.form, exercise.inputs(ev)) if exercise.form else ""

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
        if np.isnan(expected).any():  # a softmax of a row that is −∞ throughout: no weights exist to give
            raise AnswerFormatError(self.strings.text("given.undefined", names=", ".join(values)))
        fields = {"difference": exercise.given.differs(values, ev, exercise.example(ev))}
        tolerance = max(exercise.given.tolerance, ROUNDED)
        if np.abs(read - expected).max(initial=0.0) <= tolerance:
            return Judgement(True, "given.right", None, fields, own=True)
        ours = np.asarray(exercise.expected(ev), dtype=np.float64)
        if ours.shape == read.shape and np.abs(read - ours).max(initial=0.0) <= tolerance:
            return Judgement(False, "given.exercises_answer", "exercises-answer-on-own-values", fields, own=True)
        return Judgement(False, "given.wrong", None, {**fields, "names": ", ".join(values)}, own=True)

    def _read_from_cells(self, exercise: Exercise, answer: object, ev: Any) -> Judgement | None:
        """A wrong answer whose very numbers were read from the learner's own values that are not the example's
        (the chapter's ``read_from`` says which, and how they differ): said instead of a slip, since the cells
        computed them and no slip of a hand was made."""
        found = self.read_from(answer, exercise.example(ev)) if self.read_from else None
        if found is None:
            return None
        names, difference = found
        return Judgement(False, "given.read_from", "read-from-own-cells", {"names": names, "difference": difference},
                         own=True)

    def _read_as(self, read: np.ndarray) -> str:
        """What was read of an answer whose form is wrong: its numbers and its shape."""
        numbers = np.array2string(read, separator=", ", max_line_width=10_000, threshold=12, edgeitems=3,
                                  formatter={"float_kind": lambda x: num(x, places(read))})  # as tables write them
        return self.strings.text("answer.read_as", numbers=numbers, shape=shape(read.shape))


def are_the_exercises(exercise: Exercise, values: Mapping[str, object], ev: Any) -> bool:
    """Whether the given values are those of the exercise's own inputs (to float64's noise)."""
    ours = exercise.given.chapter(exercise.example(ev))
    return all(as_array(values[name]).shape == ours[name].shape and np.allclose(
        as_array(values[name]), ours[name], rtol=0.0, atol=FLOAT_NOISE) for name in exercise.given.names)


def shape_form(strings: Catalogue, dims: tuple[int, ...]) -> str:
    """An answer of shape ``dims`` in words, as a form says it: one number, a row of n numbers, an r×c matrix
    (the count's noun in the form the language wants after it)."""
    letters = "abcdefgh"
    if int(np.prod(dims)) == 1:
        return strings.text("form.one")
    if len(dims) == 1:
        layout = "[" + ", ".join(letters[:dims[0]] if dims[0] <= 4 else [*letters[:3], "…"]) + "]"
        return strings.text("form.row", count=dims[0], numbers=strings.plural("form.numbers", dims[0]),
                            layout=layout)
    if len(dims) == 2:
        return strings.text("form.matrix", rows=dims[0], columns=dims[1])
    return strings.text("form.array", shape=shape(dims))
