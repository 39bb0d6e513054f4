"""Browser test helpers every chapter shares: JupyterLab in Chromium, axe-core, the keyboard.

They start JupyterLab on 127.0.0.1 (free port, random token, its own
config, settings and workspace folders) and drive Debian's Chromium through
Playwright; nothing is downloaded. The accessibility helpers run axe-core (the copy
axe-playwright-python bundles) over a page's output areas, and move through a
notebook with the keys a reader would press.
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator

MEASURED: list[str] = []  # the step times the browser tests measured, repeated in the run's summary


def report_figure(line: str) -> None:
    """A measured figure: printed where its test runs (seen with pytest -s) and again in the run's summary."""
    print(f"\n{line}")
    MEASURED.append(line)


CHROMIUM = pathlib.Path("/usr/bin/chromium")
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run", "--disable-quic"]


# --- JupyterLab in Chromium ------------------------------------------------------------

def require_browser() -> None:
    """Skip the calling test module without Debian's Chromium or Playwright; under CI=true, fail instead."""
    import pytest

    if not CHROMIUM.exists():
        message = "no Chromium at /usr/bin/chromium: install it with `apt-get update && apt-get install -y chromium`"
        if os.environ.get("CI") == "true":
            pytest.fail(message, pytrace=False)
        pytest.skip(message, allow_module_level=True)
    pytest.importorskip("playwright.sync_api")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


FRONT_ENDS = {"lab": ("jupyterlab", "LabApp"), "notebook": ("notebook", "JupyterNotebookApp")}  # module, its app


