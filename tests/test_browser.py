"""Every chapter as a learner uses it: JupyterLab in a real Chromium, driven by Playwright.

Serves a temporary copy of the project; for each notebook of every chapter
runs all cells once in a fresh kernel, then, on that run:

- checks errors, figures and widgets, and saves a screenshot to artifacts/;
- audits the outputs with axe-core under WCAG 2 A/AA (the full report per
  notebook and a summary go to artifacts/axe/; a serious or critical violation
  fails): ``pytest tests/test_browser.py -k axe`` runs the audit alone;
- saves a greyscale screenshot of its first heatmap to artifacts/greyscale/;
- uses chapter 27's sliders, editor and an exercise form with the keyboard and
  the mouse, then walks the keyboard-only path (reach, answer, check, hint, reveal;
  focus visible, feedback announced, the notebook's own keys untouched) for a
  numbers and a choice exercise, the code exercise, both sliders and the editor.

Needs Debian's Chromium at /usr/bin/chromium (apt-get install -y chromium); nothing
is downloaded (axe-core is the copy axe-playwright-python bundles).
"""

from __future__ import annotations

import base64
import collections
import hashlib
import io
import json
import os
import pathlib
import re
import shutil
import statistics
import typing

import numpy as np
import pytest
from playwright.sync_api import expect
from support.browser import (
    CONSOLE_ERRORS,
    WCAG_TAGS,
    active_element,
    assert_clean,
    axe_audit,
    blocking,
    cell_index,
    close_notebook,
    code_cell_count,
    focus_is_visible,
    go_to_cell_by_keys,
    in_hidden_snapshot,
    jupyterlab,
    lab_page,
    notebook_state,
    open_and_run,
    report_figure,
    require_browser,
    run_cell,
    tab_to,
    wait_for_live_widgets,
)
from support.records import record

from llm_from_scratch.book.chapters import chapters
from llm_from_scratch.book.formatting import num, places, vector
from llm_from_scratch.book.progress import ENV as PROGRESS_ENV
from llm_from_scratch.book.progress import Store
from llm_from_scratch.book.widgets import SNAPSHOT_CLASS
from llm_from_scratch.ch27.evidence import run_head
from llm_from_scratch.ch27.examples import worked_arrays
from llm_from_scratch.ch27.exercises import EXERCISE_BOOK
from llm_from_scratch.ch27.widgets import KEY_WIDTHS, ScaleExplorer

text_in = EXERCISE_BOOK.strings.text_in  # the exercises' strings, over the chapter's and the book's

ROOT = pathlib.Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts"
AXE_REPORTS = ARTIFACTS / "axe"
GREYSCALE = ARTIFACTS / "greyscale"
NOTEBOOKS = [(chapter.name, lang, path) for chapter in chapters(ROOT)
             for lang in chapter.editions() for path in chapter.notebooks(lang)]
FRAME_ROLES = ("query", "key", "value", "score", "weight")

pytestmark = pytest.mark.browser  # every test drives JupyterLab in Chromium: no test of this module can be quick


@pytest.fixture(scope="module", autouse=True)
def browser_present():
    """Debian's Chromium, or a skip (a failure under CI=true), asked only where a browser test runs."""
    require_browser()


def numbered(*numbers: str):
    """Chapter 27's notebooks that begin with one of ``numbers`` (both editions)."""
    return pytest.mark.applies_to.with_args(
        lambda chapter, lang, path: chapter == "chapter27" and path.name[:2] in numbers)




def digest(paths) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}


