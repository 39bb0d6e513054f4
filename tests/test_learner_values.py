"""The plane, masks, overflow and answer forms on the learner's own values: each experiment of the issue tried as a
learner would, in 02 in a fresh kernel of both editions, and what the page says checked against what was computed
(the plane's vectors and whose they are, a challenge that cannot work on them, a masked score, 3e200, T = 3)."""

import re
from html import unescape

import pytest
from support.notebooks import code_cells, outputs_of, run_edited
from support.records import results
from test_claims import shown, titles
from test_given import notebook_path

from llm_from_scratch.book.progress import store
from llm_from_scratch.ch27.strings import STRINGS

pytestmark = pytest.mark.notebook
LANGS = ["ru", "en"]
INPUTS = "Q = Tensor([[[0, 3], [2, -1]]])"
PLANE = "plane = VectorPlane(Q, K, V, A)"
LAST = 'challenge("plane-strong", plane)'


def said(lang: str, key: str, **fields) -> str:
    return STRINGS.text_in(lang, key, **fields)


def everything(notebook) -> str:
    """Every output of every code cell as text (streams, plain text, HTML with its tags dropped)."""
    parts = []
    for cell in code_cells(notebook):
        for output in cell.outputs:
            data = output.get("data", {})
            parts += [output.get("text", ""), data.get("text/plain", ""), re.sub(r"<[^>]+>", " ",
                                                                                 data.get("text/html", ""))]
            parts.append(output.get("ename", ""))
    return unescape(" ".join(parts))


def ran(lang: str, stem: str, edits: dict[str, tuple[str, str]]):
    """The notebook ``stem`` of ``lang`` with ``edits`` (``run_edited``), run in a fresh kernel, every output of it
    free of a warning, a traceback and an error."""
    notebook = run_edited(notebook_path(lang, stem), edits)
    page = everything(notebook)
    assert "Warning" not in page and "Traceback" not in page and "Error" not in page, page[:2000]
    return notebook


@pytest.mark.parametrize("lang", LANGS)
def test_the_plane_on_the_learners_vectors_says_whose_and_a_task_that_cannot_work_stores_nothing(lang):
    moved = (f"{LAST}\nplane.move('k1', 2, 0)\ncheck('plane-equal-prediction', 'c')\n"
             "print(check('plane-equal', plane).message)")
    notebook = ran(lang, "02_scores_softmax_mixture",
                   {"Q": (INPUTS, "Q = Tensor([[[0, 0], [-2, 1]]])"), "check": (LAST, moved)})
    assert said(lang, "plane.title.given") in titles(notebook, PLANE)
    plane = shown(notebook, PLANE)
    assert said(lang, "plane.snapshot_given") in plane and said(lang, "plane.title.worked") not in plane
    refusal = said(lang, "challenge.unfit", why=said(lang, "challenge.unfit.zero_query", name="q₀"),
                   then=said(lang, "challenge.unfit.then", button=said(lang, "plane.reset")))
    assert refusal in shown(notebook, moved)
    assert "plane-equal" not in results(store(), "ch27") and "plane-equal" not in results(store(), "ch27", own=True)


@pytest.mark.parametrize("lang", LANGS)
def test_a_masked_score_is_drawn_and_an_answer_on_it_judged(lang):
    mask = "S = scores / math.sqrt(d_k)\nS = S + Tensor([[[0, -np.inf], [0, 0]]])"
    notebook = ran(lang, "02_scores_softmax_mixture",
                   {"S": ("S = scores / math.sqrt(d_k)", mask), "answer": ("answer = ...  #", "answer = [1, 0]  #")})
    assert "−∞" in shown(notebook, 'show(S, "scaled")')
    assert said(lang, "given.right", difference="").split(".")[0] in shown(notebook, 'check("weights", answer')
    assert results(store(), "ch27", own=True)["weights"] == [True]


@pytest.mark.parametrize("lang", LANGS)
def test_inputs_that_overflow_give_one_sentence_and_no_warning(lang):
    huge = "Q = Tensor([[[0, 3e200], [2e200, -1e200]]])\nK = Tensor([[[3e200, 0], [-1e200, 2e200]]])"
    notebook = ran(lang, "02_scores_softmax_mixture", {"Q": (INPUTS + "\nK = Tensor([[[3, 0], [-1, 2]]])", huge)})
    sentence = said(lang, "plane.outside", limit=6, name="Q", value="3.00e+200")
    assert shown(notebook, PLANE).count(sentence) == 1 and titles(notebook, PLANE) == [], "one sentence, no plane"


