"""Every chapter as a learner uses it: JupyterLab in a real Chromium, driven by Playwright.

Serves a temporary copy of the project; for each notebook of every chapter
restarts the kernel and runs all cells, then checks errors, figures and widgets,
and saves a screenshot to artifacts/. Chapter 27's sliders, editor and an
exercise form are then used with the keyboard and the mouse. Needs Debian's
Chromium at /usr/bin/chromium (apt-get install -y chromium); nothing is downloaded.
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import re
import shutil

import pytest

from llm_from_scratch.book.chapters import chapters
from llm_from_scratch.book.formatting import vector
from llm_from_scratch.book.testing import (
    CHROMIUM,
    assert_clean,
    close_notebook,
    code_cell_count,
    jupyterlab,
    lab_page,
    open_and_run,
)
from llm_from_scratch.ch27.evidence import run_head, worked_inputs
from llm_from_scratch.ch27.strings import text_in
from llm_from_scratch.ch27.widgets import ScaleExplorer

ROOT = pathlib.Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts"
NOTEBOOKS = [(chapter.name, lang, path) for chapter in chapters(ROOT)
             for lang in chapter.editions() for path in chapter.notebooks(lang)]

if not CHROMIUM.exists():
    message = "no Chromium at /usr/bin/chromium: install it with `apt-get update && apt-get install -y chromium`"
    if os.environ.get("CI") == "true":
        pytest.fail(message, pytrace=False)
    pytest.skip(message, allow_module_level=True)

pytest.importorskip("playwright.sync_api")


def digest(paths) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server over a copy of the project; the committed notebooks must not change."""
    before = digest(path for *_, path in NOTEBOOKS)
    home = tmp_path_factory.mktemp("lab")
    served = home / "project"  # a copy of the project; config, settings and workspaces live beside it
    shutil.copytree(ROOT, served, ignore=shutil.ignore_patterns(
        ".git", ".venv", "artifacts", "__pycache__", ".ipynb_checkpoints", ".pytest_cache", ".hypothesis",
        "*.egg-info"))
    with jupyterlab(served, home) as server:
        yield server
    assert digest(path for *_, path in NOTEBOOKS) == before, "the committed notebooks changed"


@pytest.fixture(scope="module")
def page(lab):
    """One JupyterLab page for all notebooks: each is opened, run, checked and closed in turn."""
    with lab_page(*lab) as page:
        yield page


def screenshot(page, lang: str, name: str, suffix: str = ""):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{lang}-{pathlib.Path(name).stem}{suffix}.png"), full_page=False)


@pytest.mark.parametrize("chapter, lang, path", NOTEBOOKS,
                         ids=[f"{chapter}-{lang}-{path.name}" for chapter, lang, path in NOTEBOOKS])
def test_notebook_runs_cleanly_in_jupyterlab(page, chapter, lang, path):
    name = path.name
    open_and_run(page, path.relative_to(ROOT).as_posix())
    try:
        assert code_cell_count(page) > 0
        assert_clean(page, path)
        screenshot(page, lang, name)
        if chapter != "chapter27":
            return
        if name.startswith("04_"):
            check_scale_slider(page, lang)
            screenshot(page, lang, name, "-scale-slider")
            check_width_slider(page, lang)
            screenshot(page, lang, name, "-dk-slider")
        if name.startswith("08_"):
            check_head_editor(page)
            screenshot(page, lang, name, "-editor")
        if name.startswith("03_"):
            check_exercise_form(page, lang)
            screenshot(page, lang, name, "-exercise")
    finally:
        close_notebook(page)


def widget_html(page, marker: str):
    """The live HTML widget whose text contains ``marker``."""
    return page.locator(".widget-html-content", has_text=marker).last


