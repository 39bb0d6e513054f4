"""An answer is judged on the values it was computed from: an answer cell passes them to ``check`` by keyword.

Values that are the chapter's are judged as ever. Values a changed cell made (another Q, S divided by d_k, the
softmax along the queries) are judged as the learner's own: right if right for them, the chapter's answer named
as such, the changed stage named from the values' graph, and the attempt kept apart (store version 5: it takes
no first-attempt slot, counts for no skill, has its own column in the teacher's CSV).
"""

import io
import json
import math
import os
import pathlib
import re
from html import unescape

import numpy as np
import pytest
from support.notebooks import outputs_of, run_edited
from support.records import results

from llm_from_scratch import Tensor
from llm_from_scratch.book.export import EXPORT_COLUMNS, export
from llm_from_scratch.book.progress import ENV, VERSION, store
from llm_from_scratch.book.text import set_language
from llm_from_scratch.ch27.examples import hand_arrays
from llm_from_scratch.ch27.exercises import EXERCISE_BOOK, check, mastery
from llm_from_scratch.ch27.strings import STRINGS

ROOT = pathlib.Path(__file__).resolve().parents[1]
Q, K, V = ([[[0, 3], [2, -1]]], [[[3, 0], [-1, 2]]], [[[3, -3], [1, 3]]])
OTHER_Q = [[[1, 3], [2, -1]]]


def lab(q=Q, divisor=math.sqrt, axis=2):
    """02's and 07's cells: the inputs, the scores, S, A and O (plain Tensors, as the notebooks make them)."""
    query, key, value = Tensor(q), Tensor(K), Tensor(V)
    scores = query @ key.transpose(1, 2)
    scaled = scores / divisor(2)
    weights = scaled.softmax(axis)
    return {"Q": query, "K": key, "V": value, "scores": scores, "S": scaled, "A": weights, "O": weights @ value}


def softmax_row(s):
    return np.exp(s) / np.exp(s).sum()


def kept(exercise_id: str) -> tuple[list[bool], list[bool]]:
    """The exercise's attempts on its own values and on the learner's."""
    return (results(store(), "ch27").get(exercise_id, []), results(store(), "ch27", own=True).get(exercise_id, []))


def said(key: str, lang: str = "ru", **fields) -> str:
    return STRINGS.text_in(lang, key, **fields)


def test_the_chapters_own_values_are_judged_as_ever():
    cells = lab()
    feedback = check("weights", softmax_row(cells["S"].data[0, 0]), S=cells["S"])
    assert feedback.correct and kept("weights") == ([True], [])


def test_a_right_answer_for_another_q_is_right_names_no_slip_and_is_kept_apart():
    cells = lab(OTHER_Q)
    feedback = check("scores", cells["Q"].data[0] @ cells["K"].data[0].T, Q=cells["Q"], K=cells["K"])
    assert feedback.correct and feedback.misconception is None
    assert said("given.inputs_changed", names="Q") in feedback.message
    assert kept("scores") == ([], [True])
    skill = mastery()["skill.dot-products"]
    assert skill.attempts == 0 and skill.own == 1 and skill.first_right == 0


def test_s_divided_by_dk_is_named_from_its_graph_and_counts_for_no_skill():
    cells = lab(divisor=lambda d: d)
    feedback = check("weights", softmax_row(cells["S"].data[0, 0]), S=cells["S"])
    assert feedback.correct and said("read.divided", divisor="2", root="1.4142") in feedback.message, feedback.message
    assert said("read.formula", name="S", formula="QKᵀ/2") in feedback.message
    assert kept("weights") == ([], [True]) and mastery()["skill.row-softmax"].attempts == 0


@pytest.mark.parametrize("made, formula, key, fields", [
    (lambda scores: (scores * 2).softmax(2), "softmax(QKᵀ·2)", "read.in_all", {"factor": "2", "scale": "0.7071"}),
    (lambda scores: (scores / math.sqrt(2) / 0.5).softmax(2), "softmax(QKᵀ/√2/0.5)", "read.in_all",
     {"factor": "1.4142", "scale": "0.7071"}),
    (lambda scores: scores.softmax(2), "softmax(QKᵀ)", "read.unscaled", {"root": "1.4142"}),
    (lambda scores: (scores / math.sqrt(2)).softmax(1), "softmax(QKᵀ/√2, axis=1)", "read.axis",
     {"axis": 1, "what": said("read.axis_queries"), "keys": 2}),
    (lambda scores: (scores / math.sqrt(2)).softmax(0), "softmax(QKᵀ/√2, axis=0)", "read.axis",
     {"axis": 0, "what": said("read.axis_batch"), "keys": 2})])