class Lab(typing.NamedTuple):
    url: str
    token: str
    progress: pathlib.Path  # the progress store its kernels share


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server over a copy of the project; the committed notebooks must not change."""
    before = digest(path for *_, path in NOTEBOOKS)
    home = tmp_path_factory.mktemp("lab")
    served = home / "project"  # a copy of the project; config, settings and workspaces live beside it
    shutil.copytree(ROOT, served, ignore=shutil.ignore_patterns(
        ".git", ".venv", ".venv-*", "artifacts", "__pycache__", ".ipynb_checkpoints", ".pytest_cache", ".hypothesis",
        "*.egg-info"))
    with jupyterlab(served, home) as (url, token):
        yield Lab(url, token, pathlib.Path(os.environ[PROGRESS_ENV]))  # the module's store, which its kernels use
    assert digest(path for *_, path in NOTEBOOKS) == before, "the committed notebooks changed"


@pytest.fixture(scope="module")
def page(lab):
    """One JupyterLab page for all notebooks: each is opened, run, checked and closed in turn."""
    with lab_page(lab.url, lab.token) as page:
        yield page


class Opened:
    """A notebook open in the page after Run All in a fresh kernel, and the progress store its kernel uses."""

    def __init__(self, page, chapter: str, lang: str, path: pathlib.Path, progress: pathlib.Path) -> None:
        self.page, self.chapter, self.lang, self.path, self.progress = page, chapter, lang, path, progress
        self.name = path.name


@pytest.fixture(scope="module", params=NOTEBOOKS, ids=[f"{c}-{lang}-{p.name}" for c, lang, p in NOTEBOOKS])
def notebook(request, lab, page):
    """Each notebook is run once; pytest runs every test below that applies to it before the next one opens."""
    chapter, lang, path = request.param
    CONSOLE_ERRORS[page].clear()
    open_and_run(page, path.relative_to(ROOT).as_posix())
    yield Opened(page, chapter, lang, path, lab.progress)
    close_notebook(page)


def screenshot(page, lang: str, name: str, suffix: str = ""):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{lang}-{pathlib.Path(name).stem}{suffix}.png"), full_page=False)


def test_notebook_runs_cleanly_in_jupyterlab(notebook):
    """No error in an output, every figure and widget drawn, and no error in the page's console: every widget's
    module (the book's and the chapter's assets) loaded and rendered."""
    assert code_cell_count(notebook.page) > 0
    assert_clean(notebook.page, notebook.path)
    assert not CONSOLE_ERRORS[notebook.page], CONSOLE_ERRORS[notebook.page]
    screenshot(notebook.page, notebook.lang, notebook.name)


def test_no_answer_shows_before_an_attempt(notebook):
    """After Run All (which re-opens collapsed outputs), every folded answer is still closed."""
    wait_for_live_widgets(notebook.page, notebook.path)
    folded = notebook.page.locator(".jp-OutputArea-output details")
    for i in range(folded.count()):
        answer = folded.nth(i)
        if in_hidden_snapshot(answer):  # a snapshot's folded table, hidden with its snapshot
            continue
        answer.scroll_into_view_if_needed()
        assert not answer.evaluate("(d) => d.open"), f"{notebook.name}: folded answer {i} is open"
        assert not answer.locator("img, pre").first.is_visible(), f"{notebook.name}: answer {i} is visible"


@numbered("10")
def test_progress_from_another_kernel_shows_in_10s_summary(notebook):
    """An answer recorded by another process (a kernel of another notebook) is in 10's summary when it runs again
    (its text, folded under the picture: read as the page holds it)."""
    lang, page = notebook.lang, notebook.page
    cells = json.loads(notebook.path.read_text(encoding="utf-8"))["cells"]
    run = next(i for i, cell in enumerate(cells) if "".join(cell["source"]).strip() == "progress()")
    cell = page.locator(".jp-Cell").nth(run)
    title = text_in(lang, "ex.first-look.title")
    row = next(line for line in cell.text_content().splitlines() if line.startswith(title))
    before = int(re.findall(r"\d+", row)[-1])
    record(Store(notebook.progress), "ch27", "first-look", True)
    run_cell(page, run)
    said = [text_in(lang, "progress.right"), text_in(lang, "progress.attempts", attempts=before + 1)]
    page.wait_for_function("([node, title, said]) => node.textContent.split('\\n').some("
                           "(line) => line.startsWith(title) && said.every((s) => line.includes(s)))",
                           arg=[cell.element_handle(), title, said])


# --- axe-core --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def axe_summary():
    """Per notebook: violations and incomplete results by impact and rule (nodes); written out at the end."""
    summary: dict[str, dict] = {}
    yield summary
    if not summary:
        return
    totals: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for key, counts in summary.items():
        for rule, nodes in counts["violations"].items():
            totals[key.split("-", 1)[0]][rule] += nodes
    by_edition = {lang: dict(sorted(counts.items())) for lang, counts in totals.items()}
    report = {"tags": list(WCAG_TAGS), "scope": ".jp-OutputArea", "axe": next(iter(summary.values()))["axe"],
              "violations by edition (impact rule: nodes)": by_edition, "notebooks": summary}
    AXE_REPORTS.mkdir(parents=True, exist_ok=True)
    (AXE_REPORTS / "summary.json").write_text(json.dumps(report, indent=1, ensure_ascii=False), encoding="utf-8")


def test_outputs_pass_the_axe_audit(notebook, axe_summary):
    """axe-core over the notebook's outputs and the widgets in them: no serious or critical WCAG 2 A/AA violation."""
    page = notebook.page
    assert_clean(page, notebook.path)  # every figure and widget is drawn (also when this test runs alone)
    page.wait_for_timeout(300)  # the live widgets' marks (lang) are set on the next animation frame
    result = axe_audit(page)
    AXE_REPORTS.mkdir(parents=True, exist_ok=True)
    key = f"{notebook.lang}-{notebook.path.stem}"
    (AXE_REPORTS / f"{key}.json").write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")

    def counts(kind: str) -> dict[str, int]:
        return {f"{r['impact']} {r['id']}": len(r["nodes"]) for r in result[kind]}

    axe_summary[key] = {"axe": result["testEngine"]["version"], "violations": counts("violations"),
                        "incomplete": counts("incomplete"), "passes": len(result["passes"])}
    assert result["passes"], "axe-core checked nothing: the outputs were not found"
    assert not blocking(result), f"{notebook.name}: " + "\n".join(blocking(result))


