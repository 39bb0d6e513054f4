"""The stored notebooks of every chapter: executed, honest, thin, and guarded by nbval."""

import base64
import json
import pathlib
import re
import subprocess
import sys
from collections import Counter

import pytest
from support import copy_configuration
from support.notebooks import (
    LANGUAGE_LINE,
    code_cells,
    exercises_asked,
    language_of,
    load,
    outputs_text,
    shown_lines,
    without_comments,
)

from llm_from_scratch.book.chapters import chapters
from llm_from_scratch.book.display import FOLDED_CLASS
from llm_from_scratch.book.figures import FOLDED_GREY, SVG_TEXT, without_answers
from llm_from_scratch.book.figures import NUMBER as FIGURE_NUMBER
from llm_from_scratch.ch27.exercises import EXERCISE_BOOK, EXERCISES
from llm_from_scratch.ch27.strings import STRINGS

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHAPTERS = chapters(ROOT)
NOTEBOOKS = [path for chapter in CHAPTERS for path in chapter.notebooks()]
REVIEW = next(n.asks for n in EXERCISE_BOOK.notebooks if n.stem == "10_exercises")
CH27 = next(c for c in CHAPTERS if c.name == "chapter27")
EXPECTED_ERRORS_TAG = "raises-exception"
UNGUARDED = "nbval-ignore-output"
TIMING_CALLS = ("measure_heads(", "BlockSizeExplorer(")  # the appendix's measurements: outputs that differ each run
LEARNER_STUB = re.compile(r"^def my_\w+\(")  # a function the learner writes (issue 13), stored as a stub
COLLAPSED_NOTE = {"ru": "свёрнут", "en": "collapsed"}  # the line before a collapsed output says so


def hidden(cell) -> bool:
    """JupyterLab shows this cell's outputs collapsed (nbval still compares them)."""
    return bool(cell.metadata.get("jupyter", {}).get("outputs_hidden"))


def test_chapters_are_found():
    assert "chapter27" in [c.name for c in CHAPTERS]
    assert set(CH27.editions()) == {"ru", "en"}


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda c: c.name)
def test_every_edition_has_the_notebooks_in_reading_order(chapter):
    names = {lang: [p.name for p in chapter.notebooks(lang)] for lang in chapter.editions()}
    for found in names.values():
        assert [int(name[:2]) for name in found] == list(range(1, len(found) + 1))
    assert len({tuple(found) for found in names.values()}) == 1, "every edition has the same notebooks"


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if p.parent == CH27.folder], ids=lambda p: p.name)
def test_editions_share_their_code_but_the_language_line(path):
    """Code cells are identical in every edition, so they cannot drift; only set_language and the comments (in
    the edition's language) differ."""
    sources = {}
    for lang, folder in CH27.editions().items():
        notebook = load(folder / path.name)
        assert language_of(notebook) == lang, "the first code cell chooses the language"
        sources[lang] = [LANGUAGE_LINE.sub('set_language("…")', without_comments(c.source))
                         for c in code_cells(notebook)]
    assert sources["ru"] == sources["en"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_code_cell_was_executed_in_order_without_unexpected_errors(path):
    counts = []
    for cell in code_cells(load(path)):
        assert cell.execution_count is not None, f"a code cell was never executed: {cell.source[:60]!r}"
        counts.append(cell.execution_count)
        tags = set(cell.metadata.get("tags", []))
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert not errors or EXPECTED_ERRORS_TAG in tags, f"stored error in {cell.source[:60]!r}"
        assert not tags & {"nbval-skip", "skip-execution"}, tags
        timing = any(call in cell.source for call in TIMING_CALLS)
        assert (UNGUARDED in tags) == timing, f"unguarded output: {cell.source[:60]!r}"
    assert counts == list(range(1, len(counts) + 1)), "cells were not run top to bottom in one kernel"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_notebooks_stay_thin(path):
    for cell in code_cells(load(path)):
        helpers = [line for line in cell.source.splitlines()
                   if re.match(r"\s*(def|class) ", line) and not LEARNER_STUB.match(line)]
        assert not helpers, "helpers belong in src/"
        assert len(cell.source.splitlines()) <= 16, f"a long cell: {cell.source[:60]!r}"


def test_only_the_appendix_timing_cells_are_unguarded():
    timing = [path for path in CH27.notebooks() for cell in code_cells(load(path))
              if any(call in cell.source for call in TIMING_CALLS)]
    assert [p.name for p in timing] == ["11_appendix_cost.ipynb"] * len(TIMING_CALLS) * len(CH27.editions())


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_exercises_appear_in_order_and_again_in_the_exercises_notebook(lang):
    paths = CH27.notebooks(lang)
    final_path = next(p for p in paths if p.name.endswith("_exercises.ipynb"))
    calls = [found for path in paths if path != final_path
             for cell in code_cells(load(path)) for found in exercises_asked(cell.source)]
    assert calls == [i for i, e in EXERCISES.items() if i not in REVIEW and e.kind != "code"]  # code: check_code
    final = "\n".join(c.source for c in code_cells(load(final_path)))
    assert exercises_asked(final) == list(REVIEW), "the review asks new questions, not the old ones again"


def test_english_notebooks_speak_english():
    cyrillic = re.compile("[а-яА-ЯёЁ]")
    for path in CH27.notebooks("en"):
        for cell in load(path).cells:
            assert not cyrillic.search(cell.source), f"{path.name}: {cell.source[:80]!r}"
            assert not cyrillic.search(outputs_text(cell)), f"{path.name}: {outputs_text(cell)[:200]!r}"
            assert 'lang="ru"' not in outputs_text(cell), f"{path.name}: English output marked as Russian"


def test_no_answer_is_stored_and_no_exercise_answers_itself():
    """No stored output holds a revealed answer, and no notebook checks an answer in the exercise's own cell
    (whether an answer stands before its question is tests/test_reading_order.py's walk)."""
    for path in CH27.notebooks():
        for cell in code_cells(load(path)):
            for exercise_id in exercises_asked(cell.source):
                assert exercise_id not in re.findall(r'check\("([a-z-]+)"', cell.source)
            for word in ("Ответ:", "Answer:"):
                assert word not in outputs_text(cell), f"{path.name}: a revealed answer is stored"


def run_nbval(*args: str, cwd: pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "--nbval", *args], cwd=cwd,
                          capture_output=True, text=True)