def test_a_fold_note_says_the_whole_formula_and_where_it_departs_from_the_head(made, formula, key, fields):
    """A fold's note writes the cells' formula whole and says where its numbers part from the head's: the chain of
    numbers in all, the missing scale, the softmax's axis; nothing of a slip that was not made."""
    from llm_from_scratch.ch27.notebook import fold_note

    query, key_, _ = Tensor(Q), Tensor(K), Tensor(V)
    note = fold_note((made(query @ key_.transpose(1, 2)), "weights"), "weights")
    assert said("read.formula", name="A", formula=formula) in note, note
    assert said(key, **fields) in note and "mis." not in note, note


def test_scores_divided_by_the_root_of_their_own_width_name_no_divisor():
    """Inputs of width 3 divided by √3 are the head's own scaling (not the chapter's √2): only the inputs changed."""
    rng = np.random.default_rng(3)
    query, key_ = (Tensor(rng.integers(-3, 4, size=(1, 4, 3)).astype(float)) for _ in range(2))
    scaled = query @ key_.transpose(1, 2) / math.sqrt(3)
    feedback = check("weights", softmax_row(scaled.data[0, 0]), S=scaled)
    assert feedback.correct and said("given.inputs_changed", names="Q, K") in feedback.message, feedback.message
    assert "1.4142" not in feedback.message


def test_q_and_k_in_each_others_place_are_named_as_such_not_as_new_inputs():
    q, k, _ = (Tensor(x) for x in hand_arrays())
    scaled = k @ q.transpose(1, 2) / 2
    feedback = check("weights-by-hand", softmax_rows(scaled.data[0]).round(2), S=scaled)
    assert feedback.correct and said("read.part_transposed", part="KQᵀ/2", stage=said("stage.scaled-scores")) in (
        feedback.message), feedback.message
    assert said("given.inputs_changed", names="Q, K") not in feedback.message


def test_the_chapters_answer_after_q_changed_is_named_as_such():
    chapters = softmax_row(lab()["S"].data[0, 0])
    feedback = check("weights", chapters, S=lab(OTHER_Q)["S"])
    assert not feedback.correct and feedback.misconception == "exercises-answer-on-own-values"
    assert kept("weights") == ([], [False])


def test_a_softmax_along_the_queries_is_named_from_the_graph():
    cells = lab(axis=1)
    feedback = check("value-gradient", cells["A"].data[0].T @ np.eye(2), A=cells["A"], O_bar=Tensor(np.eye(2)[None]))
    assert feedback.correct and said("read.axis", axis=1, what=said("read.axis_queries"), keys=2) in (
        feedback.message), feedback.message


def test_the_second_examples_exercises_read_its_values_in_03():
    """03's hand exercises are on the second example (their ``example``): its own values are judged as ever, and a
    changed key is the learner's own, judged within a hand computation's ±0.01."""
    q, k, v = (Tensor(x) for x in hand_arrays())
    scaled = q @ k.transpose(1, 2) / 2
    assert check("weights-by-hand", softmax_rows(scaled.data[0]).round(2), S=scaled).correct
    assert kept("weights-by-hand") == ([True], [])
    other_k = Tensor(k.data * [[[1], [-1], [1]]])
    scaled = q @ other_k.transpose(1, 2) / 2
    feedback = check("weights-by-hand", softmax_rows(scaled.data[0]).round(2), S=scaled)
    assert feedback.correct and said("given.inputs_changed", names="K") in feedback.message, feedback.message
    assert kept("weights-by-hand") == ([True], [True])