# --- greyscale -------------------------------------------------------------------------

def frame_captions(lang: str) -> list[str]:
    return [text_in(lang, f"figure.frame.{role}") for role in FRAME_ROLES]


def stores_a_shown_heatmap(chapter: str, lang: str, path: pathlib.Path) -> bool:
    """Whether a stored output outside a widget's snapshot (which its live widget hides) is a heatmap."""
    outputs = [output.get("data", {}) for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]
               for output in cell.get("outputs", [])]
    return any(any(c in "".join(data.get("image/svg+xml", "")) for c in frame_captions(lang))
               and SNAPSHOT_CLASS not in "".join(data.get("text/html", "")) for data in outputs)


@pytest.mark.applies_to.with_args(stores_a_shown_heatmap)
def test_the_first_heatmap_reads_in_greyscale(notebook):
    """A greyscale screenshot of the notebook's first heatmap (a figure with a role's frame caption) for review."""
    page, lang = notebook.page, notebook.lang
    wait_for_live_widgets(page, notebook.path)  # a snapshot hidden by its widget is not the one a reader sees
    captions = frame_captions(lang)
    images = page.locator(".jp-OutputArea-output img[src^='data:image/svg+xml;base64,']")
    sources = images.evaluate_all("(images) => images.map(i => i.getAttribute('src').split(',')[1])")
    heatmaps = [i for i, data in enumerate(sources) if any(c in base64.b64decode(data).decode() for c in captions)
                and not in_hidden_snapshot(images.nth(i))]
    assert heatmaps, "a heatmap the reader sees"
    image = images.nth(heatmaps[0])
    # a folded answer's figure shows once the reader opens it, as after answering
    image.evaluate("(i) => { const folded = i.closest('details'); if (folded) folded.open = true; }")
    image.scroll_into_view_if_needed()
    GREYSCALE.mkdir(parents=True, exist_ok=True)
    target = GREYSCALE / f"{lang}-{notebook.path.stem}-heatmap.png"
    page.evaluate("() => { document.documentElement.style.filter = 'grayscale(1)'; }")
    try:
        image.screenshot(path=str(target))
    finally:
        page.evaluate("() => { document.documentElement.style.filter = ''; }")
    from PIL import Image

    pixels = np.asarray(Image.open(io.BytesIO(target.read_bytes())).convert("RGB"), dtype=np.int16)
    assert np.abs(np.diff(pixels, axis=-1)).max() <= 2, "the screenshot is grey only"
    assert np.ptp(pixels) > 150, "dark and light both appear"


# --- the mouse and the keys on chapter 27's widgets --------------------------------------

@pytest.mark.applies_to.with_args(lambda chapter, lang, path: SNAPSHOT_CLASS in path.read_text(encoding="utf-8"))
def test_a_snapshot_gives_way_to_its_live_widget(notebook):
    """After Run All each widget cell shows its live widget only: the stored snapshot above it is hidden."""
    page = notebook.page
    assert page.locator(f".{SNAPSHOT_CLASS}").count() > 0
    wait_for_live_widgets(page, notebook.path)
    shown = page.evaluate("() => [...document.querySelectorAll('.llm-snapshot')].filter((s) => s.offsetParent)"
                          ".map((s) => s.textContent.slice(0, 80))")
    assert not shown, f"{notebook.name}: snapshots still beside their live widgets: {shown}"


@numbered("03", "04", "08", "11")
def test_widgets_answer_the_mouse_and_the_keys(notebook):
    page, lang, name = notebook.page, notebook.lang, notebook.name
    if name.startswith("04_"):
        check_scale_slider(page, lang)
        screenshot(page, lang, name, "-scale-slider")
        check_width_slider(page, lang)
        screenshot(page, lang, name, "-dk-slider")
        report_slider_steps(explorer_steps(page, lang), lang)
    if name.startswith("11_"):
        report_slider_steps(block_size_steps(page, lang), lang)
    if name.startswith("08_"):
        check_head_editor(page)
        screenshot(page, lang, name, "-editor")
    if name.startswith("03_"):
        check_exercise_form(page, lang)
        screenshot(page, lang, name, "-exercise")


