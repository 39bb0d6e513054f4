"""Chapter 27's predict-then-check exercises; the machinery is ``book.exercises``.

``check(exercise_id, answer)`` returns Feedback (``.correct``, ``.message``,
``.misconception``) and never raises; ``reveal(exercise_id)`` shows the answer,
computed now, only after an attempt; ``progress()`` says what was checked.
"""

from __future__ import annotations

import numpy as np

from ..book.answers import AnswerFormatError, read_numbers
from ..book.exercises import (
    NUMERIC_TOLERANCE,
    Exercise,
    ExerciseBook,
    choice_exercise,
    index_per_row,
    partial,
    right,
    rows_swapped,
    same,
    wrong,
)
from ..book.formatting import NOISE, below, matrix, num, shape, vector
from .evidence import LearnerEvidence, row_softmax, shape_case
from .strings import STRINGS, text


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
    if same(a, expected):
        return right()
    if same(a, run.head.scaled_scores.data[0]):
        return wrong("scaled-too-early", "mis.scaled-too-early")
    if rows_swapped(a, expected):
        return wrong("rows-swapped", "mis.rows-swapped")
    if same(a, q.T @ k) or same(a, k.T @ q):
        return wrong("features-for-positions", "mis.features-for-positions")
    if same(a, q @ q.T) or same(a, k @ k.T):
        return wrong("query-with-query", "mis.query-with-query")
    return partial("scores", a, expected, "q")


def _weights(answer, ev):
    run = ev.worked.run
    expected = run.weights[0, 0]
    a = read_numbers(answer, text("ex.weights.form"))
    if a.shape != expected.shape:
        raise AnswerFormatError(text("ex.weights.form_hint", count=expected.size))
    scaled = run.head.scaled_scores.data[0]
    if same(a, expected):
        return right()
    if same(a, row_softmax(run.head.raw_scores.data[0])[0]):
        return wrong("forgot-scale", "mis.forgot-scale")
    if same(a, row_softmax(scaled.T).T[0]):
        return wrong("columns-normalized", "mis.columns-normalized")
    if same(a, run.weights[0, 1]):
        return wrong("wrong-row", "mis.wrong-row")
    if same(a, scaled[0]) or same(a, run.head.raw_scores.data[0, 0]):
        return wrong("not-normalized", "mis.not-normalized")
    if abs(a.sum() - 1.0) > NUMERIC_TOLERANCE:
        return wrong("not-normalized", "mis.row-sum", total=num(a.sum(), 4))
    return wrong(None, "ex.weights.wrong")


def _output_shape(answer, ev):
    expected = np.array(shape_case((4, 7, 3), (4, 7, 3), (4, 7, 5)).output_shape, dtype=float)
    a = read_numbers(answer, text("ex.output-shape.form"))
    if a.shape != (3,) or not np.array_equal(a, np.round(a)):
        raise AnswerFormatError(text("ex.output-shape.form_hint"))
    if np.array_equal(a, expected):
        return right()
    weights_shape = shape_case((4, 7, 3), (4, 7, 3), (4, 7, 5)).weights_shape
    if np.array_equal(a, weights_shape):
        return wrong("weights-shape-for-output", "mis.weights-shape-for-output")
    if np.array_equal(a, [*expected[:2], 3]):
        return wrong("dk-for-dv", "mis.dk-for-dv")
    names = (text("axis.batch"), text("axis.tokens"), text("axis.width"))
    matching = [n for n, x, e in zip(names, a, expected) if x == e]
    if matching:
        differing = [n for n, x, e in zip(names, a, expected) if x != e]
        return wrong(None, "feedback.partial", right=", ".join(matching), wrong=", ".join(differing))
    return wrong(None, "ex.output-shape.wrong")


def _single_token(answer, ev):
    run = ev.single_token
    expected = np.concatenate([run.weights.ravel(), run.output.ravel()])
    a = read_numbers(answer, text("ex.single-token.form"), flatten=True)
    if a.shape != expected.shape:
        raise AnswerFormatError(text("ex.single-token.form_hint"))
    weight_ok, output_ok = same(a[:1], expected[:1]), same(a[1:], expected[1:])
    if weight_ok and output_ok:
        return right()
    if not weight_ok and output_ok:
        return wrong("single-weight-not-one", "mis.single-weight-not-one")
    if weight_ok and same(a[1:], expected[1:] * ev.worked.run.head.scale):
        return wrong("scale-on-values", "mis.scale-on-values")
    if weight_ok:
        return wrong(None, "mis.single-output")
    return wrong("single-weight-not-one", "mis.single-weight-not-one")


def _identical_keys(answer, ev):
    weights = ev.identical_keys.weights[0]
    a = read_numbers(answer, text("ex.identical-keys.form"))
    expected = weights if a.ndim == 2 else weights[0]
    if a.shape != expected.shape:
        raise AnswerFormatError(text("ex.identical-keys.form_hint"))
    if same(a, expected):
        return right()
    rows = np.atleast_2d(a)
    if np.any(np.abs(rows.sum(axis=1) - 1) > NUMERIC_TOLERANCE):
        return wrong("not-normalized", "mis.row-sum", total=num(rows.sum(axis=1)[0], 4))
    return wrong("identical-keys-unequal", "mis.identical-keys-unequal")


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
    return {"encoder_pairs": str(len(h.encoder_decoder)), "self_pairs": str(len(h.self_attention))}


EXERCISES: dict[str, Exercise] = {e.id: e for e in (
    Exercise("first-look", "numbers", index_per_row("first-look", _heavier_value, "rows-swapped", text),
             lambda ev: {**_worked_facts(ev), "answer": vector(_heavier_value(ev), 0)}),
    Exercise("scores", "numbers", _scores, lambda ev: {
        **_worked_facts(ev), "answer": matrix(ev.worked.run.head.raw_scores.data[0], 0)}),
    Exercise("heavier-key", "numbers", index_per_row("heavier-key", _heavier_key, "query-key-swapped", text),
             lambda ev: {**_worked_facts(ev), "answer": vector(_heavier_key(ev), 0)}),
    Exercise("weights", "numbers", _weights, lambda ev: {
        **_worked_facts(ev), "answer": vector(ev.worked.run.weights[0, 0])}),
    choice_exercise("row-normalization", "a", {"b": "columns-normalized", "c": "scale-normalizes",
                                               "d": "weights-symmetric"}, _worked_facts),
    Exercise("output-shape", "numbers", _output_shape, _shape_facts),
    choice_exercise("recurrent-vs-self", "a", {"b": "constant-work", "c": "parallel-generation",
                                               "d": "anachronism"}, _history_facts),
    Exercise("single-token", "numbers", _single_token, _single_facts),
    choice_exercise("permutation", "a", {"b": "permutation-unchanged", "c": "head-knows-order",
                                         "d": "permutation-columns-only"},
                    lambda ev: {"order": str(list(ev.permutation.order)),
                                "difference": below(ev.permutation.max_difference, NOISE)}),
    Exercise("identical-keys", "numbers", _identical_keys, lambda ev: {
        "answer": vector(ev.identical_keys.weights[0, 0], 1), "weights": vector(ev.identical_keys.weights[0, 0])}),
    choice_exercise("future-access", "a", {"b": "past-is-leak", "c": "self-is-leak", "d": "believes-causal"},
                    _worked_facts),
)}

BOOK = ExerciseBook(tuple(EXERCISES.values()), STRINGS, LearnerEvidence, _prompt_fields)
check = BOOK.check
reveal = BOOK.reveal
progress = BOOK.progress
attempted = BOOK.attempted
reset_progress = BOOK.reset_progress
