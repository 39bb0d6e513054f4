"""The vector plane on the learner's own vectors in a real JupyterLab in Chromium, beside a masked score: the plane
says whose vectors it shows and offers both buttons, k₁ is moved by keyboard and the challenge judged on those
vectors, the score of −∞ is shown, and axe audits the outputs. Its own module: one Playwright per module.
Needs Debian's Chromium at /usr/bin/chromium; nothing is downloaded."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect
from support.browser import axe_audit, blocking, require_browser, throwaway_notebook
from test_plane_browser import ARTIFACTS, CLOCK, settled, slider

from llm_from_scratch.ch27.plane import PLANE_CLASS

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module", autouse=True)
def browser_present():
    require_browser()


OWN = ("import math\n\nimport numpy as np\n\nfrom llm_from_scratch.ch27.notebook import *\n\nset_language(\"en\")",
       "Q = Tensor([[[1, 1], [0, 1]]])  # the learner's own queries\nK = Tensor([[[3, 0], [-1, 2]]])\n"
       "V = Tensor([[[3, -3], [1, 3]]])\nS = Q @ K.transpose(1, 2) / math.sqrt(2) + Tensor([[[0, -np.inf], [0, 0]]])\n"
       "show(S, \"scaled\")",
       "plane = VectorPlane(Q, K, V)\nplane.show()",
       "challenge(\"plane-equal\", plane)")


def test_k1_moved_on_the_learners_own_vectors_is_judged_on_them_beside_a_masked_score(tmp_path_factory):
    """The plane opened on the cells' own queries: k₁ moved by keyboard until q₀ weighs both keys alike, checked;
    a masked score drawn as −∞ above it; axe on both."""
    with throwaway_notebook(tmp_path_factory.mktemp("own"), "own.ipynb", OWN, {"width": 1400, "height": 1000}) as page:
        plane = page.locator(f".{PLANE_CLASS}")
        plane.locator("svg").wait_for()
        page.evaluate(CLOCK)
        expect(plane.get_by_role("button")).to_have_text(["Back to the cell's inputs", "Back to the worked example"])
        whose = re.compile("^The plane of your cells' vectors")
        expect(plane.locator('div[role="img"]')).to_have_attribute("aria-label", whose)
        expect(page.locator(".jp-OutputArea-output").first).to_contain_text("−∞")  # the masked score's table
        slider(page, "k1", "x").focus()
        for _ in range(4):  # k₁ from (−1, 2) to (1, 2): q₀ = (1, 1) gives it 3, as k₀
            page.keyboard.press("ArrowRight")
        settled(page, "k1", 1, 2)
        forms = page.locator(".llm-live").filter(has=page.locator(".widget-button"))
        prediction, move = forms.nth(0), forms.nth(1)
        box = prediction.locator("input[type='text']")
        box.focus()
        box.press_sequentially("c")
        box.press("Enter")
        expect(prediction).to_contain_text("Correct")
        move.get_by_role("button", name="Check").click()
        expect(move).to_contain_text("q₀·k₀ = 3.00 and q₀·k₁ = 3.00")
        ARTIFACTS.mkdir(exist_ok=True)
        page.locator(".jp-Notebook").screenshot(path=str(ARTIFACTS / "en-plane-own-vectors.png"))
        plane.screenshot(path=str(ARTIFACTS / "en-plane-own-vectors-plane.png"))
        page.locator(".jp-OutputArea-output").first.screenshot(path=str(ARTIFACTS / "en-masked-score.png"))
        result = axe_audit(page, [f".{PLANE_CLASS}", ".jp-OutputArea-output"])
        assert not blocking(result), blocking(result)
