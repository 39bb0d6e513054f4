"""Exercise forms in a real JupyterLab in Chromium: options that wrap stay apart, and the keyboard works.

A throwaway notebook shows the chapter's longest choice form, a text form and the progress
summary in a 1400×900 window with the file browser open; Playwright then answers the forms
with the keyboard only, asks the shape question for a new example, answers it and sees the
skill's count rise in the summary. Needs Debian's Chromium at /usr/bin/chromium; nothing is
downloaded.
"""

from __future__ import annotations

import json
import os
import pathlib
import re

import pytest
from support.browser import axe_audit, blocking, require_browser, run_cell, throwaway_notebook

from llm_from_scratch.book.progress import ENV
from llm_from_scratch.book.widgets import CHOICE_CLASS
from llm_from_scratch.ch27.exercises import EXERCISE_BOOK

text_in = EXERCISE_BOOK.strings.text_in  # the exercises' strings, over the chapter's and the book's

ARTIFACTS = pathlib.Path(__file__).resolve().parents[1] / "artifacts"

pytestmark = pytest.mark.browser  # every test drives JupyterLab in Chromium: no test of this module can be quick


@pytest.fixture(scope="module", autouse=True)
def browser_present():
    """Debian's Chromium, or a skip (a failure under CI=true), asked only where a browser test runs."""
    require_browser()


@pytest.fixture(scope="module")
def kernel_store() -> pathlib.Path:
    """The store of this module's JupyterLab and its kernels (each test's own is another)."""
    return pathlib.Path(os.environ[ENV])


@pytest.fixture(scope="module")
def page(tmp_path_factory, kernel_store):
    cells = ('from llm_from_scratch.book.text import set_language\nset_language("ru")',
             "from llm_from_scratch.ch27.exercises import exercise\n\nexercise(\"recurrent-vs-self\")",
             'exercise("output-shape")', "from llm_from_scratch.ch27.exercises import progress\n\nprogress()",
             'exercise("scores")')
    viewport = {"width": 1400, "height": 900}
    with throwaway_notebook(tmp_path_factory.mktemp("lab"), "forms.ipynb", cells, viewport) as page:
        yield page


def boxes(locator) -> list[dict]:
    return [locator.nth(i).bounding_box() for i in range(locator.count())]


def test_wrapped_options_do_not_overlap(page):
    assert page.locator("#filebrowser").is_visible(), "the file browser is open"
    listbox = page.locator(f".{CHOICE_CLASS} select")
    listbox.scroll_into_view_if_needed()
    options = boxes(listbox.locator("option"))
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "ru-forms-choice.png"))
    assert len(options) == 4
    assert max(b["height"] for b in options) > 1.5 * min(b["height"] for b in options), "a long option wraps"
    for upper, lower in zip(options, options[1:]):
        assert upper["y"] + upper["height"] <= lower["y"] + 0.5, "two options overlap"
    box = listbox.bounding_box()
    assert box["y"] + box["height"] >= options[-1]["y"] + options[-1]["height"], "every option is in view"


def feedback_of(form):
    return form.locator(".widget-html-content [role='status']")


def active(page, locator) -> bool:
    return locator.evaluate("e => e === document.activeElement")


def test_tab_reaches_the_answer_a_letter_chooses_and_enter_checks(page):
    form = page.locator(".jp-OutputArea-output", has=page.locator(f".{CHOICE_CLASS}"))
    listbox, box = form.locator("select"), form.locator("input[type='text']")
    # start from the question above the form, as a reader who has just read it
    page.get_by_text(text_in("ru", "ex.recurrent-vs-self.prompt")).click()
    for _ in range(5):  # the cell's own toolbar comes first; the list of options is skipped
        page.keyboard.press("Tab")
        if active(page, box):
            break
    assert active(page, box), "Tab reaches the answer box"
    page.keyboard.type("б")
    page.wait_for_function("(e) => e.selectedIndex === 1", arg=listbox.element_handle())
    page.keyboard.press("Enter")
    feedback_of(form).wait_for()
    assert text_in("ru", "feedback.correct") in feedback_of(form).inner_text()
    listbox.locator("option").nth(3).click()  # a click on an option writes its letter
    page.wait_for_function("(e) => e.value === 'd'", arg=box.element_handle())
    feedback_of(form).wait_for(state="detached")  # the feedback went with the answer it was about
    assert page.locator(".jp-Notebook .jp-Cell").count() == 5, "no key reached the notebook's own commands"


