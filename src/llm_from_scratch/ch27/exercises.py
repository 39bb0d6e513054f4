"""Chapter 27's predict-then-check exercises; the machinery is ``book.exercises``.

``check(exercise_id, answer)`` returns Feedback (``.correct``, ``.message``,
``.misconception``) and never raises for any answer; ``reveal(exercise_id)`` shows
the answer, computed now, only after an attempt; ``progress()`` says what was
checked in any notebook or kernel, and ``reset_progress()`` starts the chapter over.

EXERCISES lists every exercise in reading order: the worked example's, the second
example's (``*-by-hand``, worked with a pencil), and last the review's (REVIEW),
which ask for transfer to new situations.
"""

from __future__ import annotations

import numpy as np

from ..book.answers import AnswerFormatError, read_numbers
from ..book.exercises import (
    NUMERIC_TOLERANCE,
    Exercise,
    ExerciseBook,
    Judgement,
    choice_exercise,
    index_per_row,
    partial,
    right,
    row_labels,
    rows_swapped,
    same,
    wrong,
)
from ..book.formatting import NOISE, below, matrix, num, shape, vector
from .code_exercises import BUG_HUNT, CODE_EXERCISES
from .evidence import (
    SATURATING_FACTOR,
    HeadRun,
    LearnerEvidence,
    causal_mask,
    exponentials,
    masked_softmax,
    row_softmax,
    shape_case,
)
from .strings import STRINGS, text

HAND_TOLERANCE = 0.01  # a hand computation to two decimals, with e ≈ 2.72, lands this close


def _mixture_tolerance(mixed: np.ndarray) -> np.ndarray:
    """Per column of A·``mixed``: the answer's own rounding plus weights each up to HAND_TOLERANCE off."""
    return HAND_TOLERANCE * (1 + np.abs(mixed).sum(axis=0))


def _hint(exercise_id: str) -> AnswerFormatError:
    return AnswerFormatError(text(f"ex.{exercise_id}.form_hint"))


def _row_sums_off(answer: np.ndarray, tolerance: float) -> bool:
    return bool(np.any(np.abs(answer.sum(axis=-1) - 1.0) > tolerance * answer.shape[-1]))


def _heavier_value(ev: LearnerEvidence) -> np.ndarray:
    return ev.worked.run.weights[0].argmax(axis=1)


def _judge_scores(exercise_id: str, answer, run: HeadRun, hint: AnswerFormatError) -> Judgement:
    """QKᵀ of ``run``; the matrices a misconception gives instead are recognised and named."""
    expected, scaled = run.head.raw_scores.data[0], run.head.scaled_scores.data[0]
    q, k = run.query[0], run.key[0]
    a = read_numbers(answer, text(f"ex.{exercise_id}.form"))
    if same(a, q.T @ k) or same(a, k.T @ q):  # checked first: its shape is [d_k, d_k], not [T, T]
        return wrong("features-for-positions", "mis.features-for-positions")
    if a.shape != expected.shape:
        raise hint
    if same(a, expected):
        return right()
    if same(a, expected.T):
        return wrong("transposed-scores", "mis.transposed-scores")
    if same(a, scaled):
        return wrong("scaled-too-early", "mis.scaled-too-early")
    if rows_swapped(a, expected):
        return wrong("rows-swapped", "mis.rows-swapped")
    if same(a, q @ q.T) or same(a, k @ k.T):
        return wrong("query-with-query", "mis.query-with-query")
    return partial(exercise_id, a, expected, row_labels("q", len(expected)))


def _scores(answer, ev):
    expected = ev.worked.run.head.raw_scores.data[0]
    hint = AnswerFormatError(text("ex.scores.form_hint", shape=shape(expected.shape)))
    return _judge_scores("scores", answer, ev.worked.run, hint)


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
        return wrong("missing-scale", "mis.missing-scale")
    if same(a, row_softmax(scaled.T).T[0]):
        return wrong("columns-normalized", "mis.columns-normalized")
    if same(a, run.weights[0, 1]):
        return wrong("wrong-row", "mis.wrong-row")
    if same(a, scaled[0]) or same(a, run.head.raw_scores.data[0, 0]):
        return wrong("not-normalized", "mis.not-normalized")
    if abs(a.sum() - 1.0) > NUMERIC_TOLERANCE:
        return wrong("not-normalized", "mis.row-sum", total=num(a.sum(), 4))
    return wrong(None, "ex.weights.wrong")


def _scores_by_hand(answer, ev):
    return _judge_scores("scores-by-hand", answer, ev.hand, _hint("scores-by-hand"))


