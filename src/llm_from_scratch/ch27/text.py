"""Learner-facing strings of chapter 27, one catalogue per language.

Code asks for a string by key (``text("title")``). The language is chosen once,
with ``set_language`` (the first code cell of every notebook) or ``--lang`` for
the report; every catalogue has the same keys and the same fields.
"""

from __future__ import annotations

from .catalogues import en, ru

CATALOGUES: dict[str, dict[str, str]] = {"ru": ru.STRINGS, "en": en.STRINGS}
_language = "ru"


def set_language(language: str) -> None:
    """Choose the language of everything the chapter's package says from now on."""
    global _language
    if language not in CATALOGUES:
        raise ValueError(f"unknown language {language!r}; choose one of {', '.join(CATALOGUES)}")
    _language = language


def text_in(language: str, key: str, **fields: object) -> str:
    """The string ``key`` in ``language``, with ``fields`` filled in."""
    template = CATALOGUES[language][key]
    return template.format(**fields) if fields else template


def text(key: str, **fields: object) -> str:
    """The string ``key`` in the chosen language, with ``fields`` filled in."""
    return text_in(_language, key, **fields)