def widget_html(page, marker: str):
    """The live HTML widget whose text contains ``marker``."""
    return page.locator(".widget-html-content", has_text=marker).last


def slider(page, label: str):
    """The live slider labelled ``label``: its range input and its readout."""
    box = page.locator(".llm-slider", has=page.locator("label", has_text=label))
    return box.locator("input[type='range']"), box.locator("output")


def wait_for_widget_text(page, text: str):
    """The kernel answers each change in turn: wait for the answer to the last one."""
    page.wait_for_function("(text) => [...document.querySelectorAll('.widget-html-content')]"
                           ".some(e => e.innerText.includes(text))", arg=text)


def check_scale_slider(page, lang: str):
    handle, readout = slider(page, text_in(lang, "widget.scale.slider"))
    pair_prefix = text_in(lang, "widget.scale.pair", factor="").split(":")[0]
    numbers = widget_html(page, pair_prefix)
    figure = page.locator(".widget-html-content:has(svg)").filter(has_text="softmax").last
    before_numbers, before_figure = numbers.inner_text(), figure.inner_html()
    # the live slider opens on exactly 1/sqrt(d_k), with the chapter's weights (no snapping to 0.71)
    assert readout.inner_text().strip() == "0.707"
    assert handle.get_attribute("aria-valuetext") == "0.707"
    assert "A_0,: = [0.014166,0.985834]" in before_numbers, before_numbers
    # from exactly 1 (the button), five arrow steps of 0.05 land on the step grid at 1.25
    page.locator("button", has_text=text_in(lang, "widget.scale.to_one")).click()
    wait_for_widget_text(page, text_in(lang, "widget.scale.pair", factor="1.00").strip())
    handle.focus()
    for _ in range(5):
        handle.press("ArrowRight")
    value = readout.inner_text().strip()
    wait_for_widget_text(page, text_in(lang, "widget.scale.pair", factor=value).strip())
    factor = float(value)
    assert factor == pytest.approx(1.25), "five steps of 0.05 from 1"
    assert numbers.inner_text() != before_numbers
    state = ScaleExplorer().state_for(factor)
    shown = numbers.inner_text()
    for i, row in enumerate(state.weights):
        assert f"A_{i},: = {vector(row)}" in shown, shown
    assert figure.inner_html() != before_figure
    assert f"{factor:.2f}" in figure.inner_html()


def check_width_slider(page, lang: str):
    handle, readout = slider(page, text_in(lang, "widget.width.slider"))
    numbers = widget_html(page, "d_k = ")
    row = page.locator(".widget-html-content:has(svg)").filter(
        has_text=text_in(lang, "widget.width.row_title", key_width=64)).last
    before = row.inner_html()
    handle.focus()
    handle.press("ArrowRight")
    wait_for_widget_text(page, "d_k = 128:")
    assert readout.inner_text().strip() == "128"
    assert "d_k = 128" in numbers.inner_text()
    changed = page.locator(".widget-html-content:has(svg)").filter(
        has_text=text_in(lang, "widget.width.row_title", key_width=128)).last
    assert changed.inner_html() != before, "the row under the slider is the new width's"
    slider_box = page.locator(".llm-slider", has=page.locator("label", has_text=text_in(lang, "widget.width.slider")))
    gap = changed.bounding_box()["y"] - (slider_box.bounding_box()["y"] + slider_box.bounding_box()["height"])
    assert 0 <= gap < 40, f"the figure the slider changes stands right under it ({gap:.0f} px)"


STEP_MEDIAN_MS, STEP_WORST_MS = 100, 250  # issue 25's bounds for a slider step, kernel round trip included
STEP_CLOCK = """() => {  // in the page: when the last key went down
    window.stepClock = 0;
    document.addEventListener("keydown", () => { window.stepClock = performance.now(); }, true);
}"""


def step_times(page, label: str, keys: list[str], settled_text) -> list[float]:
    """Press each key on the slider ``label``; the milliseconds, by the page's own clock, from the key going down
    to the explorer's numbers showing ``settled_text(new value)`` (its figure is redrawn before its numbers)."""
    handle, readout = slider(page, label)
    handle.focus()
    times = []
    for key in keys:
        handle.press(key)
        settled = settled_text(readout.inner_text().strip())
        times.append(page.wait_for_function(
            "(text) => [...document.querySelectorAll('.widget-html-content')].some(e => e.textContent.includes(text))"
            " && performance.now() - window.stepClock", arg=settled).json_value())  # textContent: no layout
    return times


