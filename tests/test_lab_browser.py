"""A try-it in a real JupyterLab in Chromium: edit a stage's line, run from there, see what follows; put it back.

02 is opened and run in a copy of the chapter; the line ``S = scores / math.sqrt(d_k)`` is replaced by
``S = scores / d_k`` as a learner types it, and the cells from there down are run again: the scaled scores' figure
and the output's figure below show the new numbers (the tests' own oracle's), and the folded answer of step 3
holds the new weights with a line under it that names the change (S divided by 2, not by √2). Then the answer cell
computes the weights from the new S and runs: it is judged right for them, the change named. Putting both lines back and
running again brings every number back. Screenshots go to artifacts/. Needs Debian's Chromium at /usr/bin/chromium.
"""

from __future__ import annotations

import math
import pathlib
import shutil

import pytest
from support.browser import cell_index, close_notebook, jupyterlab, lab_page, open_and_run, require_browser
from support.oracle import head

from llm_from_scratch.book.text import LANGUAGES
from llm_from_scratch.ch27.examples import worked_arrays
from llm_from_scratch.ch27.exercises import EXERCISE_BOOK

text_in = EXERCISE_BOOK.strings.text_in  # the exercises' strings, over the chapter's and the book's

ROOT = pathlib.Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts"
CHAPTER = ROOT / "chapter27"
LINE = "S = scores / math.sqrt(d_k)"
TRIED = "S = scores / d_k"
ASKED, COMPUTED = "answer = ...", "answer = np.exp(s) / np.exp(s).sum()"  # the weights answer cell's line

pytestmark = pytest.mark.browser  # every test drives JupyterLab in Chromium: no test of this module can be quick


