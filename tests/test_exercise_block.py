"""One block and its strings make an exercise: a throwaway one, declared here as a chapter would declare it (its
judge in Python, its strings in a data file per language), is shown, judged, hinted and revealed in both languages
and listed under its notebook, with no other file touched."""

import numpy as np
import pytest

from llm_from_scratch.book.answers import AnswerFormatError
from llm_from_scratch.book.declare import Exercise
from llm_from_scratch.book.exercises import ExerciseBook
from llm_from_scratch.book.text import Catalogue, set_language
from llm_from_scratch.book.verdicts import own, partial, right, same
from llm_from_scratch.book.widgets import ExerciseForm
from llm_from_scratch.ch27.evidence import evidence
from llm_from_scratch.ch27.exercises.judging import Example
from llm_from_scratch.ch27.strings import STRINGS


def _row_sums(a, expected, ev):
    if a.shape != expected.shape:
        raise AnswerFormatError(own("form_hint", count=expected.size))
    return right() if same(a, expected) else partial(own("wrong"), a, expected, ("q_0", "q_1"))


def _row_sums_expected(ev):
    return ev.worked.weights[0].sum(axis=1)


def _row_sums_facts(expected, ev):
    return {"answer": f"[{expected[0]:.0f}, {expected[1]:.0f}]"}


THROWAWAY = Exercise(
    "row-sums-again", "numbers",
    notebook="10_exercises", example=Example.worked,
    expected=_row_sums_expected,
    judge=_row_sums,
    facts=_row_sums_facts,
)


STRINGS_OF = {
    "ru": """
["ex.row-sums-again"]
title = "суммы строк A ещё раз"
prompt = "Чему равны суммы двух строк матрицы весов A?"
form = "два числа в виде [a, b]"
form_hint = "Нужно {count} числа, по одному на строку."
wrong = "Каждая строка A — распределение softmax."
explain = "Суммы строк — {answer}: softmax нормирует каждую строку."
hint_stage = "Это свойство весов, а не оценок."
hint_formula = "Σ_j A_ij для каждой строки i."
""",
    "en": """
["ex.row-sums-again"]
title = "the row sums of A again"
prompt = "What are the sums of the two rows of the weight matrix A?"
form = "two numbers as [a, b]"
form_hint = "Expected: {count} numbers, one per row."
wrong = "Each row of A is a softmax distribution."
explain = "The row sums are {answer}: softmax normalizes each row."
hint_stage = "It is a property of the weights, not of the scores."
hint_formula = "Σ_j A_ij for each row i."
""",
}


def catalogue(folder, strings_of=STRINGS_OF):
    """A chapter's catalogue folder written as a translator would: one TOML file per language."""
    for lang, toml in strings_of.items():
        (folder / lang).mkdir(parents=True)
        (folder / lang / "10_exercises.toml").write_text(toml, encoding="utf-8")
    return Catalogue(folder, parent=STRINGS)


def test_one_block_makes_a_judged_bilingual_exercise_listed_under_its_notebook(tmp_path):
    book = ExerciseBook("throwaway", (THROWAWAY,), catalogue(tmp_path), evidence)
    assert book.strings.text_in("en", "ex.row-sums-again.title") == "the row sums of A again", "keys are derived"
    shown = ExerciseForm(book, "row-sums-again").static_html()  # what the exercise's cell shows above its box
    assert "суммы строк A ещё раз" in shown and "Чему равны суммы" in shown and "два числа в виде [a, b]" in shown

    unread = book.check("row-sums-again", "[1]")  # the answer's cell: check("row-sums-again", answer)
    assert not unread.readable and "Нужно 2 числа" in unread.message
    wrong = book.check("row-sums-again", "[1, 0.5]")
    assert not wrong.correct and wrong.message == "Верно: q_0; неверно: q_1."
    assert "Каждая строка A" in book.check("row-sums-again", "[2, 2]").message, "its own \"wrong\""
    assert book.hint("row-sums-again").message == "Подсказка 1 из 2: Это свойство весов, а не оценок."
    set_language("en")
    assert book.check("row-sums-again", np.ones(2)).correct
    assert book.reveal("row-sums-again").message.endswith("The row sums are [1, 1]: softmax normalizes each row.")
    assert [(n.stem, n.asks) for n in book.notebooks] == [("10_exercises", ("row-sums-again",))]
    table = repr(book.progress())
    assert "10 · Review" in table and "the row sums of A again" in table and "1 of 1 right" in table


def test_strings_of_no_exercise_or_an_exercise_with_no_strings_are_named(tmp_path):
    misspelt = {lang: toml.replace("row-sums-again", "row-sum-again") for lang, toml in STRINGS_OF.items()}
    with pytest.raises(ValueError, match="no strings for the exercise 'row-sums-again'"):
        ExerciseBook("throwaway", (THROWAWAY,), catalogue(tmp_path / "a", misspelt), evidence)
    with pytest.raises(ValueError, match=r"strings of no exercise of throwaway: \['row-sums-again'\]"):
        ExerciseBook("throwaway", (), catalogue(tmp_path / "b"), evidence)
