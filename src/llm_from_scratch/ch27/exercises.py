"""Chapter 27's predict-then-check exercises, each declared once; the machinery is ``book.exercises``.

``check(exercise_id, answer)`` returns Feedback (``.correct``, ``.message``,
``.misconception``) and never raises for any answer; ``check_code(exercise_id, fn)``
judges a function the learner wrote; ``hint(exercise_id)`` gives the next, smaller step after an
attempt; ``reveal(exercise_id)`` shows the answer, computed now, only after an attempt; ``progress()``
says what was checked in any notebook or kernel, and ``reset_progress()`` starts the chapter over.

EXERCISES lists every exercise in reading order, from 01 to 09 (the second example's,
``*-by-hand``, are worked with a pencil in 08), and last the review's (REVIEW). Each
declaration holds the exercise's expected answer (a function of the evidence), its judge
with the misconceptions it names, and the catalogue keys of its strings.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..book.answers import AnswerFormatError, read_numbers
from ..book.exercises import (
    Exercise,
    ExerciseBook,
    Judgement,
    Notebook,
    Option,
    choice_exercise,
    partial,
    right,
    rows_swapped,
    same,
    wrong,
)
from ..book.formatting import below, labels, matrix, num, shape, vector
from ..book.mistakes import diagnose
from ..book.tolerances import BY_HAND, FLOAT_NOISE, ROUNDED, TYPED
from .challenges import CHALLENGES
from .code_exercises import BUG_HUNT, CODE_EXERCISES
from .evidence import LearnerEvidence, evidence, exponentials
from .examples import SATURATING_FACTOR
from .mistakes import (
    CAUSAL_MISTAKES,
    HEAD_MISTAKES,
    HEAD_WIDTH_MISTAKES,
    IDENTICAL_KEYS_MISTAKES,
    SCORE_GRADIENT_MISTAKES,
    SHAPE_MISTAKES,
    SINGLE_TOKEN_MISTAKES,
    TEMPERATURE_MISTAKES,
    VALUE_GRADIENT_MISTAKES,
    WEIGHT_GRADIENT_MISTAKES,
    Asked,
)
from .strings import STRINGS, text
from .variants import VARIANTS


def _mixture_tolerance(ev: LearnerEvidence) -> float:
    """A·V by hand: the answer's own rounding plus weights each up to BY_HAND off, times the values."""
    return BY_HAND * (1 + float(np.abs(ev.hand.value[0]).sum(axis=0).max()))


def _size(expected: np.ndarray) -> str:
    """A matrix's size as the prompts write it: 3×3."""
    return "×".join(str(n) for n in np.shape(expected))


def _layout(rows: int, columns: int) -> str:
    """How to write a rows × columns answer: [[a, b], [c, d]]; one row: [a, b]."""
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    written = ["[" + ", ".join(next(letters) for _ in range(columns)) + "]" for _ in range(rows)]
    return written[0] if rows == 1 else "[" + ", ".join(written) + "]"


def _exact(expected: np.ndarray) -> str:
    return matrix(expected) if np.ndim(expected) == 2 else vector(expected)


def _row_sums_off(answer: np.ndarray, tolerance: float) -> bool:
    return bool(np.any(np.abs(answer.sum(axis=-1) - 1.0) > tolerance * answer.shape[-1]))


def _row_sum_mistake(answer: np.ndarray, decimals: int) -> Judgement:
    """The rows of ``answer`` do not sum to 1: say what they sum to (one number for one row)."""
    sums = answer.sum(axis=-1)
    return wrong("not-normalized", "mis.row-sum", total=vector(sums, decimals) if sums.ndim else num(sums, decimals))


def _read_flat(answer: object, form: str) -> np.ndarray:
    """Numbers in order, whatever their nesting: [1, [5, -2]] is [1, 5, -2]."""
    return read_numbers(answer, form, flatten=True)


def _rest(a, expected, wrong_key: str, prefix: str, tolerance: float, rows_sum_to_one: bool) -> Judgement:
    """What to say when no mistake of the library explains the answer: the row sums, or the rows that are right."""
    if rows_sum_to_one and _row_sums_off(np.atleast_2d(a), max(tolerance, ROUNDED)):
        return _row_sum_mistake(a, 2 if tolerance >= BY_HAND else 4)
    if a.ndim == 1:
        return wrong(None, wrong_key)
    return partial(wrong_key, a, expected, labels(prefix, len(expected)), max(tolerance, ROUNDED))


