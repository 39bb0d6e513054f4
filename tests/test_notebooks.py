"""The stored notebooks: executed, honest, thin, and guarded by nbval."""

import pathlib
import re
import shutil
import subprocess
import sys

import nbformat
import pytest

from llm_from_scratch.ch27.evidence import LearnerEvidence
from llm_from_scratch.ch27.exercises import EXERCISES

ROOT = pathlib.Path(__file__).resolve().parents[1]
EDITIONS = {"ru": ROOT / "chapter27", "en": ROOT / "chapter27" / "en"}
BY_EDITION = {lang: sorted(folder.glob("[0-9][0-9]_*.ipynb")) for lang, folder in EDITIONS.items()}
NOTEBOOKS = [path for paths in BY_EDITION.values() for path in paths]
EXPECTED_ERRORS_TAG = "raises-exception"
UNGUARDED = "nbval-ignore-output"
TIMING_CALL = "measure_engine("  # the appendix's timing cell: the only output that may differ between runs
LANGUAGE_LINE = re.compile(r'^set_language\("(\w+)"\)$', re.M)


def load(path):
    return nbformat.read(path, as_version=4)


def code_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]


def outputs_text(cell) -> str:
    parts = []
    for output in cell.get("outputs", []):
        parts.append(output.get("text", ""))
        for mime, value in output.get("data", {}).items():
            if mime.startswith("text/"):
                parts.append(value if isinstance(value, str) else "".join(value))
    return "\n".join(parts)


def test_the_chapter_has_its_notebooks_in_reading_order():
    for paths in BY_EDITION.values():
        numbers = [int(p.name[:2]) for p in paths]
        assert numbers == list(range(1, len(paths) + 1)) and len(paths) >= 9
    assert [p.name for p in BY_EDITION["ru"]] == [p.name for p in BY_EDITION["en"]]


@pytest.mark.parametrize("name", [p.name for p in BY_EDITION["ru"]])
def test_editions_share_their_code_but_the_language_line(name):
    """Code cells are identical in both editions, so they cannot drift; only set_language differs."""
    sources = {}
    for lang, folder in EDITIONS.items():
        cells = [c.source for c in code_cells(load(folder / name))]
        assert LANGUAGE_LINE.findall(cells[0]) == [lang], "the first code cell chooses the language"
        sources[lang] = [LANGUAGE_LINE.sub('set_language("…")', source) for source in cells]
    assert sources["ru"] == sources["en"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_code_cell_was_executed_in_order_without_unexpected_errors(path):
    counts = []
    for cell in code_cells(load(path)):
        assert cell.execution_count is not None, f"a code cell was never executed: {cell.source[:60]!r}"
        counts.append(cell.execution_count)
        tags = set(cell.metadata.get("tags", []))
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert not errors or EXPECTED_ERRORS_TAG in tags, f"stored error in {cell.source[:60]!r}"
        assert not tags & {"nbval-skip", "skip-execution"}, tags
        assert (UNGUARDED in tags) == (TIMING_CALL in cell.source), f"unguarded output: {cell.source[:60]!r}"
    assert counts == list(range(1, len(counts) + 1)), "cells were not run top to bottom in one kernel"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebooks_stay_thin(path):
    for cell in code_cells(load(path)):
        assert not re.search(r"^\s*(def|class) ", cell.source, re.M), "helpers belong in src/"
        assert len(cell.source.splitlines()) <= 16, f"a long cell: {cell.source[:60]!r}"


@pytest.mark.parametrize("lang", list(EDITIONS))
def test_only_the_appendix_timing_cell_is_unguarded(lang):
    timing = [(path.name, cell.source) for path in BY_EDITION[lang] for cell in code_cells(load(path))
              if TIMING_CALL in cell.source]
    assert [name for name, _ in timing] == ["11_appendix_cost.ipynb"]


@pytest.mark.parametrize("lang", list(EDITIONS))
def test_exercises_appear_in_order_and_again_in_the_exercises_notebook(lang):
    paths = BY_EDITION[lang]
    final_path = next(p for p in paths if p.name.endswith("_exercises.ipynb"))
    calls = []
    for path in paths:
        if path == final_path:
            continue
        for cell in code_cells(load(path)):
            calls += re.findall(r'^exercise\("([a-z-]+)"\)', cell.source, re.M)
    assert calls == list(EXERCISES)
    final = "\n".join(c.source for c in code_cells(load(final_path)))
    assert re.findall(r'^exercise\("([a-z-]+)"\)', final, re.M) == list(EXERCISES)


def test_english_notebooks_speak_english():
    cyrillic = re.compile("[а-яА-ЯёЁ]")
    for path in BY_EDITION["en"]:
        for cell in load(path).cells:
            assert not cyrillic.search(cell.source), f"{path.name}: {cell.source[:80]!r}"
            assert not cyrillic.search(outputs_text(cell)), f"{path.name}: {outputs_text(cell)[:200]!r}"


def test_no_answer_is_shown_before_an_attempt():
    ev = LearnerEvidence()
    for path in NOTEBOOKS:
        shown = ""
        for cell in code_cells(load(path)):
            found = re.search(r'^exercise\("([a-z-]+)"\)', cell.source, re.M)
            if found:
                exercise = EXERCISES[found.group(1)]
                answer = exercise.facts(ev)["answer"]
                if exercise.kind == "numbers":
                    assert answer not in shown, f"{path.name}: the answer to {exercise.id} is shown before it"
                assert exercise.id not in re.findall(r'check\("([a-z-]+)"', cell.source)
            shown += outputs_text(cell)
            for word in ("Ответ:", "Answer:"):
                assert word not in outputs_text(cell), f"{path.name}: a revealed answer is stored"


def test_nbval_fails_when_a_stored_number_changes(tmp_path):
    source = ROOT / "chapter27" / "02_scores_softmax_mixture.ipynb"
    assert "0.985834" in source.read_text(encoding="utf-8")
    broken = tmp_path / source.name
    shutil.copy(source, broken)
    broken.write_text(source.read_text(encoding="utf-8").replace("0.985834", "0.985835"), encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "pytest", "--nbval", "-q", str(broken)], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 1, result.stdout[-2000:]
    assert "0.985835" in result.stdout and "failed" in result.stdout