@contextlib.contextmanager
def jupyterlab(served: pathlib.Path, home: pathlib.Path, front_end: str = "lab") -> Iterator[tuple[str, str]]:
    """JupyterLab (or, ``front_end="notebook"``, Jupyter Notebook 7, which runs JupyterLab's components) serving
    ``served``, its config, settings and workspaces under ``home``; yields (url, token).

    Its kernels talk over IPC (tools/kernels.py), their files in a short directory of their own; the server starts
    looking for a port at a free one and moves on if another process took it meanwhile, so its URL is read from
    the server's own record of it, not assumed."""
    from tools.kernels import SERVER_OPTIONS, short_runtime_dir

    module, app = FRONT_ENDS[front_end]

    settings = home / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    # render every cell (no windowing), so outputs far down the page exist in the DOM
    (settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    # no news or update checks: there is no network, and the pop-up would cover the page
    apputils = home / "settings" / "@jupyterlab" / "apputils-extension"
    apputils.mkdir(parents=True)
    (apputils / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    token, runtime = secrets.token_hex(16), pathlib.Path(short_runtime_dir())
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(home / "config"), "JUPYTER_DATA_DIR": str(home / "data"),
           "JUPYTER_RUNTIME_DIR": str(runtime), "JUPYTER_ALLOW_INSECURE_WRITES": "1"}
    server = subprocess.Popen(
        [sys.executable, "-m", module, "--no-browser", "--ip=127.0.0.1", f"--port={free_port()}",
         f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={served}",
         f"--{app}.user_settings_dir={home / 'settings'}", f"--{app}.workspaces_dir={home / 'workspaces'}",
         f"--{app}.expose_app_in_browser=True", "--ServerApp.allow_root=True", *SERVER_OPTIONS],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = served_url(server, runtime, token, served)
        yield url, token
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(runtime, ignore_errors=True)


def served_url(server: subprocess.Popen, runtime: pathlib.Path, token: str, served: pathlib.Path) -> str:
    """The URL of a JupyterLab server once it answers, from the record it writes of itself (jpserver-PID.json)."""
    from tools.kernels import EnvironmentFailure

    record, deadline = runtime / f"jpserver-{server.pid}.json", time.monotonic() + 60
    while True:
        try:
            url = f"http://127.0.0.1:{json.loads(record.read_text())['port']}"
            urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2)
            return url
        except (OSError, ValueError, KeyError):
            if time.monotonic() > deadline or server.poll() is not None:
                raise EnvironmentFailure(f"JupyterLab serving {served} did not start") from None
            time.sleep(0.3)


CONSOLE_ERRORS: dict[object, list[str]] = {}  # a page -> its console's errors and its scripts' uncaught errors
# JupyterLab's own, which say nothing of the page: its debugger panel logs the first when a kernel it was asking goes
# away (every notebook closed); the second is any request still out when a kernel is shut down or restarted (the
# debugger's, a widget's subshell: seen under load; JupyterLab issue 9521: a cancelled future is not meant to be
# reported as an error; it may come as an uncaught error of the page). open_and_run restarts no kernel, so both come
# only around a notebook closing.
LAB_NOISE = ("Could not restore the debugger state", "Canceled future for ")


@contextlib.contextmanager
def lab_page(url: str, token: str, viewport: dict[str, int] | None = None, front_end: str = "lab"):
    """One JupyterLab page (or Notebook 7's file tree, ``front_end="notebook"``) in Debian's Chromium, driven by
    Playwright; what its console says as an error, and every uncaught error of its scripts, go to
    CONSOLE_ERRORS[page]."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS, headless=True)
        try:
            page = chromium.new_page(viewport=viewport or {"width": 1280, "height": 1000})
            errors = CONSOLE_ERRORS.setdefault(page, [])

            def keep(said: str) -> None:
                if not any(noise in said for noise in LAB_NOISE):
                    errors.append(said)

            page.on("console", lambda message: keep(message.text) if message.type == "error" else None)
            page.on("pageerror", lambda error: keep(f"{error.name}: {error.message}"))  # an uncaught one, too
            page.goto(f"{url}/lab?token={token}&reset" if front_end == "lab" else f"{url}/tree?token={token}")
            page.wait_for_function("() => window.jupyterapp", timeout=60_000)
            page.evaluate("() => window.jupyterapp.restored")  # commands before this are lost
            yield page
        finally:
            chromium.close()


def notebook(*sources: str) -> str:
    """A throwaway notebook of code cells, one per source, as JSON (for a test that serves its own)."""
    cells = [{"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {}, "outputs": [],
              "source": source} for i, source in enumerate(sources)]
    return json.dumps({"cells": cells, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                                     "language": "python"}},
                       "nbformat": 4, "nbformat_minor": 5})


@contextlib.contextmanager
def throwaway_notebook(home: pathlib.Path, name: str, sources: tuple[str, ...], viewport: dict[str, int]):
    """JupyterLab serving one notebook of ``sources`` (see ``notebook``) under ``home``, opened and run in a page;
    yields the page and closes the notebook after."""
    served = home / "project"
    served.mkdir()
    (served / name).write_text(notebook(*sources))
    with jupyterlab(served, home) as server, lab_page(*server, viewport=viewport) as page:
        page.evaluate("() => window.jupyterapp.shell.activateById('filebrowser')")
        open_and_run(page, name)
        yield page
        close_notebook(page)


def open_and_run(page, relative: str) -> None:
    """Open a notebook and run all its cells in the kernel started for it (a fresh one: the last notebook's was shut
    down when it closed), then wait until every cell has run. No restart: a restart cancels what JupyterLab is
    still asking the kernel it ends (the debugger, the widgets), and its console says so."""
    page.set_default_timeout(60_000)
    page.evaluate("(path) => { window.jupyterapp.commands.execute('docmanager:open', {path}); }", relative)
    run_all(page, relative, "JupyterLab")


def open_and_run_in_notebook7(page, url: str, relative: str) -> None:
    """Open a notebook in Jupyter Notebook 7 (its own page, as a learner's link opens it) and run all its cells in
    a fresh kernel, as ``open_and_run`` does in JupyterLab."""
    page.set_default_timeout(60_000)
    page.goto(f"{url}/notebooks/{relative}")
    page.wait_for_function("() => window.jupyterapp", timeout=60_000)
    run_all(page, relative, "Notebook 7")


def run_all(page, relative: str, front_end: str) -> None:
    """Once the notebook ``relative`` is opening in the page: wait for its kernel, clear the stored outputs, run
    every cell, and wait until each has run."""
    status = page.wait_for_function("""(path) => {
        const panel = window.jupyterapp.shell.currentWidget;
        const status = panel?.sessionContext?.session?.kernel?.status;
        return panel && panel.context && panel.context.path === path && panel.content.widgets.length > 0
            && ['idle', 'dead'].includes(status) && status;
    }""", arg=relative).json_value()
    if status == "dead":
        from tools.kernels import KernelDidNotStart

        raise KernelDidNotStart(f"{relative} in {front_end}", "its status is dead")
    # clear the stored counts first, or the wait below could pass on them before the cells run
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
    page.wait_for_function("() => window.jupyterapp.shell.currentWidget.content.widgets"
                           ".every(c => c.model.type !== 'code' || c.model.executionCount === null)")
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
    # every cell has run, or one failed (Run All stops there: assert_clean then shows its error)
    page.wait_for_function("""() => {
        const panel = window.jupyterapp.shell.currentWidget;
        const cells = panel.content.widgets.filter(c => c.model.type === 'code' && c.model.sharedModel.source.trim());
        const failed = panel.node.querySelector("[data-mime-type='application/vnd.jupyter.error']");
        return panel.sessionContext.session.kernel.status === 'idle' && (failed
            || cells.every(c => c.model.executionCount !== null && c.promptNode.textContent.trim() !== '[*]:'));
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


def in_hidden_snapshot(locator) -> bool:
    """A stored snapshot that its live widget has replaced (book.widgets.show_snapshot): hidden on purpose."""
    return locator.evaluate("(e) => !!(e.closest('.llm-snapshot') || e.querySelector('.llm-snapshot'))"
                            " && !e.offsetParent")


def wait_for_live_widgets(page, path: pathlib.Path) -> None:
    """Every widget output of the stored notebook draws a view, and every snapshot in a cell with a live widget
    has given way to it (views appear asynchronously, so wait for them)."""
    stored = json.loads(path.read_text(encoding="utf-8"))
    views = page.locator(".jp-OutputArea-output > .jupyter-widgets")
    expected_views = sum(1 for c in stored["cells"] for o in c.get("outputs", [])
                         if "application/vnd.jupyter.widget-view+json" in o.get("data", {}))
    if expected_views:
        views.nth(expected_views - 1).wait_for()
        assert views.count() == expected_views, f"{path.name}: {views.count()} of {expected_views} widgets rendered"
        assert "Error displaying widget" not in page.locator(".jp-Notebook").inner_text()
    page.wait_for_function("""() => [...document.querySelectorAll('.jp-Cell')]
        .filter((cell) => cell.querySelector('.llm-live'))
        .every((cell) => [...cell.querySelectorAll('.llm-snapshot')].every((s) => !s.offsetParent))""")


def assert_clean(page, path: pathlib.Path):
    """No error or traceback; every widget drawn, and every figure and HTML output on screen but the snapshots
    the widgets replaced."""
    name = path.name
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.error']")
    assert errors.count() == 0, f"{name}: {errors.first.inner_text()[:500]}"
    assert "Traceback" not in page.locator(".jp-Notebook").inner_text(), f"{name}: a traceback is shown"
    wait_for_live_widgets(page, path)
    stored = json.loads(path.read_text(encoding="utf-8"))
    svg_count = sum(1 for c in stored["cells"] for o in c.get("outputs", []) if "image/svg+xml" in o.get("data", {}))
    figures = page.locator(".jp-OutputArea-output img[src^='data:image/svg+xml']")
    if svg_count:
        figures.nth(svg_count - 1).wait_for(state="attached")
    assert figures.count() >= svg_count, f"{name}: {figures.count()} of {svg_count} figures rendered"
    for i in range(figures.count()):
        if in_hidden_snapshot(figures.nth(i)):
            continue
        figures.nth(i).scroll_into_view_if_needed()
        box = figures.nth(i).bounding_box()
        assert box and box["width"] > 50 and box["height"] > 50, f"{name}: figure {i} is not visible"
    html_outputs = sum(1 for c in stored["cells"] for o in c.get("outputs", []) if "text/html" in o.get("data", {}))
    rendered_html = page.locator(".jp-OutputArea-output.jp-RenderedHTMLCommon")
    if html_outputs:
        rendered_html.nth(html_outputs - 1).wait_for(state="attached")
    assert rendered_html.count() == html_outputs, f"{name}: {rendered_html.count()} of {html_outputs} HTML outputs"
    for i in range(html_outputs):
        if in_hidden_snapshot(rendered_html.nth(i)):
            continue
        rendered_html.nth(i).scroll_into_view_if_needed()
        shown = rendered_html.nth(i)
        content = shown.inner_text().strip() or shown.locator("img[alt]").count()  # a figure: an image and its alt
        assert shown.is_visible() and content, f"{name}: HTML {i}"


# --- accessibility ---------------------------------------------------------------------

# WCAG 2.0 and 2.1, levels A and AA: the rules the audit runs (axe-core's tags)
WCAG_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")
OUTPUTS = ".jp-OutputArea"  # what the chapter draws: its outputs and the widgets in them, no JupyterLab chrome
BLOCKING_IMPACTS = ("serious", "critical")


def axe_audit(page, include: str | list = OUTPUTS) -> dict:
    """axe-core's full result for the elements matching ``include`` (a selector, or a list of them), under the
    WCAG 2 A/AA rules: violations, incomplete (to review by hand), passes and inapplicable rules."""
    from axe_playwright_python.sync_playwright import Axe

    page.evaluate(Axe().axe_script)
    selectors = [include] if isinstance(include, str) else list(include)
    options = {"runOnly": {"type": "tag", "values": list(WCAG_TAGS)}}
    return page.evaluate("([context, options]) => axe.run(context, options)",
                         [{"include": [[s] for s in selectors]}, options])


def blocking(result: dict) -> list[str]:
    """One line per serious or critical violation: rule, impact, how many nodes, the first node and its fix."""
    lines = []
    for v in result["violations"]:
        if v["impact"] in BLOCKING_IMPACTS:
            node = v["nodes"][0]
            summary = " ".join(node.get("failureSummary", "").split())
            lines.append(f"{v['impact']} {v['id']} ({len(v['nodes'])} nodes), e.g. {node['target']}: {summary}")
    return lines


def active_element(page) -> dict:
    """What has the keyboard focus: tag, type, its text or label, and the computed focus indicator."""
    return page.evaluate("""() => {
        const e = document.activeElement;
        const style = getComputedStyle(e);
        const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 1;
        return {tag: e.tagName.toLowerCase(), type: e.type || '', text: (e.innerText || e.value || '').trim(),
                placeholder: e.placeholder || '',
                outline: outline ? `${style.outlineWidth} ${style.outlineStyle} ${style.outlineColor}` : '',
                shadow: style.boxShadow === 'none' ? '' : style.boxShadow};
    }""")


def focus_is_visible(page) -> bool:
    """The focused element draws an outline or a box shadow."""
    focused = active_element(page)
    return bool(focused["outline"] or focused["shadow"])


def notebook_state(page) -> dict:
    """The notebook's mode, active cell and number of cells: what a key taken by JupyterLab would change."""
    return page.evaluate("""() => { const nb = window.jupyterapp.shell.currentWidget.content;
        return {mode: nb.mode, active: nb.activeCellIndex, cells: nb.widgets.length}; }""")


def cell_index(page, needle: str) -> int:
    """The index of the first cell whose source contains ``needle``."""
    index = page.evaluate("(needle) => window.jupyterapp.shell.currentWidget.content.widgets"
                          ".findIndex(c => c.model.sharedModel.source.includes(needle))", needle)
    assert index >= 0, f"no cell contains {needle!r}"
    return index


def run_cell(page, index: int) -> None:
    """Run cell ``index`` of the open notebook again, as Shift+Enter on it would."""
    page.evaluate("""(i) => { const notebook = window.jupyterapp.shell.currentWidget.content;
        notebook.activeCellIndex = i; window.jupyterapp.commands.execute('notebook:run-cell'); }""", index)


def go_to_cell_by_keys(page, index: int) -> None:
    """From the top of the notebook in command mode (as a reader who opened it), ArrowDown to cell ``index``."""
    page.evaluate("""() => { const nb = window.jupyterapp.shell.currentWidget.content;
        nb.mode = 'command'; nb.activeCellIndex = 0; nb.activeCell.node.focus(); }""")
    for _ in range(index):
        page.keyboard.press("ArrowDown")
    page.wait_for_function("(i) => window.jupyterapp.shell.currentWidget.content.activeCellIndex === i", arg=index)


def tab_to(page, is_target: str, arg=None, limit: int = 8) -> list[dict]:
    """Press Tab until the focused element satisfies ``is_target`` (a JS predicate of the element and ``arg``),
    at most ``limit`` times; returns the elements passed on the way (the target last)."""
    passed = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        passed.append(active_element(page))
        if page.evaluate(f"(arg) => ({is_target})(document.activeElement, arg)", arg):
            return passed
    raise AssertionError(f"{limit} presses of Tab did not reach the target; focus went to {passed}")