def head_judge(asked: Callable[[LearnerEvidence], Asked], hint: Callable[[np.ndarray], AnswerFormatError],
               wrong_key: str, prefix: str, tolerance: Callable[[LearnerEvidence], float] = lambda ev: 0.0,
               rows_sum_to_one: bool = False) -> Callable:
    """A judge of a stage of a head run: the mistake library first (it knows answers of other shapes too),
    then the shape, then what is left (``hint(expected)`` is the refusal of a wrong shape)."""
    def judge(a, expected, ev):
        found = diagnose(a, expected, HEAD_MISTAKES, asked(ev), tolerance(ev), _exact)
        if found:
            return found
        if a.shape != expected.shape:
            raise hint(expected)
        return _rest(a, expected, wrong_key, prefix, tolerance(ev), rows_sum_to_one)
    return judge


def _first_look(a, expected, ev):
    if a.shape != expected.shape or not np.isin(a, (0, 1)).all():
        raise AnswerFormatError(text("ex.first-look.form_hint"))
    if same(a, expected):
        return right()
    if rows_swapped(a, expected):
        return wrong("rows-swapped", "mis.rows-swapped")
    return partial("ex.first-look.wrong", a, expected, labels("q", len(expected)))


def _output_shape(a, expected, ev):
    if not np.array_equal(a, np.round(a)):
        raise AnswerFormatError(text("ex.output-shape.form_hint"))
    found = diagnose(a, expected, SHAPE_MISTAKES, ev.output_shape, 0.0, shape)
    if found:
        return found
    if a.shape != (3,):
        raise AnswerFormatError(text("ex.output-shape.form_hint"))
    names = (text("axis.batch"), text("axis.tokens"), text("axis.width"))
    matching = [n for n, x, e in zip(names, a, expected) if x == e]
    if matching:
        differing = [n for n, x, e in zip(names, a, expected) if x != e]
        return wrong(None, "feedback.partial", right=", ".join(matching), wrong=", ".join(differing))
    return wrong(None, "ex.output-shape.wrong")


def _single_token(a, expected, ev):
    found = diagnose(a, expected, SINGLE_TOKEN_MISTAKES, ev, 0.0, lambda e: f"[{num(e[0], 0)}, {vector(e[1:], 0)}]")
    if found:
        return found
    if a.shape != expected.shape:
        raise AnswerFormatError(text("ex.single-token.form_hint"))
    if same(a[:1], expected[:1]):
        return wrong(None, "mis.single-output")
    return wrong("single-weight-not-one", "mis.single-weight-not-one")


def _identical_keys(a, expected, ev):
    if a.ndim == 1:  # one row stands for both
        expected = expected[0]
    found = diagnose(a, expected, IDENTICAL_KEYS_MISTAKES, ev, 0.0, vector)
    if found:
        return found
    if a.shape != expected.shape:
        raise AnswerFormatError(text("ex.identical-keys.form_hint", **_identical_inputs(ev)))
    if np.any(np.abs(a.sum(axis=-1) - 1) > TYPED):
        return _row_sum_mistake(np.atleast_2d(a)[0], 4)
    return wrong("identical-keys-unequal", "mis.identical-keys-unequal")


def _review_judge(mistakes, hint_key: str, wrong_key: str, labels_of, tolerance: float = BY_HAND,
                  rows_sum_to_one: bool = True) -> Callable:
    """A judge of a review exercise: its own mistakes first, then the shape, then the row sums and rows."""
    def judge(a, expected, ev):
        found = diagnose(a, expected, mistakes, ev, tolerance, _exact)
        if found:
            return found
        if a.shape != expected.shape:
            raise AnswerFormatError(text(hint_key, size=_size(expected)))
        if rows_sum_to_one and _row_sums_off(a, tolerance):
            return _row_sum_mistake(a, 2)
        return partial(wrong_key, a, expected, labels_of(expected), tolerance)
    return judge


def _score_gradient(a, expected, ev):
    """S̄ by hand: its mistakes first, then the shape; every row of S̄ sums to 0, so say so when one does not."""
    found = diagnose(a, expected, SCORE_GRADIENT_MISTAKES, ev, 0.0, _exact)
    if found:
        return found
    if a.shape != expected.shape:
        raise AnswerFormatError(text("ex.score-gradient.form_hint"))
    sums = a.sum(axis=-1)
    if np.any(np.abs(sums) > ROUNDED * a.shape[-1]):
        return wrong("gradient-rows-not-zero", "mis.gradient-rows-not-zero", sums=vector(sums, 4))
    return partial("ex.score-gradient.wrong", a, expected, labels("q", len(expected)), ROUNDED)