@pytest.mark.parametrize("lang", LANGS)
def test_three_tokens_are_asked_for_as_a_row_of_three(lang):
    three = ("Q = Tensor([[[0, 3], [2, -1], [1, 1]]])\nK = Tensor([[[3, 0], [-1, 2], [1, 0]]])\n"
             "V = Tensor([[[3, -3], [1, 3], [0, 1]]])")
    notebook = ran(lang, "02_scores_softmax_mixture",
                   {"Q": (INPUTS + "\nK = Tensor([[[3, 0], [-1, 2]]])\nV = Tensor([[[3, -3], [1, 3]]])", three)})
    noun = {"ru": "чисел", "en": "numbers"}[lang]
    assert said(lang, "form.row", count=3, numbers=noun, layout="[a, b, c]") in shown(notebook, "answer = ...")


@pytest.mark.parametrize("lang", LANGS)
def test_k_times_q_transposed_gives_keys_for_rows_down_to_the_mixture_and_the_output(lang):
    notebook = ran(lang, "03_shapes",
                   {"scores": ("scores = Q @ K.transpose(1, 2)\nS = ", "scores = K @ Q.transpose(1, 2)\nS = ")})
    tables = shown(notebook, 'show_folded(A, "weights"')
    assert "q_0 q_1 q_2 k_0 " in tables and "k_0 k_1 k_2 q_0 " not in tables, "queries for columns, keys for rows"
    mixture = shown(notebook, 'show_folded(O, "output"')
    rows = (said(lang, "trace.weights_of", query="k_0"), said(lang, "trace.weights_of", query="q_0"))
    assert rows[0] in mixture and rows[1] not in mixture, mixture[:600]
    drawn = unescape(outputs_of(notebook, 'show_folded(O, "output"', "image/svg+xml"))
    assert said(lang, "figure.axis.key_rows") in drawn and said(lang, "figure.axis.query_rows") not in drawn


@pytest.mark.parametrize("lang", LANGS)
def test_only_v2_changed_is_named_alone_under_the_score_gradient(lang):
    notebook = ran(lang, "07_gradients",
                   {"V2": ("V2 = Tensor([[[1, 0], [0, 1], [1, 1]]]", "V2 = Tensor([[[2, 0], [0, 1], [1, 1]]]")})
    note = shown(notebook, "show_folded(S2.grad")
    assert said(lang, "given.inputs_changed", names="V2") in note and "O2_bar" not in note, note[-600:]


@pytest.mark.parametrize("lang", LANGS)
def test_a_plane_shown_again_leaves_the_old_one_judging_nothing_and_a_plain_array_a_follows_silently(lang):
    again = (f"{LAST}\nold = plane\nplane = VectorPlane(Q, K, V, A)\nplane.show()\nold.move('k1', 3, 0)\n"
             "check('plane-equal-prediction', 'c')\nprint(check('plane-equal', old).message)\n"
             "print(repr(VectorPlane(Q, K, V, A.data).note))")
    notebook = ran(lang, "02_scores_softmax_mixture", {"again": (LAST, again)})
    said_there = shown(notebook, again)
    assert said(lang, "challenge.replaced") in said_there and " '' " in f" {said_there} ", said_there[-800:]
    assert "plane-equal" not in results(store(), "ch27") and "plane-equal" not in results(store(), "ch27", own=True)


@pytest.mark.parametrize("lang", LANGS)
def test_a_slider_set_from_code_off_its_steps_says_so_in_one_line(lang):
    moved = "explorer = ScaleExplorer()\nexplorer.show()\nexplorer.slider.value = 3.14"
    notebook = ran(lang, "04_scaling", {"slider": ("ScaleExplorer().show()", moved)})
    assert said(lang, "widget.slider.kept", asked="3.14", steps="0.000, 0.050, 0.100, …, 2.000",
                label="0.707") in shown(notebook, "explorer.slider.value = 3.14")
