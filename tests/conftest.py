"""The one owner of the book's global state in tests: the language and the attempts."""

import pytest

from llm_from_scratch.book.text import LANGUAGES, set_language
from llm_from_scratch.ch27.exercises import BOOK


@pytest.fixture(autouse=True)
def fresh_book_state():
    """Every test starts in the book's first language with no attempts, and leaves it so."""
    set_language(LANGUAGES[0])
    BOOK.reset_progress()
    yield
    set_language(LANGUAGES[0])
    BOOK.reset_progress()


@pytest.fixture
def english():
    set_language("en")