def report_slider_steps(steps: dict[str, list[float]], lang: str) -> None:
    """Each slider's median and worst step, printed with a verdict against the bounds."""
    for name, times in steps.items():
        median, worst = statistics.median(times), max(times)
        verdict = "within" if median <= STEP_MEDIAN_MS and worst <= STEP_WORST_MS else "OVER"
        report_figure(f"{lang} slider {name}: median {median:.1f} ms, worst {worst:.1f} ms over {len(times)} steps "
                      f"({verdict} the bounds of {STEP_MEDIAN_MS} ms median, {STEP_WORST_MS} ms worst)")


def explorer_steps(page, lang: str) -> dict[str, list[float]]:
    """20 steps of each of 04's sliders."""
    page.evaluate(STEP_CLOCK)
    return {"scale": step_times(page, text_in(lang, "widget.scale.slider"), ["ArrowRight"] * 10 + ["ArrowLeft"] * 10,
                                lambda value: text_in(lang, "widget.scale.pair", factor=value).strip()),
            "d_k": step_times(page, text_in(lang, "widget.width.slider"),
                              ["Home"] + ["ArrowRight"] * 10 + ["ArrowLeft"] * 9, lambda value: f"d_k = {value}:")}


def block_size_steps(page, lang: str) -> dict[str, list[float]]:
    """20 steps of 11's block size slider, across its six sizes and back."""
    page.evaluate(STEP_CLOCK)
    said = lambda value: text_in(lang, "cost.block.numbers", block=value, ms="\0", peak="", record="").split("\0")[0]  # noqa: E731
    keys = ["Home"] + (["ArrowRight"] * 5 + ["ArrowLeft"] * 5) * 2
    return {"block size": step_times(page, text_in(lang, "cost.block.slider"), keys[:20], said)}


def check_head_editor(page):
    field = page.locator(".widget-text", has_text="Q[0,0]").locator("input")
    field.fill("1")
    field.press("Tab")
    q, k, v = worked_arrays()
    q[0, 0, 0] = 1.0
    run = run_head(q, k, v)
    wait_for_widget_text(page, f"o_0 = {vector(run.output[0, 0])}")
    view = page.locator(".widget-html-content", has_text=f"o_0 = {vector(run.output[0, 0])}").last
    scores = run.head.raw_scores.data[0]
    scores_row = "\t".join(num(x, places(scores)) for x in scores[0])
    assert scores_row in view.inner_text(), "the scores did not follow the edit"
    marked = view.locator("mark").all_inner_texts()
    assert marked[:2] == ["3", "5"], f"q_0's scores changed from 0, 6 to 3, 5 and are marked first: {marked}"
    other = page.locator(".widget-text", has_text="K[1,0]").locator("input")
    other.fill("abc")
    other.press("Tab")
    note = page.locator(".widget-vbox", has=page.locator(".widget-text", has_text="K[1,0]")).last
    note.get_by_role("status").wait_for()
    assert "abc" in note.get_by_role("status").inner_text(), "the unreadable entry is told beside its field"
    other.fill("-1")
    other.press("Tab")
    note.get_by_role("status").wait_for(state="detached")


ANSWERED: set[str] = set()  # progress lasts across kernels: the next edition finds this module's attempts
HINTS_TAKEN: list[str] = []


FOLDED = "() => document.querySelectorAll('.jp-OutputArea details.llm-folded:not([open])').length"  # answers folded


def check_exercise_form(page, lang: str):
    placeholder = text_in(lang, "ex.output-shape.form")
    box = page.locator(".widget-box", has=page.locator(f"input[placeholder='{placeholder}']")).last
    field = box.locator("input[type='text']")
    check = box.locator("button", has_text=text_in(lang, "widget.exercise.check"))
    reveal = box.locator("button", has_text=text_in(lang, "widget.exercise.reveal"))
    assert reveal.is_disabled() == ("output-shape" not in ANSWERED)
    field.fill("[4, 7, 7]")
    check.click()
    box.locator("text=[B, T, T]").wait_for()  # the named mistake: the weights' shape given for the output's
    ANSWERED.add("output-shape")
    assert not reveal.is_disabled()
    box.locator("button", has_text=text_in(lang, "widget.exercise.hint")).click()
    HINTS_TAKEN.append(lang)  # hints last in the store too: the next edition's form gives the next step
    step = text_in(lang, "hint.step", step=min(len(HINTS_TAKEN), 3), steps=3, hint="").rstrip(": ")
    box.locator(f"text={step}").wait_for()
    field.fill("[4, 7, 5]")
    check.click()
    box.locator("text=✔").wait_for()
    folded = page.evaluate(FOLDED)
    reveal.click()
    box.locator(f"text={text_in(lang, 'reveal.answer', answer='[4,7,5]')}").wait_for()
    assert re.search(r"O = AV", box.inner_text())
    page.wait_for_function(f"(n) => ({FOLDED})() === n - 1", arg=folded)  # it opened the folded answer below


