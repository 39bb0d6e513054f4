"""The chapter as a learner uses it: JupyterLab in a real Chromium, driven by Playwright.

Starts JupyterLab on 127.0.0.1 (free port, random token, its own config, settings and
workspace folders) over a temporary copy of the project; for each notebook restarts
the kernel and runs all cells, then checks errors, figures and widgets, and saves a
screenshot to artifacts/. Needs Debian's Chromium at /usr/bin/chromium
(apt-get install -y chromium); nothing is downloaded.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from llm_from_scratch.ch27.evidence import run_head, worked_inputs
from llm_from_scratch.ch27.formatting import vector
from llm_from_scratch.ch27.text import text_in
from llm_from_scratch.ch27.widgets import ScaleExplorer

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHROMIUM = pathlib.Path("/usr/bin/chromium")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--disable-quic"]
ARTIFACTS = ROOT / "artifacts"
EDITIONS = {"ru": "chapter27", "en": "chapter27/en"}
NOTEBOOKS = [(lang, path) for lang, folder in EDITIONS.items()
             for path in sorted((ROOT / folder).glob("[0-9][0-9]_*.ipynb"))]

if not CHROMIUM.exists():
    message = "no Chromium at /usr/bin/chromium: install it with `apt-get update && apt-get install -y chromium`"
    if os.environ.get("CI") == "true":
        pytest.fail(message, pytrace=False)
    pytest.skip(message, allow_module_level=True)

playwright = pytest.importorskip("playwright.sync_api")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def digest(paths) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A JupyterLab server over a copy of the project; stopped whatever happens."""
    before = digest(path for _, path in NOTEBOOKS)
    home = tmp_path_factory.mktemp("lab")
    served = home / "project"  # a copy of the project; config, settings and workspaces live beside it
    shutil.copytree(ROOT, served, ignore=shutil.ignore_patterns(
        ".git", ".venv", "artifacts", "__pycache__", ".ipynb_checkpoints", ".pytest_cache", ".hypothesis",
        "*.egg-info"))
    settings = home / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    # render every cell (no windowing), so outputs far down the page exist in the DOM
    (settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    # no news or update checks: there is no network, and the pop-up would cover the page
    apputils = home / "settings" / "@jupyterlab" / "apputils-extension"
    apputils.mkdir(parents=True)
    (apputils / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    port, token = free_port(), secrets.token_hex(16)
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(home / "config"), "JUPYTER_DATA_DIR": str(home / "data"),
           "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
           "JUPYTER_ALLOW_INSECURE_WRITES": "1"}
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={served}",
         f"--LabApp.user_settings_dir={home / 'settings'}", f"--LabApp.workspaces_dir={home / 'workspaces'}",
         "--LabApp.expose_app_in_browser=True", "--ServerApp.allow_root=True"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2)
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("JupyterLab did not start") from None
                time.sleep(0.3)
        yield url, token
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        assert digest(path for _, path in NOTEBOOKS) == before, "the committed notebooks changed"


@pytest.fixture(scope="module")
def page(lab):
    """One JupyterLab page for all notebooks: each is opened, run, checked and closed in turn."""
    url, token = lab
    with playwright.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS, headless=True)
        try:
            page = chromium.new_page(viewport={"width": 1280, "height": 1000})
            page.goto(f"{url}/lab?token={token}&reset")
            page.wait_for_function("() => window.jupyterapp", timeout=60_000)
            page.evaluate("() => window.jupyterapp.restored")  # commands before this are lost
            yield page
        finally:
            chromium.close()


def open_and_run(page, relative: str) -> None:
    """Open a notebook, restart its kernel, run all cells and wait until every cell has run."""
    page.set_default_timeout(60_000)
    page.evaluate("(path) => { window.jupyterapp.commands.execute('docmanager:open', {path}); }", relative)
    page.wait_for_function("""(path) => {
        const panel = window.jupyterapp.shell.currentWidget;
        return panel && panel.context && panel.context.path === path && panel.content.widgets.length > 0
            && panel.sessionContext.session?.kernel?.status === 'idle';
    }""", arg=relative)
    # clear the stored counts first, or the wait below could pass on them while the kernel is restarting
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
    page.wait_for_function("() => window.jupyterapp.shell.currentWidget.content.widgets"
                           ".every(c => c.model.type !== 'code' || c.model.executionCount === null)")
    # do not await the command: it resolves only after the confirmation dialog is accepted
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:restart-run-all'); }")
    page.click(".jp-Dialog .jp-mod-accept")
    page.wait_for_function("""() => {
        const panel = window.jupyterapp.shell.currentWidget;
        const cells = panel.content.widgets.filter(c => c.model.type === 'code' && c.model.sharedModel.source.trim());
        return panel.sessionContext.session.kernel.status === 'idle'
            && cells.every(c => c.model.executionCount !== null && c.promptNode.textContent.trim() !== '[*]:');
    }""", timeout=120_000)
    page.set_default_timeout(20_000)  # widgets answer within milliseconds; a broken one fails soon


def close_notebook(page) -> None:
    """Close the notebook without saving the copy's new outputs, then shut its kernel down."""
    page.evaluate("""async () => {
        const app = window.jupyterapp;
        const panel = app.shell.currentWidget;
        const id = panel.sessionContext.session?.id;
        panel.context.model.dirty = false;
        panel.dispose();
        if (id) {
            try { await app.serviceManager.sessions.shutdown(id); } catch (error) { /* already gone */ }
        }
    }""")
    page.wait_for_function("() => document.querySelectorAll('.jp-NotebookPanel').length === 0")


