"""The catalogues: data files, the same keys and fields in every language, and one switch for all."""

import difflib
import re
import string
import tomllib

import pytest

from llm_from_scratch.book.text import BOOK_STRINGS, LANGUAGES, set_language
from llm_from_scratch.ch27 import exercises
from llm_from_scratch.ch27.exercises import EXERCISE_BOOK
from llm_from_scratch.ch27.sections import render_report
from llm_from_scratch.ch27.strings import STRINGS

CYRILLIC = re.compile("[а-яА-ЯёЁ]")


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def differences(source: dict, other: dict, lang: str) -> list[str]:
    """What a translation lacks or adds against the source language, each key named (a misspelt key with the one
    it was meant to be), and the strings whose fields differ."""
    said = []
    for key in sorted(set(source) - set(other)):
        near = difflib.get_close_matches(key, sorted(set(other) - set(source)), n=1)
        said.append(f"{lang}: {key!r} is missing" + (f" (misspelt as {near[0]!r}?)" if near else ""))
    said += [f"{lang}: {key!r} is in no other language" for key in sorted(set(other) - set(source))]
    said += [f"{lang}: {key!r} fills {sorted(fields(other[key]))}, the source {sorted(fields(source[key]))}"
             for key in sorted(set(source) & set(other)) if isinstance(source[key], str)
             and fields(source[key]) != fields(other[key])]
    return said


@pytest.mark.parametrize("catalogue", [BOOK_STRINGS, STRINGS], ids=["book", "ch27"])
def test_every_language_has_every_key_with_the_same_fields(catalogue):
    source = LANGUAGES[0]
    for lang in LANGUAGES[1:]:
        found = differences(catalogue.strings[source], catalogue.strings[lang], lang)
        found += differences(catalogue.lists[source], catalogue.lists[lang], lang)
        assert not found, "\n".join(found)
    assert not [key for key, value in catalogue.strings["en"].items() if CYRILLIC.search(value)]


def test_a_missing_or_misspelt_key_is_named():
    source = {"ex.scores.title": "оценки {a}", "ex.scores.hint_stage": "этап"}
    other = {"ex.scores.title": "scores {b}", "ex.scores.hint_stag": "stage"}
    assert differences(source, other, "xx") == [
        "xx: 'ex.scores.hint_stage' is missing (misspelt as 'ex.scores.hint_stag'?)",
        "xx: 'ex.scores.hint_stag' is in no other language",
        "xx: 'ex.scores.title' fills ['b'], the source ['a']"]


def test_the_languages_are_the_folders_found_and_every_file_is_valid_toml():
    for folder in (BOOK_STRINGS.folder, STRINGS.folder):
        assert sorted(p.name for p in folder.iterdir() if p.is_dir()) == sorted(LANGUAGES)
        for path in folder.glob("*/*.toml"):
            tomllib.loads(path.read_text(encoding="utf-8"))
    assert LANGUAGES[0] == "ru", "the source's language comes first"


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


def test_an_unknown_language_is_refused_in_the_learners_language(english):
    with pytest.raises(ValueError, match="The book has no language 'de'; choose one of: ru, en"):
        set_language("de")


def test_every_exercise_has_a_title_in_every_language_and_the_same_fields_in_each():
    for exercise in EXERCISE_BOOK.exercises.values():
        for lang in LANGUAGES:
            named = [key for key in STRINGS.strings[lang] if key.startswith(exercise.key(""))]
            assert named == [exercise.key(name) for name in exercise.fields], f"{exercise.id}: fields in one order"
            assert EXERCISE_BOOK.strings.text_in(lang, exercise.title), (exercise.id, lang)


def test_exercise_strings_stand_in_the_file_of_the_notebook_that_asks_them():
    assert EXERCISE_BOOK.strings is STRINGS and STRINGS.parent is BOOK_STRINGS
    for lang in LANGUAGES:
        for path in (STRINGS.folder / lang).glob("*.toml"):
            tables = tomllib.loads(path.read_text(encoding="utf-8"))
            ids = {key.removeprefix("ex.") for key in tables if key.startswith("ex.")}
            assert {EXERCISE_BOOK[i].notebook for i in ids} <= {path.stem}, path
    assert EXERCISE_BOOK.strings.text_in("en", "feedback.correct") == "Correct."