# --- what reveal explains: (expected, evidence) -> fields ------------------------------------

def _worked_facts(ev: LearnerEvidence) -> dict[str, str]:
    head, weights = ev.worked.head, ev.worked.weights
    return {"scaled_row": vector(head.scaled_scores.data[0, 0]), "row_sum": num(weights[0, 0].sum()),
            "row_sums": vector(weights[0].sum(axis=1)), "column_sums": vector(weights[0].sum(axis=0)),
            "column_total": num(weights[0].sum()),
            "future_weight": num(weights[0, 0, 1])}


def _shape_facts(expected, ev):
    case = ev.output_shape
    return {"answer": shape(expected), "weights_shape": shape(case.weights_shape),
            "value_shape": shape(case.value_shape), "output_shape": shape(case.output_shape)}


def _single_facts(expected, ev):
    run = ev.single_token
    return {"answer": f"[{num(expected[0], 0)}, {vector(expected[1:], 0)}]", "weights": vector(run.weights),
            "output": vector(run.output), "grad_q": vector(run.grad_query), "grad_k": vector(run.grad_key)}


def _hand_scores_facts(expected, ev):
    i, j = len(expected) - 1, 1  # the last query with the second key: q_2 · k_1 in the second example
    q, k = ev.hand.query[0, i], ev.hand.key[0, j]
    return {"answer": matrix(expected, 0), "example": f"q_{i} · k_{j} = {vector(q, 0)} · {vector(k, 0)} = "
                                                      f"{num(expected[i, j], 0)}"}


def _hand_weights_facts(expected, ev):
    scaled = ev.hand.head.scaled_scores.data[0]
    exps = exponentials(scaled[0])
    return {"answer": matrix(expected, 3), "scaled": matrix(scaled, 0), "exps": vector(exps, 3),
            "total": num(exps.sum(), 3), "first": vector(expected[0], 3),
            "root": num(np.sqrt(ev.hand.head.key_width), 0),
            "largest": num(expected.max(), 3)}


def _hand_output_facts(expected, ev):
    run = ev.hand
    terms = " + ".join(f"{num(a, 3)}·{vector(v, 0)}" for a, v in zip(run.weights[0, 0], run.value[0]))
    return {"answer": matrix(expected, 3), "terms": terms, "first": vector(expected[0], 3)}


def _temperature_facts(expected, ev):
    example = ev.temperature
    return {"answer": f"[{vector(example.cold, 0)}, {vector(example.hot, 3)}]", "cold": vector(example.cold),
            "hot": vector(example.hot), "scores": vector(example.scores, 0)}


def _row_shift_facts(ev: LearnerEvidence) -> dict[str, str]:
    shift = ev.row_shift
    return {"shift": num(shift.shift, 0), "row": vector(shift.scores, 0), "weights": vector(shift.weights),
            "shifted": vector(shift.shifted), "difference": below(shift.max_difference, FLOAT_NOISE)}


def _saturated_facts(ev: LearnerEvidence) -> dict[str, str]:
    run = ev.saturated
    return {"factor": num(SATURATING_FACTOR, 0), "weights": matrix(run.weights[0]),
            "grad_q": vector(run.grad_query), "grad_v": vector(run.grad_value)}


def _small_gradient_facts(ev: LearnerEvidence) -> dict[str, str]:
    """Why Q̄ and K̄ are small in the worked example: Ā = ŌVᵀ is large, the softmax Jacobian lets little through."""
    run = ev.worked
    weights = run.weights[0]
    grad_weights = run.upstream[0] @ run.value[0].T
    grad_scores = weights * (grad_weights - (weights * grad_weights).sum(axis=1, keepdims=True))
    uniform = ev.identical_keys.weights[0, 0]
    return {"products": vector(weights.prod(axis=1)), "grad_weights": matrix(grad_weights, 0),
            "grad_scores": matrix(grad_scores), "root": num(np.sqrt(run.head.key_width), 2),
            "ratio": num(np.linalg.norm(run.grad_value) / np.linalg.norm(run.grad_query), 1),
            "uniform": vector(uniform, 1), "uniform_product": num(uniform.prod(), 2)}


def _gradient_facts(expected, ev):
    return {"answer": matrix(expected, 3), "weights": matrix(ev.worked.weights[0])}