def code_cell_count(page) -> int:
    return page.evaluate("() => window.jupyterapp.shell.currentWidget.content.widgets"
                         ".filter(c => c.model.type === 'code').length")


def assert_clean(page, path: pathlib.Path):
    name = path.name
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.error']")
    assert errors.count() == 0, f"{name}: {errors.first.inner_text()[:500]}"
    assert "Traceback" not in page.locator(".jp-Notebook").inner_text(), f"{name}: a traceback is shown"
    stored = json.loads(path.read_text(encoding="utf-8"))
    svg_count = sum(1 for c in stored["cells"] for o in c.get("outputs", []) if "image/svg+xml" in o.get("data", {}))
    figures = page.locator(".jp-RenderedSVG, .jp-RenderedImage")
    if svg_count:
        figures.nth(svg_count - 1).wait_for(state="attached")
    assert figures.count() >= svg_count, f"{name}: {figures.count()} of {svg_count} figures rendered"
    for i in range(figures.count()):
        figures.nth(i).scroll_into_view_if_needed()
        box = figures.nth(i).bounding_box()
        assert box and box["width"] > 50 and box["height"] > 50, f"{name}: figure {i} is not visible"
    html_outputs = sum(1 for c in stored["cells"] for o in c.get("outputs", []) if "text/html" in o.get("data", {}))
    rendered_html = page.locator(".jp-OutputArea-output.jp-RenderedHTMLCommon")
    if html_outputs:
        rendered_html.nth(html_outputs - 1).wait_for(state="attached")
    assert rendered_html.count() == html_outputs, f"{name}: {rendered_html.count()} of {html_outputs} HTML outputs"
    for i in range(html_outputs):
        rendered_html.nth(i).scroll_into_view_if_needed()
        assert rendered_html.nth(i).is_visible() and rendered_html.nth(i).inner_text().strip(), f"{name}: HTML {i}"
    # every live widget output renders a view (views appear asynchronously, so wait for them)
    views = page.locator(".jp-OutputArea-output > .jupyter-widgets")
    expected_views = sum(1 for c in stored["cells"] for o in c.get("outputs", [])
                         if "application/vnd.jupyter.widget-view+json" in o.get("data", {}))
    if expected_views:
        views.nth(expected_views - 1).wait_for()
        assert views.count() == expected_views, f"{name}: {views.count()} of {expected_views} widgets rendered"
        assert "Error displaying widget" not in page.locator(".jp-Notebook").inner_text()


def screenshot(page, lang: str, name: str, suffix: str = ""):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{lang}-{pathlib.Path(name).stem}{suffix}.png"), full_page=False)


@pytest.mark.parametrize("lang, path", NOTEBOOKS, ids=[f"{lang}-{path.name}" for lang, path in NOTEBOOKS])
def test_notebook_runs_cleanly_in_jupyterlab(page, lang, path):
    name = path.name
    open_and_run(page, path.relative_to(ROOT).as_posix())
    try:
        assert code_cell_count(page) > 0
        assert_clean(page, path)
        screenshot(page, lang, name)
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
    pair_prefix = text_in(lang, "widget.scale.pair", factor="", weight="").split(":")[0]
    numbers = widget_html(page, pair_prefix)
    figure = page.locator(".widget-html-content:has(svg)").filter(has_text="softmax").last
    before_numbers, before_figure = numbers.inner_text(), figure.inner_html()
    # from exactly 1 (the button), five arrow steps of 0.01 land on the step grid at 1.05
    page.locator("button", has_text=text_in(lang, "widget.scale.to_one")).click()
    answered = text_in(lang, "widget.scale.pair", factor="1.00", weight="").strip()
    page.wait_for_function("(text) => [...document.querySelectorAll('.widget-html-content')]"
                           ".some(e => e.innerText.includes(text))", arg=answered)
    handle.focus()
    for _ in range(5):
        handle.press("ArrowRight")
    readout = slider.locator(".widget-readout").inner_text().strip()
    # the kernel answers each keypress in turn: wait for the answer to the last one
    answered = text_in(lang, "widget.scale.pair", factor=readout, weight="").strip()
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
                           ".some(e => e.innerText.includes(row))", arg=f"o0 = {vector(run.output[0, 0])}")
    view = page.locator(".widget-html-content", has_text=f"o0 = {vector(run.output[0, 0])}").last
    scores_row = "\t".join(f"{x:.6f}" for x in run.head.raw_scores.data[0, 0])
    assert scores_row in view.inner_text(), "the scores did not follow the edit"


def check_exercise_form(page, lang: str):
    placeholder = text_in(lang, "ex.output-shape.form")
    box = page.locator(".widget-box", has=page.locator(f"input[placeholder='{placeholder}']")).last
    field = box.locator("input[type='text']")
    check = box.locator("button", has_text=text_in(lang, "widget.exercise.check"))
    reveal = box.locator("button", has_text=text_in(lang, "widget.exercise.reveal"))
    assert reveal.is_disabled()
    field.fill("[4, 7, 7]")
    check.click()
    box.locator("text=[B, T, T]").wait_for()
    assert not reveal.is_disabled()
    field.fill("[4, 7, 5]")
    check.click()
    box.locator("text=✔").wait_for()
    reveal.click()
    box.locator(f"text={text_in(lang, 'reveal.answer', answer='[4,7,5]')}").wait_for()
    assert re.search(r"O = AV", box.inner_text())