def _weights_by_hand(answer, ev):
    head = ev.hand.head
    expected = head.weights.data[0]
    raw, scaled = head.raw_scores.data[0], head.scaled_scores.data[0]
    a = read_numbers(answer, text("ex.weights-by-hand.form"))
    if a.shape != expected.shape:
        raise _hint("weights-by-hand")
    if same(a, expected, HAND_TOLERANCE):
        return right()
    if same(a, row_softmax(scaled.T).T, HAND_TOLERANCE):
        return wrong("columns-normalized", "mis.columns-normalized")
    if same(a, row_softmax(raw), HAND_TOLERANCE):
        return wrong("missing-scale", "mis.missing-scale")
    if same(a, row_softmax(scaled.T), HAND_TOLERANCE):
        return wrong("transposed-scores", "mis.transposed-scores")
    if any(same(a, x, HAND_TOLERANCE) for x in (raw, scaled, exponentials(scaled))):
        return wrong("not-normalized", "mis.not-normalized")
    if _row_sums_off(a, HAND_TOLERANCE):
        return wrong("not-normalized", "mis.row-sum", total=vector(a.sum(axis=1), 2))
    return partial("weights-by-hand", a, expected, row_labels("q", len(expected)), HAND_TOLERANCE)


def _output_by_hand(answer, ev):
    run = ev.hand
    weights, key, value = run.weights[0], run.key[0], run.value[0]
    expected = run.output[0]
    a = read_numbers(answer, text("ex.output-by-hand.form"))
    if same(a, weights @ key, _mixture_tolerance(key)):
        return wrong("mixed-keys", "mis.mixed-keys")
    if a.shape != expected.shape:
        raise _hint("output-by-hand")
    tolerance = _mixture_tolerance(value)
    if same(a, expected, tolerance):
        return right()
    if same(a, weights.T @ value, tolerance):
        return wrong("transposed-weights", "mis.transposed-weights")
    return partial("output-by-hand", a, expected, row_labels("o", len(expected)), tolerance)


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


def _temperature(answer, ev):
    example = ev.temperature
    expected = np.stack([example.cold, example.hot])
    a = read_numbers(answer, text("ex.temperature-limits.form"))
    if a.shape != expected.shape:
        raise _hint("temperature-limits")
    if same(a, expected, HAND_TOLERANCE):
        return right()
    if same(a, expected[::-1], HAND_TOLERANCE):
        return wrong("temperature-swapped", "mis.temperature-swapped")
    if _row_sums_off(a, HAND_TOLERANCE):
        return wrong("not-normalized", "mis.row-sum", total=vector(a.sum(axis=1), 2))
    return partial("temperature-limits", a, expected, ("τ → 0", "τ → ∞"), HAND_TOLERANCE)


def _causal_rows(answer, ev):
    scaled, weights = ev.hand.head.scaled_scores.data[0], ev.hand.weights[0]
    expected = ev.hand_causal
    mask = causal_mask(len(expected))
    a = read_numbers(answer, text("ex.causal-rows.form"))
    if a.shape != expected.shape:
        raise _hint("causal-rows")
    if same(a, expected, HAND_TOLERANCE):
        return right()
    for misreading, kept in (("mask-keeps-future", masked_softmax(scaled, mask.T)),
                             ("mask-hides-self", masked_softmax(scaled, np.tril(mask, -1))),
                             ("mask-not-renormalized", weights * mask), ("mask-ignored", weights)):
        if same(a, kept, HAND_TOLERANCE):
            return wrong(misreading, f"mis.{misreading}")
    if _row_sums_off(a, HAND_TOLERANCE):
        return wrong("not-normalized", "mis.row-sum", total=vector(a.sum(axis=1), 2))
    return partial("causal-rows", a, expected, row_labels("q", len(expected)), HAND_TOLERANCE)


def _head_width(answer, ev):
    split = ev.head_split
    expected = np.array([split.key_width, split.scale])
    a = read_numbers(answer, text("ex.head-width.form"))
    if a.shape != expected.shape:
        raise _hint("head-width")
    if same(a, expected):
        return right()
    if a[0] == split.model_width:
        return wrong("dk-is-dmodel", "mis.dk-is-dmodel")
    if a[0] == split.model_width * split.heads:
        return wrong("heads-multiply-width", "mis.heads-multiply-width")
    if a[0] == split.key_width and abs(a[1] - 1 / split.key_width) <= NUMERIC_TOLERANCE:
        return wrong("scale-without-root", "mis.scale-without-root")
    return partial("head-width", a, expected, ("d_k", "1/√d_k"))


