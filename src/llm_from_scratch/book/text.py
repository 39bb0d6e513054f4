"""Learner-facing strings: catalogues of data files, one folder per language, the book's beneath each chapter's.

A catalogue is a folder ``catalogues/`` beside its package's code, with one folder per language (``ru/``,
``en/``) of TOML files a translator edits without reading Python: a key's table and name make the key
(``["ex.scores"]`` then ``title = …`` is ``ex.scores.title``), and ``{name}`` is filled in by the code. A string
is a text; a list of strings (an exercise's ``gives_away``) is a list of patterns, kept apart from the texts.
The languages are the folders found beside the book's strings, the source's first (Russian, like the chapter's
source). The language is chosen once for the whole book, with ``set_language`` (the first code cell of every
notebook) or ``--lang`` for a report. Code asks a catalogue for a string by key (``STRINGS.text("title")``); a
chapter's catalogue falls back to the book's, so feedback words, answer formats and figure captions are written
once for every chapter. Every language of a catalogue has the same keys and fields (tests/test_text.py).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path

from .state import STATE

SOURCE_LANGUAGE = "ru"  # the language the chapter was written in; its notebooks stand in the chapter's own folder
BOOK_CATALOGUE = Path(__file__).with_name("catalogues")


def _languages(folder: Path) -> tuple[str, ...]:
    """The languages a catalogue folder holds: the source's first, then the others by name."""
    found = sorted(path.name for path in folder.iterdir() if path.is_dir() and any(path.glob("*.toml")))
    return tuple(sorted(found, key=lambda lang: lang != SOURCE_LANGUAGE))


LANGUAGES = _languages(BOOK_CATALOGUE)


def set_language(language: str) -> None:
    """Choose the language of everything the package says from now on."""
    if language not in LANGUAGES:
        raise ValueError(BOOK_STRINGS.text("language.unknown", language=repr(language), known=", ".join(LANGUAGES)))
    STATE.language = language


def language() -> str:
    """The language chosen with ``set_language`` (the book's first until then)."""
    return STATE.language or LANGUAGES[0]


def _flat(table: Mapping[str, object], prefix: str, texts: dict[str, str], lists: dict[str, tuple[str, ...]],
          path: Path) -> None:
    """A TOML table's strings and lists of strings by their dotted keys (a table's name joined to each key)."""
    for name, value in table.items():
        key = f"{prefix}{name}"
        if key in texts or key in lists:
            raise ValueError(f"{path}: the key {key!r} is given twice")
        if isinstance(value, str):
            texts[key] = value
        elif isinstance(value, list) and all(isinstance(item, str) for item in value):
            lists[key] = tuple(value)
        elif isinstance(value, dict):
            _flat(value, f"{key}.", texts, lists, path)
        else:
            raise ValueError(f"{path}: {key!r} is neither a string, a list of strings nor a table")


def read_language(folder: Path) -> tuple[dict[str, str], dict[str, tuple[str, ...]]]:
    """One language's texts and lists: every TOML file of ``folder``, by name; a key given twice is refused."""
    texts: dict[str, str] = {}
    lists: dict[str, tuple[str, ...]] = {}
    for path in sorted(folder.glob("*.toml")):
        with path.open("rb") as file:
            _flat(tomllib.load(file), "", texts, lists, path)
    return texts, lists


class Catalogue:
    """Strings by language and key, read from a ``catalogues`` folder (one folder per language of the book),
    falling back to a ``parent`` catalogue for keys it lacks. ``lists`` holds its lists of patterns."""

    def __init__(self, folder: Path, parent: Catalogue | None = None) -> None:
        self.folder = folder
        read = {lang: read_language(folder / lang) for lang in LANGUAGES}
        self.strings = {lang: texts for lang, (texts, _) in read.items()}
        self.lists = {lang: lists for lang, (_, lists) in read.items()}
        self.parent = parent

    def keys(self) -> set[str]:
        """Every key this catalogue answers, its parent's included."""
        own = set(self.strings[LANGUAGES[0]])
        return own | (self.parent.keys() if self.parent else set())

    def text_in(self, language: str, key: str, /, **fields: object) -> str:
        """The string ``key`` in ``language``, with ``fields`` filled in (a field may be called key)."""
        strings = self.strings[language]
        if key not in strings:
            if self.parent is None:
                raise KeyError(f"no string {key!r} in the catalogue")
            return self.parent.text_in(language, key, **fields)
        return strings[key].format(**fields)  # a field the string names but the caller did not give: KeyError

    def text(self, key: str, /, **fields: object) -> str:
        """The string ``key`` in the chosen language, with ``fields`` filled in."""
        return self.text_in(language(), key, **fields)

    def plural(self, key: str, count: int) -> str:
        """The form of the word ``key`` that goes with ``count`` in the chosen language: the string holds its forms
        split by "|", in the order of ``plural_form`` (English: one|other; Russian: one|few|many)."""
        return self.text(key).split("|")[plural_form(language(), count)]


def plural_form(lang: str, count: int) -> int:
    """Which of a word's forms goes with ``count`` (CLDR's categories): English 1 | other; Russian 1, 21, 31 … |
    2–4, 22–24 … | the rest."""
    if lang == "ru":
        if count % 10 == 1 and count % 100 != 11:
            return 0
        return 1 if 2 <= count % 10 <= 4 and not 12 <= count % 100 <= 14 else 2
    return 0 if count == 1 else 1


BOOK_STRINGS = Catalogue(BOOK_CATALOGUE)
book_text = BOOK_STRINGS.text
