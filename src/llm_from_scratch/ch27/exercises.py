"""Chapter 27's predict-then-check exercises, each declared once; the machinery is ``book.exercises``.

``check(exercise_id, answer)`` returns Feedback (``.correct``, ``.message``,
``.misconception``) and never raises for any answer; ``check_code(exercise_id, fn)``
judges a function the learner wrote; ``hint(exercise_id)`` gives the next, smaller step after an
attempt; ``reveal(exercise_id)`` shows the answer, computed now, only after an attempt; ``progress()``
says what was checked in any notebook or kernel, and ``reset_progress()`` starts the chapter over.

EXERCISES lists every exercise in reading order, from 01 to 09 (the second example's,
``*-by-hand``, are worked with a pencil at the end of 03), and last the review's (10). Each is one block: its id and
kind, the notebook that asks it, the example it is asked on, its expected answer (a function of the
evidence), its judge with the misconceptions it names, and its strings in both languages (their keys are
derived from the id; a judge names its exercise's own strings with ``own``). The plane's challenges are
in challenges.py, the code exercises and the bug hunt in code_exercises.py, declared the same way.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..book.answers import AnswerFormatError, read_numbers, read_shape
from ..book.exercises import (
    Exercise,
    ExerciseBook,
    Judgement,
    choice_exercise,
    own,
    partial,
    right,
    rows_swapped,
    same,
    wrong,
)
from ..book.formatting import below, labels, matrix, num, shape, vector
from ..book.mistakes import diagnose
from ..book.tolerances import BY_HAND, FLOAT_NOISE, ROUNDED, TYPED
from ..engine.closed_form import softmax
from .challenges import CHALLENGES
from .code_exercises import BUG_HUNT, CODE_EXERCISES
from .evidence import LearnerEvidence, evidence, exponentials
from .examples import SATURATING_FACTOR
from .given import given
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

TEMPERATURE_HINT_TAUS = (0.1, 100.0)  # a small and a large τ, for the hint that shows the gaps they make


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


def _rest(a, expected, prefix: str, tolerance: float, rows_sum_to_one: bool) -> Judgement:
    """What to say when no mistake of the library explains the answer: the row sums, or the rows that are right
    (none: the exercise's "wrong")."""
    if rows_sum_to_one and _row_sums_off(np.atleast_2d(a), max(tolerance, ROUNDED)):
        return _row_sum_mistake(a, 2 if tolerance >= BY_HAND else 4)
    if a.ndim == 1:
        return wrong(None, own("wrong"))
    return partial(own("wrong"), a, expected, labels(prefix, len(expected)), max(tolerance, ROUNDED))


@dataclass(frozen=True)
class HeadJudge:
    """A judge of a stage of a head run: the mistake library first (it knows answers of other shapes too),
    then the shape (a wrong one is refused with the exercise's "form_hint", filled by ``form_hint(expected)``),
    then what is left. ``asked(ev)`` says what is asked of which run; ``tolerance(ev)`` how far off is still right."""

    asked: Callable[[LearnerEvidence], Asked]
    form_hint: Callable[[np.ndarray], dict]
    prefix: str
    tolerance: Callable[[LearnerEvidence], float] = lambda ev: 0.0
    rows_sum_to_one: bool = False

    def instance(self, ev: LearnerEvidence) -> Asked:
        """What the library's slips are made on: the asked run, with the runs of the variants the learner has seen."""
        return dataclasses.replace(self.asked(ev), seen=tuple(self.asked(seen).run for seen in ev.seen))

    def __call__(self, a, expected, ev):
        found = diagnose(a, expected, HEAD_MISTAKES, self.instance(ev), self.tolerance(ev), _exact)
        if found:
            return found
        if a.shape != expected.shape:
            raise AnswerFormatError(own("form_hint", **self.form_hint(expected)))
        return _rest(a, expected, self.prefix, self.tolerance(ev), self.rows_sum_to_one)


def _first_look(a, expected, ev):
    if a.shape != expected.shape or not np.isin(a, (0, 1)).all():
        raise AnswerFormatError(own("form_hint"))
    if same(a, expected):
        return right()
    if rows_swapped(a, expected):
        return wrong("rows-swapped", "mis.rows-swapped")
    return partial(own("wrong"), a, expected, labels("q", len(expected)))


def _output_shape(a, expected, ev):
    if not np.array_equal(a, np.round(a)):
        raise AnswerFormatError(own("form_hint"))
    found = diagnose(a, expected, SHAPE_MISTAKES, ev.output_shape, 0.0, shape)
    if found:
        return found
    if a.shape != (3,):
        raise AnswerFormatError(own("form_hint"))
    names = (text("axis.batch"), text("axis.tokens"), text("axis.width"))
    matching = [n for n, x, e in zip(names, a, expected) if x == e]
    if matching:
        differing = [n for n, x, e in zip(names, a, expected) if x != e]
        return wrong(None, "feedback.partial", right=", ".join(matching), wrong=", ".join(differing))
    return wrong(None, own("wrong"))


def _single_token(a, expected, ev):
    found = diagnose(a, expected, SINGLE_TOKEN_MISTAKES, ev, 0.0, lambda e: f"[{num(e[0], 0)}, {vector(e[1:], 0)}]")
    if found:
        return found
    if a.shape != expected.shape:
        raise AnswerFormatError(own("form_hint"))
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
        raise AnswerFormatError(own("form_hint", **_identical_inputs(ev)))
    if np.any(np.abs(a.sum(axis=-1) - 1) > TYPED):
        return _row_sum_mistake(np.atleast_2d(a)[0], 4)
    return wrong("identical-keys-unequal", "mis.identical-keys-unequal")


def _review_judge(mistakes, labels_of, tolerance: float = BY_HAND, rows_sum_to_one: bool = True) -> Callable:
    """A judge of a review exercise: its own mistakes first, then the shape (its "form_hint"), then the row sums
    and rows."""
    def judge(a, expected, ev):
        found = diagnose(a, expected, mistakes, ev, tolerance, _exact)
        if found:
            return found
        if a.shape != expected.shape:
            raise AnswerFormatError(own("form_hint", size=_size(expected)))
        if rows_sum_to_one and _row_sums_off(a, tolerance):
            return _row_sum_mistake(a, 2)
        return partial(own("wrong"), a, expected, labels_of(expected), tolerance)
    return judge


def _score_gradient(a, expected, ev):
    """One row of S̄ by hand, within ±0.01 (0.0449 rounded twice is 0.05): its mistakes first, then the shape; a row
    of S̄ sums to 0, so say so when it does not."""
    found = diagnose(a, expected, SCORE_GRADIENT_MISTAKES, ev, BY_HAND, _exact)
    if found:
        return found
    if a.shape != expected.shape:
        raise AnswerFormatError(own("form_hint"))
    if abs(a.sum()) > BY_HAND * a.size:
        return wrong("gradient-rows-not-zero", "mis.gradient-rows-not-zero", sums=num(a.sum(), 4))
    return partial(own("wrong"), a, expected, labels("k", len(expected)), BY_HAND)


# --- what reveal explains: (expected, evidence) -> fields ------------------------------------

def written_out(q: np.ndarray, k: np.ndarray) -> str:
    """A dot product term by term, left for the learner to add up: 0·(−1) + 3·2."""
    def signed(x: float) -> str:
        return f"(−{num(-x, 0)})" if x < 0 else num(x, 0)
    return " + ".join(f"{signed(a)}·{signed(b)}" for a, b in zip(q, k))


def _power_of_e(x: float) -> str:
    """e to a whole power and its value, as a hint shows it: e^1 ≈ 2.718, e^(−1) ≈ 0.368."""
    power = num(x, 0) if x >= 0 else f"(−{num(-x, 0)})"
    return f"e^{power} ≈ {num(np.exp(x), 3)}"


def _worked_facts(ev: LearnerEvidence) -> dict[str, str]:
    head, weights = ev.worked.head, ev.worked.weights
    q, k = ev.worked.query[0], ev.worked.key[0]
    return {"scaled_row": vector(head.scaled_scores.data[0, 0]), "row_sum": num(weights[0, 0].sum()),
            "q0k0": written_out(q[0], k[0]), "q0k1": written_out(q[0], k[1]),
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
                                                      f"{num(expected[i, j], 0)}",
            "entry": f"q_{i} · k_{j} = {written_out(q, k)}"}


def _hand_weights_facts(expected, ev):
    scaled = ev.hand.head.scaled_scores.data[0]
    exps = exponentials(scaled[0])
    return {"answer": matrix(expected, 3), "scaled": matrix(scaled, 0), "first_scaled": vector(scaled[0], 0),
            "exps": vector(exps, 3), "first_exp": _power_of_e(scaled[0, 0]),
            "total": num(exps.sum(), 3), "first": vector(expected[0], 3),
            "root": num(np.sqrt(ev.hand.head.key_width), 0),
            "largest": num(expected.max(), 3)}


def _hand_output_facts(expected, ev):
    run = ev.hand
    terms = " + ".join(f"{num(a, 3)}·{vector(v, 0)}" for a, v in zip(run.weights[0, 0], run.value[0]))
    return {"answer": matrix(expected, 3), "terms": terms, "first": vector(expected[0], 3)}


def _temperature_facts(expected, ev):
    example = ev.temperature
    top, second = sorted(example.scores, reverse=True)[:2]
    cold, hot = TEMPERATURE_HINT_TAUS
    return {"answer": f"[{vector(example.cold, 0)}, {vector(example.hot, 3)}]", "cold": vector(example.cold),
            "hot": vector(example.hot), "scores": vector(example.scores, 0), "cold_tau": num(cold, 1),
            "hot_tau": num(hot, 0), "cold_gap": num((top - second) / cold, 0), "hot_gap": num((top - second) / hot, 2)}


def _row_shift_facts(ev: LearnerEvidence) -> dict[str, str]:
    shift = ev.row_shift
    return {"shift": num(shift.shift, 0), "row": vector(shift.scores, 0), "weights": vector(shift.weights),
            "shifted": vector(shift.shifted), "difference": below(shift.max_difference, FLOAT_NOISE)}


def _saturated_facts(ev: LearnerEvidence) -> dict[str, str]:
    run = ev.saturated
    return {"factor": num(SATURATING_FACTOR, 0), "weights": matrix(run.weights[0]),
            "grad_q": "[" + ", ".join(_row_in_powers(row) for row in run.grad_query[0]) + "]",
            "grad_v": matrix(run.grad_value[0])}


def _row_in_powers(row: np.ndarray) -> str:
    """[2.4e-07,-1.2e-07]: entries too small for six decimals, shown by their powers of ten."""
    return "[" + ",".join(f"{x:.1e}" for x in row) + "]"


def _favourites(weights: np.ndarray) -> str:
    """Which key each query gives its largest weight: "q_0 → k_2, q_1 → k_2, …"."""
    return ", ".join(f"q_{i} → k_{j}" for i, j in enumerate(weights.argmax(axis=1)))


def _width_one_facts(ev: LearnerEvidence) -> dict[str, str]:
    narrow, wide = ev.width_one.weights[0], ev.width_two.weights[0]
    return {"keys": vector(ev.width_one.key[0].ravel(), 0), "narrow": _favourites(narrow), "weights": matrix(narrow),
            "wide": _favourites(wide), "wide_diagonal": vector(np.diag(wide))}


def _no_match_facts(ev: LearnerEvidence) -> dict[str, str]:
    run = ev.no_match
    weights = run.weights[0, 0]
    return {"scores": vector(run.head.scaled_scores.data[0, 0]), "weights": vector(weights),
            "total": num(weights.sum()), "output": vector(run.output[0, 0])}


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


def _score_gradient_inputs(ev: LearnerEvidence) -> dict[str, str]:
    return {"row": vector(ev.hand.weights[0, 0], 3), "grad_row": vector(ev.hand_steps.grad_weights[0], 0)}


def _score_gradient_facts(expected, ev):
    weights, grad_weights = ev.hand.weights[0, 0], ev.hand_steps.grad_weights[0]
    return {**_score_gradient_inputs(ev), "answer": vector(expected, 3), "inner": num(float(weights @ grad_weights), 3),
            "first_term": f"{num(weights[0], 3)}·{num(grad_weights[0], 0)}"}


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
    example = (own("second") if ev.instance.variant == 0 else
               own("given", **fields))
    return {**fields, "tokens": str(ev.hand.query.shape[1]), "example": example}


def _identical_inputs(ev: LearnerEvidence) -> dict[str, str]:
    tokens = ev.identical_keys.key.shape[1]
    return {"key_rows": matrix(ev.identical_keys.key[0], 0), "tokens": str(tokens), "size": f"{tokens}×{tokens}",
            "layout": _layout(1, tokens)}


def _shape_inputs(ev: LearnerEvidence) -> dict[str, str]:
    case = ev.output_shape
    return {"query_shape": "×".join(map(str, case.query_shape)), "value_shape": "×".join(map(str, case.value_shape))}


EXERCISES: dict[str, Exercise] = {e.id: e for e in (
    Exercise(
        "first-look", "numbers",
        notebook="01_predict", instance="worked",
        skills=("skill.dot-products",),
        expected=lambda ev: ev.worked.weights[0].argmax(axis=1).astype(float),
        judge=_first_look,
        facts=lambda expected, ev: {**_worked_facts(ev), "answer": vector(expected, 0)},
        gives_away={
            "ru": (r"q0\W.{0,60}(больш\w* вес|с большим весом).{0,40}v1",),
            "en": (r"q0\W.{0,60}(larger|more|most) (of its )?weight.{0,40}v1",),
        },
        strings={
            "ru": {
                "title": "какому значению каждый запрос даст больший вес",
                "prompt": "До любых вычислений: строку какого значения, v_0 или v_1, каждый запрос учтёт с большим "
                    "весом? Ответ — два индекса: для q_0 и для q_1.",
                "form": "два индекса строк значений, по одному на запрос, в виде [i, j]",
                "form_hint": "Нужны ровно два индекса, каждый 0 или 1: первый — для q_0, второй — для q_1.",
                "wrong": "Для каждого запроса сравните его скалярные произведения с k_0 и k_1: больший вес получит "
                    "значение той позиции, чей ключ дал большее произведение.",
                "explain": "У q_0 произведение с k_1 больше, чем с k_0, а у q_1 — наоборот, поэтому q_0 отдаёт "
                    "больший вес v_1, а q_1 — v_0. Сами произведения вы посчитаете в следующем вопросе.",
                "hint_stage": "Смотрите на скалярные произведения каждого запроса с каждым ключом: q_i · k_0 и q_i · "
                    "k_1.",
                "hint_formula": "Больший вес получит значение того ключа, чьё произведение с запросом больше: "
                    "сравните q_0·k_0 с q_0·k_1, потом q_1·k_0 с q_1·k_1.",
                "hint_method": "Для q_0: q_0·k_0 = {q0k0}. Так же распишите q_0·k_1 и сравните; затем то же для q_1.",
            },
            "en": {
                "title": "which value each query gives more weight to",
                "prompt": "Before any computation: to which value row, v_0 or v_1, will each query give more weight? "
                    "Answer with two indices: one for q_0 and one for q_1.",
                "form": "two value-row indices, one per query, as [i, j]",
                "form_hint": "Exactly two indices are needed, each 0 or 1: the first for q_0, the second for q_1.",
                "wrong": "For each query compare its dot products with k_0 and k_1: the value of the position whose "
                    "key gave the larger product gets the larger weight.",
                "explain": "q_0's product with k_1 is larger than with k_0, and q_1's the other way round, so q_0 "
                    "gives the larger weight to v_1 and q_1 to v_0. You will compute the products themselves in the "
                    "next question.",
                "hint_stage": "Look at the dot product of each query with each key: q_i · k_0 and q_i · k_1.",
                "hint_formula": "The value of the key whose product with the query is larger gets the larger weight: "
                    "compare q_0·k_0 with q_0·k_1, then q_1·k_0 with q_1·k_1.",
                "hint_method": "For q_0: q_0·k_0 = {q0k0}. Write q_0·k_1 out the same way and compare; then do the "
                    "same for q_1.",
            },
        },
    ),
    Exercise(
        "scores", "numbers",
        notebook="01_predict", instance="worked",
        skills=("skill.dot-products",),
        expected=lambda ev: ev.worked.head.raw_scores.data[0],
        judge=HeadJudge(lambda ev: Asked(ev.worked, ev.hand, "raw"), lambda e: {"shape": shape(e.shape)}, "q"),
        given=given("Q", "K", answer=lambda v: v["Q"][0] @ v["K"][0].T),
        facts=lambda expected, ev: {**_worked_facts(ev), "answer": matrix(expected, 0)},
        gives_away={
            "ru": (r"qkᵀ ?= ?\[\[0, ?6", r"q0 ?· ?k1 ?= ?6"),
            "en": (r"qkᵀ ?= ?\[\[0, ?6", r"q0 ?· ?k1 ?= ?6"),
        },
        strings={
            "ru": {
                "title": "оценки QKᵀ",
                "prompt": "Посчитайте матрицу QKᵀ разобранного примера целиком: четыре скалярных произведения. Ответ "
                    "— матрица 2×2 [[a, b], [c, d]]: строка i — запрос q_i, столбец j — ключ k_j.",
                "form": "матрица 2×2 в виде [[a, b], [c, d]]",
                "form_hint": "Нужна матрица {shape} без оси пакета: строки — запросы, столбцы — ключи.",
                "wrong": "Элемент (i, j) — скалярное произведение строки q_i на строку k_j: сумма попарных "
                    "произведений координат.",
                "explain": "QKᵀ = {answer}: элемент (i, j) равен q_i · k_j.",
                "hint_stage": "Это этап до масштабирования, матрица QKᵀ: строки — запросы, столбцы — ключи.",
                "hint_formula": "Элемент (i, j) — скалярное произведение q_i · k_j: сумма попарных произведений "
                    "координат q_i и k_j.",
                "hint_method": "Одно произведение, расписанное по координатам: q_0 · k_1 = {q0k1}. Остальные три — "
                    "так же.",
            },
            "en": {
                "title": "the scores QKᵀ",
                "prompt": "Compute the worked example's whole matrix QKᵀ: four dot products. Answer with a 2×2 matrix "
                    "[[a, b], [c, d]]: row i is query q_i, column j is key k_j.",
                "form": "a 2×2 matrix as [[a, b], [c, d]]",
                "form_hint": "Expected: a {shape} matrix without the batch axis, one row per query and one column per "
                    "key.",
                "wrong": "Entry (i, j) is the dot product of row q_i with row k_j: the sum of the products of "
                    "matching coordinates.",
                "explain": "QKᵀ = {answer}: entry (i, j) is q_i · k_j.",
                "hint_stage": "This is the stage before scaling: the matrix QKᵀ, a row per query, a column per key.",
                "hint_formula": "Entry (i, j) is the dot product q_i · k_j: the sum of the products of matching "
                    "coordinates of q_i and k_j.",
                "hint_method": "One product written out by coordinates: q_0 · k_1 = {q0k1}. The other three go the "
                    "same way.",
            },
        },
    ),
    Exercise(
        "weights", "numbers",
        notebook="02_scores_softmax_mixture", instance="worked",
        skills=("skill.row-softmax",),
        expected=lambda ev: ev.worked.weights[0, 0],
        judge=HeadJudge(lambda ev: Asked(ev.worked, ev.hand, "weights", (0,)), lambda e: {"count": e.size},
                        "q", rows_sum_to_one=True),
        given=given("S", answer=lambda v: softmax(v["S"][0, 0])),
        facts=lambda expected, ev: {**_worked_facts(ev), "answer": vector(expected)},
        gives_away={
            "ru": (r"(почти )?весь вес q0.{0,30}k1", r"a01 ?= ?0\.98"),
            "en": (r"(almost )?all (of )?q0'?s? weight.{0,30}k1", r"a01 ?= ?0\.98"),
        },
        strings={
            "ru": {
                "title": "строка весов первого запроса",
                "prompt": "Какой будет строка весов A_0 запроса q_0 после масштабирования и softmax? Экспоненты "
                    "посчитайте кодом или калькулятором; хватит трёх знаков после запятой.",
                "form": "строка из двух весов в виде [a, b]",
                "form_hint": "Нужна строка из {count} весов.",
                "wrong": "Разделите оценки строки q_0 на √d_k, возьмите экспоненты и поделите каждую на их сумму.",
                "explain": "S_0 = {scaled_row}; softmax этой строки даёт {answer}, сумма {row_sum}.",
                "hint_stage": "Возьмите строку q_0 масштабированных оценок S = QKᵀ/√d_k и примените к ней softmax.",
                "hint_formula": "A_0j = e^(S_0j) / Σ_r e^(S_0r), где S_0j = q_0 · k_j / √d_k.",
                "hint_method": "Строка q_0 после масштаба — s = S.data[0, 0] = {scaled_row}. np.exp(s) даёт обе "
                    "экспоненты сразу; поделите каждую на их сумму.",
            },
            "en": {
                "title": "the first query's weights",
                "prompt": "What is the weight row A_0 of query q_0 after scaling and softmax? Compute the exponentials "
                    "in code or on a calculator; three decimals are enough.",
                "form": "a row of two weights as [a, b]",
                "form_hint": "A row of {count} weights is needed.",
                "wrong": "Divide q_0's row of scores by √d_k, exponentiate, and divide each by their sum.",
                "explain": "S_0 = {scaled_row}; softmax of that row gives {answer}, summing to {row_sum}.",
                "hint_stage": "Take row q_0 of the scaled scores S = QKᵀ/√d_k and apply a softmax to it.",
                "hint_formula": "A_0j = e^(S_0j) / Σ_r e^(S_0r), where S_0j = q_0 · k_j / √d_k.",
                "hint_method": "Row q_0 after scaling is s = S.data[0, 0] = {scaled_row}. np.exp(s) gives both "
                    "exponentials at once; divide each by their sum.",
            },
        },
    ),
    *CHALLENGES,  # 02's vector plane: three predictions, each before its move
    choice_exercise(
        "row-normalization",
        notebook="03_shapes", instance="worked",
        skills=("skill.row-softmax",),
        correct="c",
        facts=_worked_facts,
        misconceptions={"a": "columns-normalized", "b": "weights-symmetric", "d": "scale-normalizes"},
        gives_away={
            "ru": (r"столбц?\w* .{0,40}(не|ничто не) нормир", r"сумм\w+ столбц\w+ .{0,30}(любое|от 0 до t)"),
            "en": (r"columns? (are|is) not normali[sz]ed", r"column sums? .{0,30}(anything|from 0 to t)"),
        },
        strings={
            "ru": {
                "title": "суммы столбцов A",
                "prompt": "Каждая строка A даёт в сумме 1. Что можно сказать о суммах её столбцов?",
                "a": "Каждый столбец тоже даёт 1: softmax нормирует матрицу весов целиком, по обеим осям.",
                "b": "Каждый столбец даёт 1, когда QKᵀ симметрична, как в разобранном примере.",
                "c": "Столбец может дать любое число от 0 до T, а все столбцы вместе — ровно T.",
                "d": "Каждый столбец даёт 1/√d_k: масштаб делит все суммы.",
                "right": "Столбец j собирает веса, которые ключу k_j дали разные запросы, и ничем не нормирован. Но "
                    "сумма всех элементов A одна, как её ни считай: T строк по 1.",
                "why_a": "Softmax нормирует только строку: знаменатель A_ij суммирует экспоненты одной строки. "
                    "Столбец собирает веса разных запросов, и его сумма может быть любой от 0 до T: в примере "
                    "{column_sums}.",
                "why_b": "Симметричные оценки ещё не дают симметричных весов: каждую строку делят на её собственную "
                    "сумму. В разобранном примере QKᵀ симметрична, а суммы столбцов A — {column_sums}.",
                "why_d": "Множитель 1/√d_k стоит до softmax и лишь сжимает оценки; на суммы весов он не действует. "
                    "Суммы столбцов в примере — {column_sums}.",
                "explain": "Строка i — запрос q_i, столбец j — ключ k_j; softmax нормирует каждую строку отдельно, а "
                    "столбцы ничем не связаны. Суммы строк: {row_sums}; суммы столбцов: {column_sums}, вместе "
                    "{column_total} — столько же, сколько запросов.",
                "hint_stage": "Столбец j собирает веса, которые ключу k_j дали разные запросы. Нормирует ли их "
                    "что-нибудь?",
                "hint_formula": "Сложите все элементы A двумя способами — по строкам и по столбцам: итог один.",
            },
            "en": {
                "title": "the column sums of A",
                "prompt": "Every row of A sums to 1. What can be said about the sums of its columns?",
                "a": "Every column sums to 1 as well: softmax normalizes the whole weight matrix, along both axes.",
                "b": "Every column sums to 1 when QKᵀ is symmetric, as in the worked example.",
                "c": "A column may sum to anything from 0 to T; all the columns together sum to T.",
                "d": "Every column sums to 1/√d_k: the scale divides every sum.",
                "right": "Column j gathers the weights that different queries gave to key k_j, and nothing normalizes "
                    "it. But the sum of all the entries of A is one number however you add them up: T rows of 1.",
                "why_a": "Softmax normalizes only a row: the denominator of A_ij adds up the exponentials of one row. "
                    "A column gathers the weights of different queries, and its sum can be anything from 0 to T: "
                    "{column_sums} in the example.",
                "why_b": "Symmetric scores do not make symmetric weights: each row is divided by its own sum. In the "
                    "worked example QKᵀ is symmetric, yet the column sums of A are {column_sums}.",
                "why_d": "The factor 1/√d_k comes before the softmax and only shrinks the scores; it does not act on "
                    "the sums of the weights. The column sums in the example are {column_sums}.",
                "explain": "Row i is query q_i and column j is key k_j; softmax normalizes each row on its own, and "
                    "nothing ties the columns. Row sums: {row_sums}; column sums: {column_sums}, together "
                    "{column_total}, as many as there are queries.",
                "hint_stage": "Column j gathers the weights that different queries gave to key k_j. Does anything "
                    "normalize them?",
                "hint_formula": "Add up all the entries of A in two ways, by rows and by columns: the total is the "
                    "same.",
            },
        },
    ),
    BUG_HUNT,
    Exercise(
        "output-shape", "numbers",
        notebook="03_shapes", instance="output_shape",
        skills=("skill.shapes",),
        varies="shape",
        read=read_shape,
        inputs=_shape_inputs,
        expected=lambda ev: np.array(ev.output_shape.output_shape, dtype=float),
        judge=_output_shape,
        facts=_shape_facts,
        gives_away={
            "ru": (
                r"ширин\w* значений,? а с ней и выхода",
                r"выход\w* .{0,40}ширин\w* у значений",
                r"o in mathbb r ?\^ ?b times t times dv",
                r"o ?∈ ?ℝ\^?\(?b ?× ?t ?× ?dv",
            ),
            "en": (
                r"width of the values,? and so of the output",
                r"output takes its width from the values",
                r"o in mathbb r ?\^ ?b times t times dv",
                r"o ?∈ ?ℝ\^?\(?b ?× ?t ?× ?dv",
            ),
        },
        strings={
            "ru": {
                "title": "форма выхода",
                "prompt": "Какую форму имеет выход O при Q, K ∈ ℝ^({query_shape}) и V ∈ ℝ^({value_shape})?",
                "form": "три целых числа [B, T, ширина]",
                "form_hint": "Нужна форма из трёх целых чисел: [пакет, токены, ширина].",
                "wrong": "Выход сохраняет оси пакета и запросов, а последнюю ось берёт у значений.",
                "explain": "O = AV: A имеет форму {weights_shape}, V — {value_shape}, значит O — {output_shape}.",
                "hint_stage": "Выход O = A·V: посмотрите, откуда берётся каждая его ось.",
                "hint_formula": "A имеет форму [B, T, T], V — [B, T, d_v]; произведение берёт последнюю ось у V.",
                "hint_method": "В каждом элементе пакета это произведение матриц [T×T]·[T×d_v]: какие размеры "
                    "остаются?",
            },
            "en": {
                "title": "the output's shape",
                "prompt": "What shape is the output O when Q, K ∈ ℝ^({query_shape}) and V ∈ ℝ^({value_shape})?",
                "form": "three whole numbers [B, T, width]",
                "form_hint": "A shape of three whole numbers is needed: [batch, tokens, width].",
                "wrong": "The output keeps the batch and query axes and takes its last axis from the values.",
                "explain": "O = AV: A has shape {weights_shape} and V {value_shape}, so O is {output_shape}.",
                "hint_stage": "The output is O = A·V: look where each of its axes comes from.",
                "hint_formula": "A has shape [B, T, T] and V [B, T, d_v]; the product takes its last axis from V.",
                "hint_method": "Within each batch element it is a product of matrices, [T×T]·[T×d_v]: which sizes "
                    "remain?",
            },
        },
    ),
    Exercise(
        "scores-by-hand", "numbers",
        notebook="03_shapes", instance="hand",
        skills=("skill.dot-products",),
        varies="hand",
        inputs=_hand_inputs,
        expected=lambda ev: ev.hand.head.raw_scores.data[0],
        given=given("Q", "K", answer=lambda v: v["Q"][0] @ v["K"][0].T),
        facts=_hand_scores_facts,
        judge=HeadJudge(lambda ev: Asked(ev.hand, ev.worked, "raw"), lambda e: {"size": _size(e)}, "q"),
        gives_away={
            "ru": (r"q0 ?· ?k0 ?= ?2\b",),
            "en": (r"q0 ?· ?k0 ?= ?2\b",),
        },
        strings={
            "ru": {
                "title": "оценки QKᵀ вручную",
                "prompt": "Пример для счёта вручную: Q = {hand_query}, K = {hand_key}, d_k = {key_width}. Вычислите "
                    "QKᵀ: скалярное произведение q_i · k_j для каждой пары запроса и ключа. Ответ — матрица {size}: "
                    "строки — запросы, столбцы — ключи.",
                "form": "матрица {size} в виде {layout}",
                "form_hint": "Нужна матрица {size}: строки — запросы, столбцы — ключи.",
                "wrong": "Элемент (i, j) — скалярное произведение строки q_i на строку k_j: перемножьте координаты "
                    "попарно и сложите произведения.",
                "explain": "QKᵀ = {answer}. Элемент (i, j) равен q_i · k_j, например {example}. Матрица не "
                    "симметрична: KQᵀ — её транспонированная копия, и это другой ответ.",
                "hint_stage": "Это этап до масштабирования: матрица QKᵀ, строка на каждый запрос и столбец на каждый "
                    "ключ.",
                "hint_formula": "Элемент (i, j) — q_i · k_j: перемножьте координаты q_i и k_j попарно и сложите "
                    "произведения.",
                "hint_method": "Одно произведение, расписанное по координатам: {entry}. Остальные — так же.",
            },
            "en": {
                "title": "the scores QKᵀ by hand",
                "prompt": "An example to compute by hand: Q = {hand_query}, K = {hand_key}, d_k = {key_width}. "
                    "Compute QKᵀ: the dot product q_i · k_j for every pair of a query and a key. Answer with a {size} "
                    "matrix: a row per query, a column per key.",
                "form": "a {size} matrix as {layout}",
                "form_hint": "A {size} matrix is needed: a row per query, a column per key.",
                "wrong": "Entry (i, j) is the dot product of row q_i with row k_j: multiply the coordinates in pairs "
                    "and add the products.",
                "explain": "QKᵀ = {answer}. Entry (i, j) is q_i · k_j, for example {example}. The matrix is not "
                    "symmetric: KQᵀ is its transpose, and a different answer.",
                "hint_stage": "This is the stage before scaling: the matrix QKᵀ, a row for every query and a column "
                    "for every key.",
                "hint_formula": "Entry (i, j) is q_i · k_j: multiply the coordinates of q_i and k_j in pairs and add "
                    "the products.",
                "hint_method": "One product written out by coordinates: {entry}. The others go the same way.",
            },
        },
    ),
    Exercise(
        "weights-by-hand", "numbers",
        notebook="03_shapes", instance="hand",
        skills=("skill.scaling", "skill.row-softmax"),
        varies="hand",
        inputs=_hand_inputs,
        expected=lambda ev: ev.hand.weights[0],
        given=given("S", answer=lambda v: softmax(v["S"][0]), tolerance=BY_HAND),
        facts=_hand_weights_facts,
        judge=HeadJudge(lambda ev: Asked(ev.hand, ev.worked, "weights"), lambda e: {"size": _size(e)},
                        "q", lambda ev: BY_HAND, rows_sum_to_one=True),
        gives_away={
            "ru": (r"a00 ?= ?0\.576", r"e ?/ ?\(e ?\+ ?2\)"),
            "en": (r"a00 ?= ?0\.576", r"e ?/ ?\(e ?\+ ?2\)"),
        },
        strings={
            "ru": {
                "title": "веса A вручную",
                "prompt": "Теперь веса этого примера (Q = {hand_query}, K = {hand_key}): A = softmax(QKᵀ/√d_k) по "
                    "строкам, d_k = {key_width}. Из констант понадобится только e ≈ 2.718. Ответ — матрица {size}, "
                    "строки — запросы; хватит двух знаков после запятой (принимается ±0.01).",
                "form": "матрица весов {size} в виде {layout}",
                "form_hint": "Нужна матрица весов {size}: строки — запросы, столбцы — ключи.",
                "wrong": "Разделите каждую оценку на √d_k, возьмите экспоненты и поделите каждую экспоненту строки на "
                    "их сумму.",
                "explain": "S = QKᵀ/√d_k = {scaled} (√d_k = {root}). Экспоненты строки q_0: {exps}, их сумма {total}, "
                    "поэтому A_0 = {first}. Целиком A = {answer}: наибольший вес — {largest}, меньше 0.9: значения "
                    "действительно смешиваются.",
                "hint_stage": "Сначала масштабированные оценки S = QKᵀ/√d_k (здесь √d_k = {root}), затем softmax "
                    "каждой строки.",
                "hint_formula": "В строке возьмите e^(S_ij), их сумму и разделите каждую экспоненту на сумму.",
                "hint_method": "Строка q_0 после масштаба: {first_scaled}; её первая экспонента — {first_exp}. Затем "
                    "остальные, их сумма и каждая, делённая на сумму; другие строки — так же.",
            },
            "en": {
                "title": "the weights A by hand",
                "prompt": "Now this example's weights (Q = {hand_query}, K = {hand_key}): A = softmax(QKᵀ/√d_k) along "
                    "rows, d_k = {key_width}. The only constant you need is e ≈ 2.718. Answer with a {size} matrix, a "
                    "row per query; two decimals are enough (±0.01 is accepted).",
                "form": "a {size} weight matrix as {layout}",
                "form_hint": "A {size} weight matrix is needed: a row per query, a column per key.",
                "wrong": "Divide each score by √d_k, exponentiate, and divide each exponential of a row by their sum.",
                "explain": "S = QKᵀ/√d_k = {scaled} (√d_k = {root}). The exponentials of row q_0 are {exps}, summing "
                    "to {total}, so A_0 = {first}. All of A is {answer}: the largest weight is {largest}, no more "
                    "than 0.9 — the values really are mixed.",
                "hint_stage": "First the scaled scores S = QKᵀ/√d_k (here √d_k = {root}), then a softmax of every row.",
                "hint_formula": "In a row take e^(S_ij), their sum, and divide each exponential by the sum.",
                "hint_method": "Row q_0 after the scale: {first_scaled}; its first exponential is {first_exp}. Then "
                    "the others, their sum, and each divided by the sum; the other rows go the same way.",
            },
        },
    ),
    Exercise(
        "output-by-hand", "numbers",
        notebook="03_shapes", instance="hand",
        skills=("skill.mixing",),
        varies="hand",
        inputs=_hand_inputs,
        expected=lambda ev: ev.hand.output[0],
        given=given("A", "V", answer=lambda v: v["A"][0] @ v["V"][0], tolerance=BY_HAND),
        facts=_hand_output_facts,
        judge=HeadJudge(lambda ev: Asked(ev.hand, ev.worked, "output"), lambda e: {"size": _size(e)},
                        "o", _mixture_tolerance),
        gives_away={
            "ru": (r"o0 ?= ?\[0\.788",),
            "en": (r"o0 ?= ?\[0\.788",),
        },
        strings={
            "ru": {
                "title": "выход O вручную",
                "prompt": "И выход этого примера (Q = {hand_query}, K = {hand_key}, d_k = {key_width}): O = AV при V "
                    "= {hand_value}, где A — его веса. Ответ — матрица {value_size}, строки — запросы; хватит двух "
                    "знаков после запятой.",
                "form": "матрица {value_size} в виде {value_layout}",
                "form_hint": "Нужна матрица {size}: строки — запросы, столбцы — признаки значений.",
                "wrong": "Строка o_i — сумма строк значений v_j с весами из строки A_i,: — o_i = Σ_j A_ij v_j.",
                "explain": "o_0 = {terms} = {first}; остальные строки — так же. O = {answer}.",
                "hint_stage": "Это смесь значений: строка o_i собирается из строк V с весами строки A_i,:.",
                "hint_formula": "o_i = Σ_j A_ij · v_j: умножьте каждую строку V на её вес и сложите.",
                "hint_method": "Координата c выхода o_0 равна Σ_j A_0j·v_j[c]: умножьте вес каждого ключа в строке 0 "
                    "на координату c его значения и сложите. Посчитайте обе координаты, затем так же остальные "
                    "строки.",
            },
            "en": {
                "title": "the output O by hand",
                "prompt": "And this example's output (Q = {hand_query}, K = {hand_key}, d_k = {key_width}): O = AV "
                    "with V = {hand_value}, A being its weights. Answer with a {value_size} matrix, a row per query; "
                    "two decimals are enough.",
                "form": "a {value_size} matrix as {value_layout}",
                "form_hint": "A {size} matrix is needed: a row per query, a column per value feature.",
                "wrong": "Row o_i is the sum of the value rows v_j weighted by row A_i,: — o_i = Σ_j A_ij v_j.",
                "explain": "o_0 = {terms} = {first}; the other rows likewise. O = {answer}.",
                "hint_stage": "This is the mixture of values: row o_i is built from the rows of V with the weights of "
                    "row A_i,:.",
                "hint_formula": "o_i = Σ_j A_ij · v_j: multiply each row of V by its weight and add them up.",
                "hint_method": "Coordinate c of o_0 is Σ_j A_0j·v_j[c]: each key's weight in row 0 times coordinate c "
                    "of its value, all added up. Work out both coordinates, then the other rows the same way.",
            },
        },
    ),
    choice_exercise(
        "why-root-dk",
        notebook="04_scaling", instance="divisor",
        skills=("skill.scaling",),
        correct="d",
        facts=_divisor_facts,
        misconceptions={"a": "scale-invariant", "b": "width-sharpens", "c": "cosine-normalization"},
        gives_away={
            "ru": (
                r"(после|с) делени\w* на √dk.{0,60}дисперси\w*.{0,40}(равна|около|держится|остается) (около )?1",
                r"дисперси\w* .{0,60}(равна|около|держится\w*) 1 при любой ширине",
                r"var ?\(q ?· ?k ?/ ?c\) ?= ?dk ?/ ?c",
            ),
            "en": (
                r"(after|once) (the division|dividing|divided) by √dk.{0,60}variance.{0,40}(is|near|stays|of) 1",
                r"variance .{0,60}1 at (any|every) width",
                r"var ?\(q ?· ?k ?/ ?c\) ?= ?dk ?/ ?c",
            ),
        },
        strings={
            "ru": {
                "title": "почему √d_k, а не d_k",
                "prompt": "Почему оценки делят на √d_k, а не на d_k?",
                "a": "Разницы нет: softmax не зависит от масштаба оценок, важен только их порядок, так что любой "
                    "делитель даёт те же веса.",
                "b": "С делением на d_k дисперсия оценок росла бы вместе с d_k, и чем шире векторы, тем резче "
                    "становились бы строки.",
                "c": "Деление на √d_k приводит q и k к единичной длине, так что оценка становится косинусом угла между "
                    "ними, а деление на d_k этого не даёт.",
                "d": "При независимых компонентах Var(q·k) = d_k: с √d_k дисперсия оценок остаётся около 1, а с d_k "
                    "падает до 1/d_k, и строки почти равномерны.",
                "right": "При делении на c дисперсия q·k/c равна d_k/c²: при c = √d_k это 1 при любой ширине, а при c "
                    "= d_k — 1/d_k, и оценки стягивались бы к 0.",
                "why_a": "Softmax не меняется от сдвига строки на константу, но меняется от умножения: строка [1, 0] "
                    "даёт веса {unscaled}, а та же строка, умноженная на 1/√{scale_width}, — {scaled}.",
                "why_b": "Наоборот: дисперсия q·k/d_k равна 1/d_k, и с ростом d_k строки становились бы всё ровнее. "
                    "На случайных векторах при d_k = {key_width} средний наибольший вес строки из {tokens} ключей был "
                    "бы {max_width} — почти как у равномерной строки ({uniform}).",
                "why_c": "Косинус делит на ‖q‖·‖k‖, а это у каждой пары своё число. √d_k — одно число на всю голову: "
                    "оно удерживает среднюю дисперсию оценок около 1 (при условиях сноски), а не длину векторов.",
                "explain": "Var(q·k/c) = d_k/c²: при c = √d_k это 1, при c = d_k — 1/d_k. На случайных векторах при "
                    "d_k = {key_width} ({tokens} ключей в строке): с делением на √d_k дисперсия оценок "
                    "{variance_root}, а средний наибольший вес строки {max_root}; с делением на d_k — "
                    "{variance_width} и {max_width}, почти как у равномерной строки ({uniform}). Это довод при "
                    "предположениях, а не доказательство оптимальности.",
                "hint_stage": "Вспомните дисперсию скалярного произведения q · k при независимых компонентах с "
                    "нулевым средним и единичной дисперсией.",
                "hint_formula": "При этих условиях дисперсия растёт как d_k; чтобы она не росла, делят на "
                    "корень из неё.",
            },
            "en": {
                "title": "why √d_k and not d_k",
                "prompt": "Why are the scores divided by √d_k and not by d_k?",
                "a": "It makes no difference: softmax does not depend on the scale of the scores, only on their "
                    "order, so any divisor gives the same weights.",
                "b": "Divided by d_k, the variance of the scores would grow with d_k, so the wider the vectors, the "
                    "sharper the rows would get.",
                "c": "Dividing by √d_k brings q and k to unit length, so that the score becomes the cosine of the "
                    "angle between them; dividing by d_k would not do that.",
                "d": "With independent components Var(q·k) = d_k: with √d_k the scores' variance stays near 1, with "
                    "d_k it falls to 1/d_k and the rows turn almost uniform.",
                "right": "Divided by c, the variance of q·k/c is d_k/c²: 1 at every width for c = √d_k, and 1/d_k for "
                    "c = d_k, which would pull the scores towards 0.",
                "why_a": "Softmax is unchanged when a constant is added to a row, not when the row is multiplied: the "
                    "row [1, 0] gives the weights {unscaled}, the same row times 1/√{scale_width} gives {scaled}.",
                "why_b": "The opposite: the variance of q·k/d_k is 1/d_k, so the rows would get ever flatter as d_k "
                    "grows. On random vectors at d_k = {key_width} the mean largest weight in a row of {tokens} keys "
                    "would be {max_width}, close to a uniform row's {uniform}.",
                "why_c": "A cosine divides by ‖q‖·‖k‖, which differs for every pair. √d_k is one number for the "
                    "whole head: it keeps the scores' average variance near 1 (under the footnote's conditions); it "
                    "does not set the vectors' length.",
                "explain": "Var(q·k/c) = d_k/c²: for c = √d_k that is 1, for c = d_k it is 1/d_k. On random vectors "
                    "at d_k = {key_width} ({tokens} keys to a row): divided by √d_k, the scores have variance "
                    "{variance_root} and the mean largest weight in a row is {max_root}; divided by d_k, "
                    "{variance_width} and {max_width}, close to a uniform row's {uniform}. This is an argument under "
                    "assumptions, not a proof of optimality.",
                "hint_stage": "Recall the variance of a dot product q · k whose components are independent, with mean "
                    "0 and variance 1.",
                "hint_formula": "That variance grows like d_k; to keep it from growing, divide by its square root.",
            },
        },
    ),
    choice_exercise(
        "recurrent-vs-self",
        notebook="05_history", instance="history",
        skills=("skill.history",),
        correct="b",
        facts=_history_facts,
        misconceptions={"a": "constant-work", "c": "parallel-generation", "d": "anachronism"},
        gives_away={
            "ru": (
                r"(на каждом шаге|для каждого шага).{0,60}контекст",
                r"контекст.{0,60}(на каждом шаге|для каждого шага|заново)",
                r"пересчитыва\w+ на каждом шаге",
            ),
            "en": (
                r"(at|for) (each|every) (decoder )?step.{0,60}context",
                r"context.{0,60}(at|for) (each|every) step",
                r"recomputed at (each|every) step",
            ),
        },
        strings={
            "ru": {
                "title": "рекуррентное выравнивание и самовнимание",
                "prompt": "Сравните выравнивание Бахданау с головой, которую вы считали в 27.1–27.4. В чём главное "
                    "различие?",
                "a": "С самовниманием работа перестаёт зависеть от длины: все оценки получаются одним произведением, "
                    "сколько бы ни было токенов.",
                "b": "Выравнивание собирает контекст заново на каждом шаге декодера, а голова в одном слое сравнивает "
                    "все позиции одной последовательности сразу.",
                "c": "Самовнимание распараллеливает авторегрессионную генерацию: раз все позиции считаются "
                    "одновременно, все токены ответа появляются сразу.",
                "d": "Разницы нет: аддитивное внимание Бахданау, Чо и Бенжио уже работало с запросами, ключами, "
                    "значениями и масштабированными скалярными произведениями.",
                "right": "Отличие — в устройстве модели: контекст по шагам декодера против матрицы всех пар позиций в "
                    "одном слое.",
                "why_a": "Матрица оценок строится сразу, но её размер T×T растёт с длиной: объём работы не постоянен.",
                "why_c": "Оценки одного слоя считаются пакетно, но генерация остаётся авторегрессионной: следующий "
                    "токен зависит от предыдущих.",
                "why_d": "Это нынешние понятия, перенесённые в прошлое. У Бахданау, Чо и Бенжио оценку считает "
                    "маленькая обучаемая сеть по состоянию декодера и аннотации; ни запросов с ключами и значениями, "
                    "ни деления на √d_k там нет, а имя «аддитивное» этой оценке дали позже.",
                "explain": "Выравнивание оценивает {encoder_pairs} пары «состояние декодера — аннотация энкодера», "
                    "самовнимание — {self_pairs} пары позиций одной последовательности. От этого ни работа не "
                    "становится постоянной, ни порождение текста — параллельным.",
                "hint_stage": "Сравните, откуда берутся запросы и ключи при выравнивании энкодера и декодера и в "
                    "самовнимании.",
                "hint_formula": "У Бахданау контекст собирается заново для каждого шага перевода; голова самовнимания "
                    "сравнивает позиции одной последовательности все сразу.",
            },
            "en": {
                "title": "recurrent alignment and self-attention",
                "prompt": "Compare Bahdanau's alignment with the head you computed in 27.1–27.4. What is the main "
                    "difference?",
                "a": "With self-attention the work no longer depends on the length: all the scores come out of one "
                    "product, however many tokens there are.",
                "b": "Alignment gathers a context anew at each decoder step, while a head compares all positions of "
                    "one sequence at once, in one layer.",
                "c": "Self-attention parallelizes autoregressive generation: since all positions are computed at "
                    "once, all tokens of the answer appear at once.",
                "d": "There is no difference: the additive attention of Bahdanau, Cho and Bengio already used "
                    "queries, keys, values and scaled dot products.",
                "right": "The difference is in the model's structure: a context per decoder step versus a matrix of "
                    "all position pairs in one layer.",
                "why_a": "The score matrix is built at once, but its T×T size grows with the length: the work is not "
                    "constant.",
                "why_c": "One layer's scores are computed in a batch, but generation stays autoregressive: the next "
                    "token depends on the previous ones.",
                "why_d": "That carries today's ideas into the past. In Bahdanau, Cho and Bengio's model a small "
                    "learned network computes each score from the decoder state and an annotation; there are no "
                    "queries, keys and values and no division by √d_k, and the name “additive” was given to that "
                    "score later.",
                "explain": "Alignment scores {encoder_pairs} pairs of “decoder state — encoder annotation”; "
                    "self-attention scores {self_pairs} pairs of positions of one sequence. That makes neither the "
                    "work constant nor the production of text parallel.",
                "hint_stage": "Compare where the queries and the keys come from in encoder–decoder alignment and in "
                    "self-attention.",
                "hint_formula": "In Bahdanau's model the context is gathered anew for each step of the translation; a "
                    "self-attention head compares the positions of one sequence all at once.",
            },
        },
    ),
    Exercise(
        "identical-keys", "numbers",
        notebook="05_history", instance="identical_keys",
        skills=("skill.row-softmax", "skill.properties"),
        varies="identical",
        inputs=_identical_inputs,
        expected=lambda ev: ev.identical_keys.weights[0],
        judge=_identical_keys,
        facts=lambda expected, ev: {"answer": vector(expected[0], 3), "weights": vector(expected[0])},
        gives_away={
            "ru": (
                r"вес\w* (строки )?равны,? когда равны (ее )?оценки",
                r"равн\w+ оценк\w+ да\w+ равн\w+ вес",
                r"равн\w+ оценк\w+ да\w+ по 1 ?/ ?2",
                r"одинаков\w+ ключ\w*.{0,60}(равн\w+ вес|равномерн\w+|поровну)",
            ),
            "en": (
                r"weights are equal when (its|the) scores are",
                r"equal scores give equal weights",
                r"equal scores give 1 ?/ ?2 each",
                r"identical keys.{0,60}(equal weights|uniform|evenly)",
            ),
        },
        strings={
            "ru": {
                "title": "одинаковые ключи",
                "prompt": "Все строки ключей одинаковы: K = {key_rows}. Какими будут веса в строке любого запроса?",
                "form": "строка весов в виде {layout}",
                "form_hint": "Нужна строка из {tokens} весов (или вся матрица {size}).",
                "explain": "Все оценки строки равны, и softmax даёт равномерную строку {weights}.",
                "hint_stage": "Посмотрите на оценки одного запроса, когда все ключи одинаковы.",
                "hint_formula": "Одинаковые ключи дают запросу одну и ту же оценку с каждым ключом.",
                "hint_method": "Softmax строки из равных чисел: запишите e^s / (e^s + … + e^s) и упростите.",
            },
            "en": {
                "title": "identical keys",
                "prompt": "All key rows are identical: K = {key_rows}. What will the weights in any query's row be?",
                "form": "a row of weights as {layout}",
                "form_hint": "A row of {tokens} weights (or the whole {size} matrix) is needed.",
                "explain": "All scores in the row are equal, and softmax gives the uniform row {weights}.",
                "hint_stage": "Look at one query's scores when all keys are identical.",
                "hint_formula": "Identical keys give a query the same score against every key.",
                "hint_method": "The softmax of a row of equal numbers: write e^s / (e^s + … + e^s) and simplify.",
            },
        },
    ),
    Exercise(
        "single-token", "numbers",
        notebook="06_head_from_primitives", instance="single_token",
        skills=("skill.mixing", "skill.properties"),
        varies="single",
        inputs=lambda ev: {"value": vector(ev.single_token.value[0, 0], 0)},
        read=_read_flat,
        expected=lambda ev: np.concatenate([ev.single_token.weights.ravel(), ev.single_token.output.ravel()]),
        judge=_single_token,
        facts=_single_facts,
        gives_away={
            "ru": (r"(один|единственн\w+|одного) (токен|позици)\w*.{0,60}вес\w* 1\b", r"o0? ?= ?v0 при одном"),
            "en": (r"(one|single|lone) (token|position).{0,60}weight (of )?1\b", r"o0? ?= ?v0 for one"),
        },
        strings={
            "ru": {
                "title": "один токен",
                "prompt": "В последовательности один токен, его значение {value}. Каковы его вес внимания и выход? "
                    "Ответ — вес и выход: [w, [o_0, o_1]] или [w, o_0, o_1].",
                "form": "вес и выход в виде [w, [o_0, o_1]] или [w, o_0, o_1]",
                "form_hint": "Нужны три числа: вес и две координаты выхода.",
                "explain": "В строке весов один ключ, поэтому A = {weights}, а выход равен значению: O = {output}. "
                    "Градиенты запроса и ключа нулевые: Q̄ = {grad_q}, K̄ = {grad_k}.",
                "hint_stage": "У одного токена строка весов — softmax одной-единственной оценки.",
                "hint_formula": "Softmax строки из одной оценки: e^s, делённое на сумму из одного слагаемого.",
                "hint_method": "Выход смешивает строки значений с весами, o = Σ_j A_0j v_j: здесь это сумма из одного "
                    "слагаемого.",
            },
            "en": {
                "title": "a single token",
                "prompt": "A sequence has one token, whose value is {value}. What are its attention weight and its "
                    "output? Answer with the weight and the output: [w, [o_0, o_1]] or [w, o_0, o_1].",
                "form": "the weight and the output as [w, [o_0, o_1]] or [w, o_0, o_1]",
                "form_hint": "Three numbers are needed: the weight and the two output coordinates.",
                "explain": "The weight row has one key, so A = {weights}, and the output is the value itself: O = "
                    "{output}. The query and key gradients are zero: Q̄ = {grad_q}, K̄ = {grad_k}.",
                "hint_stage": "A single token's row of weights is the softmax of a single score.",
                "hint_formula": "The softmax of a row of one score: e^s divided by a sum of one term.",
                "hint_method": "The output mixes the value rows with the weights, o = Σ_j A_0j v_j: here a sum of one "
                    "term.",
            },
        },
    ),
    choice_exercise(
        "permutation",
        notebook="06_head_from_primitives", instance="permutation",
        skills=("skill.properties",),
        correct="d",
        facts=_permutation_facts,
        misconceptions={"a": "permutation-unchanged", "b": "head-knows-order", "c": "permutation-columns-only"},
        gives_away={
            "ru": (r"строки выхода переставятся", r"выход переставлен так же"),
            "en": (
                r"output('s)? rows? (are|is) permuted (the same|likewise|in the same)",
                r"output is permuted the same",
            ),
        },
        strings={
            "ru": {
                "title": "перестановка позиций",
                "prompt": "Поменяем местами две позиции токенов — одинаково в Q, K и V. Что произойдёт с выходом?",
                "a": "Выход не изменится ни в одной строке.",
                "b": "Получатся другие числа: голова знает порядок позиций.",
                "c": "Переставятся только столбцы A, а строки выхода останутся на месте.",
                "d": "Строки выхода переставятся так же, как позиции.",
                "right": "Голова не знает порядка позиций: строка выхода перемещается вместе со своим запросом.",
                "why_a": "Строка выхода принадлежит своему запросу; запрос переехал — его строка выхода переехала "
                    "вместе с ним.",
                "why_b": "У этой головы нет сведений о позиции: оценки зависят только от содержимого строк. Порядок "
                    "позиций, как и маску, в модель вносят отдельно.",
                "why_c": "Переставляются и строки A (запросы), и её столбцы (ключи), поэтому строки выхода "
                    "переставляются тоже.",
                "explain": "После перестановки {order} выход совпал с переставленным исходным выходом с расхождением "
                    "{difference}. О порядке позиций голова ничего не знает, поэтому сведения о порядке, как и маску, "
                    "придётся добавлять отдельно.",
                "hint_stage": "Проследите, куда переедут строка запроса и строки ключей и значений, если переставить "
                    "позиции.",
                "hint_formula": "Каждая оценка зависит только от пары (q_i, k_j): переставленные вместе строки дают "
                    "те же пары на новых местах.",
            },
            "en": {
                "title": "swapping positions",
                "prompt": "Swap two token positions, the same way in Q, K and V. What happens to the output?",
                "a": "The output does not change in any row.",
                "b": "Different numbers come out: the head knows the order of positions.",
                "c": "Only the columns of A are permuted; the output rows stay where they were.",
                "d": "The output rows are permuted the same way as the positions.",
                "right": "The head does not know the order of positions: an output row moves with its query.",
                "why_a": "An output row belongs to its query; when the query moves, its output row moves with it.",
                "why_b": "This head has no information about position: the scores depend only on what the rows "
                    "contain. The order of positions, like the mask, is brought into a model separately.",
                "why_c": "Both the rows of A (queries) and its columns (keys) are permuted, so the output rows are "
                    "permuted too.",
                "explain": "After permuting {order}, the output matched the permuted original output with a "
                    "difference {difference}. The head knows nothing of the order of positions, so information about "
                    "order, like the mask, has to be added separately.",
                "hint_stage": "Follow where a query row and the key and value rows move when the positions are "
                    "permuted.",
                "hint_formula": "Each score depends only on its pair (q_i, k_j): rows permuted together give the same "
                    "pairs in new places.",
            },
        },
    ),
    Exercise(
        "value-gradient", "numbers",
        notebook="07_gradients", instance="worked",
        skills=("skill.gradients",),
        expected=lambda ev: ev.worked_steps.grad_value,
        given=given("A", "O_bar", answer=lambda v: v["A"][0].T @ v["O_bar"][0]),
        judge=_review_judge(VALUE_GRADIENT_MISTAKES, lambda e: labels("v", len(e)), tolerance=0.0,
                            rows_sum_to_one=False),
        facts=_gradient_facts,
        gives_away={
            "ru": (r"v̄ ?= ?aᵀ(?! ?ō)", r"bar v ?= ?aᵀ(?! ?bar o)"),
            "en": (r"v̄ ?= ?aᵀ(?! ?ō)", r"bar v ?= ?aᵀ(?! ?bar o)"),
        },
        strings={
            "ru": {
                "title": "градиент по значениям V̄",
                "prompt": "Обратный проход начинается с последнего шага, O = AV. Вычислите V̄ = AᵀŌ для разобранного "
                    "примера при Ō = I (A и V — в ячейке выше). Ответ — матрица 2×2, строки — позиции значений; "
                    "хватит трёх знаков после запятой.",
                "form": "матрица 2×2 в виде [[a, b], [c, d]]",
                "form_hint": "Нужна матрица 2×2 той же формы, что V: строка j для позиции j, столбец для каждого "
                    "признака значения.",
                "wrong": "V̄_j = Σ_i A_ij ō_i: строка j складывает строки Ō с весами, которые позиции j дали все "
                    "запросы.",
                "explain": "V̄ = AᵀŌ, а при Ō = I это просто Aᵀ: V̄ = {answer}. Строка j — столбец j матрицы весов A "
                    "= {weights}: сколько от каждого ō_i получает значение v_j.",
                "hint_stage": "Это первый шаг назад: через O = AV к значениям V. Веса A здесь — постоянные множители.",
                "hint_formula": "V̄ = AᵀŌ: строка j градиента V̄ — сумма строк Ō, каждая с весом A_ij, который запрос "
                    "q_i дал позиции j (это столбец j матрицы A).",
                "hint_method": "Элемент (j, c) равен Σ_i A_ij Ō_ic. При Ō = I от суммы остаётся одно слагаемое: какое?",
            },
            "en": {
                "title": "the values' gradient V̄",
                "prompt": "The backward pass starts from the last step, O = AV. Compute V̄ = AᵀŌ for the worked "
                    "example with Ō = I (A and V are in the cell above). Answer with a 2×2 matrix, one row per value "
                    "position; three decimals are enough.",
                "form": "a 2×2 matrix as [[a, b], [c, d]]",
                "form_hint": "Expected: a 2×2 matrix of the shape of V, one row per position j and one column per "
                    "value feature.",
                "wrong": "V̄_j = Σ_i A_ij ō_i: row j adds up the rows of Ō with the weights that every query gave to "
                    "position j.",
                "explain": "V̄ = AᵀŌ, and with Ō = I that is simply Aᵀ: V̄ = {answer}. Row j is column j of the "
                    "weights A = {weights}: how much of each ō_i the value v_j receives.",
                "hint_stage": "This is the first step back: through O = AV to the values V. Here the weights A are "
                    "constant factors.",
                "hint_formula": "V̄ = AᵀŌ: row j of V̄ adds up the rows of Ō, each weighted by A_ij, the weight query "
                    "q_i gave to position j (column j of A).",
                "hint_method": "Entry (j, c) is Σ_i A_ij Ō_ic. With Ō = I one term of that sum is left: which one?",
            },
        },
    ),
    Exercise(
        "weight-gradient", "numbers",
        notebook="07_gradients", instance="worked",
        skills=("skill.gradients",),
        expected=lambda ev: ev.worked_steps.grad_weights,
        given=given("V", "O_bar", answer=lambda v: v["O_bar"][0] @ v["V"][0].T),
        judge=_review_judge(WEIGHT_GRADIENT_MISTAKES, lambda e: labels("q", len(e)), tolerance=0.0,
                            rows_sum_to_one=False),
        facts=_gradient_facts,
        gives_away={
            "ru": (r"ā ?= ?vᵀ", r"bar a ?= ?vᵀ"),
            "en": (r"ā ?= ?vᵀ", r"bar a ?= ?vᵀ"),
        },
        strings={
            "ru": {
                "title": "градиент по весам Ā",
                "prompt": "Тот же шаг O = AV ведёт и к весам. Вычислите Ā = ŌVᵀ при Ō = I. Ответ — матрица 2×2, "
                    "строки — запросы, столбцы — ключи.",
                "form": "матрица 2×2 в виде [[a, b], [c, d]]",
                "form_hint": "Нужна матрица 2×2 той же формы, что A: строки — запросы, столбцы — позиции ключей.",
                "wrong": "Ā_ij = ō_i · v_j: скалярное произведение строки i входящего градиента со строкой значения j.",
                "explain": "Ā = ŌVᵀ, а при Ō = I это Vᵀ: Ā = {answer}. Элемент Ā_ij = ō_i · v_j говорит, как быстро "
                    "растёт L, когда немного растёт один вес A_ij, а остальные веса строки не меняются; что строка "
                    "должна давать в сумме 1, учтёт следующий шаг через softmax.",
                "hint_stage": "Тот же шаг O = AV, но теперь постоянны значения V, а меняются веса A.",
                "hint_formula": "Ā = ŌVᵀ: элемент (i, j) — скалярное произведение строки i градиента Ō на строку j "
                    "матрицы V.",
                "hint_method": "При Ō = I строка i градиента Ō выбирает у v_j одну координату: какую?",
            },
            "en": {
                "title": "the weights' gradient Ā",
                "prompt": "The same step O = AV leads to the weights too. Compute Ā = ŌVᵀ with Ō = I. Answer with a "
                    "2×2 matrix, one row per query and one column per key.",
                "form": "a 2×2 matrix as [[a, b], [c, d]]",
                "form_hint": "Expected: a 2×2 matrix of the shape of A, one row per query and one column per key "
                    "position.",
                "wrong": "Ā_ij = ō_i · v_j: the dot product of row i of the upstream gradient with value row j.",
                "explain": "Ā = ŌVᵀ, and with Ō = I that is Vᵀ: Ā = {answer}. Entry Ā_ij = ō_i · v_j says how fast L "
                    "grows when the one weight A_ij grows a little while the row's other weights stay fixed; the next "
                    "step, through the softmax, accounts for the row having to sum to 1.",
                "hint_stage": "The same step O = AV, but now the values V are constant and the weights A vary.",
                "hint_formula": "Ā = ŌVᵀ: entry (i, j) is the dot product of row i of Ō with row j of V.",
                "hint_method": "With Ō = I, row i of Ō picks one coordinate of v_j: which one?",
            },
        },
    ),
    Exercise(
        "score-gradient", "numbers",
        notebook="07_gradients", instance="hand",
        skills=("skill.gradients",),
        expected=lambda ev: ev.hand_steps.grad_scores[0],
        judge=_score_gradient,
        facts=_score_gradient_facts,
        inputs=_score_gradient_inputs,
        gives_away={
            "ru": (r"s̄0? ?= ?\[0\.12",),
            "en": (r"s̄0? ?= ?\[0\.12",),
        },
        strings={
            "ru": {
                "title": "градиент по оценкам одной строки",
                "prompt": "Шаг через softmax — вручную, на строке второго примера (27.3), где веса смешаны. Веса его "
                    "первого запроса a = A_0 ≈ {row}. Пусть L = o_00, первая координата первого выхода: тогда у Ō "
                    "единица в клетке (0, 0) и нули в остальных, а градиент этой строки весов ā = Ā_0 = {grad_row}. "
                    "Найдите s̄ = S̄_0 = a ⊙ (ā − ⟨a, ā⟩): сначала одно число ⟨a, ā⟩, затем каждый элемент. Ответ — "
                    "три числа, для ключей k_0, k_1, k_2; хватит двух знаков после запятой (принимается ±0.01).",
                "form": "три числа в виде [a, b, c]",
                "form_hint": "Нужны три числа, по одному на ключ: строка S̄_0.",
                "wrong": "s̄_j = a_j (ā_j − ⟨a, ā⟩), где ⟨a, ā⟩ = Σ_r a_r ā_r — одно число на всю строку.",
                "explain": "⟨a, ā⟩ = {inner}, и s̄ = a ⊙ (ā − ⟨a, ā⟩) = {answer}. Сумма строки — 0: прибавка одного "
                    "числа ко всей строке оценок веса не меняет (27.1), поэтому вдоль этого направления градиента нет.",
                "hint_stage": "Это шаг через softmax строки: от градиента по весам ā к градиенту по масштабированным "
                    "оценкам s̄.",
                "hint_formula": "Сначала одно число ⟨a, ā⟩ = a_0 ā_0 + a_1 ā_1 + a_2 ā_2, затем s̄_j = a_j (ā_j − "
                    "⟨a, ā⟩) для каждого j.",
                "hint_method": "Первое слагаемое ⟨a, ā⟩: a_0 ā_0 = {first_term}. Прибавьте остальные два, затем "
                    "вычтите сумму из каждого ā_j и умножьте на a_j.",
            },
            "en": {
                "title": "the scores' gradient of one row",
                "prompt": "The step through the softmax, by hand, on a row of the second example (27.3), where the "
                    "weights are mixed. Its first query's weights are a = A_0 ≈ {row}. Take L = o_00, the first "
                    "output's first entry: then Ō has a 1 at (0, 0) and zeros elsewhere, and this row's gradient is "
                    "ā = Ā_0 = {grad_row}. Compute s̄ = S̄_0 = a ⊙ (ā − ⟨a, ā⟩): first the one number ⟨a, ā⟩, then "
                    "each entry. Answer with three numbers, for keys k_0, k_1, k_2; two decimals are enough (±0.01 is "
                    "accepted).",
                "form": "three numbers as [a, b, c]",
                "form_hint": "Three numbers are needed, one per key: the row S̄_0.",
                "wrong": "s̄_j = a_j (ā_j − ⟨a, ā⟩), where ⟨a, ā⟩ = Σ_r a_r ā_r is one number for the whole row.",
                "explain": "⟨a, ā⟩ = {inner}, and s̄ = a ⊙ (ā − ⟨a, ā⟩) = {answer}. The row sums to 0: adding one "
                    "number to a whole row of scores leaves the weights unchanged (27.1), so there is no gradient "
                    "along that direction.",
                "hint_stage": "This is the step through a row's softmax: from the weights' gradient ā to the scaled "
                    "scores' gradient s̄.",
                "hint_formula": "First the one number ⟨a, ā⟩ = a_0 ā_0 + a_1 ā_1 + a_2 ā_2, then s̄_j = a_j (ā_j − "
                    "⟨a, ā⟩) for each j.",
                "hint_method": "The first term of ⟨a, ā⟩: a_0 ā_0 = {first_term}. Add the other two, then subtract "
                    "the sum from each ā_j and multiply by a_j.",
            },
        },
    ),
    choice_exercise(
        "small-query-gradients",
        notebook="07_gradients", instance="worked",
        skills=("skill.gradients",),
        correct="c",
        facts=_small_gradient_facts,
        misconceptions={"a": "scale-shrinks-gradient", "b": "values-always-larger", "d": "blames-upstream"},
        gives_away={
            "ru": (
                r"(до|к) q и k.{0,30}(доходит|проходит) (мало|все меньше|почти ничего)",
                r"через якобиан.{0,80}(к|до) q и k",
                r"норм\w* якобиан\w*.{0,50}(строки|для строки) q\d",
            ),
            "en": (
                r"(reaches|reach|to) q and k.{0,40}(little|less|almost nothing)",
                r"through the jacobian.{0,80}q and k",
                r"jacobian.{0,50}for row q\d",
            ),
        },
        strings={
            "ru": {
                "title": "почему Q̄ и K̄ так малы",
                "prompt": "Почему в разобранном примере Q̄ и K̄ намного меньше V̄?",
                "a": "Из-за деления на √d_k: этот множитель стоит на пути к Q и K, но не к V.",
                "b": "Так всегда: градиенты запросов и ключей меньше градиентов значений.",
                "c": "Строки A почти насыщены, и якобиан softmax почти не пропускает градиент к оценкам.",
                "d": "Из-за Ō = I: единичный входящий градиент гасит те вклады, которые иначе дошли бы до Q и K.",
                "right": "Путь к Q и K идёт через якобиан softmax: в примере a_0·a_1 = {products}, поэтому S̄ = "
                    "{grad_scores}, хотя Ā = {grad_weights}.",
                "why_a": "Этот множитель уменьшает Q̄ и K̄ лишь в √d_k ≈ {root} раза, а ‖V̄‖ больше ‖Q̄‖ в {ratio} "
                    "раза.",
                "why_b": "Не всегда: при равномерной строке a = {uniform} элемент якобиана a_0·a_1 = "
                    "{uniform_product}, и градиент по оценкам был бы велик.",
                "why_d": "Ō одинаково входит и в V̄ = AᵀŌ, и в Ā = ŌVᵀ. Градиент уменьшается дальше, в softmax между "
                    "Ā и S̄: Ā = {grad_weights}, а S̄ = {grad_scores}.",
                "explain": "V̄ = AᵀŌ получает веса напрямую. Путь к Q и K идёт через softmax: для двух ключей J = a_0 "
                    "a_1 [[1, −1], [−1, 1]], а в примере a_0·a_1 = {products}. Поэтому S̄ = {grad_scores}, хотя Ā = "
                    "{grad_weights}. Это насыщение из 27.4: чем больше веса строки у одного ключа, тем меньше "
                    "градиента доходит до оценок, а через них — до Q и K.",
                "hint_stage": "Градиент Q̄ проходит через softmax, а V̄ — нет.",
                "hint_formula": "Правило обратного прохода через softmax — S̄ = A ⊙ (Ā − rowsum(A ⊙ Ā)); когда веса "
                    "строки близки к 0 и 1, S̄ почти нулевой.",
            },
            "en": {
                "title": "why Q̄ and K̄ are so small",
                "prompt": "Why are Q̄ and K̄ so much smaller than V̄ in the worked example?",
                "a": "Because of the division by √d_k: that factor lies on the path to Q and K but not to V.",
                "b": "It is always so: the gradients of queries and keys are smaller than those of values.",
                "c": "The rows of A are nearly saturated, and the softmax Jacobian lets little gradient through to the "
                    "scores.",
                "d": "Because of Ō = I: the identity upstream gradient cancels the contributions that would otherwise "
                    "reach Q and K.",
                "right": "The path to Q and K runs through the softmax Jacobian: here a_0·a_1 = {products}, so S̄ = "
                    "{grad_scores}, although Ā = {grad_weights}.",
                "why_a": "That factor shrinks Q̄ and K̄ only by a factor of √d_k ≈ {root}, while ‖V̄‖ is {ratio} "
                    "times ‖Q̄‖.",
                "why_b": "Not always: for a uniform row a = {uniform} the Jacobian entry a_0·a_1 = {uniform_product}, "
                    "and the gradient of the scores would be large.",
                "why_d": "Ō enters V̄ = AᵀŌ and Ā = ŌVᵀ alike. The gradient shrinks later, in the softmax between Ā "
                    "and S̄: Ā = {grad_weights}, but S̄ = {grad_scores}.",
                "explain": "V̄ = AᵀŌ receives the weights directly. The path to Q and K runs through the softmax: for "
                    "two keys J = a_0 a_1 [[1, −1], [−1, 1]], and in the example a_0·a_1 = {products}. So S̄ = "
                    "{grad_scores}, although Ā = {grad_weights}. This is the saturation of 27.4: the more of a row's "
                    "weight sits on one key, the less gradient reaches the scores, and through them Q and K.",
                "hint_stage": "The gradient Q̄ passes through the softmax; V̄ does not.",
                "hint_formula": "The backward rule through softmax is S̄ = A ⊙ (Ā − rowsum(A ⊙ Ā)); when a row's "
                    "weights are near 0 and 1, S̄ is nearly zero.",
            },
        },
    ),
    choice_exercise(
        "future-access",
        notebook="09_next", instance="worked",
        skills=("skill.causal-mask",),
        correct="a",
        facts=_worked_facts,
        misconceptions={"b": "past-is-leak", "c": "self-is-leak", "d": "believes-causal"},
        gives_away={
            "ru": (
                r"каждому запросу видны все (позиции )?ключ",
                r"(поздн|будущ)\w+ (позици|токен)\w*.{0,60}(подсказ|утечк|подсматр|выда)",
                r"(подсказ|утечк|подсматр|выда)\w*.{0,60}(поздн|будущ)\w+ (позици|токен)",
            ),
            "en": (
                r"every query sees every key",
                r"(later|future) (positions?|tokens?).{0,60}(gives?|leak|peek)",
                r"(gives?|leak\w*|peek\w*) .{0,60}(later|future) (positions?|tokens?)",
            ),
        },
        strings={
            "ru": {
                "title": "доступ к будущему",
                "prompt": "Декодер учат предсказывать следующий токен. Какой доступ головы к другим позициям выдал бы "
                    "ему ответ заранее?",
                "a": "Запрос позиции i учитывает ключи и значения позиций j > i.",
                "b": "Запрос позиции i учитывает ключи и значения более ранних позиций j < i.",
                "c": "Запрос позиции i учитывает собственный ключ j = i.",
                "d": "Утечки нет: эта голова и так видит только прошлые позиции.",
                "right": "Без маски запрос видит более поздние позиции; при авторегрессионном обучении это подсказка "
                    "ответа.",
                "why_b": "Более ранние позиции при генерации модели уже известны — учитывать их можно.",
                "why_c": "Собственная позиция тоже известна: маска из главы 28 её не скрывает.",
                "why_d": "Эта голова без маски: в примере запрос q_0 отдаёт более поздней позиции k_1 вес "
                    "{future_weight}. Маску добавит глава 28.",
                "explain": "Без маски каждому запросу видны все ключи: в примере q_0 отдаёт будущей позиции k_1 вес "
                    "{future_weight}. При авторегрессионном обучении так модель подсматривала бы ответ.",
                "hint_stage": "При авторегрессионном обучении позиция i учится предсказывать следующий токен.",
                "hint_formula": "Утечка — когда запрос i видит ключи позиций j > i; у головы без маски видны все.",
            },
            "en": {
                "title": "access to the future",
                "prompt": "A decoder is trained to predict the next token. Which kind of access to other positions "
                    "would give the head the answer in advance?",
                "a": "The query at position i uses the keys and values at positions j > i.",
                "b": "The query at position i uses the keys and values of earlier positions j < i.",
                "c": "The query at position i uses its own key j = i.",
                "d": "There is no leak: this head already sees only past positions.",
                "right": "Without a mask a query sees later positions; in autoregressive training that gives the "
                    "answer away.",
                "why_b": "Earlier positions are already known to the model when it generates — using them is fine.",
                "why_c": "Its own position is known too: the mask of chapter 28 does not hide it.",
                "why_d": "This head has no mask: in the example query q_0 gives the later position k_1 a weight of "
                    "{future_weight}. Chapter 28 adds the mask.",
                "explain": "Without a mask every query sees every key: in the example q_0 gives the future position "
                    "k_1 a weight of {future_weight}. In autoregressive training the model would peek at the answer.",
                "hint_stage": "In autoregressive training position i learns to predict the next token.",
                "hint_formula": "A leak is query i seeing the keys of positions j > i; a head without a mask sees "
                    "them all.",
            },
        },
    ),
    Exercise(
        "causal-rows", "numbers",
        notebook="09_next", instance="hand",
        skills=("skill.causal-mask",),
        varies="causal",
        inputs=_causal_inputs,
        expected=lambda ev: ev.hand_causal,
        judge=_review_judge(CAUSAL_MISTAKES, lambda e: labels("q", len(e))),
        facts=_causal_facts,
        gives_away={
            "ru": (r"a1 ?= ?\[0\.269",),
            "en": (r"a1 ?= ?\[0\.269",),
        },
        strings={
            "ru": {
                "title": "что оставляет каузальная маска",
                "prompt": "В главе 28 появится каузальная маска: при T = {tokens} запрос q_i видит только ключи j ≤ i "
                    "(оценки остальных заменяют на −∞ до softmax). Какой станет с такой маской матрица весов A "
                    "{example}? Ответ — матрица {size}; хватит двух знаков после запятой.",
                "second": "второго примера",
                "given": "примера с Q = {hand_query}, K = {hand_key}, d_k = {key_width}",
                "form": "матрица весов {size} в виде {layout}",
                "form_hint": "Нужна матрица весов {size}: строки — запросы, столбцы — ключи; у скрытых ключей вес 0.",
                "wrong": "В каждой строке оставьте ключи j ≤ i, возьмите softmax только по ним, а скрытым ключам "
                    "дайте вес 0.",
                "explain": "Строка q_i берёт softmax только по ключам k_0 … k_i, а скрытым ключам даёт вес 0: {rows}. "
                    "Последняя строка видит все ключи, как без маски. A = {answer}.",
                "hint_stage": "Маска скрывает ключи j > i до нормировки: у запроса q_i остаются ключи k_0 … k_i.",
                "hint_formula": "Возьмите softmax каждой строки S только по видимым ключам; скрытые веса — нули.",
                "hint_method": "Строка q_1 видит только k_0 и k_1: выпишите её масштабированные оценки S_10 и S_11, "
                    "возьмите экспоненты и поделите каждую на их сумму; всем ключам после k_1 — 0. Остальные строки — "
                    "так же.",
            },
            "en": {
                "title": "what a causal mask leaves",
                "prompt": "Chapter 28 brings a causal mask: with T = {tokens}, query q_i sees only the keys j ≤ i "
                    "(the others' scores become −∞ before softmax). Under this mask, what does the weight matrix A of "
                    "{example} become? Answer with a {size} matrix; two decimals are enough.",
                "second": "the second example",
                "given": "the example with Q = {hand_query}, K = {hand_key}, d_k = {key_width}",
                "form": "a {size} weight matrix as {layout}",
                "form_hint": "A {size} weight matrix is needed: a row per query, a column per key; hidden keys get "
                    "weight 0.",
                "wrong": "In each row keep the keys j ≤ i, take softmax over them alone, and give the hidden keys "
                    "weight 0.",
                "explain": "Row q_i takes the softmax over the keys k_0 … k_i only and gives the hidden keys weight "
                    "0: {rows}. The last row sees every key, as without a mask. A = {answer}.",
                "hint_stage": "The mask hides the keys j > i before normalizing: query q_i keeps the keys k_0 … k_i.",
                "hint_formula": "Take the softmax of each row of S over its visible keys only; the hidden weights are "
                    "zeros.",
                "hint_method": "Row q_1 sees k_0 and k_1 only: write its two scaled scores S_10 and S_11, take their "
                    "exponentials and divide each by their sum; every key after k_1 gets 0. The other rows go the "
                    "same way.",
            },
        },
    ),
    # the review (10_exercises): three return to what the chapter computed, in new circumstances; one is new
    Exercise(
        "temperature-limits", "numbers",
        notebook="10_exercises", instance="temperature",
        skills=("skill.scaling", "skill.row-softmax"),
        inputs=lambda ev: {"temperature_scores": vector(ev.temperature.scores, 0)},
        expected=lambda ev: np.stack([ev.temperature.cold, ev.temperature.hot]),
        judge=_review_judge(TEMPERATURE_MISTAKES, lambda e: ("τ → 0", "τ → ∞")),
        facts=_temperature_facts,
        gives_away={
            "ru": (r"τ ?→ ?0.{0,60}(one-hot|argmax|весь вес)", r"τ ?→ ?∞.{0,60}равномерн"),
            "en": (r"τ ?→ ?0.{0,60}(one-hot|argmax|all (the )?weight)", r"τ ?→ ?∞.{0,60}uniform"),
        },
        strings={
            "ru": {
                "title": "температура к нулю и к бесконечности",
                "prompt": "Температура τ делит оценки перед softmax: веса = softmax(s/τ). Какой станет строка весов "
                    "для оценок s = {temperature_scores} при τ → 0 и при τ → ∞? Ответ — две строки: [[веса при τ → "
                    "0], [веса при τ → ∞]]; хватит двух знаков после запятой.",
                "form": "две строки по три веса: [[a, b, c], [d, e, f]]",
                "form_hint": "Нужны две строки по три веса: первая при τ → 0, вторая при τ → ∞.",
                "wrong": "Представьте s/τ: при маленьком τ разности оценок огромны, при большом — исчезают. Что "
                    "softmax делает в каждом из этих случаев?",
                "explain": "При τ → 0 разности s/τ неограниченно растут, и весь вес уходит наибольшей оценке: {cold}. "
                    "При τ → ∞ все s/τ → 0, и softmax равномерен: {hot} — все веса почти равны, а расхождение в "
                    "шестом знаке оттого, что τ конечно. Движок считал при τ = 10⁻⁶ и τ = 10⁶.",
                "hint_stage": "Посмотрите, что происходит с числами s/τ при τ → 0 и при τ → ∞.",
                "hint_formula": "Разделите оценки на малое τ и на большое и сравните, насколько далеко друг от друга "
                    "оказываются числа s/τ.",
                "hint_method": "При τ = {cold_tau} два наибольших числа s/τ отстоят друг от друга на {cold_gap}, при "
                    "τ = {hot_tau} — на {hot_gap}. Меньший из двух весов равен большему, умноженному на e^(−разрыв): "
                    "прикиньте это для каждого τ (остальные разрывы делятся на τ так же).",
            },
            "en": {
                "title": "temperature towards 0 and towards infinity",
                "prompt": "A temperature τ divides the scores before softmax: weights = softmax(s/τ). What does the "
                    "row of weights for the scores s = {temperature_scores} become as τ → 0 and as τ → ∞? Answer with "
                    "two rows: [[weights as τ → 0], [weights as τ → ∞]]; two decimals are enough.",
                "form": "two rows of three weights: [[a, b, c], [d, e, f]]",
                "form_hint": "Two rows of three weights are needed: the first as τ → 0, the second as τ → ∞.",
                "wrong": "Picture s/τ: with a small τ the differences between the scores are huge, with a large one "
                    "they vanish. What does softmax do in each case?",
                "explain": "As τ → 0 the differences s/τ grow without bound and the largest score takes all the "
                    "weight: {cold}. As τ → ∞ every s/τ → 0 and softmax is uniform: {hot} — all weights nearly equal, "
                    "the difference in the sixth decimal coming from τ being finite. The engine computed them at τ = "
                    "10⁻⁶ and τ = 10⁶.",
                "hint_stage": "Look at what happens to the numbers s/τ as τ → 0 and as τ → ∞.",
                "hint_formula": "Divide the scores by a small τ and by a large one, and see how far apart the numbers "
                    "s/τ end up.",
                "hint_method": "At τ = {cold_tau} the two largest s/τ are {cold_gap} apart; at τ = {hot_tau}, "
                    "{hot_gap}. The smaller of two weights is e^(−gap) times the larger: work that out for each τ "
                    "(every other gap is divided by τ the same way).",
            },
        },
    ),
    choice_exercise(
        "row-shift",
        notebook="10_exercises", instance="row_shift",
        skills=("skill.row-softmax", "skill.properties"),
        inputs=lambda ev: {"shift": num(ev.row_shift.shift, 0)},
        correct="c",
        facts=_row_shift_facts,
        misconceptions={"a": "shift-sharpens", "b": "shift-scales-weights", "d": "shift-flattens"},
        gives_away={
            "ru": (r"e\^c.{0,60}сокра",),
            "en": (r"e\^c.{0,60}cancel",),
        },
        strings={
            "ru": {
                "title": "одно число ко всей строке оценок",
                "prompt": "К каждой масштабированной оценке строки q_0 второго примера прибавили одно и то же число c "
                    "= {shift}. Что станет со строкой весов A_0?",
                "a": "Строка станет резче: ещё больший вес получит ключ с наибольшей оценкой.",
                "b": "Каждый вес умножится на e^c, и строка перестанет давать в сумме 1.",
                "c": "Ничего не изменится: e^c сократится в числителе и знаменателе softmax.",
                "d": "Веса выровняются: на фоне большого c разность между оценками теряется.",
                "right": "Softmax зависит только от разностей оценок внутри строки: e^(s_j + c) / Σ_r e^(s_r + c) = "
                    "e^(s_j) / Σ_r e^(s_r).",
                "why_a": "Резкость зависит от разностей оценок, а сдвиг их не меняет: строка {row} и она же, "
                    "сдвинутая на {shift}, дают одни и те же веса {weights}.",
                "why_b": "Числитель и знаменатель умножаются на e^c вместе, поэтому множитель сокращается, а сумма "
                    "строки остаётся равной 1.",
                "why_d": "Разности между оценками не изменились, значит, и веса те же: {weights} до сдвига и "
                    "{shifted} после.",
                "explain": "Строка q_0: оценки {row}, веса {weights}; после прибавления {shift} веса {shifted}, "
                    "расхождение {difference}. Поэтому реализации softmax вычитают из строки её максимум: ответ не "
                    "меняется, а переполнения не бывает.",
                "hint_stage": "Вынесите множитель e^c из числителя и знаменателя softmax.",
                "hint_formula": "e^(s_j + c) / Σ_r e^(s_r + c) = e^c · e^(s_j) / (e^c · Σ_r e^(s_r)).",
            },
            "en": {
                "title": "one number added to a whole row of scores",
                "prompt": "The same number c = {shift} is added to every scaled score in row q_0 of the second "
                    "example. What happens to the row of weights A_0?",
                "a": "The row gets sharper: the key with the largest score gets even more weight.",
                "b": "Each weight is multiplied by e^c, and the row no longer sums to 1.",
                "c": "Nothing changes: e^c cancels between softmax's numerator and denominator.",
                "d": "The weights even out: next to a large c the differences between the scores are lost.",
                "right": "Softmax depends only on the differences between the scores within a row: e^(s_j + c) / Σ_r "
                    "e^(s_r + c) = e^(s_j) / Σ_r e^(s_r).",
                "why_a": "Sharpness depends on the differences between the scores, and a shift leaves them alone: the "
                    "row {row} and the same row shifted by {shift} give the same weights {weights}.",
                "why_b": "The numerator and the denominator are both multiplied by e^c, so the factor cancels and the "
                    "row still sums to 1.",
                "why_d": "The differences between the scores did not change, so neither did the weights: {weights} "
                    "before the shift and {shifted} after.",
                "explain": "Row q_0: scores {row}, weights {weights}; after adding {shift} the weights are {shifted}, "
                    "a difference of {difference}. That is why softmax implementations subtract a row's maximum: the "
                    "answer stays the same and nothing overflows.",
                "hint_stage": "Take the factor e^c out of the softmax's numerator and denominator.",
                "hint_formula": "e^(s_j + c) / Σ_r e^(s_r + c) = e^c · e^(s_j) / (e^c · Σ_r e^(s_r)).",
            },
        },
    ),
    choice_exercise(
        "one-hot-gradient",
        notebook="10_exercises", instance="saturated",
        skills=("skill.gradients",),
        inputs=lambda ev: {"factor": num(SATURATING_FACTOR, 0)},
        correct="d",
        facts=_saturated_facts,
        misconceptions={"a": "blames-values", "b": "argmax-not-differentiable", "c": "scale-kills-gradient"},
        gives_away={
            "ru": (r"весь вес\W+(\w+\W+)?(у|на) одн\w+ ключ\w*.{0,80}(производн|якобиан|градиент)\w*.{0,40}"
                   r"(почти )?нул",),
            "en": (
                r"all (the )?weight (\w+ ){0,2}(on|to|at) one key.{0,80}(derivative|jacobian|gradient).{0,40}"
                r"(almost |nearly )?zero",
            ),
        },
        strings={
            "ru": {
                "title": "Q × 4: почему исчезает Q̄",
                "prompt": "Умножим Q разобранного примера на {factor}: оценки вырастут в {factor} раза, а градиент Q̄ "
                    "(при Ō = I) станет почти нулевым. Почему Q̄ ≈ 0?",
                "a": "Градиент не доходит до значений: V̄ равен нулю, и запросам нечего передать.",
                "b": "Голова выбирает ключ через argmax, а у argmax нет производной: Q̄ равен нулю точно.",
                "c": "Множитель 1/√d_k при больших оценках обнуляет градиент.",
                "d": "Softmax насыщен: у строки с весом 1 на одном ключе производная почти нулевая.",
                "right": "Градиент через softmax пропорционален A_ij(δ_jr − A_ir); у строки, где весь вес у одного "
                    "ключа, это почти ноль, и запросам почти ничего не достаётся.",
                "why_a": "V̄ = AᵀŌ не равен нулю: здесь V̄ = {grad_v}. Пропадает путь через softmax, а не через "
                    "значения.",
                "why_b": "Голова не вызывает argmax: она считает softmax, у которого производная есть везде. Q̄ = "
                    "{grad_q}: он очень мал, но не равен нулю.",
                "why_c": "Масштаб 1/√d_k — постоянный множитель: он не зависит от величины оценок и сам градиент не "
                    "обнуляет. Обнуляет насыщенный softmax: A = {weights}.",
                "explain": "При Q × {factor} веса A = {weights}, Q̄ = {grad_q}, а V̄ = {grad_v}. Насыщенный softmax "
                    "почти не пропускает градиент к оценкам. От этого при росте d_k бережёт множитель 1/√d_k (27.4), "
                    "но не тогда, когда длинны сами векторы, как здесь: оценки уже поделены на √2.",
                "hint_stage": "Посмотрите на производную softmax строки, в которой один вес равен 1.",
                "hint_formula": "diag(w) − w·wᵀ при строке весов w = (1, 0): каждый элемент — ноль, и до оценок "
                    "градиент не доходит.",
            },
            "en": {
                "title": "Q × 4: why Q̄ vanishes",
                "prompt": "Multiply the worked example's Q by {factor}: the scores grow {factor}-fold, and the "
                    "gradient Q̄ (with Ō = I) becomes nearly zero. Why is Q̄ ≈ 0?",
                "a": "No gradient reaches the values: V̄ is zero, so there is nothing to pass on to the queries.",
                "b": "The head picks a key with argmax, which has no derivative: Q̄ is exactly zero.",
                "c": "The factor 1/√d_k wipes out the gradient when the scores are large.",
                "d": "Softmax is saturated: a row with weight 1 on one key has an almost zero derivative.",
                "right": "The gradient through softmax is proportional to A_ij(δ_jr − A_ir); for a row with all its "
                    "weight on one key that is nearly zero, and almost nothing reaches the queries.",
                "why_a": "V̄ = AᵀŌ is not zero: here V̄ = {grad_v}. It is the path through softmax that vanishes, not "
                    "the one through the values.",
                "why_b": "The head never calls argmax: it computes softmax, which has a derivative everywhere. Q̄ = "
                    "{grad_q}: tiny, but not zero.",
                "why_c": "The scale 1/√d_k is a constant factor: it does not depend on how large the scores are and "
                    "does not wipe out a gradient by itself. A saturated softmax does: A = {weights}.",
                "explain": "With Q × {factor} the weights are A = {weights}, Q̄ = {grad_q}, and V̄ = {grad_v}. A "
                    "saturated softmax passes almost no gradient to the scores. The factor 1/√d_k guards against "
                    "that as d_k grows (27.4), but not when the vectors themselves are long, as here: the scores are "
                    "already divided by √2.",
                "hint_stage": "Look at the softmax's derivative for a row in which one weight is 1.",
                "hint_formula": "diag(w) − w·wᵀ for the row of weights w = (1, 0): every entry is zero, and no "
                    "gradient reaches the scores.",
            },
        },
    ),
    Exercise(
        "head-width", "numbers",
        notebook="10_exercises", instance="head_split",
        skills=("skill.scaling",),
        varies="split",
        inputs=lambda ev: {"model_width": str(ev.head_split.model_width), "heads": str(ev.head_split.heads)},
        expected=lambda ev: np.array([ev.head_split.key_width, ev.head_split.scale]),
        judge=_review_judge(HEAD_WIDTH_MISTAKES, lambda e: ("d_k", "1/√d_k"), tolerance=TYPED,
                            rows_sum_to_one=False),
        facts=_head_width_facts,
        gives_away={
            "ru": (r"dk ?= ?dmodel ?/ ?h ?= ?64", r"1 ?/ ?√64 ?= ?0\.125"),
            "en": (r"dk ?= ?dmodel ?/ ?h ?= ?64", r"1 ?/ ?√64 ?= ?0\.125"),
        },
        strings={
            "ru": {
                "title": "ширина головы и d_model",
                "prompt": "Модель шириной d_model = {model_width} делит внимание между h = {heads} головами. Какова "
                    "ширина d_k одной головы и её масштаб 1/√d_k? Ответ — [d_k, масштаб].",
                "form": "два числа [d_k, масштаб]",
                "form_hint": "Нужны два числа: ширина головы d_k и масштаб 1/√d_k.",
                "wrong": "Головы делят d_model поровну, а масштаб — единица, делённая на корень из ширины одной "
                    "головы.",
                "explain": "d_k = d_model / h = {model_width} / {heads} = {key_width}; масштаб 1/√{key_width} = "
                    "{scale}. Движок, запущенный на срезе одной головы, сообщил ту же ширину и тот же масштаб.",
                "hint_stage": "Каждая из h голов получает свою часть ширины модели.",
                "hint_formula": "d_k = d_model / h, а масштаб — 1/√d_k.",
                "hint_method": "Проверьте оба числа: h·d_k должно дать d_model, а (1/√d_k)²·d_k — единицу.",
            },
            "en": {
                "title": "a head's width and d_model",
                "prompt": "A model of width d_model = {model_width} splits attention over h = {heads} heads. What is "
                    "one head's width d_k, and its scale 1/√d_k? Answer with [d_k, scale].",
                "form": "two numbers [d_k, scale]",
                "form_hint": "Two numbers are needed: the head width d_k and the scale 1/√d_k.",
                "wrong": "The heads split d_model evenly, and the scale is one over the square root of one head's "
                    "width.",
                "explain": "d_k = d_model / h = {model_width} / {heads} = {key_width}; the scale is 1/√{key_width} = "
                    "{scale}. The engine, run on one head's slice, reported the same width and scale.",
                "hint_stage": "Each of the h heads gets its own share of the model's width.",
                "hint_formula": "d_k = d_model / h, and the scale is 1/√d_k.",
                "hint_method": "Check both numbers: h·d_k must give d_model back, and (1/√d_k)²·d_k must give 1.",
            },
        },
    ),
    choice_exercise(
        "width-one-self",
        notebook="10_exercises", instance="width_one",
        skills=("skill.dot-products", "skill.properties"),
        correct="c",
        facts=_width_one_facts,
        misconceptions={"a": "own-key-largest", "b": "values-steer-weights", "d": "width-one-uniform"},
        gives_away={
            "ru": (r"не больше (двух|чем двум) ключ", r"ранг.{0,20}qkᵀ.{0,20}(≤|не больше|равен 1)",
                   r"(наибольш\w+|наименьш\w+) ключ\w*.{0,40}(наибольш\w+|наименьш\w+) ключ"),
            "en": (r"at most two keys", r"rank.{0,20}qkᵀ.{0,20}(≤|at most|is 1)",
                   r"(largest|smallest) key.{0,40}(largest|smallest) key"),
        },
        strings={
            "ru": {
                "title": "ширина 1: каждый ли токен смотрит на себя",
                "prompt": "Голова шириной d_k = 1: запрос и ключ каждого токена — одно число. Токенов не меньше трёх. "
                    "Можно ли подобрать запросы и ключи так, чтобы в каждой строке i вес A_ii был строго больше всех "
                    "остальных весов строки?",
                "a": "Да: возьмите q_i = k_i, тогда оценка q_i·k_i = k_i² — наибольшая в своей строке i.",
                "b": "Да, если строки значений разные: тогда у каждого токена свой выход.",
                "c": "Нет: чьим-то самым весомым ключом могут стать лишь наибольший и наименьший ключ.",
                "d": "Нет: при d_k = 1 все оценки строки равны, и softmax даёт равномерную строку.",
                "right": "Оценки строки i — это q_i, умноженное на каждый ключ, поэтому все положительные "
                    "запросы отдают наибольший вес одному и тому же ключу: при q = k = {keys} это {narrow}.",
                "why_a": "Оценка q_i·k_j растёт вместе с k_j при любом положительном q_i, поэтому ключ больше k_i "
                    "обгонит собственный: при q = k = {keys} наибольшие веса такие: {narrow}.",
                "why_b": "Значения в оценки не входят: веса решают только q_i·k_j. Значения лишь смешиваются по уже "
                    "готовым весам.",
                "why_d": "Оценки строки равны, только если равны ключи или q_i = 0. При q = k = {keys} строки весов "
                    "{weights}, и ни одна не равномерна.",
                "explain": "При d_k = 1 оценка q_i·k_j = q_i k_j: для q_i > 0 она наибольшая у наибольшего k_j, для "
                    "q_i < 0 — у наименьшего, а при q_i = 0 строка равномерна. Значит, наибольший вес хоть какого-то "
                    "запроса достаётся не больше чем двум ключам, а при q = k = {keys} — вообще одному: {narrow}. При "
                    "d_k = 2 три направления через 120° уже позволяют каждому токену отдать наибольший вес себе: "
                    "{wide}, на диагонали {wide_diagonal}; на окружности так можно расставить сколько угодно токенов. "
                    "Голове нужна ширина, чтобы разные запросы могли выбирать разные ключи.",
                "hint_stage": "При d_k = 1 оценка q_i·k_j — произведение двух чисел. Зафиксируйте положительный q_i: "
                    "при каком k_j она наибольшая?",
                "hint_formula": "Значит, у всех положительных запросов наибольшая оценка у одного и того же ключа, у "
                    "всех отрицательных — тоже у одного. Сколько разных ключей могут получить наибольший вес хоть "
                    "какого-то запроса?",
            },
            "en": {
                "title": "width 1: can every token look at itself",
                "prompt": "A head of width d_k = 1: each token's query and key are one number each. There are at least "
                    "three tokens. Can the queries and keys be chosen so that in every row i the weight A_ii is "
                    "strictly larger than every other weight of the row?",
                "a": "Yes: take q_i = k_i; then the score q_i·k_i = k_i² is the largest in row i.",
                "b": "Yes, if the value rows differ: then every token has its own output.",
                "c": "No: only the largest and the smallest key can be some query's top key.",
                "d": "No: at d_k = 1 all the scores of a row are equal, and softmax gives a uniform row.",
                "right": "Row i's scores are q_i times each key, so every positive query gives its largest "
                    "weight to the same key: with q = k = {keys} that is {narrow}.",
                "why_a": "The score q_i·k_j grows with k_j for any positive q_i, so a key larger than k_i beats the "
                    "token's own: with q = k = {keys} the largest weights go {narrow}.",
                "why_b": "The values take no part in the scores: only q_i·k_j decides the weights. The values are "
                    "merely mixed by weights already made.",
                "why_d": "A row's scores are equal only if the keys are, or q_i = 0. With q = k = {keys} the rows of "
                    "weights are {weights}, none of them uniform.",
                "explain": "At d_k = 1 the score is q_i·k_j = q_i k_j: for q_i > 0 it is largest at the largest k_j, "
                    "for q_i < 0 at the smallest, and for q_i = 0 the row is uniform. So at most two keys can "
                    "be some query's top key, and with q = k = {keys} only one: {narrow}. At d_k = 2, three directions "
                    "120° apart already let every token give itself the largest weight: {wide}, with {wide_diagonal} "
                    "on the diagonal; any number of tokens can be placed this way on a circle. A head needs width so "
                    "that different queries can pick different keys.",
                "hint_stage": "At d_k = 1 the score q_i·k_j is a product of two numbers. Fix a positive q_i: at which "
                    "k_j is it largest?",
                "hint_formula": "So all positive queries share one key with the largest score, and all negative ones "
                    "share one too. How many different keys can get some query's largest weight?",
            },
        },
    ),
    choice_exercise(
        "no-matching-key",
        notebook="10_exercises", instance="no_match",
        skills=("skill.row-softmax", "skill.mixing"),
        correct="b",
        facts=_no_match_facts,
        misconceptions={"a": "no-match-zero", "c": "negative-scores-undefined", "d": "falls-back-to-self"},
        gives_away={
            "ru": (r"(не подходит|не похож)\w* ни (один|на один) ключ.{0,80}(сумм\w* 1|в сумме)",
                   r"(наименее плох|менее плох)\w*", r"отрицательн\w+ оценк\w+ (еще )?не означает"),
            "en": (r"matches no key.{0,80}(sums? to 1|sum of 1)", r"least bad", r"negative score does not (yet )?mean"),
        },
        strings={
            "ru": {
                "title": "запрос, которому не подходит ни один ключ",
                "prompt": "У запроса q_0 = [-2, -2] оценки со всеми ключами отрицательны — кажется, что ни один ключ "
                    "ему не подходит. Что голова сделает с его строкой весов и с выходом o_0?",
                "a": "Все веса строки будут близки к 0, и выход o_0 ≈ 0: подходящего ключа нет, смешивать нечего.",
                "b": "Веса всё равно дадут в сумме 1, и o_0 будет взвешенным средним значений.",
                "c": "Строка не определена: при отрицательных оценках знаменатель softmax стремится к 0, и веса "
                    "станут NaN.",
                "d": "Весь вес уйдёт собственному ключу k_0: когда подходящих ключей нет, запрос смотрит на себя.",
                "right": "Softmax смотрит только на разности оценок строки: {scores} дают веса {weights}, в "
                    "сумме {total}, и o_0 = {output} — смесь значений.",
                "why_a": "Веса строки всегда дают в сумме 1, какими бы ни были оценки: здесь {scores} дают {weights}. "
                    "Голова не умеет сказать «ничего» — она обязана что-то смешать: o_0 = {output}.",
                "why_c": "Экспоненты отрицательных чисел малы, но положительны, и движок вычитает из строки её "
                    "максимум, так что наибольшая экспонента равна 1: веса {weights} конечны и дают {total}.",
                "why_d": "Собственный ключ ничем не выделен: вес решают оценки q_0·k_j, а у k_0 здесь такая же оценка, "
                    "как у k_1. Веса строки — {weights}.",
                "explain": "Оценки q_0: {scores}. Softmax зависит только от их разностей, поэтому веса {weights} "
                    "дают в сумме {total}, а выход o_0 = {output} — среднее значений с этими весами. Голове, которой "
                    "нечего взять, всё равно приходится что-то смешать.",
                "hint_stage": "Что softmax гарантирует для суммы строки весов — при любых оценках?",
                "hint_formula": "Прибавьте ко всем оценкам строки одно и то же число: веса не изменятся. Что это "
                    "говорит о строке, где все оценки отрицательны?",
            },
            "en": {
                "title": "a query no key matches",
                "prompt": "The query q_0 = [-2, -2] scores negatively against every key: none of the keys seems to "
                    "match it. What does the head do with its row of weights and with the output o_0?",
                "a": "All the weights of the row will be close to 0, and o_0 ≈ 0: no key matches, so there is "
                    "nothing to mix.",
                "b": "The weights still sum to 1, and o_0 is a weighted mean of the values.",
                "c": "The row is undefined: with negative scores softmax's denominator goes to 0 and the weights "
                    "become NaN.",
                "d": "All the weight goes to the query's own key k_0: when no key matches, a query looks at itself.",
                "right": "Softmax looks only at the differences of a row's scores: {scores} give the weights "
                    "{weights}, summing to {total}, and o_0 = {output} is a mixture of the values.",
                "why_a": "A row's weights always sum to 1, whatever the scores: here {scores} give {weights}. A head "
                    "cannot say “nothing”; it has to mix something: o_0 = {output}.",
                "why_c": "The exponentials of negative numbers are small but positive, and the engine subtracts a "
                    "row's maximum, so the largest exponential is 1: the weights {weights} are finite and sum to "
                    "{total}.",
                "why_d": "A query's own key is not special: the scores q_0·k_j decide, and here k_0 scores the same "
                    "as k_1. The row's weights are {weights}.",
                "explain": "q_0's scores: {scores}. Softmax depends only on their differences, so the weights "
                    "{weights} sum to {total}, and the output o_0 = {output} is the mean of the values with those "
                    "weights. A head with nothing to take still has to mix something.",
                "hint_stage": "What does softmax guarantee for the sum of a row of weights, whatever the scores?",
                "hint_formula": "Add the same number to every score of a row: the weights do not change. What does "
                    "that say about a row whose scores are all negative?",
            },
        },
    ),
)}
EXERCISE_BOOK = ExerciseBook("ch27", (*EXERCISES.values(), *CODE_EXERCISES), STRINGS, evidence, VARIANTS)
NOTEBOOKS = EXERCISE_BOOK.notebooks  # which notebook asks which exercise (tests/test_exercises.py reads the notebooks)
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