def check_scale_slider(page, lang: str):
    slider = page.locator(".widget-slider", has_text=text_in(lang, "widget.scale.slider"))
    handle = slider.locator(".noUi-handle")
    pair_prefix = text_in(lang, "widget.scale.pair", factor="").split(":")[0]
    numbers = widget_html(page, pair_prefix)
    figure = page.locator(".widget-html-content:has(svg)").filter(has_text="softmax").last
    before_numbers, before_figure = numbers.inner_text(), figure.inner_html()
    # the live slider opens on exactly 1/sqrt(d_k), with the chapter's weights (no snapping to 0.71)
    assert slider.locator(".widget-readout").inner_text().strip() == "0.707"
    assert "A_0,: = [0.014166,0.985834]" in before_numbers, before_numbers
    # from exactly 1 (the button), five arrow steps of 0.01 land on the step grid at 1.05
    page.locator("button", has_text=text_in(lang, "widget.scale.to_one")).click()
    answered = text_in(lang, "widget.scale.pair", factor="1.00").strip()
    page.wait_for_function("(text) => [...document.querySelectorAll('.widget-html-content')]"
                           ".some(e => e.innerText.includes(text))", arg=answered)
    handle.focus()
    for _ in range(5):
        handle.press("ArrowRight")
    readout = slider.locator(".widget-readout").inner_text().strip()
    # the kernel answers each keypress in turn: wait for the answer to the last one
    answered = text_in(lang, "widget.scale.pair", factor=readout).strip()
    page.wait_for_function("(text) => [...document.querySelectorAll('.widget-html-content')]"
                           ".some(e => e.innerText.includes(text))", arg=answered)
    factor = float(readout)
    assert factor == pytest.approx(1.05), "five steps of 0.01 from 1"
    assert numbers.inner_text() != before_numbers
    state = ScaleExplorer().state_for(factor)
    shown = numbers.inner_text()
    for i, row in enumerate(state.weights):
        assert f"A_{i},: = {vector(row)}" in shown, shown
    assert figure.inner_html() != before_figure
    assert f"{factor:.2f}" in figure.inner_html()


def check_width_slider(page, lang: str):
    slider = page.locator(".widget-slider", has_text="d_k")
    handle = slider.locator(".noUi-handle")
    numbers = widget_html(page, "d_k = ")
    figure = page.locator(".widget-html-content:has(svg)").filter(has_text=text_in(lang, "widget.width.var_title")).last
    before = figure.inner_html()
    handle.focus()
    handle.press("ArrowRight")
    page.wait_for_function("() => [...document.querySelectorAll('.widget-html-content')]"
                           ".some(e => e.innerText.includes('d_k = 128:'))")
    assert slider.locator(".widget-readout").inner_text().strip() == "128"
    assert "d_k = 128" in numbers.inner_text()
    assert figure.inner_html() != before


def check_head_editor(page):
    field = page.locator(".widget-text", has_text="Q[0,0]").locator("input")
    field.fill("1")
    field.press("Tab")
    q, k, v = worked_inputs()
    q[0, 0, 0] = 1.0
    run = run_head(q, k, v)
    page.wait_for_function("(row) => [...document.querySelectorAll('.widget-html-content')]"
                           ".some(e => e.innerText.includes(row))", arg=f"o_0 = {vector(run.output[0, 0])}")
    view = page.locator(".widget-html-content", has_text=f"o_0 = {vector(run.output[0, 0])}").last
    scores_row = "\t".join(f"{x:.6f}" for x in run.head.raw_scores.data[0, 0])
    assert scores_row in view.inner_text(), "the scores did not follow the edit"


ANSWERED: set[str] = set()  # progress lasts across kernels: the next edition finds this module's attempts


def check_exercise_form(page, lang: str):
    placeholder = text_in(lang, "ex.output-shape.form")
    box = page.locator(".widget-box", has=page.locator(f"input[placeholder='{placeholder}']")).last
    field = box.locator("input[type='text']")
    check = box.locator("button", has_text=text_in(lang, "widget.exercise.check"))
    reveal = box.locator("button", has_text=text_in(lang, "widget.exercise.reveal"))
    assert reveal.is_disabled() == ("output-shape" not in ANSWERED)
    field.fill("[4, 7, 7]")
    check.click()
    box.locator("text=[B, T, T]").wait_for()
    ANSWERED.add("output-shape")
    assert not reveal.is_disabled()
    field.fill("[4, 7, 5]")
    check.click()
    box.locator("text=✔").wait_for()
    reveal.click()
    box.locator(f"text={text_in(lang, 'reveal.answer', answer='[4,7,5]')}").wait_for()
    assert re.search(r"O = AV", box.inner_text())
