"""The exercises of 05_history: their judges and facts; their strings are in
catalogues/<language>/05_history.toml."""

from __future__ import annotations

import numpy as np

from ...book.answers import AnswerFormatError
from ...book.declare import Exercise, choice_exercise
from ...book.formatting import matrix, vector
from ...book.mistakes import diagnose
from ...book.tolerances import TYPED
from ...book.verdicts import own, wrong
from ..evidence import LearnerEvidence
from ..mistakes import (
    IDENTICAL_KEYS_MISTAKES,
)
from .judging import Example, layout, row_sum_mistake


def _identical_keys(a, expected, ev):
    if a.ndim == 1:  # one row stands for both
        expected = expected[0]
    found = diagnose(a, expected, IDENTICAL_KEYS_MISTAKES, ev, 0.0, vector)
    if found:
        return found
    if a.shape != expected.shape:
        raise AnswerFormatError(own("form_hint", **_identical_inputs(ev)))
    if np.any(np.abs(a.sum(axis=-1) - 1) > TYPED):
        return row_sum_mistake(np.atleast_2d(a)[0], 4)
    return wrong("identical-keys-unequal", "mis.identical-keys-unequal")


def _history_facts(ev: LearnerEvidence) -> dict[str, str]:
    history = ev.fixed.history
    return {"encoder_pairs": str(len(history.encoder_decoder)), "self_pairs": str(len(history.self_attention))}


def _identical_inputs(ev: LearnerEvidence) -> dict[str, str]:
    tokens = ev.identical_keys.key.shape[1]
    return {"key_rows": matrix(ev.identical_keys.key[0], 0), "tokens": str(tokens), "size": f"{tokens}×{tokens}",
            "layout": layout(1, tokens)}


def _identical_keys_expected(ev: LearnerEvidence) -> np.ndarray:
    return ev.identical_keys.weights[0]


def _identical_keys_facts(expected, ev):
    return {"answer": vector(expected[0], 3), "weights": vector(expected[0])}


EXERCISES = (
    choice_exercise(
        "recurrent-vs-self",
        notebook="05_history", example=Example.history,
        skills=("skill.history",),
        correct="b",
        facts=_history_facts,
        misconceptions={"a": "constant-work", "c": "parallel-generation", "d": "anachronism"},
    ),
    Exercise(
        "identical-keys", "numbers",
        notebook="05_history", example=Example.identical_keys,
        skills=("skill.row-softmax", "skill.properties"),
        varies="identical",
        inputs=_identical_inputs,
        expected=_identical_keys_expected,
        judge=_identical_keys,
        facts=_identical_keys_facts,
    ),
)
