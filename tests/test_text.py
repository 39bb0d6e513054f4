"""The catalogues: the same keys and fields in every language, and one switch for all."""

import re
import string

import pytest

from llm_from_scratch.book.text import BOOK_STRINGS, LANGUAGES, set_language
from llm_from_scratch.ch27 import exercises
from llm_from_scratch.ch27.exercises import EXERCISE_BOOK
from llm_from_scratch.ch27.sections import render_report
from llm_from_scratch.ch27.strings import STRINGS

CYRILLIC = re.compile("[а-яА-ЯёЁ]")


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize("catalogue", [BOOK_STRINGS, STRINGS, EXERCISE_BOOK.strings], ids=["book", "ch27", "exercises"])
def test_every_catalogue_has_the_same_keys_and_fields(catalogue):
    ru, en = (catalogue.strings[lang] for lang in LANGUAGES)
    assert set(ru) == set(en)
    for key in ru:
        assert fields(ru[key]) == fields(en[key]), key
    assert not [key for key, value in en.items() if CYRILLIC.search(value)]


def test_a_chapter_string_hides_no_book_string():
    assert not set(STRINGS.strings["ru"]) & set(BOOK_STRINGS.strings["ru"])


def test_the_chapter_falls_back_to_the_book():
    assert STRINGS.text_in("en", "feedback.correct") == BOOK_STRINGS.text_in("en", "feedback.correct") == "Correct."
    with pytest.raises(KeyError, match="no string 'nonsense'"):
        STRINGS.text("nonsense")


def test_the_report_speaks_the_chosen_language(english):
    report = render_report()
    assert report.startswith("Chapter 27") and not CYRILLIC.search(report)


def test_feedback_speaks_the_chosen_language(english):
    feedback = exercises.check("output-shape", [4, 7, 3])
    assert feedback.message.startswith("That uses the query and key width d_k")
    assert not CYRILLIC.search(repr(feedback) + exercises.reveal("output-shape").message)


def test_an_unknown_language_is_refused():
    with pytest.raises(ValueError, match="unknown language 'de'"):
        set_language("de")


def test_every_exercise_has_a_title_in_every_language_and_the_same_fields_in_each():
    for exercise in EXERCISE_BOOK.exercises.values():
        assert set(exercise.strings) == set(LANGUAGES), exercise.id
        assert list(exercise.strings["ru"]) == list(exercise.strings["en"]), f"{exercise.id}: fields in one order"
        for lang in LANGUAGES:
            assert EXERCISE_BOOK.strings.text_in(lang, exercise.title), (exercise.id, lang)


def test_exercise_strings_reach_the_chapters_and_the_books_through_one_catalogue():
    assert EXERCISE_BOOK.strings.parent is STRINGS and STRINGS.parent is BOOK_STRINGS
    assert not {k for k in STRINGS.strings["ru"] if k.startswith("ex.")}, "no exercise string is left in the chapter's"
    assert EXERCISE_BOOK.strings.text_in("en", "feedback.correct") == "Correct."
