"""One block makes an exercise: a throwaway one, declared here as a chapter would declare it, is shown, judged,
hinted and revealed in both languages and listed under its notebook, with no other file touched."""

import numpy as np

from llm_from_scratch.book.answers import AnswerFormatError
from llm_from_scratch.book.exercises import Exercise, ExerciseBook, own, partial, right, same
from llm_from_scratch.book.text import set_language
from llm_from_scratch.book.widgets import ExerciseForm
from llm_from_scratch.ch27.evidence import evidence
from llm_from_scratch.ch27.strings import STRINGS


def _row_sums(a, expected, ev):
    if a.shape != expected.shape:
        raise AnswerFormatError(own("form_hint", count=expected.size))
    return right() if same(a, expected) else partial(own("wrong"), a, expected, ("q_0", "q_1"))


THROWAWAY = Exercise(
    "row-sums-again", "numbers",
    notebook="10_exercises", instance="worked",
    expected=lambda ev: ev.worked.weights[0].sum(axis=1),
    judge=_row_sums,
    facts=lambda expected, ev: {"answer": f"[{expected[0]:.0f}, {expected[1]:.0f}]"},
    strings={
        "ru": {
            "title": "суммы строк A ещё раз",
            "prompt": "Чему равны суммы двух строк матрицы весов A?",
            "form": "два числа в виде [a, b]",
            "form_hint": "Нужно {count} числа, по одному на строку.",
            "wrong": "Каждая строка A — распределение softmax.",
            "explain": "Суммы строк — {answer}: softmax нормирует каждую строку.",
            "hint_stage": "Это свойство весов, а не оценок.",
            "hint_formula": "Σ_j A_ij для каждой строки i.",
        },
        "en": {
            "title": "the row sums of A again",
            "prompt": "What are the sums of the two rows of the weight matrix A?",
            "form": "two numbers as [a, b]",
            "form_hint": "Expected: {count} numbers, one per row.",
            "wrong": "Each row of A is a softmax distribution.",
            "explain": "The row sums are {answer}: softmax normalizes each row.",
            "hint_stage": "It is a property of the weights, not of the scores.",
            "hint_formula": "Σ_j A_ij for each row i.",
        },
    },
)


def test_one_block_makes_a_judged_bilingual_exercise_listed_under_its_notebook():
    book = ExerciseBook("throwaway", (THROWAWAY,), STRINGS, evidence)
    assert book.strings.text_in("en", "ex.row-sums-again.title") == "the row sums of A again", "keys are derived"
    shown = ExerciseForm(book, "row-sums-again").static_html()  # what the exercise's cell shows above its box
    assert "суммы строк A ещё раз" in shown and "Чему равны суммы" in shown and "два числа в виде [a, b]" in shown

    unread = book.check("row-sums-again", "[1]")  # the answer's cell: check("row-sums-again", answer)
    assert not unread.readable and "Нужно 2 числа" in unread.message
    wrong = book.check("row-sums-again", "[1, 0.5]")
    assert not wrong.correct and wrong.message == "Верно для q_0; неверно для q_1."
    assert "Каждая строка A" in book.check("row-sums-again", "[2, 2]").message, "its own \"wrong\""
    assert book.hint("row-sums-again").message == "Подсказка 1 из 2: Это свойство весов, а не оценок."
    set_language("en")
    assert book.check("row-sums-again", np.ones(2)).correct
    assert book.reveal("row-sums-again").message.endswith("The row sums are [1, 1]: softmax normalizes each row.")
    assert [(n.stem, n.asks) for n in book.notebooks] == [("10_exercises", ("row-sums-again",))]
    table = repr(book.progress())
    assert "10 · Review" in table and "the row sums of A again" in table and "1 of 1 right" in table