def test_how_sure_is_said_by_keyboard_alone_and_kept_with_the_answer(page, kernel_store):
    """From the answer box, Tab reaches the levels, a key chooses one, Enter checks: a confident miss is told it
    comes back tomorrow, the store keeps the level and the day, and axe finds the levels named."""
    form = page.locator(".jp-OutputArea-output", has=page.locator(f".{CHOICE_CLASS}"))
    box = form.locator("input[type='text']")
    box.click()
    box.fill("")
    page.keyboard.type("а")  # a wrong letter
    page.keyboard.press("Tab")
    assert active(page, form.locator("input[type='radio']").first), "Tab goes on from the box to the levels"
    page.keyboard.press("3")
    assert active(page, form.get_by_role("radio", name=text_in("ru", "sure.3")))
    assert form.get_by_role("radio", name=text_in("ru", "sure.3")).is_checked()
    assert form.get_by_role("group", name=text_in("ru", "widget.exercise.sure")).is_visible()
    form.screenshot(path=str(ARTIFACTS / "ru-forms-sure.png"))
    page.keyboard.press("Enter")
    form.get_by_text("вернётся завтра").wait_for()
    page.wait_for_function("(e) => !e.querySelector('input[type=radio]:checked')", arg=form.element_handle())
    [*_, last] = json.loads(kernel_store.read_text(encoding="utf-8"))["chapters"]["ch27"]["recurrent-vs-self"][
        "attempts"]
    assert (last["correct"], last["sure"], last["day"]) == (False, 3, os.environ["LLM_FROM_SCRATCH_TODAY"])
    assert page.locator(".jp-Notebook .jp-Cell").count() == 5, "no key reached the notebook's own commands"
    form.screenshot(path=str(ARTIFACTS / "ru-forms-sure-told.png"))
    assert not blocking(axe_audit(page, ".jp-OutputArea-output")), blocking(axe_audit(page, ".jp-OutputArea-output"))


def test_enter_in_the_answer_box_checks_and_a_new_answer_clears_the_old_feedback(page):
    placeholder = text_in("ru", "ex.output-shape.form")
    form = page.locator(".jp-OutputArea-output", has=page.locator(f"input[placeholder='{placeholder}']"))
    field = form.locator("input[type='text']")
    field.click()
    assert active(page, field)
    field.type("[4, 7, 5]", delay=60)  # as a person types: the box sends each change before the next
    field.press("Enter")
    form.locator("text=✔").wait_for()
    field.type("0", delay=60)
    page.wait_for_function("(n) => !n.querySelector('[role=status]')", arg=form.element_handle())
    field.press("Enter")
    form.locator("text=✘").wait_for()
    page.screenshot(path=str(ARTIFACTS / "ru-forms-text.png"))


def test_a_new_example_is_judged_on_its_own_inputs_and_counts_for_the_skill(page):
    placeholder = text_in("ru", "ex.output-shape.form")
    form = page.locator(".jp-OutputArea-output", has=page.locator(f"input[placeholder='{placeholder}']"))
    summary = page.locator(".jp-Cell").nth(3).locator(".jp-OutputArea-output")
    skill = text_in("ru", "skill.shapes")
    assert re.search(skill + r"\s+не освоен: засчитано 0 из 2", opened_text(summary))
    form.get_by_role("button", name=text_in("ru", "widget.exercise.new_example")).click()
    label = form.get_by_text(re.compile(r"Новый пример \d+"))
    label.wait_for()  # the kernel answers the click: the new task appears above the box
    n = int(re.search(r"Новый пример (\d+)", label.inner_text()).group(1))
    given = EXERCISE_BOOK.variant("output-shape", n)  # the kernel's learner is this session's: the same variant
    shapes = "×".join(map(str, given["query_shape"]))
    assert shapes in form.inner_text(), "the new example's inputs stand above the box"
    field = form.locator("input[type='text']")
    field.click()
    field.type(f"{given['query_shape'][0]}×{given['query_shape'][1]}×{given['value_shape'][2]}", delay=30)
    field.press("Enter")
    form.locator("text=✔").wait_for()
    form.screenshot(path=str(ARTIFACTS / "ru-forms-new-example.png"))
    run_cell(page, 3)
    page.wait_for_function("(node) => /засчитано 1 из 2/.test(node.textContent)", arg=summary.element_handle())
    assert re.search(skill + r"\s+не освоен: засчитано 1 из 2", opened_text(summary))