def _score_gradient_facts(expected, ev):
    weights, grad_weights = ev.worked.weights[0, 0], ev.worked_steps.grad_weights[0]
    inner = float(weights @ grad_weights)
    return {"answer": matrix(expected, 3), "row": vector(weights), "grad_row": vector(grad_weights, 0),
            "inner": num(inner), "first": vector(expected[0], 3)}


def _causal_facts(expected, ev):
    rows = "; ".join(f"q_{i}: {vector(row, 3)}" for i, row in enumerate(expected))
    return {"answer": matrix(expected, 3), "rows": rows}


def _head_width_facts(expected, ev):
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
    return {"encoder_pairs": str(len(ev.history.encoder_decoder)), "self_pairs": str(len(ev.history.self_attention))}


def _permutation_facts(ev: LearnerEvidence) -> dict[str, str]:
    return {"order": str(list(ev.permutation.order)), "difference": below(ev.permutation.max_difference, FLOAT_NOISE)}


def _hand_inputs(ev: LearnerEvidence) -> dict[str, str]:
    hand = ev.hand
    tokens, value_width = hand.value.shape[1:]
    return {"hand_query": matrix(hand.query[0], 0), "hand_key": matrix(hand.key[0], 0),
            "hand_value": matrix(hand.value[0], 0), "key_width": str(hand.head.key_width),
            "root": num(np.sqrt(hand.head.key_width), 0), "size": f"{tokens}×{tokens}",
            "layout": _layout(tokens, tokens), "value_size": f"{tokens}×{value_width}",
            "value_layout": _layout(tokens, value_width)}


def _causal_inputs(ev: LearnerEvidence) -> dict[str, str]:
    """The hand example's sizes, and which example it is: the second (variant 0) or one given here."""
    fields = _hand_inputs(ev)
    example = (text("ex.causal-rows.second") if ev.instance.variant == 0 else
               text("ex.causal-rows.given", **fields))
    return {**fields, "tokens": str(ev.hand.query.shape[1]), "example": example}


def _identical_inputs(ev: LearnerEvidence) -> dict[str, str]:
    tokens = ev.identical_keys.key.shape[1]
    return {"key_rows": matrix(ev.identical_keys.key[0], 0), "tokens": str(tokens), "size": f"{tokens}×{tokens}",
            "layout": _layout(1, tokens)}


def _shape_inputs(ev: LearnerEvidence) -> dict[str, str]:
    case = ev.output_shape
    return {"query_shape": "×".join(map(str, case.query_shape)), "value_shape": "×".join(map(str, case.value_shape))}


