"""Every hint ladder, climbed to its top on the notebook's instance and on variants 1–5 in both editions, never
gives the answer away: no hint holds the answer, nor a number the answer follows from in one step (the number
itself, 1 − x, a sum of numbers shown, a ratio of two shown, or a/(a + b): the share of one of two shown)."""

import itertools
import re

import numpy as np
import pytest
from support.records import record

from llm_from_scratch.book.progress import store
from llm_from_scratch.book.text import set_language
from llm_from_scratch.ch27.exercises import EXERCISE_BOOK, hint

NUMBER = re.compile(r"(?<![\w^.,])[-−]?\d+(?:[.,]\d+)?")  # not an index (q_0, S_01) nor an exponent (e^1)
NEAR = 0.005  # an answer rounded to two decimals


def _numbers(text: str) -> set[float]:
    return {float(found.replace("−", "-").replace(",", ".")) for found in NUMBER.findall(text)}


def one_step(shown: set[float]) -> set[float]:
    """Every number one step away from ``shown``: each one, 1 − x, the sum of some, a/b and a/(a + b)."""
    numbers = sorted(shown)
    reached = set(numbers) | {1 - x for x in numbers}
    for size in range(2, len(numbers) + 1):
        reached |= {sum(chosen) for chosen in itertools.combinations(numbers, size)}
    for a, b in itertools.permutations(numbers, 2):
        reached |= {a / b for _ in [0] if b} | {a / (a + b) for _ in [0] if a + b}
    return reached


def _given(exercise, n: int) -> set[float]:
    """The numbers the learner has before any hint: those of the prompt and of the answer's form."""
    return _numbers(EXERCISE_BOOK.prompt(exercise.id, n) + " " + EXERCISE_BOOK.form(exercise.id, n))


LADDERS = [(e.id, n) for e in EXERCISE_BOOK.exercises.values() if e.kind in ("numbers", "code")
           for n in (range(6) if e.varies else (0,))]


@pytest.mark.parametrize("lang", ["ru", "en"])
@pytest.mark.parametrize("exercise_id, n", LADDERS, ids=[f"{e}-v{n}" for e, n in LADDERS])
def test_no_hint_gives_the_answer_away(exercise_id, n, lang):
    set_language(lang)
    exercise = EXERCISE_BOOK[exercise_id]
    record(store(), "ch27", exercise_id, False, n)  # hints open after an attempt
    ladder = []
    for _ in range(len(exercise.hints) + 2):  # to the top, and once more: the top stays the last step
        ladder.append(hint(exercise_id, n).message.split(": ", 1)[1])  # the step's words, not "hint 1 of 3"
    assert ladder[-1] == ladder[-2], "the ladder ends on its last step"
    ev = EXERCISE_BOOK.drawn(exercise.id, n)
    expected = exercise.expected(ev)
    if exercise.kind == "code":
        solution = EXERCISE_BOOK.present.said(exercise, exercise.facts(expected, ev)["answer"])
        lines = [line.strip() for line in solution.splitlines() if len(line.strip()) > 12]
        assert lines
        for said in ladder:
            assert not [line for line in lines if line in said], said
        return
    answer = np.ravel(np.asarray(expected, dtype=float))
    written = exercise.facts(expected, ev)["answer"]
    fractions = [x for x in answer if abs(x - round(x)) > NEAR]  # a whole number is too common to look for
    given = _given(exercise, n)
    for said in ladder:
        assert written not in said, said
        shown = {x for x in _numbers(said) if not any(abs(x - g) <= NEAR for g in given)}
        reached = one_step(shown)
        leaked = [x for x in fractions if any(abs(x - r) <= NEAR for r in reached)]
        assert not leaked, (said, leaked)
