"""The exercises of 01_predict: their judges and facts; their strings are in
catalogues/<language>/01_predict.toml."""

from __future__ import annotations

import numpy as np

from ...book.answers import AnswerFormatError
from ...book.declare import Exercise
from ...book.formatting import labels, matrix, shape, vector
from ...book.verdicts import own, partial, right, rows_swapped, same, wrong
from ..evidence import LearnerEvidence
from ..given import given
from ..mistakes import (
    Asked,
)
from .judging import Example, HeadJudge, query_key_scores, worked_facts, worked_prompt_fields


def _first_look(a, expected, ev):
    if a.shape != expected.shape or not np.isin(a, (0, 1)).all():
        raise AnswerFormatError(own("form_hint"))
    if same(a, expected):
        return right()
    if rows_swapped(a, expected):
        return wrong("rows-swapped", own("swapped"))
    return partial(own("wrong"), a, expected, labels("q", len(expected)))


def _first_look_expected(ev: LearnerEvidence) -> np.ndarray:
    """The key each query weighs most, by index."""
    return ev.worked.weights[0].argmax(axis=1).astype(float)


def _first_look_facts(expected, ev):
    """Why each query weighs the value it does: the key whose product with it is the larger (softmax keeps the
    order of a row's scores), said of these inputs."""
    reasons = {f"reason_{i}": own("reason", query=str(i), more=str(int(j)), less=str(1 - int(j)))
               for i, j in enumerate(expected)}
    return {**worked_facts(ev), "answer": vector(expected, 0), **reasons}


def _scores_expected(ev: LearnerEvidence) -> np.ndarray:
    return ev.worked.head.raw_scores.data[0]


def _scores_asked(ev: LearnerEvidence) -> Asked:
    return Asked(ev.worked, ev.hand, "raw-scores")


def _scores_fields(expected: np.ndarray) -> dict:
    return {"shape": shape(expected.shape)}


def _scores_facts(expected, ev):
    return {**worked_facts(ev), "answer": matrix(expected, 0)}


EXERCISES = (
    Exercise(
        "first-look", "numbers",
        notebook="01_predict", example=Example.worked,
        skills=("skill.dot-products",),
        varies="worked",
        inputs=worked_prompt_fields,
        expected=_first_look_expected,
        judge=_first_look,
        facts=_first_look_facts,
    ),
    Exercise(
        "scores", "numbers",
        notebook="01_predict", example=Example.worked,
        skills=("skill.dot-products",),
        varies="worked",
        inputs=worked_prompt_fields,
        expected=_scores_expected,
        judge=HeadJudge(_scores_asked, _scores_fields, "q"),
        given=given("Q", "K", answer=query_key_scores),
        facts=_scores_facts,
    ),
)
