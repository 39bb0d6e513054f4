"""Answers that learners give, written without reading the mistake library (tests/data/learner_answers.json):
each wrong one with its mistake in words, then annotated with the misconceptions that say that mistake ("named";
empty where none does, "note" where another slip gives the very same numbers). Every right one is accepted, but one
written with its working before it ("unread": the reader asks for the numbers only and counts no attempt), and at
least 95% of the wrong ones are named as described."""

import json
from pathlib import Path

import pytest

from llm_from_scratch.ch27.exercises import EXERCISE_BOOK, check

CORPUS = json.loads((Path(__file__).parent / "data" / "learner_answers.json").read_text(encoding="utf-8"))
NAMED_AT_LEAST = 0.95


def _checked(entry):
    exercise = EXERCISE_BOOK[entry["exercise"]]
    if exercise.after:
        check(exercise.after, "a")
    return check(entry["exercise"], entry["answer"])


RIGHT = [entry for entry in CORPUS if entry["right"]]


@pytest.mark.parametrize("entry", RIGHT, ids=[f"{e['exercise']}:{e['answer'][:30]}" for e in RIGHT])
def test_every_right_answer_of_the_corpus_is_accepted(entry):
    feedback = _checked(entry)
    if "unread" in entry:
        assert not feedback.readable and not feedback.correct, feedback.message
        assert EXERCISE_BOOK.form(entry["exercise"]) in \
            feedback.message, "the refusal says what to write instead"
    else:
        assert feedback.correct, feedback.message


@pytest.mark.slow
def test_the_corpus_wrong_answers_are_named_as_described():
    wrong = [entry for entry in CORPUS if not entry["right"]]
    assert len(wrong) >= 100 and len(RIGHT) >= 50
    missed = []
    for entry in wrong:
        feedback = _checked(entry)
        assert not feedback.correct or "note" in entry, (entry, feedback.message)
        if feedback.misconception not in entry["named"]:
            missed.append((entry["exercise"], entry["answer"], entry["mistake"], feedback.misconception))
    share = 1 - len(missed) / len(wrong)
    print(f"{len(wrong) - len(missed)} of {len(wrong)} wrong answers named as described ({share:.1%}); missed:",
          *missed, sep="\n  ")
    assert share >= NAMED_AT_LEAST