# --- the keyboard alone ------------------------------------------------------------------

KEYBOARD_PATHS = {"01": "numbers", "03": "choice", "04": "sliders", "06": "code", "08": "editor"}


@numbered(*KEYBOARD_PATHS)
def test_the_keyboard_alone_reaches_answers_checks_and_reveals(notebook):
    """From the top of the notebook in command mode, keys only: arrows to the cell, Tab into its widget, type,
    Enter or the control's own keys; the focused control shows its focus, feedback is a status region,
    and no key reaches JupyterLab's notebook commands (no cell added, the active cell stays)."""
    path = KEYBOARD_PATHS[notebook.name[:2]]
    {"numbers": keyboard_numbers, "choice": keyboard_choice, "sliders": keyboard_sliders, "code": keyboard_code,
     "editor": keyboard_editor}[path](notebook.page, notebook.lang)


def assert_language(page, locator, lang: str):
    found = locator.evaluate("(e) => e.closest('[lang]')?.getAttribute('lang')")
    assert found == lang, f"marked lang={found!r}, not {lang!r}"


def assert_focus_visible(page, what: str):
    assert focus_is_visible(page), f"{what}: no outline or box shadow when focused: {active_element(page)}"


def answer_form_by_keys(page, lang: str, cell_marker: str, answer: str):
    """Arrows to the exercise's cell, Tab to its answer box, type, Enter; Tab past the levels of how sure (one stop:
    a group of radio buttons, its focus shown) and «Check» to «Hint», Enter; Tab to «Show answer», Enter."""
    index = cell_index(page, cell_marker)
    go_to_cell_by_keys(page, index)
    before = notebook_state(page)
    output = page.locator(".jp-Notebook .jp-Cell").nth(index).locator(".jp-OutputArea")
    box = output.locator(".llm-live input[type='text']")
    tab_to(page, "(e, box) => e === box", arg=box.element_handle(), limit=4)
    assert_focus_visible(page, "the answer box")
    assert_language(page, box, lang)
    page.keyboard.type(answer)
    page.keyboard.press("Enter")
    feedback = output.locator(".llm-live [role='status']").first
    # a choice's form shows its prompt before any answer: wait until the verdict replaces it
    expect(feedback).to_have_text(re.compile(r"^[✔✘]"))
    assert feedback.get_attribute("lang") == lang
    check, hint, reveal = (text_in(lang, f"widget.exercise.{b}") for b in ("check", "hint", "reveal"))
    button = "(e, text) => e.tagName === 'BUTTON' && e.innerText.trim() === text"
    passed = tab_to(page, button, arg=hint, limit=4)
    assert [p["type"] if p["type"] == "radio" else p["text"] for p in passed] == ["radio", check, hint], passed
    assert passed[0]["outline"] or passed[0]["shadow"], f"the levels show no focus: {passed[0]}"
    assert_focus_visible(page, "the hint button")
    page.keyboard.press("Enter")
    output.locator(".llm-live [role='status']").nth(1).wait_for()  # the hint
    assert [p["text"] for p in tab_to(page, button, arg=reveal, limit=1)] == [reveal]
    assert_focus_visible(page, "the reveal button")
    page.keyboard.press("Enter")
    output.locator(".llm-live [role='status']").nth(2).wait_for()
    after = notebook_state(page)
    assert (after["cells"], after["active"]) == (before["cells"], before["active"]), "a key reached the notebook"
    # the answered form (feedback and solution shown) passes the audit too
    output.evaluate("(e) => e.setAttribute('data-audit', 'form')")
    assert not blocking(axe_audit(page, "[data-audit='form']"))
    return output


def keyboard_numbers(page, lang: str):
    answer_form_by_keys(page, lang, 'exercise("first-look")', "[0, 1]")


def keyboard_choice(page, lang: str):
    output = answer_form_by_keys(page, lang, 'exercise("row-normalization")', "b")
    selected = output.locator("select").evaluate("(e) => e.selectedIndex")
    assert selected == 1, "the letter typed in the box selected its option"


