"""A code cell is written once: the source edition's code is carried into the other editions with their
comments translated (tools/editions.py, which `make notebooks` runs before it executes them)."""

import copy
import shutil

import nbformat
import pytest
from support import ROOT
from support.notebooks import without_comments

from llm_from_scratch.book.chapters import chapters
from tools.editions import COMMENTS, Untranslated, carry, carry_chapter, read_translations

CH27 = chapters(ROOT)[0]


@pytest.mark.parametrize("path", CH27.notebooks("ru"), ids=lambda p: p.name)
def test_the_stored_editions_are_what_carrying_their_source_gives(path):
    """The English code cells are the Russian ones carried: the same code, cell ids, metadata and order."""
    translations = read_translations(CH27.folder / "en" / COMMENTS)
    stored = nbformat.read(CH27.folder / "en" / path.name, as_version=4)
    carried = copy.deepcopy(stored)
    carry(nbformat.read(path, as_version=4), carried, "en", translations, path.name)
    assert [(c.id, c.source, c.metadata) for c in carried.cells] == [(c.id, c.source, c.metadata) for c in stored.cells]


@pytest.fixture
def chapter(tmp_path):
    """A copy of the chapter's notebooks and translations, to edit."""
    folder = tmp_path / CH27.folder.name
    shutil.copytree(CH27.folder, folder, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    return folder


def _cells(path):
    return nbformat.read(path, as_version=4).cells


def _edit(path, change):
    notebook = nbformat.read(path, as_version=4)
    change(notebook.cells)
    nbformat.write(notebook, path)


def test_one_edit_of_a_code_cell_reaches_both_editions(chapter):
    name = "02_scores_softmax_mixture.ipynb"
    [inputs] = [c for c in _cells(chapter / name) if c.id == "ru-02-inputs"]
    edited = inputs.source.replace("\n", "\nQ = Q * 2  # запросы вдвое длиннее\n", 1)

    def edit(cells):
        next(c for c in cells if c.id == "ru-02-inputs").source = edited
    _edit(chapter / name, edit)
    with pytest.raises(Untranslated, match="02_scores_softmax_mixture.ipynb, cell ru-02-inputs: # запросы вдвое"):
        carry_chapter(chapter)
    with (chapter / "en" / COMMENTS).open("a", encoding="utf-8") as file:
        file.write('"# запросы вдвое длиннее" = "# queries twice as long"\n')
    carry_chapter(chapter)
    [english] = [c for c in _cells(chapter / "en" / name) if c.id == "en-02-inputs"]
    assert "\nQ = Q * 2  # queries twice as long\n" in english.source
    assert without_comments(english.source) == without_comments(edited).replace('"ru"', '"en"')


def test_a_new_cell_takes_its_place_and_a_removed_one_goes(chapter):
    name = "01_predict.ipynb"
    ru_before = _cells(chapter / name)
    code = [c for c in ru_before if c.cell_type == "code"]

    def edit(cells):
        new = nbformat.v4.new_code_cell("print(1 + 1)")
        new.id = "ru-01-99"
        cells.insert(cells.index(next(c for c in cells if c.id == code[1].id)) + 1, new)
        cells.remove(next(c for c in cells if c.id == code[2].id))
    _edit(chapter / name, edit)
    carry_chapter(chapter)
    english = _cells(chapter / "en" / name)
    ids = [c.id for c in english]
    twin = "en-" + code[1].id.removeprefix("ru-")
    assert ids[ids.index(twin) + 1] == "en-01-99" and english[ids.index("en-01-99")].source == "print(1 + 1)"
    assert "en-" + code[2].id.removeprefix("ru-") not in ids
    assert len([c for c in english if c.cell_type == "markdown"]) == len(
        [c for c in _cells(CH27.folder / "en" / name) if c.cell_type == "markdown"]), "the prose stays its own"
