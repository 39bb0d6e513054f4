"""Exercises: right answers in many forms, each misconception named, bad answers handled."""

import math

import numpy as np
import pytest

from llm_from_scratch.ch27.evidence import LearnerEvidence
from llm_from_scratch.ch27.exercises import BOOK, EXERCISES, attempted, check, progress, reveal

RIGHT = {
    "first-look": [[1, 0], (1, 0), np.array([1, 0]), "[1, 0]", "1 0", "(1; 0)"],
    "scores": [[[0, 6], [6, -4]], np.array([[0.0, 6.0], [6.0, -4.0]]), "[[0, 6], [6, −4]]", ((0, 6), (6, -4))],
    "heavier-key": [[1, 0], "[1,0]", np.array([1.0, 0.0])],
    "weights": [[0.014166, 0.985834], [0.014, 0.986], "[0.0142, 0.9858]"],
    "row-normalization": ["a", "A", " a) ", "а"],
    "output-shape": [[4, 7, 5], (4, 7, 5), np.array([4, 7, 5]), "[4, 7, 5]", "4, 7, 5"],
    "recurrent-vs-self": ["a"],
    "single-token": [[1, [5, -2]], (1, (5, -2)), [1, 5, -2], "[1, [5, -2]]", "1 5 -2"],
    "permutation": ["a", "A"],
    "identical-keys": [[0.5, 0.5], [[0.5, 0.5], [0.5, 0.5]], "[0.5, 0.5]", np.full((2, 2), 0.5)],
    "future-access": ["a"],
}


@pytest.mark.parametrize("exercise_id, answer",
                         [(i, a) for i, answers in RIGHT.items() for a in answers], ids=repr)
def test_right_answers_in_every_form(exercise_id, answer):
    feedback = check(exercise_id, answer)
    assert feedback.correct, feedback.message
    assert feedback.message


def test_every_exercise_is_covered_and_in_chapter_order():
    assert list(RIGHT) == list(EXERCISES)
    assert list(EXERCISES)[0] == "first-look"


MISCONCEPTIONS = [
    ("weights", [0.014166, 0.999151], "columns-normalized", "столбцы"),
    ("row-normalization", "b", "columns-normalized", "столбцы"),
    ("weights", [0.002473, 0.997527], "forgot-scale", "1/√d_k"),
    ("scores", [[0, 4.242641], [4.242641, -2.828427]], "scaled-too-early", "√d_k"),
    ("output-shape", [4, 7, 3], "dk-for-dv", "d_v"),
    ("output-shape", [4, 7, 7], "weights-shape-for-output", "[B, T, T]"),
    ("first-look", [0, 1], "rows-swapped", "поменялись местами"),
    ("scores", [[6, -4], [0, 6]], "rows-swapped", "поменялись местами"),
    ("weights", [0.999151, 0.000849], "wrong-row", "другого запроса"),
    ("heavier-key", [0, 1], "query-key-swapped", "строка i матрицы оценок — запрос"),
    ("scores", [[-2, 4], [10, -2]], "features-for-positions", "QᵀK"),
    ("future-access", "d", "believes-causal", "без маски"),
    ("single-token", [0.5, 5, -2], "single-weight-not-one", "равен 1"),
    ("single-token", [1, 5 / math.sqrt(2), -2 / math.sqrt(2)], "scale-on-values", "на оценки"),
    ("identical-keys", [1, 0], "identical-keys-unequal", "равномерен"),
    ("permutation", "b", "permutation-unchanged", "переехала"),
    ("permutation", "c", "head-knows-order", "нет сведений о позиции"),
    ("recurrent-vs-self", "b", "constant-work", "не постоянен"),
    ("recurrent-vs-self", "c", "parallel-generation", "авторегрессионной"),
    ("recurrent-vs-self", "d", "anachronism", "анахронизм"),
]


@pytest.mark.parametrize("exercise_id, answer, misconception, words", MISCONCEPTIONS, ids=lambda x: str(x))
def test_each_misconception_is_named(exercise_id, answer, misconception, words):
    feedback = check(exercise_id, answer)
    assert not feedback.correct and feedback.readable
    assert feedback.misconception == misconception
    assert words in feedback.message


@pytest.mark.parametrize("exercise_id, answer, right, wrong", [
    ("first-look", [1, 1], "q_0", "q_1"),
    ("heavier-key", [0, 0], "q_1", "q_0"),
    ("scores", [[0, 6], [1, 1]], "q_0", "q_1"),
    ("output-shape", [4, 5, 5], "пакет (B)", "токены (T)"),
])
def test_a_partly_right_answer_is_told_which_part_is_right(exercise_id, answer, right, wrong):
    message = check(exercise_id, answer).message
    assert message.startswith(f"Верно для {right}") and f"неверно для {wrong}" in message


def test_single_token_partial_answers():
    assert "Вес верный" in check("single-token", [1, 0, 0]).message
    assert check("single-token", [0.5, 5, -2]).misconception == "single-weight-not-one"


BAD = [None, ..., "", "   ", "abc", "ответ", "[1, 2", "[[1, 2], [3, 4, 5]]", float("nan"), [float("inf"), 0],
       [-float("inf"), 0], 1e308, "1e308", [1, 2, 3, 4, 5], [[1]], True, {"a": 1}, object(), "NaN",
       "__import__('os').system('echo hacked')"]


@pytest.mark.parametrize("exercise_id", list(EXERCISES))
@pytest.mark.parametrize("answer", BAD, ids=repr)
def test_bad_answers_never_crash_and_say_what_is_expected(exercise_id, answer):
    feedback = check(exercise_id, answer)
    assert not feedback.correct and not feedback.readable
    assert any(word in feedback.message for word in ("Нужн", "нужн", "Ответ", "выберите")), feedback.message
    assert not attempted(exercise_id), "an unreadable answer is not an attempt"


def test_learner_text_is_never_evaluated(capfd):
    check("output-shape", "__import__('os').system('echo hacked')")
    check("output-shape", "[4, 7, 5] + [print('hacked')]")
    assert "hacked" not in capfd.readouterr().out


def test_answers_stay_hidden_until_an_attempt():
    for exercise_id in EXERCISES:
        locked = reveal(exercise_id)
        assert not locked.shown and "Ответ:" not in locked.message
    check("output-shape", [1, 1, 1])
    opened = reveal("output-shape")
    assert opened.shown and opened.message.startswith("Ответ: [4,7,5].")


def test_prompts_never_carry_their_answer():
    for exercise in EXERCISES.values():
        if exercise.kind == "numbers":
            assert exercise.facts(LearnerEvidence())["answer"] not in BOOK.prompt(exercise.id)


def test_progress_tracks_checked_and_right():
    check("scores", [[0, 6], [6, -4]])
    check("weights", [0.5, 0.5])
    rows = {i: (count, right) for i, count, right in progress().rows}
    assert rows["scores"] == (1, True) and rows["weights"] == (1, False) and rows["first-look"] == (0, False)
    assert "scores" in repr(progress())


def test_expected_answers_are_computed_by_the_engine(monkeypatch):
    """Break the engine's softmax: the exercise must follow it, proving the answer is not stored."""
    from llm_from_scratch.ch27 import evidence

    monkeypatch.setattr(evidence, "WORKED_KEY", ((0.0, 3.0), (-1.0, 2.0)))
    assert not check("scores", [[0, 6], [6, -4]]).correct
    assert check("scores", [[9, 6], [-3, -4]]).correct


def test_unknown_exercise_is_a_clear_error():
    with pytest.raises(KeyError, match="unknown exercise 'nope'"):
        check("nope", 1)
