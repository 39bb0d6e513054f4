"""Learner-facing strings: one catalogue per language, the book's beneath each chapter's.

The language is chosen once for the whole book, with ``set_language`` (the first
code cell of every notebook) or ``--lang`` for a report. Code asks a catalogue for
a string by key (``STRINGS.text("title")``); a chapter's catalogue falls back to
the book's, so feedback words, answer formats and figure captions are written
once for every chapter. Every language of a catalogue has the same keys and fields.
"""

from __future__ import annotations

from collections.abc import Mapping

from .catalogues import en, ru
from .state import STATE

LANGUAGES = ("ru", "en")  # the first is the book's own language


def set_language(language: str) -> None:
    """Choose the language of everything the package says from now on."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; choose one of {', '.join(LANGUAGES)}")
    STATE.language = language


def language() -> str:
    """The language chosen with ``set_language`` (the book's first until then)."""
    return STATE.language or LANGUAGES[0]


class Catalogue:
    """Strings by language and key, falling back to a ``parent`` catalogue for keys it lacks."""

    def __init__(self, strings: Mapping[str, Mapping[str, str]], parent: Catalogue | None = None) -> None:
        if set(strings) != set(LANGUAGES):
            raise ValueError(f"a catalogue needs exactly the languages {LANGUAGES}, got {sorted(strings)}")
        self.strings = strings
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


BOOK_STRINGS = Catalogue({"ru": ru.STRINGS, "en": en.STRINGS})
text = BOOK_STRINGS.text
