"""Nothing said that the learner's cells did not compute: each experiment a learner tried off the chapter's paths
(pre-scaled queries, a chained scale, K·Qᵀ, a softmax over the batch, the editor and the trace on the cells' A,
only v changed, backward twice), run in a fresh kernel of both editions, and every claim on the page checked by
computing it here with numpy: a title that names the head's stage, a note that names a cause, a widget that says it
computes as the cells do."""

import math
import re
from html import unescape

import numpy as np
import pytest
from support.notebooks import outputs_of, run_edited
from test_given import notebook_path

from llm_from_scratch.ch27.examples import hand_arrays
from llm_from_scratch.ch27.strings import STRINGS

pytestmark = pytest.mark.notebook
LANGS = ["ru", "en"]
Q, K, V = np.array([[0.0, 3], [2, -1]]), np.array([[3.0, 0], [-1, 2]]), np.array([[3.0, -3], [1, 3]])


def said(lang: str, key: str, **fields) -> str:
    return STRINGS.text_in(lang, key, **fields)


def softmax(s: np.ndarray, axis: int = -1) -> np.ndarray:
    e = np.exp(s - s.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def titles(notebook, needle: str) -> list[str]:
    return [unescape(t) for t in re.findall(r"<title>(.*?)</title>", outputs_of(notebook, needle, "image/svg+xml"))]


def shown(notebook, needle: str) -> str:
    """What a cell shows as text: its HTML (tags dropped, entities read) and its plain text, spaces made one."""
    html = re.sub(r"<[^>]+>", " ", outputs_of(notebook, needle, "text/html"))
    return re.sub(r"\s+", " ", unescape(html + " " + outputs_of(notebook, needle)))


def plane_rows(text: str) -> list[tuple[float, float]]:
    """The plane's rows of weights as its live region says them: q₀: 0.014, 0.986; …"""
    return [(float(a), float(b)) for a, b in re.findall(r"q[₀₁]: (-?\d+\.\d+), (-?\d+\.\d+)", text)]


@pytest.mark.parametrize("lang", LANGS)
def test_pre_scaled_queries_are_the_heads_scaled_scores_and_the_plane_shows_the_cells_weights(lang):
    notebook = run_edited(notebook_path(lang, "02_scores_softmax_mixture"),
                          {"S": ("S = scores / math.sqrt(d_k)", "S = (Q / math.sqrt(d_k)) @ K.transpose(1, 2)")})
    assert titles(notebook, 'show(S, "scaled")') == [said(lang, "figure.scaled")]
    assert titles(notebook, 'show_folded(A, "weights"') == [said(lang, "figure.weights", of="S")]
    plane = shown(notebook, "plane = VectorPlane(Q, K, V, A)")
    cells = softmax((Q / math.sqrt(2)) @ K.T)
    assert np.allclose(plane_rows(plane)[:2], cells, atol=5e-4), plane
    follows = said(lang, "stages.follows", widget=said(lang, "stages.plane").capitalize(), divided="", along="")
    assert follows.split(":")[0] not in plane, "the cells compute as the head does: nothing to follow"


@pytest.mark.parametrize("lang", LANGS)
def test_a_chained_scale_is_said_whole_and_in_all(lang):
    notebook = run_edited(notebook_path(lang, "02_scores_softmax_mixture"),
                          {"S": ("S = scores / math.sqrt(d_k)", "S = scores / math.sqrt(d_k) / 0.5")})
    [title] = titles(notebook, 'show(S, "scaled")')
    assert title == said(lang, "figure.computed", formula="QKᵀ/√2/0.5", name=said(lang, "figure.scaled_name"))
    note = shown(notebook, 'show_folded(A, "weights"')
    total = 1 / math.sqrt(2) / 0.5  # what the chain multiplies the scores by, computed here
    assert said(lang, "read.in_all", factor=f"{total:.4f}", scale=f"{1 / math.sqrt(2):.4f}") in note, note
    assert said(lang, "read.formula", name="A", formula="softmax(QKᵀ/√2/0.5)") in note


@pytest.mark.parametrize("lang", LANGS)
def test_k_times_q_transposed_is_titled_by_what_it_is_and_said_transposed(lang):
    notebook = run_edited(notebook_path(lang, "03_shapes"),
                          {"scores": ("scores = Q @ K.transpose(1, 2)\nS = ", "scores = K @ Q.transpose(1, 2)\nS = ")})
    needle = 'show_folded(scores, "scores", S, "scaled"'
    raw_title, scaled_title = titles(notebook, needle)
    assert raw_title.startswith("KQᵀ") and said(lang, "figure.raw") not in (raw_title, scaled_title)
    assert said(lang, "read.part_transposed", part="KQᵀ", stage=said(lang, "stage.raw-scores")) in shown(
        notebook, needle)


@pytest.mark.parametrize("lang", LANGS)
def test_a_softmax_over_the_batch_is_said_as_such_by_the_title_the_note_and_the_plane(lang):
    notebook = run_edited(notebook_path(lang, "02_scores_softmax_mixture"),
                          {"A": ("A = S.softmax(2)", "A = S.softmax(0)")})
    needle = 'show_folded(A, "weights"'
    [title] = titles(notebook, needle)
    assert "axis=0" in title and said(lang, "figure.weights", of="S") != title
    assert said(lang, "read.axis", axis=0, what=said(lang, "read.axis_batch"), keys=2) in shown(notebook, needle)
    plane = shown(notebook, "plane = VectorPlane(Q, K, V, A)")
    cells = softmax((Q @ K.T / math.sqrt(2))[None], axis=0)[0]  # one batch element: every weight is 1
    assert np.allclose(plane_rows(plane)[:2], cells, atol=5e-4)
    assert said(lang, "stages.along_batch") in plane


@pytest.mark.parametrize("lang", LANGS)
def test_the_editor_and_the_trace_say_the_divisor_and_axis_they_computed_with(lang):
    cells = ("A = (Q @ K.transpose(1, 2) / 3).softmax(1)\nHeadEditor(Q, K, V, A).show()\n"
             "render_trace(Q, K, V, A)")  # 08's Q and K are the second example's, d_k = 4: √d_k is 2, not 3
    notebook = run_edited(notebook_path(lang, "08_trace"), {"trace": ("render_trace(Q, K, V)", cells)})
    text = shown(notebook, "render_trace(Q, K, V, A)")
    follows = said(lang, "stages.follows", widget=said(lang, "stages.editor").capitalize(), divided="÷ 3",
                   along=said(lang, "stages.along_columns"))
    assert follows in text and "S = QKᵀ/3" in text and "S = QKᵀ/√d_k" not in text, text
    assert said(lang, "section.softmax_axis", axis=1) in text and "Traceback" not in text
    q, k = (np.array(m, dtype=float) for m in hand_arrays()[:2])
    weights = softmax(q[0] @ k[0].T / 3, axis=0)  # each column sums to 1, so a row's sum is what it is
    assert f"{weights[0].sum():.6f}" in text


@pytest.mark.parametrize("lang", LANGS)
def test_only_v_changed_names_v_and_keeps_the_weights_the_chapters(lang):
    notebook = run_edited(notebook_path(lang, "06_head_from_primitives"), {"v": ("[[[5, -2]]]", "[[[5, -3]]]")})
    note = shown(notebook, 'answers="single-token"')
    assert said(lang, "read.unchanged", stages=said(lang, "stage.probabilities")) in note, note
    assert said(lang, "given.inputs_changed", names="v") in note
    assert said(lang, "given.cells_changed") not in note


@pytest.mark.parametrize("lang", LANGS)
def test_backward_twice_in_one_cell_is_said_as_backward_run_twice(lang):
    notebook = run_edited(notebook_path(lang, "07_gradients"),
                          {"twice": ("L.backward()", "L.backward()\nL.backward()")})
    assert said(lang, "read.accumulated", times=2) in shown(notebook, 'show_folded(V.grad, "grad-value"')
    check = shown(notebook, "sections.gradient_check(L, Q=Q, K=K, V=V")
    assert said(lang, "gradient.accumulated", times=2) in check, check