EXERCISES: dict[str, Exercise] = {e.id: e for e in (
    Exercise("first-look", "numbers", skills=("skill.dot-products",),
             hints=("ex.first-look.hint_stage", "ex.first-look.hint_formula"),
             title="ex.first-look.title", prompt="ex.first-look.prompt",
             form="ex.first-look.form", explain="ex.first-look.explain",
             expected=lambda ev: ev.worked.weights[0].argmax(axis=1).astype(float), judge=_first_look,
             facts=lambda expected, ev: {**_worked_facts(ev), "answer": vector(expected, 0)}),
    Exercise("scores", "numbers", skills=("skill.dot-products",),
             hints=("ex.scores.hint_stage", "ex.scores.hint_formula"),
             title="ex.scores.title", prompt="ex.scores.prompt", form="ex.scores.form",
             explain="ex.scores.explain", expected=lambda ev: ev.worked.head.raw_scores.data[0],
             judge=head_judge(lambda ev: Asked(ev.worked, ev.hand, "raw"),
                              lambda e: AnswerFormatError(text("ex.scores.form_hint", shape=shape(e.shape))),
                              "ex.scores.wrong", "q"),
             facts=lambda expected, ev: {**_worked_facts(ev), "answer": matrix(expected, 0)}),
    Exercise("weights", "numbers", skills=("skill.row-softmax",),
             hints=("ex.weights.hint_stage", "ex.weights.hint_formula"),
             title="ex.weights.title", prompt="ex.weights.prompt", form="ex.weights.form",
             explain="ex.weights.explain", expected=lambda ev: ev.worked.weights[0, 0],
             judge=head_judge(lambda ev: Asked(ev.worked, ev.hand, "weights", (0,)),
                              lambda e: AnswerFormatError(text("ex.weights.form_hint", count=e.size)),
                              "ex.weights.wrong", "q", rows_sum_to_one=True),
             facts=lambda expected, ev: {**_worked_facts(ev), "answer": vector(expected)}),
    *CHALLENGES,  # 02's vector plane: three predictions, each before its move
    choice_exercise("row-normalization", skills=("skill.row-softmax",),
                    hints=("ex.row-normalization.hint_stage", "ex.row-normalization.hint_formula"),
                    title="ex.row-normalization.title", prompt="ex.row-normalization.prompt",
                    explain="ex.row-normalization.explain", correct="c", facts=_worked_facts, options={
                        "a": Option("ex.row-normalization.a", "ex.row-normalization.why_a", "columns-normalized"),
                        "b": Option("ex.row-normalization.b", "ex.row-normalization.why_b", "weights-symmetric"),
                        "c": Option("ex.row-normalization.c", "ex.row-normalization.right"),
                        "d": Option("ex.row-normalization.d", "ex.row-normalization.why_d", "scale-normalizes")}),
    BUG_HUNT,
    Exercise("output-shape", "numbers", skills=("skill.shapes",), varies="shape",
             hints=("ex.output-shape.hint_stage", "ex.output-shape.hint_formula"),
             title="ex.output-shape.title", prompt="ex.output-shape.prompt", inputs=_shape_inputs,
             form="ex.output-shape.form", explain="ex.output-shape.explain",
             expected=lambda ev: np.array(ev.output_shape.output_shape, dtype=float), judge=_output_shape,
             facts=_shape_facts),
    choice_exercise("why-root-dk", skills=("skill.scaling",),
                    hints=("ex.why-root-dk.hint_stage", "ex.why-root-dk.hint_formula"),
                    title="ex.why-root-dk.title", prompt="ex.why-root-dk.prompt",
                    explain="ex.why-root-dk.explain", correct="d", facts=_divisor_facts, options={
                        "a": Option("ex.why-root-dk.a", "ex.why-root-dk.why_a", "scale-invariant"),
                        "b": Option("ex.why-root-dk.b", "ex.why-root-dk.why_b", "width-sharpens"),
                        "c": Option("ex.why-root-dk.c", "ex.why-root-dk.why_c", "cosine-normalization"),
                        "d": Option("ex.why-root-dk.d", "ex.why-root-dk.right")}),
    choice_exercise("recurrent-vs-self", skills=("skill.history",),
                    hints=("ex.recurrent-vs-self.hint_stage", "ex.recurrent-vs-self.hint_formula"),
                    title="ex.recurrent-vs-self.title", prompt="ex.recurrent-vs-self.prompt",
                    explain="ex.recurrent-vs-self.explain", correct="b", facts=_history_facts, options={
                        "a": Option("ex.recurrent-vs-self.a", "ex.recurrent-vs-self.why_a", "constant-work"),
                        "b": Option("ex.recurrent-vs-self.b", "ex.recurrent-vs-self.right"),
                        "c": Option("ex.recurrent-vs-self.c", "ex.recurrent-vs-self.why_c", "parallel-generation"),
                        "d": Option("ex.recurrent-vs-self.d", "ex.recurrent-vs-self.why_d", "anachronism")}),
    Exercise("identical-keys", "numbers", skills=("skill.row-softmax", "skill.properties"), varies="identical",
             hints=("ex.identical-keys.hint_stage", "ex.identical-keys.hint_formula"),
             title="ex.identical-keys.title", prompt="ex.identical-keys.prompt", inputs=_identical_inputs,
             form="ex.identical-keys.form", explain="ex.identical-keys.explain",
             expected=lambda ev: ev.identical_keys.weights[0], judge=_identical_keys,
             facts=lambda expected, ev: {"answer": vector(expected[0], 3), "weights": vector(expected[0])}),
    Exercise("single-token", "numbers", skills=("skill.mixing", "skill.properties"), varies="single",
             hints=("ex.single-token.hint_stage", "ex.single-token.hint_formula"),
             title="ex.single-token.title", prompt="ex.single-token.prompt",
             inputs=lambda ev: {"value": vector(ev.single_token.value[0, 0], 0)}, form="ex.single-token.form",
             read=_read_flat, explain="ex.single-token.explain",
             expected=lambda ev: np.concatenate([ev.single_token.weights.ravel(), ev.single_token.output.ravel()]),
             judge=_single_token, facts=_single_facts),
    choice_exercise("permutation", skills=("skill.properties",),
                    hints=("ex.permutation.hint_stage", "ex.permutation.hint_formula"),
                    title="ex.permutation.title", prompt="ex.permutation.prompt",
                    explain="ex.permutation.explain", correct="d", facts=_permutation_facts, options={
                        "a": Option("ex.permutation.a", "ex.permutation.why_a", "permutation-unchanged"),
                        "b": Option("ex.permutation.b", "ex.permutation.why_b", "head-knows-order"),
                        "c": Option("ex.permutation.c", "ex.permutation.why_c", "permutation-columns-only"),
                        "d": Option("ex.permutation.d", "ex.permutation.right")}),
    Exercise("value-gradient", "numbers", skills=("skill.gradients",),
             hints=("ex.value-gradient.hint_stage", "ex.value-gradient.hint_formula"),
             title="ex.value-gradient.title", prompt="ex.value-gradient.prompt", form="ex.value-gradient.form",
             explain="ex.value-gradient.explain", expected=lambda ev: ev.worked_steps.grad_value,
             judge=_review_judge(VALUE_GRADIENT_MISTAKES, "ex.value-gradient.form_hint", "ex.value-gradient.wrong",
                                 lambda e: labels("v", len(e)), tolerance=0.0, rows_sum_to_one=False),
             facts=_gradient_facts),
    Exercise("weight-gradient", "numbers", skills=("skill.gradients",),
             hints=("ex.weight-gradient.hint_stage", "ex.weight-gradient.hint_formula"),
             title="ex.weight-gradient.title", prompt="ex.weight-gradient.prompt", form="ex.weight-gradient.form",
             explain="ex.weight-gradient.explain", expected=lambda ev: ev.worked_steps.grad_weights,
             judge=_review_judge(WEIGHT_GRADIENT_MISTAKES, "ex.weight-gradient.form_hint",
                                 "ex.weight-gradient.wrong", lambda e: labels("q", len(e)), tolerance=0.0,
                                 rows_sum_to_one=False),
             facts=_gradient_facts),
    Exercise("score-gradient", "numbers", skills=("skill.gradients",),
             hints=("ex.score-gradient.hint_stage", "ex.score-gradient.hint_formula"),
             title="ex.score-gradient.title", prompt="ex.score-gradient.prompt", form="ex.score-gradient.form",
             explain="ex.score-gradient.explain", expected=lambda ev: ev.worked_steps.grad_scores,
             judge=_score_gradient, facts=_score_gradient_facts),
    choice_exercise("small-query-gradients",
                    skills=("skill.gradients",),
                    hints=("ex.small-query-gradients.hint_stage", "ex.small-query-gradients.hint_formula"),
                    title="ex.small-query-gradients.title",
                    prompt="ex.small-query-gradients.prompt", explain="ex.small-query-gradients.explain",
                    correct="c", facts=_small_gradient_facts, options={
                        "a": Option("ex.small-query-gradients.a", "ex.small-query-gradients.why_a",
                                    "scale-shrinks-gradient"),
                        "b": Option("ex.small-query-gradients.b", "ex.small-query-gradients.why_b",
                                    "values-always-larger"),
                        "c": Option("ex.small-query-gradients.c", "ex.small-query-gradients.right"),
                        "d": Option("ex.small-query-gradients.d", "ex.small-query-gradients.why_d",
                                    "blames-upstream")}),
    Exercise("scores-by-hand", "numbers", skills=("skill.dot-products",), varies="hand",
             hints=("ex.scores-by-hand.hint_stage", "ex.scores-by-hand.hint_formula"),
             title="ex.scores-by-hand.title", prompt="ex.scores-by-hand.prompt",
             inputs=_hand_inputs, form="ex.scores-by-hand.form", explain="ex.scores-by-hand.explain",
             expected=lambda ev: ev.hand.head.raw_scores.data[0], facts=_hand_scores_facts,
             judge=head_judge(lambda ev: Asked(ev.hand, ev.worked, "raw"),
                              lambda e: AnswerFormatError(text("ex.scores-by-hand.form_hint", size=_size(e))),
                              "ex.scores-by-hand.wrong", "q")),
    Exercise("weights-by-hand", "numbers", skills=("skill.scaling", "skill.row-softmax"), varies="hand",
             hints=("ex.weights-by-hand.hint_stage", "ex.weights-by-hand.hint_formula"),
             title="ex.weights-by-hand.title", prompt="ex.weights-by-hand.prompt",
             inputs=_hand_inputs, form="ex.weights-by-hand.form", explain="ex.weights-by-hand.explain",
             expected=lambda ev: ev.hand.weights[0], facts=_hand_weights_facts,
             judge=head_judge(lambda ev: Asked(ev.hand, ev.worked, "weights"),
                              lambda e: AnswerFormatError(text("ex.weights-by-hand.form_hint", size=_size(e))),
                              "ex.weights-by-hand.wrong", "q", lambda ev: BY_HAND, rows_sum_to_one=True)),
    Exercise("output-by-hand", "numbers", skills=("skill.mixing",), varies="hand",
             hints=("ex.output-by-hand.hint_stage", "ex.output-by-hand.hint_formula"),
             title="ex.output-by-hand.title", prompt="ex.output-by-hand.prompt",
             inputs=_hand_inputs, form="ex.output-by-hand.form", explain="ex.output-by-hand.explain",
             expected=lambda ev: ev.hand.output[0], facts=_hand_output_facts,
             judge=head_judge(lambda ev: Asked(ev.hand, ev.worked, "output"),
                              lambda e: AnswerFormatError(text("ex.output-by-hand.form_hint", size=_size(e))),
                              "ex.output-by-hand.wrong", "o", _mixture_tolerance)),
    choice_exercise("future-access", skills=("skill.causal-mask",),
                    hints=("ex.future-access.hint_stage", "ex.future-access.hint_formula"),
                    title="ex.future-access.title", prompt="ex.future-access.prompt",
                    explain="ex.future-access.explain", correct="a", facts=_worked_facts, options={
                        "a": Option("ex.future-access.a", "ex.future-access.right"),
                        "b": Option("ex.future-access.b", "ex.future-access.why_b", "past-is-leak"),
                        "c": Option("ex.future-access.c", "ex.future-access.why_c", "self-is-leak"),
                        "d": Option("ex.future-access.d", "ex.future-access.why_d", "believes-causal")}),
    Exercise("causal-rows", "numbers", skills=("skill.causal-mask",), varies="causal",
             hints=("ex.causal-rows.hint_stage", "ex.causal-rows.hint_formula"),
             title="ex.causal-rows.title", prompt="ex.causal-rows.prompt", inputs=_causal_inputs,
             form="ex.causal-rows.form", explain="ex.causal-rows.explain", expected=lambda ev: ev.hand_causal,
             judge=_review_judge(CAUSAL_MISTAKES, "ex.causal-rows.form_hint", "ex.causal-rows.wrong",
                                 lambda e: labels("q", len(e))), facts=_causal_facts),
    # the review (10_exercises): three return to what the chapter computed, in new circumstances; one is new
    Exercise("temperature-limits", "numbers",
             skills=("skill.scaling", "skill.row-softmax"),
             hints=("ex.temperature-limits.hint_stage", "ex.temperature-limits.hint_formula"),
             title="ex.temperature-limits.title",
             prompt="ex.temperature-limits.prompt",
             inputs=lambda ev: {"temperature_scores": vector(ev.temperature.scores, 0)},
             form="ex.temperature-limits.form", explain="ex.temperature-limits.explain",
             expected=lambda ev: np.stack([ev.temperature.cold, ev.temperature.hot]),
             judge=_review_judge(TEMPERATURE_MISTAKES, "ex.temperature-limits.form_hint",
                                 "ex.temperature-limits.wrong", lambda e: ("τ → 0", "τ → ∞")),
             facts=_temperature_facts),
    choice_exercise("row-shift", skills=("skill.row-softmax", "skill.properties"),
                    hints=("ex.row-shift.hint_stage", "ex.row-shift.hint_formula"),
                    title="ex.row-shift.title", prompt="ex.row-shift.prompt",
                    inputs=lambda ev: {"shift": num(ev.row_shift.shift, 0)},
                    explain="ex.row-shift.explain", correct="c", facts=_row_shift_facts, options={
                        "a": Option("ex.row-shift.a", "ex.row-shift.why_a", "shift-sharpens"),
                        "b": Option("ex.row-shift.b", "ex.row-shift.why_b", "shift-scales-weights"),
                        "c": Option("ex.row-shift.c", "ex.row-shift.right"),
                        "d": Option("ex.row-shift.d", "ex.row-shift.why_d", "shift-flattens")}),
    choice_exercise("one-hot-gradient", skills=("skill.gradients",),
                    hints=("ex.one-hot-gradient.hint_stage", "ex.one-hot-gradient.hint_formula"),
                    title="ex.one-hot-gradient.title", prompt="ex.one-hot-gradient.prompt",
                    inputs=lambda ev: {"factor": num(SATURATING_FACTOR, 0)},
                    explain="ex.one-hot-gradient.explain", correct="d", facts=_saturated_facts, options={
                        "a": Option("ex.one-hot-gradient.a", "ex.one-hot-gradient.why_a", "blames-values"),
                        "b": Option("ex.one-hot-gradient.b", "ex.one-hot-gradient.why_b",
                                    "argmax-not-differentiable"),
                        "c": Option("ex.one-hot-gradient.c", "ex.one-hot-gradient.why_c", "scale-kills-gradient"),
                        "d": Option("ex.one-hot-gradient.d", "ex.one-hot-gradient.right")}),
    Exercise("head-width", "numbers", skills=("skill.scaling",), varies="split",
             hints=("ex.head-width.hint_stage", "ex.head-width.hint_formula"),
             title="ex.head-width.title", prompt="ex.head-width.prompt",
             inputs=lambda ev: {"model_width": str(ev.head_split.model_width), "heads": str(ev.head_split.heads)},
             form="ex.head-width.form", explain="ex.head-width.explain",
             expected=lambda ev: np.array([ev.head_split.key_width, ev.head_split.scale]),
             judge=_review_judge(HEAD_WIDTH_MISTAKES, "ex.head-width.form_hint", "ex.head-width.wrong",
                                 lambda e: ("d_k", "1/√d_k"), tolerance=TYPED, rows_sum_to_one=False),
             facts=_head_width_facts),
)}
REVIEW = ("temperature-limits", "row-shift", "one-hot-gradient", "head-width")
# which notebook asks which exercise, in its order (tests/test_exercises.py checks it against the notebooks)
NOTEBOOKS = (
    Notebook("01_predict", "notebook.01_predict", ("first-look", "scores")),
    Notebook("02_scores_softmax_mixture", "notebook.02_scores_softmax_mixture",
             ("weights", *(c.id for c in CHALLENGES))),
    Notebook("03_shapes", "notebook.03_shapes", ("row-normalization", "bug-hunt", "output-shape")),
    Notebook("04_scaling", "notebook.04_scaling", ("why-root-dk",)),
    Notebook("05_history", "notebook.05_history", ("recurrent-vs-self", "identical-keys")),
    Notebook("06_head_from_primitives", "notebook.06_head_from_primitives",
             ("single-token", "permutation", "write-head")),
    Notebook("07_gradients", "notebook.07_gradients",
             ("value-gradient", "weight-gradient", "score-gradient", "small-query-gradients", "write-backward")),
    Notebook("08_trace", "notebook.08_trace", ("scores-by-hand", "weights-by-hand", "output-by-hand")),
    Notebook("09_next", "notebook.09_next", ("future-access", "causal-rows")),
    Notebook("10_exercises", "notebook.10_exercises", REVIEW),
)