def test_another_v_is_named_for_the_weights_gradient():
    other_v = Tensor([[[3, -3], [2, 3]]])
    feedback = check("weight-gradient", np.eye(2) @ other_v.data[0].T, V=other_v, O_bar=Tensor(np.eye(2)[None]))
    assert feedback.correct and said("given.inputs_changed", names="V") in feedback.message


def softmax_rows(s):
    return np.exp(s) / np.exp(s).sum(axis=-1, keepdims=True)


def test_values_made_otherwise_are_judged_on_their_numbers():
    typed = Tensor([[[0.0, 3.0], [3.0, -2.0]]])  # an S written out: no graph to read
    feedback = check("weights", softmax_row(typed.data[0, 0]), S=typed)
    assert feedback.correct and said("read.outside", name="S") in feedback.message


@pytest.mark.parametrize("values, key", [({"T": 1}, "given.names"), ({}, None), ({"S": "abc"}, "given.not_numbers")])
def test_values_the_exercise_does_not_read_are_told_in_the_learners_language(values, key):
    feedback = check("weights", [0.5, 0.5], **values)
    if key is None:
        assert feedback.readable
        return
    assert not feedback.readable and feedback.message.startswith(said(key, id="weights", names="S", given="T",
                                                                      name="S")[:12])
    assert kept("weights") == ([], [])


def test_values_on_a_variant_are_refused():
    feedback = check("scores-by-hand", [[1]], variant=1, Q=Tensor(Q))
    assert not feedback.readable and kept("scores-by-hand") == ([], [])


def test_the_teachers_csv_has_a_column_for_attempts_on_own_values(tmp_path):
    check("scores", [[0, 6], [6, -4]])
    check("scores", [[3, 6], [7, -4]], Q=Tensor(OTHER_Q), K=Tensor(K))
    out = io.StringIO()
    export([pathlib.Path(os.environ[ENV])], out, io.StringIO())
    rows = list(csv_rows(out.getvalue()))
    assert "attempts_on_own_values" in EXPORT_COLUMNS
    dots = next(r for r in rows if r["skill"] == "dot-products")
    # the notebook's own example counts for no skill (its answer is folded beside it): only fresh variants do
    assert dots["attempts"] == "1" and dots["attempts_on_own_values"] == "1" and dots["first_attempt_right"] == "0"


def csv_rows(text: str):
    import csv

    return csv.DictReader(io.StringIO(text))


def test_the_progress_table_shows_attempts_on_own_values_apart():
    set_language("en")
    check("scores", [[3, 6], [7, -4]], Q=Tensor(OTHER_Q), K=Tensor(K))
    row = next(r for r in EXERCISE_BOOK.progress().table if r and r[0] == EXERCISE_BOOK.title("scores"))
    assert row[1] == said("progress.open", "en") and said("progress.own", "en", own=1) in row[2]


def test_a_version_4_store_is_read_and_written_as_the_current_version():
    path = pathlib.Path(os.environ[ENV])
    path.write_text(json.dumps({"format": "llm-from-scratch-progress", "version": 4, "learner": {"id": "a", "name": ""},
                                "chapters": {"ch27": {"scores": {"attempts": [
                                    {"variant": 0, "correct": True, "hinted": False, "computed": True}],
                                    "hints": {}}}}}), encoding="utf-8")
    check("scores", [[3, 6], [7, -4]], Q=Tensor(OTHER_Q), K=Tensor(K))
    data = json.loads(path.read_text(encoding="utf-8"))
    attempts = data["chapters"]["ch27"]["scores"]["attempts"]
    assert data["version"] == VERSION and [a.get("own", False) for a in attempts] == [False, True]


# --- in the notebooks, each in a fresh kernel ------------------------------------------------------------------

# the answer cell's line that computes the right answer from the cells' own values
COMPUTED = {"01_predict": "answer = Q.data[0] @ K.data[0].T",
            "02_scores_softmax_mixture": "answer = np.exp(s) / np.exp(s).sum()",
            "07_gradients": "answer = A.data[0].T @ O_bar.data[0]"}
ASKED = {"01_predict": "scores", "02_scores_softmax_mixture": "weights", "07_gradients": "value-gradient"}
EDITIONS = [(lang, stem) for lang in ("ru", "en") for stem in COMPUTED]


