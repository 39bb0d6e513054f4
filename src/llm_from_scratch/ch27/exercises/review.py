"""The exercises of 10_exercises: their judges and facts; their strings are in
catalogues/<language>/10_exercises.toml."""

from __future__ import annotations

import numpy as np

from ...book.declare import Exercise, choice_exercise
from ...book.formatting import below, matrix, num, vector
from ...book.tolerances import FLOAT_NOISE, TYPED
from ..evidence import LearnerEvidence
from ..examples import SATURATING_FACTOR
from ..mistakes import (
    HEAD_WIDTH_MISTAKES,
    TEMPERATURE_MISTAKES,
)
from .judging import Example, review_judge

TEMPERATURE_HINT_TAUS = (0.1, 100.0)  # a small and a large τ, for the hint that shows the gaps they make


def _temperature_facts(expected, ev):
    example = ev.fixed.temperature
    top, second = sorted(example.scores, reverse=True)[:2]
    cold, hot = TEMPERATURE_HINT_TAUS
    return {"answer": f"[{vector(example.cold, 0)}, {vector(example.hot, 3)}]", "cold": vector(example.cold),
            "hot": vector(example.hot), "scores": vector(example.scores, 0), "cold_tau": num(cold, 1),
            "hot_tau": num(hot, 0), "cold_gap": num((top - second) / cold, 0), "hot_gap": num((top - second) / hot, 2),
            "uniform": f"1/{len(example.scores)}"}


def _row_shift_facts(ev: LearnerEvidence) -> dict[str, str]:
    shift = ev.row_shift
    return {"shift": num(shift.shift, 0), "row": vector(shift.scores, 0), "weights": vector(shift.weights),
            "shifted": vector(shift.shifted), "difference": below(shift.max_difference, FLOAT_NOISE)}


def _saturated_facts(ev: LearnerEvidence) -> dict[str, str]:
    run = ev.fixed.saturated
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
    narrow, wide = ev.fixed.width_one.weights[0], ev.fixed.width_two.weights[0]
    return {"keys": vector(ev.fixed.width_one.key[0].ravel(), 0), "narrow": _favourites(narrow),
            "weights": matrix(narrow), "wide": _favourites(wide), "wide_diagonal": vector(np.diag(wide))}


def _no_match_facts(ev: LearnerEvidence) -> dict[str, str]:
    run = ev.fixed.no_match
    weights = run.weights[0, 0]
    return {"scores": vector(run.head.scaled_scores.data[0, 0]), "weights": vector(weights),
            "total": num(weights.sum()), "output": vector(run.output[0, 0])}


def _head_width_facts(expected, ev):
    split = ev.head_split
    return {"answer": f"[{split.key_width}, {num(split.scale, 3)}]", "model_width": str(split.model_width),
            "heads": str(split.heads), "key_width": str(split.key_width), "scale": num(split.scale, 3)}


def _temperature_limits_inputs(ev: LearnerEvidence) -> dict[str, str]:
    return {"temperature_scores": vector(ev.fixed.temperature.scores, 0)}


def _temperature_limits_expected(ev: LearnerEvidence) -> np.ndarray:
    """The weights as τ → 0, then as τ → ∞."""
    return np.stack([ev.fixed.temperature.cold, ev.fixed.temperature.hot])


def _temperature_limits_labels(expected: np.ndarray) -> tuple[str, ...]:
    return ("τ → 0", "τ → ∞")


def _row_shift_inputs(ev: LearnerEvidence) -> dict[str, str]:
    return {"shift": num(ev.row_shift.shift, 0)}


def _one_hot_gradient_inputs(ev: LearnerEvidence) -> dict[str, str]:
    return {"factor": num(SATURATING_FACTOR, 0)}


def _head_width_inputs(ev: LearnerEvidence) -> dict[str, str]:
    return {"model_width": str(ev.head_split.model_width), "heads": str(ev.head_split.heads)}


def _head_width_expected(ev: LearnerEvidence) -> np.ndarray:
    """d_k, then the scale 1/√d_k."""
    return np.array([ev.head_split.key_width, ev.head_split.scale])


def _head_width_labels(expected: np.ndarray) -> tuple[str, ...]:
    return ("d_k", "1/√d_k")


EXERCISES = (
    # the review (10_exercises): three return to what the chapter computed, in new circumstances; one is new
    Exercise(
        "temperature-limits", "numbers",
        notebook="10_exercises", example=Example.temperature,
        skills=("skill.scaling", "skill.row-softmax"),
        inputs=_temperature_limits_inputs,
        expected=_temperature_limits_expected,
        judge=review_judge(TEMPERATURE_MISTAKES, _temperature_limits_labels),
        facts=_temperature_facts,
    ),
    choice_exercise(
        "row-shift",
        notebook="10_exercises", example=Example.row_shift,
        skills=("skill.row-softmax", "skill.properties"),
        inputs=_row_shift_inputs,
        correct="c",
        facts=_row_shift_facts,
        misconceptions={"a": "shift-sharpens", "b": "shift-scales-weights", "d": "shift-flattens"},
    ),
    choice_exercise(
        "one-hot-gradient",
        notebook="10_exercises", example=Example.saturated,
        skills=("skill.gradients",),
        inputs=_one_hot_gradient_inputs,
        correct="d",
        facts=_saturated_facts,
        misconceptions={"a": "blames-values", "b": "argmax-not-differentiable", "c": "scale-kills-gradient"},
    ),
    Exercise(
        "head-width", "numbers",
        notebook="10_exercises", example=Example.head_split,
        skills=("skill.scaling",),
        varies="split",
        inputs=_head_width_inputs,
        expected=_head_width_expected,
        judge=review_judge(HEAD_WIDTH_MISTAKES, _head_width_labels, tolerance=TYPED, rows_sum_to_one=False),
        facts=_head_width_facts,
    ),
    choice_exercise(
        "width-one-self",
        notebook="10_exercises", example=Example.width_one,
        skills=("skill.dot-products", "skill.properties"),
        correct="c",
        facts=_width_one_facts,
        misconceptions={"a": "own-key-largest", "b": "values-steer-weights", "d": "width-one-uniform"},
    ),
    choice_exercise(
        "no-matching-key",
        notebook="10_exercises", example=Example.no_match,
        skills=("skill.row-softmax", "skill.mixing"),
        correct="b",
        facts=_no_match_facts,
        misconceptions={"a": "no-match-zero", "c": "negative-scores-undefined", "d": "falls-back-to-self"},
    ),
)
