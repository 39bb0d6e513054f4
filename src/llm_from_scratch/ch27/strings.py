"""Chapter 27's strings, layered over the book's: ``text("title")`` in the chosen language."""

from ..book.text import BOOK_STRINGS, Catalogue
from .catalogues import en, ru

STRINGS = Catalogue({"ru": ru.STRINGS, "en": en.STRINGS}, parent=BOOK_STRINGS)
text = STRINGS.text
text_in = STRINGS.text_in
