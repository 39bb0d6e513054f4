"""Predict-then-check exercises: the engine computes each expected answer when it checks.

``check(exercise_id, answer)`` returns Feedback (``.correct``, ``.message``,
``.misconception``). ``reveal(exercise_id)`` shows the answer and its
explanation, but only after an attempt in this kernel. ``progress()`` tells
which exercises were checked and which are right.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from html import escape

import numpy as np

from .answers import AnswerFormatError, read_choice, read_numbers
from .evidence import LearnerEvidence, row_softmax, shape_case
from .formatting import NOISE, below, matrix, num, shape, vector
from .text import text

OPTIONS = ("a", "b", "c", "d")
NUMERIC_TOLERANCE = 5e-4  # answers are typed from the prose's six decimals, or rounded


@dataclass(frozen=True)
class Feedback:
    exercise_id: str
    correct: bool
    message: str
    misconception: str | None = None
    readable: bool = True  # False: the answer could not be read at all

    def __repr__(self) -> str:
        return f"{text('feedback.correct') if self.correct else text('feedback.wrong')} {self.message}"

    def _repr_html_(self) -> str:
        mark = "✔" if self.correct else "✘"
        label = text("feedback.correct") if self.correct else text("feedback.wrong")
        return (f'<div role="status" style="border-left:4px {"solid" if self.correct else "dashed"} #000;'
                f'padding:4px 8px"><strong>{mark} {escape(label)}</strong> {escape(self.message)}</div>')


@dataclass(frozen=True)
class Exercise:
    id: str
    kind: str  # "numbers" or "choice"
    judge: Callable[[object, LearnerEvidence], Feedback]
    facts: Callable[[LearnerEvidence], dict[str, str]]  # "answer" and the numbers its explanation cites

    @property
    def prompt(self) -> str:
        return text(f"ex.{self.id}.prompt", **_prompt_fields(LearnerEvidence()))

    @property
    def form(self) -> str:
        return text(f"ex.{self.id}.form") if self.kind == "numbers" else ""

    @property
    def options(self) -> tuple[tuple[str, str], ...]:
        if self.kind != "choice":
            return ()
        return tuple((letter, text(f"ex.{self.id}.{letter}")) for letter in OPTIONS)


def _ok(exercise_id: str, key: str = "feedback.right", **fields) -> Feedback:
    return Feedback(exercise_id, True, text(key, **fields))


def _wrong(exercise_id: str, misconception: str | None, key: str, **fields) -> Feedback:
    return Feedback(exercise_id, False, text(key, **fields), misconception)


def _same(a: np.ndarray, b: np.ndarray, tolerance: float = NUMERIC_TOLERANCE) -> bool:
    return a.shape == b.shape and bool(np.allclose(a, b, atol=tolerance, rtol=0))


def _partial(exercise_id: str, answer: np.ndarray, expected: np.ndarray, part: str) -> Feedback:
    """Name the rows (one per query) that are right and those that are not."""
    right = [i for i in range(len(expected)) if _same(answer[i], expected[i])]
    wrong = [i for i in range(len(expected)) if i not in right]
    if right:
        return _wrong(exercise_id, None, "feedback.partial",
                      right=", ".join(f"{part}_{i}" for i in right), wrong=", ".join(f"{part}_{i}" for i in wrong))
    return _wrong(exercise_id, None, f"ex.{exercise_id}.wrong")


def _rows_swapped(answer: np.ndarray, expected: np.ndarray) -> bool:
    return len(expected) > 1 and not _same(expected, expected[::-1]) and _same(answer, expected[::-1])


# --- the exercises -----------------------------------------------------------------------

def _index_per_query(exercise_id: str, expected_of: Callable[[LearnerEvidence], np.ndarray], swapped: str):
    """Judge an answer of one 0/1 index per query; ``swapped`` names the misconception of reversed rows."""
    def judge(answer, ev):
        expected = expected_of(ev).astype(float)
        a = read_numbers(answer, text(f"ex.{exercise_id}.form"))
        if a.shape != expected.shape or not np.isin(a, (0, 1)).all():
            raise AnswerFormatError(text(f"ex.{exercise_id}.form_hint"))
        if _same(a, expected):
            return _ok(exercise_id)
        if _rows_swapped(a, expected):
            return _wrong(exercise_id, swapped, f"mis.{swapped}")
        return _partial(exercise_id, a, expected, "q")
    return judge


def _heavier_value(ev: LearnerEvidence) -> np.ndarray:
    return ev.worked.run.weights[0].argmax(axis=1)


def _heavier_key(ev: LearnerEvidence) -> np.ndarray:
    return ev.worked.run.head.raw_scores.data[0].argmax(axis=1)


def _scores(answer, ev):
    run = ev.worked.run
    expected = run.head.raw_scores.data[0]
    a = read_numbers(answer, text("ex.scores.form"))
    if a.shape != expected.shape:
        raise AnswerFormatError(text("ex.scores.form_hint", shape=shape(expected.shape)))
    q, k = run.query[0], run.key[0]
    if _same(a, expected):
        return _ok("scores")
    if _same(a, run.head.scaled_scores.data[0]):
        return _wrong("scores", "scaled-too-early", "mis.scaled-too-early")
    if _rows_swapped(a, expected):
        return _wrong("scores", "rows-swapped", "mis.rows-swapped")
    if _same(a, q.T @ k) or _same(a, k.T @ q):
        return _wrong("scores", "features-for-positions", "mis.features-for-positions")
    if _same(a, q @ q.T) or _same(a, k @ k.T):
        return _wrong("scores", "query-with-query", "mis.query-with-query")
    return _partial("scores", a, expected, "q")


def _weights(answer, ev):
    run = ev.worked.run
    expected = run.weights[0, 0]
    a = read_numbers(answer, text("ex.weights.form"))
    if a.shape != expected.shape:
        raise AnswerFormatError(text("ex.weights.form_hint", count=expected.size))
    scaled = run.head.scaled_scores.data[0]
    if _same(a, expected):
        return _ok("weights")
    if _same(a, row_softmax(run.head.raw_scores.data[0])[0]):
        return _wrong("weights", "forgot-scale", "mis.forgot-scale")
    if _same(a, row_softmax(scaled.T).T[0]):
        return _wrong("weights", "columns-normalized", "mis.columns-normalized")
    if _same(a, run.weights[0, 1]):
        return _wrong("weights", "wrong-row", "mis.wrong-row")
    if _same(a, scaled[0]) or _same(a, run.head.raw_scores.data[0, 0]):
        return _wrong("weights", "not-normalized", "mis.not-normalized")
    if abs(a.sum() - 1.0) > NUMERIC_TOLERANCE:
        return _wrong("weights", "not-normalized", "mis.row-sum", total=num(a.sum(), 4))
    return _wrong("weights", None, "ex.weights.wrong")


def _choice(exercise_id: str, correct: str, misconceptions: dict[str, str]):
    def judge(answer, ev):
        letter = read_choice(answer, OPTIONS)
        fields = EXERCISES[exercise_id].facts(ev)
        if letter == correct:
            return _ok(exercise_id, f"ex.{exercise_id}.right", **fields)
        return _wrong(exercise_id, misconceptions.get(letter), f"ex.{exercise_id}.why_{letter}", **fields)
    return judge


def _output_shape(answer, ev):
    expected = np.array(shape_case((4, 7, 3), (4, 7, 3), (4, 7, 5)).output_shape, dtype=float)
    a = read_numbers(answer, text("ex.output-shape.form"))
    if a.shape != (3,) or not np.array_equal(a, np.round(a)):
        raise AnswerFormatError(text("ex.output-shape.form_hint"))
    if np.array_equal(a, expected):
        return _ok("output-shape")
    weights_shape = shape_case((4, 7, 3), (4, 7, 3), (4, 7, 5)).weights_shape
    if np.array_equal(a, weights_shape):
        return _wrong("output-shape", "weights-shape-for-output", "mis.weights-shape-for-output")
    if np.array_equal(a, [*expected[:2], 3]):
        return _wrong("output-shape", "dk-for-dv", "mis.dk-for-dv")
    names = (text("axis.batch"), text("axis.tokens"), text("axis.width"))
    right = [n for n, x, e in zip(names, a, expected) if x == e]
    if right:
        wrong = [n for n, x, e in zip(names, a, expected) if x != e]
        return _wrong("output-shape", None, "feedback.partial", right=", ".join(right), wrong=", ".join(wrong))
    return _wrong("output-shape", None, "ex.output-shape.wrong")


def _single_token(answer, ev):
    run = ev.single_token
    expected = np.concatenate([run.weights.ravel(), run.output.ravel()])
    a = read_numbers(answer, text("ex.single-token.form"), flatten=True)
    if a.shape != expected.shape:
        raise AnswerFormatError(text("ex.single-token.form_hint"))
    weight_ok, output_ok = _same(a[:1], expected[:1]), _same(a[1:], expected[1:])
    if weight_ok and output_ok:
        return _ok("single-token")
    if not weight_ok and output_ok:
        return _wrong("single-token", "single-weight-not-one", "mis.single-weight-not-one")
    if weight_ok and _same(a[1:], expected[1:] * ev.worked.run.head.scale):
        return _wrong("single-token", "scale-on-values", "mis.scale-on-values")
    if weight_ok:
        return _wrong("single-token", None, "mis.single-output")
    return _wrong("single-token", "single-weight-not-one", "mis.single-weight-not-one")


def _identical_keys(answer, ev):
    weights = ev.identical_keys.weights[0]
    a = read_numbers(answer, text("ex.identical-keys.form"))
    expected = weights if a.ndim == 2 else weights[0]
    if a.shape != expected.shape:
        raise AnswerFormatError(text("ex.identical-keys.form_hint"))
    if _same(a, expected):
        return _ok("identical-keys")
    rows = np.atleast_2d(a)
    if np.any(np.abs(rows.sum(axis=1) - 1) > NUMERIC_TOLERANCE):
        return _wrong("identical-keys", "not-normalized", "mis.row-sum", total=num(rows.sum(axis=1)[0], 4))
    return _wrong("identical-keys", "identical-keys-unequal", "mis.identical-keys-unequal")


def _prompt_fields(ev: LearnerEvidence) -> dict[str, str]:
    """Inputs quoted in the prompts (inputs only: no prompt may carry an answer)."""
    return {"value": vector(ev.single_token.value[0, 0], 0)}


def _worked_facts(ev: LearnerEvidence) -> dict[str, str]:
    run = ev.worked.run
    head = run.head
    return {
        "rows": "; ".join(vector(r, 0) for r in head.raw_scores.data[0]),
        "scaled_row": vector(head.scaled_scores.data[0, 0]),
        "row_sum": num(run.weights[0, 0].sum()),
        "row_sums": vector(run.weights[0].sum(axis=1)),
        "column_sums": vector(run.weights[0].sum(axis=0)),
        "future_weight": num(run.weights[0, 0, 1]),
    }


def _shape_facts(ev: LearnerEvidence) -> dict[str, str]:
    case = shape_case((4, 7, 3), (4, 7, 3), (4, 7, 5))
    return {"answer": shape(case.output_shape), "weights_shape": shape(case.weights_shape),
            "value_shape": shape(case.value_shape), "output_shape": shape(case.output_shape)}


def _single_facts(ev: LearnerEvidence) -> dict[str, str]:
    run = ev.single_token
    return {"answer": f"[{num(run.weights.item(), 0)}, {vector(run.output, 0)}]", "weights": vector(run.weights),
            "output": vector(run.output), "grad_q": vector(run.grad_query), "grad_k": vector(run.grad_key)}


def _history_facts(ev: LearnerEvidence) -> dict[str, str]:
    h = ev.history
    return {"answer": "a", "encoder_pairs": str(len(h.encoder_decoder)), "self_pairs": str(len(h.self_attention))}


EXERCISES: dict[str, Exercise] = {e.id: e for e in (
    Exercise("first-look", "numbers", _index_per_query("first-look", _heavier_value, "rows-swapped"),
             lambda ev: {**_worked_facts(ev), "answer": vector(_heavier_value(ev), 0)}),
    Exercise("scores", "numbers", _scores, lambda ev: {
        **_worked_facts(ev), "answer": matrix(ev.worked.run.head.raw_scores.data[0], 0)}),
    Exercise("heavier-key", "numbers", _index_per_query("heavier-key", _heavier_key, "query-key-swapped"),
             lambda ev: {**_worked_facts(ev), "answer": vector(_heavier_key(ev), 0)}),
    Exercise("weights", "numbers", _weights, lambda ev: {
        **_worked_facts(ev), "answer": vector(ev.worked.run.weights[0, 0])}),
    Exercise("row-normalization", "choice",
             _choice("row-normalization", "a", {"b": "columns-normalized", "c": "scale-normalizes",
                                                "d": "weights-symmetric"}),
             lambda ev: {**_worked_facts(ev), "answer": "a"}),
    Exercise("output-shape", "numbers", _output_shape, _shape_facts),
    Exercise("recurrent-vs-self", "choice",
             _choice("recurrent-vs-self", "a", {"b": "constant-work", "c": "parallel-generation",
                                                "d": "anachronism"}),
             _history_facts),
    Exercise("single-token", "numbers", _single_token, _single_facts),
    Exercise("permutation", "choice",
             _choice("permutation", "a", {"b": "permutation-unchanged", "c": "head-knows-order",
                                          "d": "permutation-columns-only"}),
             lambda ev: {"answer": "a", "order": str(list(ev.permutation.order)),
                         "difference": below(ev.permutation.max_difference, NOISE)}),
    Exercise("identical-keys", "numbers", _identical_keys, lambda ev: {
        "answer": vector(ev.identical_keys.weights[0, 0], 1), "weights": vector(ev.identical_keys.weights[0, 0])}),
    Exercise("future-access", "choice",
             _choice("future-access", "a", {"b": "past-is-leak", "c": "self-is-leak", "d": "believes-causal"}),
             lambda ev: {**_worked_facts(ev), "answer": "a"}),
)}

_attempts: dict[str, list[bool]] = {}


def _exercise(exercise_id: str) -> Exercise:
    if exercise_id not in EXERCISES:
        raise KeyError(f"unknown exercise {exercise_id!r}; known: {', '.join(EXERCISES)}")
    return EXERCISES[exercise_id]


def check(exercise_id: str, answer: object) -> Feedback:
    """Judge ``answer``; a missing or unreadable answer gets a message, never an exception."""
    exercise = _exercise(exercise_id)
    try:
        feedback = exercise.judge(answer, LearnerEvidence())  # the expected answer is computed now
    except AnswerFormatError as error:
        return Feedback(exercise_id, False, str(error), readable=False)
    _attempts.setdefault(exercise_id, []).append(feedback.correct)
    return feedback


def attempted(exercise_id: str) -> bool:
    return bool(_attempts.get(exercise_id))


@dataclass(frozen=True)
class Solution:
    exercise_id: str
    shown: bool
    message: str

    def __repr__(self) -> str:
        return self.message

    def _repr_html_(self) -> str:
        return f'<div role="status" style="border-left:4px double #000;padding:4px 8px">{escape(self.message)}</div>'


def reveal(exercise_id: str) -> Solution:
    """The expected answer, computed now, with its explanation; only after an attempt."""
    exercise = _exercise(exercise_id)
    if not attempted(exercise_id):
        return Solution(exercise_id, False, text("reveal.locked"))
    facts = exercise.facts(LearnerEvidence())
    return Solution(exercise_id, True, text("reveal.answer", answer=facts["answer"])
                    + " " + text(f"ex.{exercise_id}.explain", **facts))


@dataclass(frozen=True)
class Progress:
    rows: tuple[tuple[str, int, bool], ...]  # id, attempts, right at least once

    def __repr__(self) -> str:
        width = max(len(i) for i, _, _ in self.rows)
        lines = [text("progress.header")]
        for exercise_id, count, right in self.rows:
            state = text("progress.right") if right else (text("progress.tried") if count else text("progress.open"))
            lines.append(f"{exercise_id.ljust(width)}  {state} ({text('progress.attempts')}: {count})")
        return "\n".join(lines)


def progress() -> Progress:
    """Which exercises were checked in this kernel, and which were answered right."""
    return Progress(tuple((i, len(_attempts.get(i, [])), any(_attempts.get(i, []))) for i in EXERCISES))


def reset_progress() -> None:
    _attempts.clear()
