"""The vector plane in a real JupyterLab in Chromium: a key dragged with the mouse, a query moved with the keyboard.

A throwaway notebook shows the plane; after every move the test reads the weights the page shows
and compares them with its own computation, and it prints the latency of 20 moves of each kind
(from the input event to the redrawn plane, kernel round trip included, by the page's own clock)
against the 50 ms bound.
Needs Debian's Chromium at /usr/bin/chromium; nothing is downloaded.
"""

from __future__ import annotations

import math
import pathlib
import statistics

import numpy as np
import pytest
from support.browser import (
    close_notebook,
    jupyterlab,
    lab_page,
    notebook,
    notebook_state,
    open_and_run,
    require_browser,
)
from support.oracle import softmax

from llm_from_scratch.ch27.plane import PLANE_CLASS, SIZE, UNIT, default_vectors

ARTIFACTS = pathlib.Path(__file__).resolve().parents[1] / "artifacts"
BOUND_MS = 50
MOVES = 20

require_browser()


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    home = tmp_path_factory.mktemp("lab")
    served = home / "project"
    served.mkdir()
    (served / "plane.ipynb").write_text(notebook(
        'from llm_from_scratch.book.text import set_language\nset_language("ru")',
        "from llm_from_scratch.ch27.plane import VectorPlane\n\nVectorPlane().show()"))
    with jupyterlab(served, home) as server, lab_page(*server, viewport={"width": 1400, "height": 1000}) as page:
        open_and_run(page, "plane.ipynb")
        page.locator(f".{PLANE_CLASS} svg").wait_for()
        page.evaluate(CLOCK)
        yield page
        close_notebook(page)


def shown_weights(page) -> np.ndarray:
    """The four weights the live plane prints beside its bars."""
    texts = page.eval_on_selector_all(f".{PLANE_CLASS} svg text", "(all) => all.map((t) => t.textContent)")
    values = [float(texts[i + 1]) for i, t in enumerate(texts) if t.startswith("A") and len(t) == 3]
    return np.array(values).reshape(2, 2)


def expected_weights(vectors) -> np.ndarray:
    q, k = (np.array([vectors[f"{r}{i}"] for i in (0, 1)]) for r in "qk")
    return softmax(q @ k.T / math.sqrt(2))


def tip(page, name: str):
    return page.locator(f'.{PLANE_CLASS} .plane-tip[data-name="{name}"]')


CLOCK = """() => {  // in the page: the first input event since the last redraw, and the redraw
    const clock = window.planeClock = { input: 0, drawn: 0 };
    for (const kind of ["keydown", "pointermove"]) {
        document.addEventListener(kind, () => { if (clock.input <= clock.drawn) clock.input = performance.now(); },
                                  true);
    }
    new MutationObserver(() => { clock.drawn = performance.now(); })
        .observe(document.querySelector(".llm-plane"), { childList: true, subtree: true });
}"""


def settled(page, name: str, x: float, y: float) -> float:
    """Wait until the plane is redrawn with the tip at (x, y); the milliseconds from the input event to that
    redraw, as the page's own clock measured them."""
    return page.wait_for_function("""([name, x, y]) => {
        const t = document.querySelector(`.llm-plane .plane-tip[data-name="${name}"]`);
        const there = t && Math.abs(Number(t.dataset.x) - x) < 1e-9 && Math.abs(Number(t.dataset.y) - y) < 1e-9;
        return there && window.planeClock.drawn - window.planeClock.input;
    }""", arg=[name, x, y]).json_value()


def report(kind: str, times: list[float]) -> None:
    median, worst = statistics.median(times), max(times)
    verdict = "within" if median <= BOUND_MS else "OVER"
    print(f"\nvector plane, {kind}: median {median:.1f} ms, worst {worst:.1f} ms over {len(times)} moves "
          f"({verdict} the {BOUND_MS} ms bound for the median)")


def test_a_query_moved_with_the_keyboard_gives_the_engines_weights(page):
    vectors = dict(default_vectors())
    tip(page, "q0").focus()
    before = notebook_state(page)  # focusing the tip makes its cell the active one: that is no key
    times = []
    for i in range(MOVES):
        key, dx = ("ArrowRight", 0.5) if i % 2 == 0 else ("Shift+ArrowUp", 0.0)
        x, y = vectors["q0"]
        vectors["q0"] = (round(x + dx, 1), round(y + (0.1 if dx == 0 else 0), 1))
        page.keyboard.press(key)
        times.append(settled(page, "q0", *vectors["q0"]))
        np.testing.assert_allclose(shown_weights(page), expected_weights(vectors), atol=5e-4)
    report("keyboard", times)
    assert page.evaluate("() => document.activeElement.dataset.name") == "q0", "the focus stays on the tip"
    after = notebook_state(page)
    assert (after["cells"], after["active"]) == (before["cells"], before["active"]), "no key reached the notebook"
    live = page.locator(f".{PLANE_CLASS} [aria-live='polite']").inner_text()
    w = expected_weights(vectors)
    assert f"q₀: {w[0, 0]:.3f}, {w[0, 1]:.3f}" in live, "the live region announces the new weights"


def test_a_key_dragged_with_the_mouse_snaps_to_the_grid_and_moves_the_weights(page):
    page.locator(f".{PLANE_CLASS} button").click()  # back to the worked example
    settled(page, "q0", 0, 3)
    assert page.evaluate("() => document.activeElement.tagName") == "BUTTON", "the redrawn plane keeps no focus"
    vectors = dict(default_vectors())
    svg = page.locator(f".{PLANE_CLASS} svg").bounding_box()
    scale = svg["width"] / 760  # the figure's viewBox is 760 wide

    def pixel(x: float, y: float) -> tuple[float, float]:
        return svg["x"] + (10 + SIZE / 2 + x * UNIT) * scale, svg["y"] + (30 + SIZE / 2 - y * UNIT) * scale

    page.mouse.move(*pixel(*vectors["k1"]))
    page.mouse.down()
    times = []
    for i in range(MOVES):
        target = (-1 + 0.3 * (i + 1) + 0.1, 2 - 0.1 * i)  # off the grid, inside the plane
        snapped = tuple(math.floor(c * 2 + 0.5) / 2 for c in target)  # the nearest 0.5, as the browser rounds
        page.mouse.move(*pixel(*target))
        vectors["k1"] = snapped
        times.append(settled(page, "k1", *snapped))
        np.testing.assert_allclose(shown_weights(page), expected_weights(vectors), atol=5e-4)
    page.mouse.up()
    report("mouse drag", times)
    ARTIFACTS.mkdir(exist_ok=True)
    plane = page.locator(f".{PLANE_CLASS}")
    plane.screenshot(path=str(ARTIFACTS / "ru-plane.png"))
    plane.evaluate("(e) => { e.style.filter = 'grayscale(1)'; }")
    plane.screenshot(path=str(ARTIFACTS / "ru-plane-greyscale.png"))
    plane.evaluate("(e) => { e.style.filter = ''; }")