def keyboard_sliders(page, lang: str):
    for marker, label, keys, expected in (
        ("WidthExplorer()", text_in(lang, "widget.width.slider"),
         ["End", "Home", "ArrowRight", "ArrowUp"], str(KEY_WIDTHS[2])),
        ("ScaleExplorer()", text_in(lang, "widget.scale.slider"), ["Home", "PageUp", "ArrowRight"], None),
    ):
        index = cell_index(page, marker)
        go_to_cell_by_keys(page, index)
        before = notebook_state(page)
        handle, readout = slider(page, label)
        tab_to(page, "(e, handle) => e === handle", arg=handle.element_handle(), limit=3)
        assert_focus_visible(page, f"the slider {label}")
        assert_language(page, handle, lang)
        name = handle.evaluate("(e) => [...e.labels].map(l => l.innerText).join(' ')")
        assert name == label, "the slider is named by its label"
        for key in keys:
            start = readout.inner_text()
            page.keyboard.press(key)
            page.wait_for_function("([e, start]) => e.innerText !== start", arg=[readout.element_handle(), start])
            shown = readout.inner_text().strip()
            assert handle.get_attribute("aria-valuetext") == shown
        if expected:
            assert readout.inner_text().strip() == expected, "End, Home, then two steps up"
            wait_for_widget_text(page, f"d_k = {expected}:")
        else:
            value = readout.inner_text().strip()
            assert 0 < float(value) < 1, "Home is 0, Page Up and an arrow step up from it"
            wait_for_widget_text(page, text_in(lang, "widget.scale.pair", factor=value).strip())
        after = notebook_state(page)
        assert (after["cells"], after["active"]) == (before["cells"], before["active"]), "a key reached the notebook"


def keyboard_editor(page, lang: str):
    index = cell_index(page, "HeadEditor()")
    go_to_cell_by_keys(page, index)
    before = notebook_state(page)
    field = page.locator(".widget-text", has_text="Q[0,1]").locator("input")
    tab_to(page, "(e, field) => e === field", arg=field.element_handle(), limit=4)
    assert_focus_visible(page, "the Q[0,1] field")
    assert_language(page, field, lang)
    page.keyboard.press("Control+a")
    page.keyboard.type("2,5")  # a decimal comma, as a Russian learner writes 2.5
    page.keyboard.press("Tab")
    # the other fields as they stand (the mouse test before may have changed Q[0,0])
    fields = page.locator(".jp-Notebook .jp-Cell").nth(index).locator(".widget-text input")
    typed = fields.evaluate_all("(es) => es.map(e => e.value.replace(',', '.'))")
    q, k, v = np.array([float(x) for x in typed]).reshape(3, 1, 2, 2)
    run = run_head(q, k, v)
    wait_for_widget_text(page, f"o_0 = {vector(run.output[0, 0])}")
    reset = text_in(lang, "widget.editor.reset")
    tab_to(page, "(e, text) => e.tagName === 'BUTTON' && e.innerText.trim() === text", arg=reset, limit=12)
    assert_focus_visible(page, "the reset button")
    page.keyboard.press("Enter")
    run = run_head(*worked_arrays())
    wait_for_widget_text(page, f"o_0 = {vector(run.output[0, 0])}")
    after = notebook_state(page)
    assert (after["cells"], after["active"]) == (before["cells"], before["active"]), "a key reached the notebook"


RIGHT_HEAD = ("def my_head(q, k, v): s = q @ k.swapaxes(-1, -2) / q.shape[-1] ** 0.5; "
              "e = np.exp(s - s.max(-1, keepdims=True)); return e / e.sum(-1, keepdims=True) @ v")
UNSCALED_HEAD = ("def my_head(q, k, v): s = q @ k.swapaxes(-1, -2); "
                 "e = np.exp(s - s.max(-1, keepdims=True)); return e / e.sum(-1, keepdims=True) @ v")


def keyboard_code(page, lang: str):
    """The learner's cell: Enter edits it, the head is typed, Shift+Enter runs it; a missing scale is
    diagnosed, the right head passes, and Shift+Enter on the next cell reveals the solution."""
    index = cell_index(page, "def my_head")
    cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
    missing_scale = text_in(lang, "slip.missing-scale").split(".")[0]
    for head, expected in ((UNSCALED_HEAD, missing_scale), (RIGHT_HEAD, "✔")):
        go_to_cell_by_keys(page, index)
        page.keyboard.press("Enter")
        assert notebook_state(page)["mode"] == "edit"
        page.keyboard.press("Control+a")
        page.keyboard.type(head)
        page.keyboard.press("Enter")
        # CodeMirror may indent the new line after a one-line def (JupyterLab 4.1 does): take the indent back
        while page.evaluate("(i) => window.jupyterapp.shell.currentWidget.content.widgets[i].model.sharedModel"
                            ".source.endsWith(' ')", index):
            page.keyboard.press("Backspace")
        page.keyboard.type('check_code("write-head", my_head)')
        page.keyboard.press("Shift+Enter")
        cell.locator(".jp-OutputArea [role='status']", has_text=expected).wait_for()
    status = cell.locator(".jp-OutputArea [role='status']")
    assert status.count() == 1 and status.get_attribute("lang") == lang
    assert notebook_state(page)["active"] == index + 1, "Shift+Enter moved on to the reveal cell"
    page.keyboard.press("Shift+Enter")
    solution = page.locator(".jp-Notebook .jp-Cell").nth(index + 1).locator(".jp-OutputArea [role='status']")
    solution.wait_for()
    assert text_in(lang, "ex.write-head.answer") in solution.inner_text()