def opened_text(summary) -> str:
    """The progress summary's text as a learner reads it after opening its folded text (under the picture)."""
    folded = summary.locator("details", has_text=text_in("ru", "progress.figure.text"))
    if not folded.evaluate("(e) => e.open"):
        folded.locator("summary").click()
    return folded.inner_text()


TYPE_AND_CLICK = """([input, button, typed]) => {
    input.value = "";
    input.dispatchEvent(new Event("input", { bubbles: true }));
    for (const char of typed) {
        input.value += char;
        input.dispatchEvent(new Event("input", { bubbles: true }));
    }
    button.click();
}"""


def test_typing_and_clicking_at_once_judges_what_was_typed_twenty_times(page):
    """Type and click with no pause between (keystrokes and the click in one go, faster than any learner): each
    check judges the text in the box at the click, never an earlier one (the box sends its text with the click;
    its value, sent on each keystroke, reaches the kernel only after the kernel took the one before)."""
    placeholder = text_in("ru", "ex.scores.form")
    form = page.locator(".jp-OutputArea-output", has=page.locator(f"input[placeholder='{placeholder}']"))
    field = form.locator("input[type='text']")
    check = form.get_by_role("button", name=text_in("ru", "widget.exercise.check"))
    status = form.locator(".widget-html-content [role='status']")
    for i in range(20):
        right = i % 2 == 0
        typed = "[[0, 6], [6, -4]]" if right else "[[0, 6], [6, 4]]"
        page.evaluate(TYPE_AND_CLICK, [field.element_handle(), check.element_handle(), typed])
        mark, other = ("✔", "✘") if right else ("✘", "✔")
        status.filter(has_text=mark).wait_for()
        assert status.filter(has_text=other).count() == 0, f"check {i + 1}: {status.all_inner_texts()}"


def test_two_slips_are_told_one_by_one_and_the_last_hint_stops_short_inside_the_form(page):
    """An answer with two slips at once (the scores scaled, and by d_k) is told 1) … 2) … within the form's width;
    the hints, climbed to the top, end on one dot product written out, never the matrix."""
    placeholder = text_in("ru", "ex.scores.form")
    form = page.locator(".jp-OutputArea-output", has=page.locator(f"input[placeholder='{placeholder}']"))
    field = form.locator("input[type='text']")
    field.click()
    field.fill("")
    field.type("[[0, 3], [3, -2]]", delay=20)
    field.press("Enter")
    status = form.locator(".widget-html-content [role='status']").first
    status.filter(has_text="2)").wait_for()
    said = status.inner_text()
    assert said.startswith("✘") and "1)" in said and text_in("ru", "mis.scale-by-dk") in said, said
    assert status.evaluate("(e) => e.scrollWidth <= e.clientWidth + 1"), "the message wraps inside its box"
    assert status.bounding_box()["width"] <= form.bounding_box()["width"]
    hint = form.get_by_role("button", name=text_in("ru", "widget.exercise.hint"))
    for step in (1, 2, 3):
        hint.click()
        form.get_by_text(re.compile(rf"Подсказка {step} из 3")).wait_for()
    last = form.get_by_text(re.compile(r"Подсказка 3 из 3")).inner_text()
    assert "0·(−1) + 3·2" in last and "[[0,6], [6,-4]]" not in last, last
    form.screenshot(path=str(ARTIFACTS / "ru-forms-two-slips.png"))
