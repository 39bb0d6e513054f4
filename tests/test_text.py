"""The catalogues: the same keys and fields in every language, and one switch for all."""

import re
import string

import pytest

from llm_from_scratch.ch27 import exercises, text
from llm_from_scratch.ch27.report import render_report

CYRILLIC = re.compile("[а-яА-ЯёЁ]")


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_catalogue_has_the_same_keys_and_fields():
    ru, en = text.CATALOGUES["ru"], text.CATALOGUES["en"]
    assert set(ru) == set(en)
    for key in ru:
        assert fields(ru[key]) == fields(en[key]), key
    assert not [key for key, value in en.items() if CYRILLIC.search(value)]


@pytest.fixture
def english():
    text.set_language("en")
    yield
    text.set_language("ru")
    exercises.reset_progress()


def test_the_report_speaks_the_chosen_language(english):
    report = render_report()
    assert report.startswith("Chapter 27") and not CYRILLIC.search(report)


def test_feedback_speaks_the_chosen_language(english):
    feedback = exercises.check("output-shape", [4, 7, 3])
    assert feedback.message.startswith("That uses the query and key width d_k")
    assert not CYRILLIC.search(repr(feedback) + exercises.reveal("output-shape").message)


def test_an_unknown_language_is_refused():
    with pytest.raises(ValueError, match="unknown language 'de'"):
        text.set_language("de")