@pytest.mark.notebook
def test_nbval_fails_when_a_stored_number_changes(tmp_path):
    """A number of a printed line (04's variance table), changed in the stored notebook, fails its cell and is
    shown in nbval's report, under the lowest versions too."""
    source = CH27.folder / "04_scaling.ipynb"
    assert source.read_text(encoding="utf-8").count("63.73") == 1
    broken = tmp_path / source.name
    broken.write_text(source.read_text(encoding="utf-8").replace("63.73", "63.74"), encoding="utf-8")
    result = run_nbval("-q", "-c", str(ROOT / "pyproject.toml"), f"--rootdir={ROOT}", str(broken), cwd=ROOT)
    assert result.returncode == 1, result.stdout[-2000:]
    assert "63.74" in result.stdout and "failed" in result.stdout


@pytest.mark.notebook
def test_nbval_runs_from_another_directory_with_rootdir(tmp_path):
    """The sanitize file is found wherever pytest is started."""
    notebook = CH27.folder / "01_predict.ipynb"
    result = run_nbval("-q", f"--rootdir={ROOT}", str(notebook), cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-2000:]


@pytest.mark.notebook
def test_a_new_chapter_folder_is_collected_with_no_configuration_edited(tmp_path):
    """A throwaway chapter28/ beside chapter27/ is found by a plain `pytest --nbval`."""
    copy_configuration(tmp_path)
    (tmp_path / "chapter28").mkdir()
    notebook = {"cells": [{"cell_type": "code", "execution_count": 1, "id": "a", "metadata": {},
                           "outputs": [{"name": "stdout", "output_type": "stream", "text": "28\n"}],
                           "source": "print(28)"}],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "chapter28" / "01_mask.ipynb").write_text(json.dumps(notebook))
    (tmp_path / "tests").mkdir()
    result = run_nbval("-v", cwd=tmp_path)
    assert result.returncode == 0, result.stdout
    assert "chapter28/01_mask" in result.stdout and "Cell 0 PASSED" in result.stdout, result.stdout
    assert [c.name for c in chapters(tmp_path)] == ["chapter28"]


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_a_notebook_says_before_its_first_collapsed_output_that_answers_are_collapsed(lang):
    """Said once per notebook, not above every fold: what a fold holds is a comment in its own cell."""
    collapsed = 0
    for path in CH27.notebooks(lang):
        cells = load(path).cells
        folds = [i for i, cell in enumerate(cells) if cell.cell_type == "code" and "show_folded(" in cell.source]
        for i in folds:
            # no metadata collapse: JupyterLab re-opens it when the cell runs, and shows it meanwhile as a line of
            # the first output's HTML source; a <details> stays closed and shows its summary
            assert not hidden(cells[i]), f"{path.name}: {cells[i].source[:50]!r} is collapsed by metadata"
            asked = [j for j in range(i) if cells[j].cell_type == "code" and exercises_asked(cells[j].source)]
            first = not any(j in folds for j in range(asked[-1] if asked else 0, i))  # the answer's first fold
            assert cells[i - 1].cell_type == "code" or not first, f"{path.name}: a cell between an answer and its fold"
        said = [i for i, cell in enumerate(cells)
                if cell.cell_type == "markdown" and COLLAPSED_NOTE[lang] in cell.source]
        if folds:
            assert said and said[0] < folds[0], f"{path.name}: say before the first fold that answers are collapsed"
        collapsed += len(folds)
    assert collapsed >= 8, "the outputs that answer a question are collapsed"


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_an_exercise_takes_at_most_three_cells_and_no_markdown_repeats_the_form(lang):
    """The form (which says the cell below takes an answer too), the answer cell and, where there is one, the fold."""
    asked = 0
    for path in CH27.notebooks(lang):
        cells = load(path).cells
        for i, cell in enumerate(cells):
            if cell.cell_type == "code" and cell.source.startswith("exercise("):
                asked += 1
                exercise_id = cell.source.split('"')[1]
                answer = cells[i + 1]
                assert answer.cell_type == "code" and f'check("{exercise_id}", answer' in answer.source, (
                    f"{path.name}: the answer cell of {exercise_id} comes right below its form")
            if cell.cell_type == "markdown":
                assert "`...`" not in cell.source, f"{path.name}: the form says how to answer in code"
    assert asked >= 25, "the exercise cells are found"


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_every_notebook_from_01_to_08_has_a_try_it_that_quotes_a_line_of_its_cells(lang):
    """README promises one: a prediction, then a named line to change, quoted as a cell writes it."""
    opening = {"ru": "**Попробуйте.**", "en": "**Try it.**"}[lang]
    for path in CH27.notebooks(lang)[:8]:
        cells = load(path).cells
        tries = [cell.source for cell in cells if cell.cell_type == "markdown" and cell.source.startswith(opening)]
        assert tries, f"{path.name} has no try-it"
        code = "\n".join(cell.source for cell in cells if cell.cell_type == "code")
        for said in tries:
            quoted = [q for q in re.findall(r"`([^`]+)`", said) if "=" in q or "(" in q]
            assert any(q in code for q in quoted), f"{path.name}: the try-it quotes no line of its cells: {said[:80]!r}"