def notebook_path(lang: str, stem: str) -> pathlib.Path:
    return ROOT / "chapter27" / ("en" if lang == "en" else "") / f"{stem}.ipynb"


def answer_shown(lang: str, stem: str, edits: dict[str, tuple[str, str]]) -> str:
    """What the answer cell of the notebook ``stem``, edited and run, shows."""
    return outputs_of(run_edited(notebook_path(lang, stem), edits), f'check("{ASKED[stem]}", answer')


@pytest.mark.notebook
@pytest.mark.parametrize("lang, stem", EDITIONS, ids=[f"{lang}-{stem[:2]}" for lang, stem in EDITIONS])
def test_q_changed_and_the_right_answer_for_it_computed_in_the_answer_cell_is_right(lang, stem):
    shown = answer_shown(lang, stem, {"Q": ("Q = Tensor([[[0, 3], [2, -1]]]", "Q = Tensor([[[1, 3], [2, -1]]]"),
                                    "answer": ("answer = ...", COMPUTED[stem])})
    assert said("feedback.correct", lang) in shown and said("given.inputs_changed", lang, names="Q") in shown, shown
    assert kept(ASKED[stem]) == ([], [True]), "kept apart, nothing against the chapter's exercise"


@pytest.mark.notebook
@pytest.mark.parametrize("lang", ["ru", "en"])
def test_02s_try_it_names_the_changed_stage_and_stores_nothing_against_mastery(lang):
    stem = "02_scores_softmax_mixture"
    shown = answer_shown(lang, stem, {"S": ("S = scores / math.sqrt(d_k)", "S = scores / d_k"),
                                    "answer": ("answer = ...", COMPUTED[stem])})
    assert said("read.divided", lang, divisor="2", root="1.4142") in re.sub(r"\s+", " ", shown), shown
    assert kept("weights") == ([], [True]) and mastery()["skill.row-softmax"].attempts == 0


@pytest.mark.notebook
@pytest.mark.parametrize("lang", ["ru", "en"])
def test_02s_weights_along_the_queries_are_titled_by_their_axis_and_say_their_rows_do_not_sum_to_1(lang):
    path = notebook_path(lang, "02_scores_softmax_mixture")
    notebook = run_edited(path, {"A": ("A = S.softmax(2)", "A = S.softmax(1)")})
    fold = 'show_folded(A, "weights", answers="weights")'
    titled = {"ru": "<title>softmax(QKᵀ/√2, axis=1): веса, не как у головы на этих входах</title>",
              "en": "<title>softmax(QKᵀ/√2, axis=1): weights, not the head's on these inputs</title>"}[lang]
    assert titled in unescape(outputs_of(notebook, fold, "image/svg+xml"))
    note = said("figure.rows_not_one", lang)
    shown = unescape(outputs_of(notebook, fold, "text/html"))  # a fold's numbers stand in its HTML alone
    assert note in shown and "Σ = 1.013317" in shown


@pytest.mark.notebook
@pytest.mark.parametrize("lang", ["ru", "en"])
def test_02s_try_it_reaches_the_plane_which_shows_the_learners_weights(lang):
    path = notebook_path(lang, "02_scores_softmax_mixture")
    notebook = run_edited(path, {"S": ("S = scores / math.sqrt(d_k)", "S = scores / d_k")})
    plane = outputs_of(notebook, "plane = VectorPlane(Q, K, V, A)")
    weights = {"ru": "Веса — q₀: 0.047, 0.953", "en": "Weights — q₀: 0.047, 0.953"}[lang]
    assert weights in plane and "0.014" not in plane, plane
    assert said("stages.follows", lang, widget=said("stages.plane", lang).capitalize(), divided="÷ 2",
                along=said("stages.along_rows", lang)) in outputs_of(notebook, "plane = VectorPlane(Q, K, V, A)",
                                                                     "text/html")