@pytest.fixture(scope="module", autouse=True)
def browser_present():
    """Debian's Chromium, or a skip (a failure under CI=true), asked only where a browser test runs."""
    require_browser()


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    home = tmp_path_factory.mktemp("lab")
    served = home / "project"
    shutil.copytree(CHAPTER, served / "chapter27", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    with jupyterlab(served, home) as server, lab_page(*server) as page:
        yield page


def notebook_of(lang: str) -> str:
    return f"chapter27/{'' if lang == LANGUAGES[0] else lang + '/'}02_scores_softmax_mixture.ipynb"


def shown(page, index: int) -> str:
    """What a cell's outputs hold as text, folded tables included."""
    return page.evaluate("(i) => window.jupyterapp.shell.currentWidget.content.widgets[i]"
                         ".node.querySelector('.jp-Cell-outputWrapper').textContent", index)


def type_line(page, index: int, old: str, new: str) -> None:
    """Select the cell's text in its editor and type it again with ``old`` replaced by ``new``, as a learner
    would (the text goes in as typed text, so no bracket is closed for it), then run it and every cell below."""
    source = page.evaluate("(i) => window.jupyterapp.shell.currentWidget.content.widgets[i].model.sharedModel.source",
                           index)
    assert old in source
    editor = page.locator(".jp-Notebook .jp-Cell").nth(index).locator(".cm-content")
    editor.scroll_into_view_if_needed()
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(source.replace(old, new))
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-below')")
    page.wait_for_function("""(i) => {
        const panel = window.jupyterapp.shell.currentWidget;
        const cells = panel.content.widgets.slice(i).filter(c => c.model.type === 'code');
        return panel.sessionContext.session.kernel.status === 'idle'
            && cells.every(c => c.promptNode.textContent.trim() !== '[*]:');
    }""", arg=index, timeout=120_000)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_changed_line_flows_to_the_figures_below_and_back(lab, lang):
    page = lab
    open_and_run(page, notebook_of(lang))
    scaled, output, folded = (cell_index(page, needle) for needle in (LINE, "O = A @ V", "S.softmax(2)"))
    q, k, v = worked_arrays()
    scores = q @ k.transpose(0, 2, 1)
    before = {"scaled": shown(page, scaled), "output": shown(page, output), "folded": shown(page, folded)}
    assert f"{scores[0, 0, 1] / math.sqrt(2):.6f}" in before["scaled"] and f"{head(q, k, v)[1][0, 0, 0]:.6f}" in \
        before["output"]

    type_line(page, scaled, LINE, TRIED)
    _, tried_output = head(q / math.sqrt(2), k, v)  # S = QKᵀ/2 is the head of Q/√2 at d_k = 2
    after = {"scaled": shown(page, scaled), "output": shown(page, output), "folded": shown(page, folded)}
    ARTIFACTS.mkdir(exist_ok=True)
    for index, part in ((scaled, "scaled"), (output, "output"), (folded, "fold")):
        cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
        cell.screenshot(path=str(ARTIFACTS / f"{lang}-02-try-it-{part}.png"))
    assert "4.242641" not in after["scaled"] and "-2" in after["scaled"], after["scaled"]
    for number in tried_output[0].ravel():
        assert f"{number:.6f}" in after["output"], (number, after["output"])
    named = text_in(lang, "read.divided", divisor="2", root="1.4142")
    tried_weights, _ = head(q / math.sqrt(2), k, v)
    assert named in " ".join(after["folded"].split()), after["folded"]
    assert all(f"{w:.6f}" in after["folded"] for w in tried_weights[0].ravel()), "the fold draws the cells' weights"
    plane = cell_index(page, "plane = VectorPlane(Q, K, V, A)")
    live = page.locator(".jp-Notebook .jp-Cell").nth(plane).locator(".llm-plane svg")
    live.scroll_into_view_if_needed()
    page.locator(".jp-Notebook .jp-Cell").nth(plane).screenshot(path=str(ARTIFACTS / f"{lang}-02-try-it-plane.png"))
    assert "0.047" in live.text_content() and "0.953" in live.text_content(), "the live plane follows the divisor"
    follows = text_in(lang, "stages.follows", widget=text_in(lang, "stages.plane").capitalize(), divided="÷ 2",
                      along=text_in(lang, "stages.along_rows"))
    assert follows in " ".join(shown(page, plane).split())

    answer = cell_index(page, 'check("weights", answer, S=S)')
    type_line(page, answer, ASKED, COMPUTED)  # the answer computed from the new S, as a learner would
    feedback = " ".join(shown(page, answer).split())
    page.locator(".jp-Notebook .jp-Cell").nth(answer).screenshot(path=str(ARTIFACTS / f"{lang}-02-try-it-answer.png"))
    assert text_in(lang, "feedback.correct") in feedback and named in feedback, feedback

    type_line(page, answer, COMPUTED, ASKED)
    type_line(page, scaled, TRIED, LINE)
    assert shown(page, scaled) == before["scaled"] and shown(page, output) == before["output"]
    assert shown(page, folded) == before["folded"], "the folded answer is back"
    assert "0.014" in page.locator(".jp-Notebook .jp-Cell").nth(plane).locator(".llm-plane svg").text_content()
    close_notebook(page)


WRONG_HEAD = """\
    s = q @ k.swapaxes(-1, -2) / np.sqrt(q.shape[-1])
    s = s / np.sqrt(q.shape[-1])
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    return w / w.sum(axis=-1, keepdims=True) @ v"""


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_code_judges_feedback_keeps_its_lines_in_the_browser(lab, lang):
    """A head that scales twice, typed into 06's cell: the feedback box shows the cited line of code on a line of
    its own, as code, below the sentence that names it, and what the line read on the next."""
    page = lab
    notebook = f"chapter27/{'' if lang == LANGUAGES[0] else lang + '/'}06_head_from_primitives.ipynb"
    open_and_run(page, notebook)
    index = cell_index(page, 'check_code("write-head", my_head)')
    source = page.evaluate("(i) => window.jupyterapp.shell.currentWidget.content.widgets[i].model.sharedModel.source",
                           index)
    stub = next(line for line in source.splitlines() if line.strip().startswith("return ..."))
    type_line(page, index, stub, WRONG_HEAD)
    box = page.locator(".jp-Notebook .jp-Cell").nth(index).locator("[role='status']")
    box.scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator(".jp-Notebook .jp-Cell").nth(index).screenshot(path=str(ARTIFACTS / f"{lang}-06-code-feedback.png"))
    layout = box.evaluate("""(box) => {
        const code = box.querySelector('code'), first = box.querySelector('strong');
        return {whiteSpace: getComputedStyle(box).whiteSpace, text: box.innerText,
                codeTop: code.getBoundingClientRect().top, firstTop: first.getBoundingClientRect().top,
                code: code.textContent, overflow: box.scrollWidth > box.clientWidth + 1}; }""")
    assert layout["whiteSpace"] == "pre-line" and layout["code"] == "s = s / np.sqrt(q.shape[-1])"
    assert layout["codeTop"] > layout["firstTop"] + 10, "the quoted line stands below the verdict"
    lines = layout["text"].split("\n")
    cited = next(i for i, line in enumerate(lines) if line.strip() == layout["code"])
    assert text_in(lang, "code.line", lineno=3, line="").split(":")[0] in lines[cited - 1], lines
    assert lines[cited + 1].strip(), "what the line read follows on a line of its own"
    assert not layout["overflow"], "no line runs out of the box"
    close_notebook(page)
