"""The chapter in Jupyter Notebook 7, the other front end a learner opens: one path, keyboard only.

Notebook 7 runs JupyterLab's components but reads keys on their way down, before a widget sees them, and puts an
output taller than about 1,800 px into a scrolling box. On a temporary copy of the English notebooks: 04's two
sliders move by arrow keys, 08's Q/K/V editor takes a typed number, and in 10's review a numbers answer typed and
sent with Enter shows its verdict in view; the notebook's own keys stay untouched, and axe finds no serious or
critical violation on those pages. Needs Debian's Chromium; nothing is downloaded.
"""

from __future__ import annotations

import pathlib
import re
import shutil

import pytest
from playwright.sync_api import expect
from support.browser import (
    axe_audit,
    blocking,
    cell_index,
    go_to_cell_by_keys,
    jupyterlab,
    lab_page,
    notebook_state,
    open_and_run_in_notebook7,
    require_browser,
    tab_to,
)
from test_browser import keyboard_editor, keyboard_sliders

from llm_from_scratch.ch27.exercises import EXERCISE_BOOK

text_in = EXERCISE_BOOK.strings.text_in
ROOT = pathlib.Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts"

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module", autouse=True)
def browser_present():
    require_browser()


@pytest.fixture(scope="module")
def notebook7(tmp_path_factory):
    """Notebook 7 serving a copy of the chapter (what the page runs is never saved over the stored notebooks)."""
    home = tmp_path_factory.mktemp("notebook7")
    served = home / "project"
    shutil.copytree(ROOT / "chapter27", served / "chapter27")
    with jupyterlab(served, home, "notebook") as (url, token), \
            lab_page(url, token, {"width": 1280, "height": 900}, "notebook") as page:
        yield page, url


def opened(notebook7, relative: str):
    page, url = notebook7
    open_and_run_in_notebook7(page, url, f"chapter27/en/{relative}")
    return page


def leave(page) -> None:
    """Shut the notebook's kernel down and mark it unchanged, so the next page opens without a prompt."""
    page.evaluate("""async () => {
        const panel = window.jupyterapp.shell.currentWidget;
        panel.context.model.dirty = false;
        await window.jupyterapp.serviceManager.sessions.shutdown(panel.sessionContext.session.id);
    }""")


def audited(page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"notebook7-{name}.png"))
    found = blocking(axe_audit(page, ".jp-OutputArea-output"))
    assert not found, found


def test_04s_sliders_move_by_arrow_keys(notebook7):
    """Both sliders, reached by Tab from their cell: arrows, Home, End and Page Up move them, and the notebook
    keeps its cells and its active cell (Notebook 7's own keys still work outside them: the walk there is by
    ArrowDown in command mode)."""
    page = opened(notebook7, "04_scaling.ipynb")
    keyboard_sliders(page, "en")
    audited(page, "04-sliders")
    leave(page)


def test_08s_editor_takes_a_typed_number(notebook7):
    page = opened(notebook7, "08_trace.ipynb")
    keyboard_editor(page, "en")
    audited(page, "08-editor")
    leave(page)


def test_10s_review_answered_by_keyboard_shows_its_verdict_in_view(notebook7):
    page = opened(notebook7, "10_exercises.ipynb")
    index = cell_index(page, "review()")
    cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
    area = cell.locator(".jp-Cell-outputArea")
    assert area.evaluate("(e) => e.scrollHeight <= e.clientHeight + 1"), "the review sits in a scroll box"
    go_to_cell_by_keys(page, index)
    before = notebook_state(page)
    form = cell.locator(".llm-live:not(:has(select))").first  # a numbers question (a choice has its list)
    box = form.locator("input[type='text']")
    tab_to(page, "(e, box) => e === box", arg=box.element_handle(), limit=12)
    page.keyboard.type("[0.5, 0.5]")
    page.keyboard.press("Enter")
    verdict = form.locator("[role='status']").first
    expect(verdict).to_have_text(re.compile(r"^[✔✘]"))
    shown = verdict.bounding_box()
    assert shown and 0 <= shown["y"] and shown["y"] + shown["height"] <= 900, f"the verdict is out of view: {shown}"
    after = notebook_state(page)
    assert (after["cells"], after["active"]) == (before["cells"], before["active"]), "a key reached the notebook"
    audited(page, "10-review")
    leave(page)
