"""Write every code cell once: carry the source edition's code cells into the other editions.

    python -m tools.editions [chapter folder ...]   (from the project's root; make notebooks runs it first)

A chapter's code is written in its source edition (the notebooks of ``chapterNN/``, in Russian). In another
edition (``chapterNN/<lang>/``) each code cell is the source's cell of the same id (``ru-01-03`` is ``en-01-03``)
with its comments in that edition's language and ``set_language("<lang>")``; its metadata is the source's. A cell
new in the source is added after the cell the source has before it; a cell gone from the source goes. The prose
(markdown cells) of each edition stays its own. A comment's translation is kept in ``chapterNN/<lang>/comments.toml``,
the source's comment as key and the edition's as value, as a translator writes them: a comment with no
translation stops the command, naming it and its cell, and a translation that no comment uses any more is dropped.
Outputs are not touched: ``make notebooks`` re-executes every edition after carrying.
"""

from __future__ import annotations

import io
import json
import pathlib
import sys
import tokenize
import tomllib

import nbformat

from llm_from_scratch.book.chapters import chapters
from llm_from_scratch.book.text import SOURCE_LANGUAGE

COMMENTS = "comments.toml"
LANGUAGE_LINE = 'set_language("{}")'


class Untranslated(Exception):
    """Comments of the source edition with no translation in an edition's comments.toml."""


def comments(source: str) -> list[tuple[int, int, str]]:
    """Each comment of a code cell: its line (from 1), its column and its text (``# …``)."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return [(token.start[0], token.start[1], token.string) for token in tokens if token.type == tokenize.COMMENT]


def translated(source: str, language: str, translations: dict[str, str], where: str) -> str:
    """A source edition's code cell in ``language``: every comment replaced by its translation, the language line
    set; a comment with no translation raises ``Untranslated`` naming it."""
    lines = source.split("\n")
    missing = []
    for row, column, comment in reversed(comments(source)):
        if comment not in translations:
            missing.append(f"{where}: {comment}")
            continue
        line = lines[row - 1]
        lines[row - 1] = line[:column] + translations[comment] + line[column + len(comment):]
    if missing:
        raise Untranslated("\n".join(reversed(missing)))
    return "\n".join(lines).replace(LANGUAGE_LINE.format(SOURCE_LANGUAGE), LANGUAGE_LINE.format(language))


def read_translations(path: pathlib.Path) -> dict[str, str]:
    return tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def write_translations(path: pathlib.Path, translations: dict[str, str], language: str) -> None:
    """The translations a chapter's code cells use, sorted, one per line (a key and a value are TOML strings)."""
    lines = [f"# The code cells' comments: the source edition's ({SOURCE_LANGUAGE}) as key, this edition's",
             f"# ({language}) as value: `make notebooks` carries the code into this edition and names any missing."]
    lines += [f"{json.dumps(key, ensure_ascii=False)} = {json.dumps(value, ensure_ascii=False)}"
              for key, value in sorted(translations.items())]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def counterpart(cell_id: str, language: str) -> str:
    """The id of a source cell's twin in ``language``: ``ru-01-03`` is ``en-01-03``; an id with no language prefix
    (``plane``) is the same in every edition."""
    prefix = f"{SOURCE_LANGUAGE}-"
    return f"{language}-{cell_id.removeprefix(prefix)}" if cell_id.startswith(prefix) else cell_id


def carry(source: nbformat.NotebookNode, edition: nbformat.NotebookNode, language: str,
          translations: dict[str, str], name: str) -> set[str]:
    """Carry ``source``'s code cells into ``edition`` in place; the comments whose translations were used."""
    cells = {cell.id: cell for cell in edition.cells}
    code = {counterpart(cell.id, language) for cell in source.cells if cell.cell_type == "code"}
    kept = [cell for cell in edition.cells if cell.cell_type != "code" or cell.id in code]
    used, missing = set(), []
    for index, cell in enumerate(source.cells):
        if cell.cell_type != "code":
            continue
        try:
            carried = translated(cell.source, language, translations, f"{name}, cell {cell.id}")
        except Untranslated as untranslated:
            missing.append(str(untranslated))
            continue
        used |= {comment for _, _, comment in comments(cell.source)}
        twin = cells.get(counterpart(cell.id, language))
        if twin is None:
            twin = nbformat.v4.new_code_cell(carried)
            twin.id = counterpart(cell.id, language)
            before = [counterpart(c.id, language) for c in source.cells[:index]]
            place = max((kept.index(c) for c in kept if c.id in before), default=-1)
            kept.insert(place + 1, twin)
        twin.source = carried
        twin.metadata = nbformat.from_dict(dict(cell.metadata))
    if missing:
        raise Untranslated("\n".join(missing))
    edition.cells = kept
    return used


def carry_chapter(folder: pathlib.Path) -> list[pathlib.Path]:
    """Carry a chapter's source edition into each other edition; the notebooks written."""
    [chapter] = [c for c in chapters(folder.parent) if c.folder.resolve() == folder.resolve()]
    written, missing = [], []
    for language, edition_folder in chapter.editions().items():
        if language == SOURCE_LANGUAGE:
            continue
        translations = read_translations(edition_folder / COMMENTS)
        used = set()
        for path in chapter.notebooks(SOURCE_LANGUAGE):
            source, target = nbformat.read(path, as_version=4), edition_folder / path.name
            edition = nbformat.read(target, as_version=4)
            try:
                used |= carry(source, edition, language, translations, path.name)
            except Untranslated as untranslated:
                missing.append(f"{language}: {untranslated}")
                continue
            nbformat.write(edition, target)
            written.append(target)
        if not missing:
            write_translations(edition_folder / COMMENTS, {k: v for k, v in translations.items() if k in used},
                               language)
    if missing:
        raise Untranslated("comments with no translation (add each to the edition's comments.toml):\n"
                           + "\n".join(missing))
    return written


def main(places: list[str]) -> None:
    folders = [pathlib.Path(place) for place in places] or [chapter.folder for chapter in chapters()]
    try:
        for folder in folders:
            for path in carry_chapter(folder):
                print(f"carried the code into {path}", flush=True)
    except Untranslated as untranslated:
        sys.exit(str(untranslated))


if __name__ == "__main__":
    main(sys.argv[1:])
