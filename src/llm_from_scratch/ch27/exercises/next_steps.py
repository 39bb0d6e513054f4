"""The exercises of 09_next: their judges and facts; their strings are in
catalogues/<language>/09_next.toml."""

from __future__ import annotations

import numpy as np

from ...book.declare import Exercise, choice_exercise
from ...book.formatting import matrix, vector
from ...book.verdicts import own
from ..evidence import LearnerEvidence
from ..mistakes import (
    CAUSAL_MISTAKES,
)
from .judging import Example, hand_fields, query_rows, review_judge, worked_facts


def _causal_facts(expected, ev):
    rows = "; ".join(f"q_{i}: {vector(row, 3)}" for i, row in enumerate(expected))
    return {"answer": matrix(expected, 3), "rows": rows}


def _causal_inputs(ev: LearnerEvidence) -> dict[str, str]:
    """The hand example's sizes, and which example it is: the second (variant 0) or one given here."""
    fields = hand_fields(ev)
    example = (own("second") if ev.draw.variant == 0 else
               own("given", **fields))
    return {**fields, "tokens": str(ev.hand.query.shape[1]), "example": example}


def _causal_rows_expected(ev: LearnerEvidence) -> np.ndarray:
    return ev.hand_causal


EXERCISES = (
    choice_exercise(
        "future-access",
        notebook="09_next", example=Example.worked,
        skills=("skill.causal-mask",),
        correct="a",
        facts=worked_facts,
        misconceptions={"b": "past-is-leak", "c": "self-is-leak", "d": "believes-causal"},
    ),
    Exercise(
        "causal-rows", "numbers",
        notebook="09_next", example=Example.hand,
        skills=("skill.causal-mask",),
        varies="causal",
        inputs=_causal_inputs,
        expected=_causal_rows_expected,
        judge=review_judge(CAUSAL_MISTAKES, query_rows),
        facts=_causal_facts,
    ),
)