EXERCISE_BOOK = ExerciseBook("ch27", (*EXERCISES.values(), *CODE_EXERCISES), STRINGS, evidence, VARIANTS, NOTEBOOKS)
check = EXERCISE_BOOK.check
check_code = EXERCISE_BOOK.check_code
reveal = EXERCISE_BOOK.reveal
hint = EXERCISE_BOOK.hint
progress = EXERCISE_BOOK.progress
attempted = EXERCISE_BOOK.attempted
reset_progress = EXERCISE_BOOK.reset_progress
variant = EXERCISE_BOOK.variant
next_variant = EXERCISE_BOOK.next_variant
mastery = EXERCISE_BOOK.mastery
learner = EXERCISE_BOOK.learner
set_name = EXERCISE_BOOK.set_name


def holds_answer(exercise_id: str, values: list[object]) -> bool:
    """Whether ``values`` (the Tensors or arrays a fold is about to show) hold the judge's answer on the chapter's
    inputs: the first of them, or its first row where the question asks for one row (a batch axis of one
    dropped), or the first few read in order where the answer joins several (a weight and an output)."""
    expected = np.asarray(EXERCISE_BOOK[exercise_id].expected(evidence()), dtype=np.float64)
    arrays = [np.asarray(getattr(value, "data", value), dtype=np.float64) for value in values]
    first = arrays[0]
    while first.ndim > expected.ndim:
        first = first[0]
    joined, size = [], 0
    for array in arrays:  # the first arrays that together hold as many numbers as the answer
        if size < expected.size:
            joined.append(array.ravel())
            size += array.size
    candidates = [first] + ([np.concatenate(joined).reshape(expected.shape)] if size == expected.size else [])
    return any(found.shape == expected.shape and bool(np.allclose(found, expected, rtol=0.0, atol=1e-12))
               for found in candidates)