@pytest.mark.notebook
def test_re_execution_keeps_a_collapsed_output_collapsed(tmp_path):
    from tools.notebooks import execute

    notebook = {"cells": [{"cell_type": "code", "execution_count": None, "id": "a",
                           "metadata": {"jupyter": {"outputs_hidden": True}}, "outputs": [], "source": "print(6 * 7)"}],
                "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
                "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "01_collapse.ipynb"
    path.write_text(json.dumps(notebook))
    execute(path)
    cell = load(path).cells[0]
    assert hidden(cell) and cell.outputs[0]["text"] == "42\n"


def test_a_figures_html_image_is_exactly_its_guarded_svg():
    """The HTML image JupyterLab shows is the SVG nbval compares (its bytes are sanitized away)."""
    figures = 0
    for path in NOTEBOOKS:
        for cell in code_cells(load(path)):
            for output in cell.get("outputs", []):
                data = output.get("data", {})
                if "image/svg+xml" in data:
                    figures += 1
                    image = re.search(r'<img alt="[^"]+" src="data:image/svg\+xml;base64,([^"]+)"', data["text/html"])
                    assert image, f"{path.name}: a figure without an HTML image and its text alternative"
                    svg = base64.b64decode(image.group(1)).decode()
                    folded = FOLDED_CLASS in data["text/html"]  # its fallback has the image's numbers blanked
                    assert (without_answers(svg) if folded else svg) == data["image/svg+xml"], path.name
    assert figures >= 10


def test_no_folded_outputs_fallback_holds_a_number():
    """A plain-text viewer or a diff shows a folded answer's text/plain and SVG: neither holds a number (the HTML
    JupyterLab shows keeps them, and nbval compares them there)."""
    folds = 0
    for path in NOTEBOOKS:
        for cell in code_cells(load(path)):
            for output in cell.get("outputs", []):
                data = output.get("data", {})
                if FOLDED_CLASS in data.get("text/html", ""):
                    folds += 1
                    texts = [data["text/plain"], *(m[2] for m in SVG_TEXT.finditer(data.get("image/svg+xml", "")))]
                    numbers = [m[0] for said in texts for m in FIGURE_NUMBER.finditer(said)]
                    assert not numbers, f"{path.name}: a folded output's fallback shows {numbers[:5]}"
                    shades = set(re.findall(r"(?:fill|stroke): (#[0-9a-f]{6})", data.get("image/svg+xml", "")))
                    assert shades <= {"#000000", "#ffffff", FOLDED_GREY}, f"{path.name}: colours answer: {shades}"
    assert folds >= 40


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_each_notebook_ends_with_one_line_that_links_the_next(lang):
    paths = CH27.notebooks(lang)
    for i, path in enumerate(paths):
        last = load(path).cells[-1]
        links = re.findall(r"\]\(([^)]+\.ipynb)\)", last.source)
        assert last.cell_type == "markdown" and len(last.source.splitlines()) == 1, path.name
        following = paths[i + 1] if i + 1 < len(paths) else paths[i - 1]  # the last one sends back to the review
        assert links == [following.name] and (path.parent / links[0]).exists(), (path.name, links)


def test_no_stored_notebook_shows_a_verdict_before_anything_is_answered():
    """Run All gives prompts, not ✘ marks: an untouched answer cell asks for an answer, nothing says «not yet»."""
    for path in CH27.notebooks():
        for cell in code_cells(load(path)):
            said = outputs_text(cell)
            assert "✘" not in said and "✗" not in said, f"{path.name}: {cell.source[:60]!r}"
            assert not re.search(r"Пока нет\.|Not yet\.", said), f"{path.name}: {cell.source[:60]!r}"


# Blocks of three lines or more that a notebook shows twice on purpose, each with its reason
SAID_TWICE_ON_PURPOSE = {
    # 06 lists every refusal, then shows how one of them looks when the learner's own code catches it
    ("06_head_from_primitives.ipynb", "query-key-width-mismatch"),
}


def repeated_blocks(path: pathlib.Path) -> dict[tuple[str, ...], set[tuple[int, int]]]:
    """Every block of three consecutive lines a reader sees in two outputs of the notebook (or twice in one),
    with the (cell, output) places where it stands."""
    places: dict[tuple[str, ...], list[tuple[int, int]]] = {}
    for c, cell in enumerate(load(path).cells):
        for o, output in enumerate(cell.get("outputs", [])):
            lines = shown_lines(output)
            for i in range(len(lines) - 2):
                places.setdefault(tuple(lines[i:i + 3]), []).append((c, o))
    return {block: set(where) for block, where in places.items() if len(where) > 1}


def test_the_duplicate_finder_sees_a_block_shown_twice_and_not_a_folded_one(tmp_path):
    table = {"output_type": "display_data", "metadata": {},
             "data": {"text/html": "<table><tr><td>q_0</td><td>1</td></tr><tr><td>q_1</td><td>2</td></tr>"
                                   "<tr><td>q_2</td><td>3</td></tr></table>", "text/plain": "table"}}
    folded = {**table, "data": {"text/html": f"<details><summary>s</summary>{table['data']['text/html']}</details>"}}
    cell = {"cell_type": "code", "execution_count": 1, "id": "c", "metadata": {}, "source": "", "outputs": [table]}
    notebook = {"cells": [cell, {**cell, "id": "d"}, {**cell, "id": "e", "outputs": [folded]}], "metadata": {},
                "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "n.ipynb"
    path.write_text(json.dumps(notebook))
    assert repeated_blocks(path) == {("q_0 1", "q_1 2", "q_2 3"): {(0, 0), (1, 0)}}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_notebook_shows_the_same_block_twice(path):
    """A reader never sees one output's three lines again in another (folded content is off screen)."""
    found = {block: where for block, where in repeated_blocks(path).items()
             if not any(path.name == name and any(key in line for line in block)
                        for name, key in SAID_TWICE_ON_PURPOSE)}
    assert not found, "\n".join(f"{sorted(where)}: {' / '.join(block)}" for block, where in list(found.items())[:5])


def test_the_editions_may_differ_in_comments_only():
    ru = 'A = S.softmax(2)  # ось 2 — ключи\n# выход\nO = A @ V\nshow("# не комментарий")'
    en = 'A = S.softmax(2)  # axis 2 is the keys\nO = A @ V\nshow("# не комментарий")'
    assert without_comments(ru) == without_comments(en) == 'A = S.softmax(2)\nO = A @ V\nshow("# не комментарий")'
    assert without_comments(en) != without_comments(en.replace("softmax(2)", "softmax(1)"))


QUOTED = re.compile(r"\$\$.*?\$\$|\$[^$]+?\$|`[^`]+`", re.S)  # formulas and code, as prose quotes them
WHOLE_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?!\w)")
# What the source says (tests/data/source, its history) and each edition must say in its words: (where, ru, en).
# A catalogue key names the history figure's line; a notebook name, the markdown cell that says it.
SOURCE_CLAIMS = [
    ("history.recurrent-fixed-context", r"один вектор", r"one vector"),
    ("history.additive-encoder-decoder-alignment", r"на каждом (своём )?шаге.*заново", r"at every step.*anew"),
    ("history.scaled-dot-product-self-attention", r"в одном\s+слое", r"in one layer"),
    ("05_history.ipynb", r"для каждой пары[^.]*отдельно", r"for each\s+\(state, annotation\) pair separately"),
    ("05_history.ipynb", r"состояния декодера появляются по одному", r"decoder states arrive one at a time"),
]


def quoted_facts(text: str) -> Counter:
    """The formulas, code and numbers a text quotes: what two editions must say alike."""
    return Counter(QUOTED.findall(text)) + Counter(WHOLE_NUMBER.findall(QUOTED.sub(" ", text)))


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if p.parent == CH27.folder], ids=lambda p: p.name)
def test_the_editions_quote_the_same_formulas_code_and_numbers(path):
    """Markdown cell by markdown cell — the history, the try-its and the rest — both editions quote the same."""
    ru, en = (load(CH27.editions()[lang] / path.name).cells for lang in ("ru", "en"))
    assert [c.cell_type for c in ru] == [c.cell_type for c in en]
    differ = [f"cell {index}: ru {dict(quoted_facts(a.source) - quoted_facts(b.source))}, "
              f"en {dict(quoted_facts(b.source) - quoted_facts(a.source))}"
              for index, (a, b) in enumerate(zip(ru, en))
              if a.cell_type == "markdown" and quoted_facts(a.source) != quoted_facts(b.source)]
    assert not differ, "\n".join(differ)