def _prompt_fields(ev: LearnerEvidence) -> dict[str, str]:
    """Inputs quoted in the prompts (inputs only: no prompt may carry an answer)."""
    hand = ev.hand
    return {"value": vector(ev.single_token.value[0, 0], 0), "hand_query": matrix(hand.query[0], 0),
            "hand_key": matrix(hand.key[0], 0), "hand_value": matrix(hand.value[0], 0),
            "key_width": str(hand.head.key_width), "temperature_scores": vector(ev.temperature.scores, 0),
            "shift": num(ev.row_shift.shift, 0), "factor": num(SATURATING_FACTOR, 0),
            "model_width": str(ev.head_split.model_width), "heads": str(ev.head_split.heads)}


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


def _hand_scores_facts(ev: LearnerEvidence) -> dict[str, str]:
    run = ev.hand
    q, k = run.query[0, 2], run.key[0, 1]
    return {"answer": matrix(run.head.raw_scores.data[0], 0),
            "example": f"q_2 · k_1 = {vector(q, 0)} · {vector(k, 0)} = {num(run.head.raw_scores.data[0, 2, 1], 0)}"}


def _hand_weights_facts(ev: LearnerEvidence) -> dict[str, str]:
    head = ev.hand.head
    scaled = head.scaled_scores.data[0]
    exps = exponentials(scaled[0])
    return {"answer": matrix(head.weights.data[0], 3), "scaled": matrix(scaled, 0), "exps": vector(exps, 3),
            "total": num(exps.sum(), 3), "first": vector(head.weights.data[0, 0], 3)}


def _hand_output_facts(ev: LearnerEvidence) -> dict[str, str]:
    run = ev.hand
    terms = " + ".join(f"{num(a, 3)}·{vector(v, 0)}" for a, v in zip(run.weights[0, 0], run.value[0]))
    return {"answer": matrix(run.output[0], 3), "terms": terms, "first": vector(run.output[0, 0], 3)}


def _temperature_facts(ev: LearnerEvidence) -> dict[str, str]:
    example = ev.temperature
    return {"answer": f"[{vector(example.cold, 0)}, {vector(example.hot, 3)}]", "cold": vector(example.cold),
            "hot": vector(example.hot), "scores": vector(example.scores, 0)}


def _row_shift_facts(ev: LearnerEvidence) -> dict[str, str]:
    shift = ev.row_shift
    return {"shift": num(shift.shift, 0), "row": vector(shift.scores, 0), "weights": vector(shift.weights),
            "shifted": vector(shift.shifted), "difference": below(shift.max_difference, NOISE)}


def _saturated_facts(ev: LearnerEvidence) -> dict[str, str]:
    run = ev.saturated
    return {"factor": num(SATURATING_FACTOR, 0), "weights": matrix(run.weights[0]),
            "grad_q": vector(run.grad_query), "grad_v": vector(run.grad_value)}


def _small_gradient_facts(ev: LearnerEvidence) -> dict[str, str]:
    """Why Q̄ and K̄ are small in the worked example: Ā = ŌVᵀ is large, the softmax Jacobian lets little through."""
    run = ev.worked.run
    weights = run.weights[0]
    grad_weights = run.upstream[0] @ run.value[0].T
    grad_scores = weights * (grad_weights - (weights * grad_weights).sum(axis=1, keepdims=True))
    uniform = ev.identical_keys.weights[0, 0]
    return {"products": vector(weights.prod(axis=1)), "grad_weights": matrix(grad_weights, 0),
            "grad_scores": matrix(grad_scores), "root": num(np.sqrt(run.head.key_width), 2),
            "ratio": num(np.linalg.norm(run.grad_value) / np.linalg.norm(run.grad_query), 1),
            "uniform": vector(uniform, 1), "uniform_product": num(uniform.prod(), 2)}


def _causal_facts(ev: LearnerEvidence) -> dict[str, str]:
    weights = ev.hand_causal
    return {"answer": matrix(weights, 3), "row1": vector(weights[1], 3), "row2": vector(weights[2], 3)}


def _head_width_facts(ev: LearnerEvidence) -> dict[str, str]:
    split = ev.head_split
    return {"answer": f"[{split.key_width}, {num(split.scale, 3)}]", "model_width": str(split.model_width),
            "heads": str(split.heads), "key_width": str(split.key_width), "scale": num(split.scale, 3)}