# --- a learner's own edit: what the page then says is what the cells computed ---------------------------------------

@numbered("02")
def test_a_chained_scale_typed_in_jupyterlab_is_titled_and_noted_as_computed(notebook):
    """A learner chains a second number onto the scale and runs S's cell and A's fold again: S's title writes the
    whole formula and says it is not the head's; the note under A's fold says the chain in all, computed here."""
    page, lang = notebook.page, notebook.lang
    chained = "S = scores / math.sqrt(d_k) / 0.5"
    at = cell_index(page, "S = scores / math.sqrt(d_k)")
    page.evaluate("([i, source]) => { const cell = window.jupyterapp.shell.currentWidget.content.widgets[i];"
                  " const text = cell.model.sharedModel.source;"
                  " cell.model.sharedModel.source = text.replace('S = scores / math.sqrt(d_k)', source); }",
                  [at, chained])
    fold = cell_index(page, 'show_folded(A, "weights"')
    for index in (at, fold):
        run_cell(page, index)
    title = text_in(lang, "figure.computed", formula="QKᵀ/√2/0.5", name=text_in(lang, "figure.scaled_name"))
    scaled = page.locator(".jp-Notebook .jp-Cell").nth(at).locator(f'img[alt^="{title}"]')
    scaled.wait_for()
    note = text_in(lang, "read.in_all", factor=f"{1 / np.sqrt(2) / 0.5:.4f}", scale=f"{1 / np.sqrt(2):.4f}")
    folded = page.locator(".jp-Notebook .jp-Cell").nth(fold).locator("[role='note']")
    folded.wait_for()
    assert note in folded.inner_text() and "QKᵀ/√2/0.5" in folded.inner_text()
    folded.scroll_into_view_if_needed()
    screenshot(page, lang, notebook.name, "-chained-scale")
    page.evaluate("([i, source]) => { const cell = window.jupyterapp.shell.currentWidget.content.widgets[i];"
                  " cell.model.sharedModel.source = cell.model.sharedModel.source.replace(source,"
                  " 'S = scores / math.sqrt(d_k)'); }", [at, chained])
    for index in (at, fold):
        run_cell(page, index)  # the chapter's cells again, for the tests that follow on this notebook


# --- practice by skill (last: it changes 10's review, which the checks above compare with the stored one) ---

@numbered("10")
def test_a_fresh_example_answered_in_10s_review_counts_for_its_skill(notebook):
    """10 opens with a fresh example per skill not mastered: the shape's, answered right, counts one more (both
    editions share this module's progress, so the second edition takes the skill from 1 of 2 to mastered)."""
    page, lang = notebook.page, notebook.lang
    run = cell_index(page, "review()")
    review = page.locator(".jp-Cell").nth(run).locator(".jp-OutputArea")

    def counted(k: int) -> str:
        return text_in(lang, "review.skill", skill=text_in(lang, "skill.shapes"), first_right=k, required=2)

    before = next(k for k in (0, 1) if counted(k) in review.inner_text())
    title = text_in(lang, "widget.exercise.title", title=text_in(lang, "ex.output-shape.title"))
    label = re.escape(text_in(lang, "widget.exercise.variant", n=0)).replace("0", r"(\d+)")
    n = int(re.search(re.escape(title) + r"\s*" + label, review.inner_text()).group(1))
    given = EXERCISE_BOOK.variant("output-shape", n)  # the kernel's learner is this session's: the same variant
    assert "×".join(map(str, given["query_shape"])) in review.inner_text()
    field = review.locator(f"input[placeholder='{text_in(lang, 'ex.output-shape.form')}']")
    field.scroll_into_view_if_needed()
    field.click()
    field.type(f"{given['query_shape'][0]} {given['query_shape'][1]} {given['value_shape'][2]}", delay=30)
    field.press("Enter")
    review.locator("text=✔").wait_for()
    screenshot(page, lang, notebook.name, "-practice")
    run_cell(page, run)
    if before == 0:
        page.wait_for_function("([node, said]) => node.innerText.includes(said)",
                               arg=[review.element_handle(), counted(1)])
    else:  # mastered: the skill leaves the review
        page.wait_for_function("([node, said]) => !node.innerText.includes(said) && node.innerText.length > 0",
                               arg=[review.element_handle(), counted(1)])
        assert text_in(lang, "skill.shapes") not in review.inner_text()