def _said(where: str, lang: str) -> list[str]:
    """The history figure's line a catalogue key names, or the markdown cells of a notebook."""
    if not where.endswith(".ipynb"):
        return [STRINGS.text_in(lang, where)]
    return [c.source if c.cell_type == "markdown" else "" for c in load(CH27.editions()[lang] / where).cells]


@pytest.mark.parametrize(("where", "ru", "en"), SOURCE_CLAIMS, ids=[f"{c[0]}-{n}" for n, c in enumerate(SOURCE_CLAIMS)])
def test_both_editions_say_what_the_source_says_in_the_history(where, ru, en):
    found = {lang: [i for i, text in enumerate(_said(where, lang)) if re.search(pattern, text, re.S)]
             for lang, pattern in (("ru", ru), ("en", en))}
    assert found["ru"] and found["ru"] == found["en"], found


def test_the_history_figure_quotes_the_same_in_both_editions():
    keys = sorted(key for key in STRINGS.strings["ru"] if key.startswith("history."))
    assert len(keys) >= 3
    ru, en = ([quoted_facts(STRINGS.strings[lang][key]) for key in keys] for lang in ("ru", "en"))
    assert ru == en


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_a_link_to_a_notebook_names_it_by_its_heading(lang):
    """"[27.10 · …](10_exercises.ipynb)" says what the notebook's own first heading says, word for word."""
    paths = CH27.notebooks(lang)
    headings = {path.name: load(path).cells[0].source.splitlines()[0].removeprefix("# ") for path in paths}
    links = [(path.name, title, target) for path in paths for cell in load(path).cells if cell.cell_type == "markdown"
             for title, target in re.findall(r"\[(27\.\d+ · [^\]]+)\]\((\d\d_\w+\.ipynb)\)", cell.source)]
    assert len(links) >= 10, "every notebook links the next one"
    wrong = [(name, title, headings[target]) for name, title, target in links if title != headings[target]]
    assert not wrong, wrong
