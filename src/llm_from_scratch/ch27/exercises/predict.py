"""The exercises of 01_predict: their judges and facts; their strings are in
catalogues/<language>/01_predict.toml."""

from __future__ import annotations

import numpy as np

from ...book.answers import AnswerFormatError
from ...book.declare import Exercise
from ...book.formatting import labels, matrix, shape, vector
from ...book.verdicts import own, partial, right, rows_swapped, same, wrong
from ..given import given
from ..mistakes import (
    Asked,
)
from .judging import HeadJudge, worked_facts, worked_prompt_fields


def _first_look(a, expected, ev):
    if a.shape != expected.shape or not np.isin(a, (0, 1)).all():
        raise AnswerFormatError(own("form_hint"))
    if same(a, expected):
        return right()
    if rows_swapped(a, expected):
        return wrong("rows-swapped", "mis.rows-swapped")
    return partial(own("wrong"), a, expected, labels("q", len(expected)))


EXERCISES = (
    Exercise(
        "first-look", "numbers",
        notebook="01_predict", example="worked",
        skills=("skill.dot-products",),
        varies="worked",
        inputs=worked_prompt_fields,
        expected=lambda ev: ev.worked.weights[0].argmax(axis=1).astype(float),
        judge=_first_look,
        facts=lambda expected, ev: {**worked_facts(ev), "answer": vector(expected, 0)},
    ),
    Exercise(
        "scores", "numbers",
        notebook="01_predict", example="worked",
        skills=("skill.dot-products",),
        varies="worked",
        inputs=worked_prompt_fields,
        expected=lambda ev: ev.worked.head.raw_scores.data[0],
        judge=HeadJudge(lambda ev: Asked(ev.worked, ev.hand, "raw-scores"), lambda e: {"shape": shape(e.shape)}, "q"),
        given=given("Q", "K", answer=lambda v: v["Q"][0] @ v["K"][0].T),
        facts=lambda expected, ev: {**worked_facts(ev), "answer": matrix(expected, 0)},
    ),
)