def test_an_answer_on_masked_scores_is_judged_on_them_and_a_row_masked_throughout_has_none():
    cells = lab()
    masked = cells["S"] + Tensor([[[0, -np.inf], [0, 0]]])  # the next chapter's causal mask
    right = check("weights", [1, 0], S=masked)
    assert right.correct and said("read.formula", name="S", formula="QKᵀ/√2 + M") in right.message, right.message
    assert not check("weights", [0.5, 0.5], S=masked).correct
    assert kept("weights") == ([], [True, False])
    nothing = check("weights", [1, 0], S=masked + Tensor([[[-np.inf, 0], [0, 0]]]))
    assert not nothing.readable and said("given.undefined", names="S") in nothing.message
    assert kept("weights") == ([], [True, False]), "a row with no weights stores nothing"
    refused = check("weights", [1, 0], S=cells["S"] + Tensor([[[0, np.inf], [0, 0]]]))
    assert not refused.readable and said("given.not_numbers", name="S") in refused.message


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_the_answers_form_follows_the_shape_the_learners_values_give(lang):
    set_language(lang)
    rng = np.random.default_rng(0)
    expected = {1: ("form.one", {}), 3: ("form.row", {"count": 3, "layout": "[a, b, c]"}),
                21: ("form.row", {"count": 21, "layout": "[a, b, c, …]"})}
    nouns = {"ru": {3: "чисел", 21: "числа"}, "en": {3: "numbers", 21: "numbers"}}[lang]
    for tokens, (key, fields) in expected.items():
        q, k = Tensor(rng.normal(size=(1, tokens, 2))), Tensor(rng.normal(size=(1, tokens, 2)))
        form = said(key, lang, **fields, **({"numbers": nouns[tokens]} if "count" in fields else {}))
        assert form in check("weights", ..., S=q @ k.transpose(1, 2)).message
    assert said("form.matrix", lang, rows=21, columns=21) in check("scores", ..., Q=q, K=k).message
    assert said("form.matrix", lang, rows=21, columns=21) != EXERCISE_BOOK.form("scores")


def test_a_check_on_the_examples_numbers_says_so_when_the_cells_hold_other_inputs(monkeypatch):
    changed = {"Q": Tensor(OTHER_Q), "K": Tensor(K), "V": Tensor(V)}
    monkeypatch.setattr("llm_from_scratch.ch27.given.notebook_namespace", lambda: changed)
    feedback = check("weights", [0.014, 0.986])
    assert feedback.correct and feedback.note == said("given.judged_on_example", names="Q")
    changed["Q"] = Tensor(Q)
    assert check("weights", [0.014, 0.986]).note == "", "the cells hold the question's own inputs"
    changed["Q"] = Tensor(np.zeros((1, 3, 2)))
    assert check("weights", [0.014, 0.986]).note == "", "another shape: another example, not an edit of this one"


def test_the_note_is_said_only_of_the_cells_q_k_v_and_not_on_the_plane(monkeypatch):
    from llm_from_scratch.ch27.plane import VectorPlane

    cells = {"Q2": Tensor(OTHER_Q), "K": Tensor(K), "V": Tensor(V)}  # another example's Q2, no Q: no edit of Q
    monkeypatch.setattr("llm_from_scratch.ch27.given.notebook_namespace", lambda: cells)
    assert check("weights", [0.014, 0.986]).note == ""
    cells.update(Q=Tensor(OTHER_Q), Q_same=Tensor(Q))  # the question's own queries held beside others: nothing
    assert check("weights", [0.014, 0.986]).note == ""
    del cells["Q_same"]
    assert check("weights", [0.014, 0.986]).note == said("given.judged_on_example", names="Q")
    plane = VectorPlane(Tensor(OTHER_Q))
    plane.move("k1", 3, 0)
    check("plane-equal-prediction", "c")
    assert check("plane-equal-prediction", "c").note == "" and check("plane-equal", plane).note == "", \
        "a plane holds the cells' own vectors: its tasks are about them"


@pytest.mark.parametrize("bad", ["abc", object(), None, {"X": 1}])
def test_a_form_given_values_that_are_no_numbers_shows_the_exercises_form_and_the_check_says_why(bad):
    values = bad if isinstance(bad, dict) else {"S": bad}
    assert EXERCISE_BOOK.form("weights", values=values) == EXERCISE_BOOK.form("weights")
    refused = check("weights", [0.5, 0.5], **values)
    assert not refused.readable and kept("weights") == ([], [])
