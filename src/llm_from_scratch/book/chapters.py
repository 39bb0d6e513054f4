"""Chapters are discovered, not listed: a folder ``chapterNN/`` at the project's root.

Its notebooks (``01_*.ipynb`` …) are the first language's edition; a subfolder
named after another language (``en/``) holds that edition. The chapter's own
code, if it has any, is the package ``llm_from_scratch.chNN``.
"""

from __future__ import annotations

import pathlib
from dataclasses import dataclass

from .text import LANGUAGES

CHAPTER_FOLDERS = "chapter[0-9]*"
NOTEBOOK_FILES = "[0-9][0-9]_*.ipynb"


@dataclass(frozen=True)
class Chapter:
    folder: pathlib.Path

    @property
    def name(self) -> str:
        return self.folder.name

    @property
    def package(self) -> str:
        """The chapter's own package (``llm_from_scratch.ch27`` for ``chapter27/``)."""
        return f"llm_from_scratch.ch{int(self.name.removeprefix('chapter'))}"

    def editions(self) -> dict[str, pathlib.Path]:
        """Language -> folder, for every edition present."""
        found = {LANGUAGES[0]: self.folder}
        found.update({lang: self.folder / lang for lang in LANGUAGES[1:] if (self.folder / lang).is_dir()})
        return found

    def notebooks(self, language: str | None = None) -> list[pathlib.Path]:
        """The notebooks of one edition in reading order, or of every edition."""
        languages = [language] if language else list(self.editions())
        return [path for lang in languages for path in sorted(self.editions()[lang].glob(NOTEBOOK_FILES))]


def chapters(root: pathlib.Path | str = ".") -> list[Chapter]:
    """Every chapter folder under ``root``, in order."""
    return [Chapter(folder) for folder in sorted(pathlib.Path(root).glob(CHAPTER_FOLDERS)) if folder.is_dir()]
