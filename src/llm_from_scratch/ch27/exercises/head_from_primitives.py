"""The exercises of 06_head_from_primitives: their judges and facts; their strings are in
catalogues/<language>/06_head_from_primitives.toml."""

from __future__ import annotations

import numpy as np

from ...book.answers import AnswerFormatError, read_numbers
from ...book.declare import Exercise, choice_exercise
from ...book.formatting import below, num, vector
from ...book.mistakes import diagnose
from ...book.tolerances import FLOAT_NOISE
from ...book.verdicts import own, same, wrong
from ...engine.closed_form import array_softmax, attention_weights, closed_form_head
from ..code_slips import HEAD_SEARCH, head_stage
from ..evidence import LearnerEvidence
from ..mistakes import (
    SINGLE_TOKEN_MISTAKES,
)
from .code import code_exercise, head_case
from .judging import Example


def _read_flat(answer: object, form: str) -> np.ndarray:
    """Numbers in order, whatever their nesting: [1, [5, -2]] is [1, 5, -2]."""
    return read_numbers(answer, form, flatten=True)


def _single_token_written(expected: np.ndarray) -> str:
    """The answer written out, weight then output: [1, [5, -2]]."""
    return f"[{num(expected[0], 0)}, {vector(expected[1:], 0)}]"


def _single_token(a, expected, ev):
    found = diagnose(a, expected, SINGLE_TOKEN_MISTAKES, ev, 0.0, _single_token_written)
    if found:
        return found
    if a.shape != expected.shape:
        raise AnswerFormatError(own("form_hint"))
    if same(a[:1], expected[:1]):
        return wrong(None, "mis.single-output")
    return wrong("single-weight-not-one", "mis.single-weight-not-one")


def _single_facts(expected, ev):
    run = ev.single_token
    return {"answer": _single_token_written(expected), "weights": vector(run.weights),
            "output": vector(run.output), "grad_q": vector(run.grad_query), "grad_k": vector(run.grad_key)}


def _permutation_facts(ev: LearnerEvidence) -> dict[str, str]:
    permutation = ev.fixed.permutation
    return {"order": str(list(permutation.order)), "difference": below(permutation.max_difference, FLOAT_NOISE)}


def _single_token_inputs(ev: LearnerEvidence) -> dict[str, str]:
    return {"value": vector(ev.single_token.value[0, 0], 0)}


def _single_token_expected(ev: LearnerEvidence) -> np.ndarray:
    """The weight, then the output."""
    return np.concatenate([ev.single_token.weights.ravel(), ev.single_token.output.ravel()])


EXERCISES = (
    Exercise(
        "single-token", "numbers",
        notebook="06_head_from_primitives", example=Example.single_token,
        skills=("skill.mixing", "skill.properties"),
        varies="single",
        inputs=_single_token_inputs,
        read=_read_flat,
        expected=_single_token_expected,
        judge=_single_token,
        facts=_single_facts,
    ),
    choice_exercise(
        "permutation",
        notebook="06_head_from_primitives", example=Example.permutation,
        skills=("skill.properties",),
        correct="d",
        facts=_permutation_facts,
        misconceptions={"a": "permutation-unchanged", "b": "head-knows-order", "c": "permutation-columns-only"},
    ),
    code_exercise(
        "write-head",
        notebook="06_head_from_primitives", example=Example.worked,
        skills=("skill.row-softmax", "skill.mixing"),
        case_of=head_case,
        search=HEAD_SEARCH, stage=head_stage,
        arguments=("q", "k", "v"),
        outputs=("O",),
        solution=(array_softmax, attention_weights, closed_form_head),
    ),
)
