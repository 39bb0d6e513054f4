"""Chapter 27's strings, layered over the book's: ``text("title")`` in the chosen language. They live in
``catalogues/<language>/``: the chapter's (chapter.toml), its slips' words (slips.toml) and each notebook's exercises
(01_predict.toml …)."""

from pathlib import Path

from ..book.text import BOOK_STRINGS, Catalogue

STRINGS = Catalogue(Path(__file__).with_name("catalogues"), parent=BOOK_STRINGS)
text = STRINGS.text
text_in = STRINGS.text_in