def _divisor_facts(ev: LearnerEvidence) -> dict[str, str]:
    """√d_k against d_k: the [1, 0] example with and without the scale, and random scores divided both ways."""
    divisor, scale = ev.divisor, ev.scale
    return {"unscaled": vector(scale.unscaled), "scaled": vector(scale.scaled), "scale_width": str(scale.key_width),
            "key_width": str(divisor.key_width), "tokens": str(divisor.tokens),
            "variance_root": num(divisor.variance_root, 3), "variance_width": num(divisor.variance_width, 4),
            "max_root": num(divisor.max_weight_root, 3), "max_width": num(divisor.max_weight_width, 3),
            "uniform": num(1 / divisor.tokens, 4)}


def _history_facts(ev: LearnerEvidence) -> dict[str, str]:
    h = ev.history
    return {"encoder_pairs": str(len(h.encoder_decoder)), "self_pairs": str(len(h.self_attention))}


EXERCISES: dict[str, Exercise] = {e.id: e for e in (
    Exercise("first-look", "numbers", index_per_row("first-look", _heavier_value, "rows-swapped", text),
             lambda ev: {**_worked_facts(ev), "answer": vector(_heavier_value(ev), 0)}),
    Exercise("scores", "numbers", _scores, lambda ev: {
        **_worked_facts(ev), "answer": matrix(ev.worked.run.head.raw_scores.data[0], 0)}),
    Exercise("weights", "numbers", _weights, lambda ev: {
        **_worked_facts(ev), "answer": vector(ev.worked.run.weights[0, 0])}),
    Exercise("scores-by-hand", "numbers", _scores_by_hand, _hand_scores_facts),
    Exercise("weights-by-hand", "numbers", _weights_by_hand, _hand_weights_facts),
    Exercise("output-by-hand", "numbers", _output_by_hand, _hand_output_facts),
    choice_exercise("row-normalization", "c", {"a": "columns-normalized", "b": "scale-normalizes",
                                               "d": "weights-symmetric"}, _worked_facts),
    Exercise("output-shape", "numbers", _output_shape, _shape_facts),
    choice_exercise("why-root-dk", "d", {"a": "scale-invariant", "b": "width-sharpens", "c": "optimal-temperature"},
                    _divisor_facts),
    choice_exercise("recurrent-vs-self", "b", {"a": "constant-work", "c": "parallel-generation",
                                               "d": "anachronism"}, _history_facts),
    Exercise("single-token", "numbers", _single_token, _single_facts),
    choice_exercise("permutation", "d", {"a": "permutation-unchanged", "b": "head-knows-order",
                                         "c": "permutation-columns-only"},
                    lambda ev: {"order": str(list(ev.permutation.order)),
                                "difference": below(ev.permutation.max_difference, NOISE)}),
    Exercise("identical-keys", "numbers", _identical_keys, lambda ev: {
        "answer": vector(ev.identical_keys.weights[0, 0], 1), "weights": vector(ev.identical_keys.weights[0, 0])}),
    BUG_HUNT,
    choice_exercise("small-query-gradients", "c", {"a": "scale-shrinks-gradient", "b": "values-always-larger",
                                                   "d": "blames-upstream"}, _small_gradient_facts),
    choice_exercise("future-access", "a", {"b": "past-is-leak", "c": "self-is-leak", "d": "believes-causal"},
                    _worked_facts),
    # the review (10_exercises): transfer to situations the chapter did not compute
    Exercise("temperature-limits", "numbers", _temperature, _temperature_facts),
    choice_exercise("row-shift", "c", {"a": "shift-sharpens", "b": "shift-scales-weights", "d": "shift-flattens"},
                    _row_shift_facts),
    choice_exercise("one-hot-gradient", "d", {"a": "blames-values", "b": "argmax-not-differentiable",
                                              "c": "scale-kills-gradient"}, _saturated_facts),
    Exercise("causal-rows", "numbers", _causal_rows, _causal_facts),
    Exercise("head-width", "numbers", _head_width, _head_width_facts),
)}
REVIEW = ("temperature-limits", "row-shift", "one-hot-gradient", "causal-rows", "head-width")

BOOK = ExerciseBook("ch27", (*EXERCISES.values(), *CODE_EXERCISES), STRINGS, LearnerEvidence, _prompt_fields)
check = BOOK.check
check_code = BOOK.check  # a code exercise's answer is the learner's function
reveal = BOOK.reveal
progress = BOOK.progress
attempted = BOOK.attempted
reset_progress = BOOK.reset_progress
