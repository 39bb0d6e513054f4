"""The exercises of 07_gradients: their judges and facts; their strings are in
catalogues/<language>/07_gradients.toml."""

from __future__ import annotations

import numpy as np

from ...book.answers import AnswerFormatError
from ...book.declare import Exercise, choice_exercise
from ...book.formatting import labels, matrix, num, vector
from ...book.mistakes import diagnose
from ...book.tolerances import BY_HAND
from ...book.verdicts import own, partial, wrong
from ...engine.closed_form import array_softmax, attention_weights, closed_form_backward
from ..code_slips import BACKWARD_SEARCH, backward_stage
from ..evidence import LearnerEvidence
from ..given import given
from ..mistakes import (
    SCORE_GRADIENT_MISTAKES,
    VALUE_GRADIENT_MISTAKES,
    WEIGHT_GRADIENT_MISTAKES,
)
from .code import backward_case, code_exercise
from .judging import Example, exact, query_rows, review_judge, worked_prompt_fields


def _score_gradient(a, expected, ev):
    """One row of S̄ by hand, within ±0.01 (0.0449 rounded twice is 0.05): its mistakes first, then the shape; a row
    of S̄ sums to 0, so say so when it does not."""
    found = diagnose(a, expected, SCORE_GRADIENT_MISTAKES, ev, BY_HAND, exact)
    if found:
        return found
    if a.shape != expected.shape:
        raise AnswerFormatError(own("form_hint", count=str(len(expected))))
    if abs(a.sum()) > BY_HAND * a.size:
        return wrong("gradient-rows-not-zero", "mis.gradient-rows-not-zero", sums=num(a.sum(), 4))
    return partial(own("wrong"), a, expected, labels("k", len(expected)), BY_HAND)


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


def _score_gradient_inputs(ev: LearnerEvidence) -> dict[str, object]:
    """The row's weights and gradient, where they come from (the second example, or a fresh variant of it) and
    how many keys the answer has."""
    keys = len(ev.hand_steps.grad_weights[0])
    return {"row": vector(ev.hand.weights[0, 0], 3), "grad_row": vector(ev.hand_steps.grad_weights[0], 0),
            "where": own("new_example" if ev.draw.variant else "second_example"), "count": str(keys),
            "keys": ", ".join(f"k_{j}" for j in range(keys)), "layout": "[" + ", ".join("abcd"[:keys]) + "]"}


def _score_gradient_facts(expected, ev):
    weights, grad_weights = ev.hand.weights[0, 0], ev.hand_steps.grad_weights[0]
    return {**_score_gradient_inputs(ev), "answer": vector(expected, 3), "inner": num(float(weights @ grad_weights), 3),
            "first_term": f"{num(weights[0], 3)}·{num(grad_weights[0], 0)}"}


def _value_gradient_expected(ev: LearnerEvidence) -> np.ndarray:
    return ev.worked_steps.grad_value


def _value_gradient_given_answer(values: dict[str, np.ndarray]) -> np.ndarray:
    """V̄ = AᵀŌ."""
    return values["A"][0].T @ values["O_bar"][0]


def _value_gradient_labels(expected: np.ndarray) -> tuple[str, ...]:
    """The answer's rows named by their values: v_0, v_1, …"""
    return labels("v", len(expected))


def _weight_gradient_expected(ev: LearnerEvidence) -> np.ndarray:
    return ev.worked_steps.grad_weights


def _weight_gradient_given_answer(values: dict[str, np.ndarray]) -> np.ndarray:
    """Ā = ŌVᵀ."""
    return values["O_bar"][0] @ values["V"][0].T


def _score_gradient_expected(ev: LearnerEvidence) -> np.ndarray:
    return ev.hand_steps.grad_scores[0]


EXERCISES = (
    Exercise(
        "value-gradient", "numbers",
        notebook="07_gradients", example=Example.worked,
        skills=("skill.gradients",),
        varies="gradient",
        inputs=worked_prompt_fields,
        expected=_value_gradient_expected,
        given=given("A", "O_bar", answer=_value_gradient_given_answer),
        judge=review_judge(VALUE_GRADIENT_MISTAKES, _value_gradient_labels, tolerance=0.0, rows_sum_to_one=False),
        facts=_gradient_facts,
    ),
    Exercise(
        "weight-gradient", "numbers",
        notebook="07_gradients", example=Example.worked,
        skills=("skill.gradients",),
        varies="gradient",
        inputs=worked_prompt_fields,
        expected=_weight_gradient_expected,
        given=given("V", "O_bar", answer=_weight_gradient_given_answer),
        judge=review_judge(WEIGHT_GRADIENT_MISTAKES, query_rows, tolerance=0.0, rows_sum_to_one=False),
        facts=_gradient_facts,
    ),
    Exercise(
        "score-gradient", "numbers",
        notebook="07_gradients", example=Example.hand_first_output,
        skills=("skill.gradients",),
        varies="hand",
        expected=_score_gradient_expected,
        judge=_score_gradient,
        facts=_score_gradient_facts,
        inputs=_score_gradient_inputs,
    ),
    choice_exercise(
        "small-query-gradients",
        notebook="07_gradients", example=Example.worked,
        skills=("skill.gradients",),
        correct="c",
        facts=_small_gradient_facts,
        misconceptions={"a": "scale-shrinks-gradient", "b": "values-always-larger", "d": "blames-upstream"},
    ),
    code_exercise(
        "write-backward",
        notebook="07_gradients", example=Example.worked,
        skills=("skill.gradients",),
        case_of=backward_case,
        search=BACKWARD_SEARCH, stage=backward_stage,
        arguments=("q", "k", "v", "upstream"),
        outputs=("dq", "dk", "dv"),
        solution=(array_softmax, attention_weights, closed_form_backward),
    ),
)
