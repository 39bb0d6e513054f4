"""The exercises of 03_shapes: their judges and facts; their strings are in
catalogues/<language>/03_shapes.toml."""

from __future__ import annotations

import numpy as np

from ...book.answers import AnswerFormatError, read_shape
from ...book.declare import Exercise, choice_exercise
from ...book.formatting import matrix, num, shape, vector
from ...book.mistakes import diagnose
from ...book.tolerances import BY_HAND
from ...book.verdicts import own, wrong
from ...engine.closed_form import array_softmax
from ..evidence import LearnerEvidence, exponentials
from ..given import given
from ..mistakes import (
    SHAPE_MISTAKES,
    Asked,
)
from ..strings import text
from .judging import Example, HeadJudge, hand_fields, matrix_size, query_key_scores, worked_facts, written_out


def _mixture_tolerance(ev: LearnerEvidence) -> float:
    """A·V by hand: the answer's own rounding plus weights each up to BY_HAND off, times the values."""
    return BY_HAND * (1 + float(np.abs(ev.hand.value[0]).sum(axis=0).max()))


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


def _power_of_e(x: float) -> str:
    """e to a whole power and its value, as a hint shows it: e^1 ≈ 2.718, e^(−1) ≈ 0.368."""
    power = num(x, 0) if x >= 0 else f"(−{num(-x, 0)})"
    return f"e^{power} ≈ {num(np.exp(x), 3)}"


def _shape_facts(expected, ev):
    case = ev.output_shape
    return {"answer": shape(expected), "weights_shape": shape(case.weights_shape),
            "value_shape": shape(case.value_shape), "output_shape": shape(case.output_shape)}


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


def _shape_inputs(ev: LearnerEvidence) -> dict[str, str]:
    case = ev.output_shape
    return {"query_shape": "×".join(map(str, case.query_shape)), "value_shape": "×".join(map(str, case.value_shape))}


def buggy_head(q, k, v):
    s = q @ k.swapaxes(1, 2) / np.sqrt(q.shape[-1])
    a = np.exp(s - s.max(axis=1, keepdims=True))
    a = a / a.sum(axis=1, keepdims=True)
    return a, a @ v


def _bug_facts(ev: LearnerEvidence) -> dict[str, str]:
    run = ev.worked
    weights, output = buggy_head(run.query, run.key, run.value)
    return {"row_sums": vector(weights[0].sum(axis=1)), "column_sums": vector(weights[0].sum(axis=0)),
            "shape": shape(output.shape)}


def _size_fields(expected: np.ndarray) -> dict:
    """The form hint's field of a by-hand matrix: its size, 3×3."""
    return {"size": matrix_size(expected)}


def _output_shape_expected(ev: LearnerEvidence) -> np.ndarray:
    return np.array(ev.output_shape.output_shape, dtype=float)


def _scores_by_hand_expected(ev: LearnerEvidence) -> np.ndarray:
    return ev.hand.head.raw_scores.data[0]


def _scores_by_hand_asked(ev: LearnerEvidence) -> Asked:
    return Asked(ev.hand, ev.worked, "raw-scores")


def _weights_by_hand_expected(ev: LearnerEvidence) -> np.ndarray:
    return ev.hand.weights[0]


def _weights_by_hand_given_answer(values: dict[str, np.ndarray]) -> np.ndarray:
    return array_softmax(values["S"][0])


def _weights_by_hand_asked(ev: LearnerEvidence) -> Asked:
    return Asked(ev.hand, ev.worked, "probabilities")


def _weights_by_hand_tolerance(ev: LearnerEvidence) -> float:
    return BY_HAND


def _output_by_hand_expected(ev: LearnerEvidence) -> np.ndarray:
    return ev.hand.output[0]


def _output_by_hand_given_answer(values: dict[str, np.ndarray]) -> np.ndarray:
    return values["A"][0] @ values["V"][0]


def _output_by_hand_asked(ev: LearnerEvidence) -> Asked:
    return Asked(ev.hand, ev.worked, "value-mixture")


EXERCISES = (
    choice_exercise(
        "row-normalization",
        notebook="03_shapes", example=Example.worked,
        skills=("skill.row-softmax",),
        correct="c",
        facts=worked_facts,
        misconceptions={"a": "columns-normalized", "b": "weights-symmetric", "d": "scale-normalizes"},
    ),
    choice_exercise(
        "bug-hunt",
        notebook="03_shapes", example=Example.worked,
        correct="c",
        facts=_bug_facts,
        skills=("skill.row-softmax",),
        misconceptions={"a": "shape-reveals-axis", "b": "negative-weights", "d": "symmetry-hides-axis"},
    ),
    Exercise(
        "output-shape", "numbers",
        notebook="03_shapes", example=Example.output_shape,
        skills=("skill.shapes",),
        varies="shape",
        read=read_shape,
        inputs=_shape_inputs,
        expected=_output_shape_expected,
        judge=_output_shape,
        facts=_shape_facts,
    ),
    Exercise(
        "scores-by-hand", "numbers",
        notebook="03_shapes", example=Example.hand,
        skills=("skill.dot-products",),
        varies="hand",
        inputs=hand_fields,
        expected=_scores_by_hand_expected,
        given=given("Q", "K", answer=query_key_scores),
        facts=_hand_scores_facts,
        judge=HeadJudge(_scores_by_hand_asked, _size_fields, "q"),
    ),
    Exercise(
        "weights-by-hand", "numbers",
        notebook="03_shapes", example=Example.hand,
        skills=("skill.scaling", "skill.row-softmax"),
        varies="hand",
        inputs=hand_fields,
        expected=_weights_by_hand_expected,
        given=given("S", answer=_weights_by_hand_given_answer, tolerance=BY_HAND),
        facts=_hand_weights_facts,
        judge=HeadJudge(_weights_by_hand_asked, _size_fields, "q", _weights_by_hand_tolerance, rows_sum_to_one=True),
    ),
    Exercise(
        "output-by-hand", "numbers",
        notebook="03_shapes", example=Example.hand,
        skills=("skill.mixing",),
        varies="hand",
        inputs=hand_fields,
        expected=_output_by_hand_expected,
        given=given("A", "V", answer=_output_by_hand_given_answer, tolerance=BY_HAND),
        facts=_hand_output_facts,
        judge=HeadJudge(_output_by_hand_asked, _size_fields, "o", _mixture_tolerance),
    ),
)
