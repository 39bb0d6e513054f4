"""``show`` draws the learner's own values: any Tensor or array as a framed heatmap with its table, in a role;
``check`` takes a Tensor a cell computed."""

import math
import pathlib
import re

import numpy as np
import pytest
from support import tiered

from llm_from_scratch import Tensor
from llm_from_scratch.book.blocks import Section
from llm_from_scratch.ch27.exercises import check
from llm_from_scratch.ch27.figures import ROLES, as_shown, matrix_figures, title_of
from llm_from_scratch.ch27.notebook import scaled_dot_product_self_attention, show

CELLS = re.compile(r">(-?\d+(?:\.\d+)?)</text>")
SCORES = Tensor([[[0.0, 6.0], [6.0, -4.0]]])
Q, K, V = Tensor([[[0, 3], [2, -1]]]), Tensor([[[3, 0], [-1, 2]]]), Tensor([[[3, -3], [1, 3]]])
CELLS_NAMES = {"Q": Q, "K": K, "V": V}  # what a notebook's cells named them


@pytest.fixture
def notebook(monkeypatch):
    """The notebook's variables as a kernel holds them: the cells' Q, K and V."""
    monkeypatch.setattr("llm_from_scratch.ch27.reader.notebook_namespace", lambda: CELLS_NAMES)


def test_a_tensor_in_a_role_is_titled_labelled_and_framed_as_that_role(notebook):
    [figure] = matrix_figures(Q @ K.transpose(1, 2), "scores")
    assert figure.title == "QKᵀ: скалярные произведения"
    assert CELLS.findall(figure.svg) == ["0", "6", "6", "-4"]
    assert "q_1" in figure.table and "k_1" in figure.table and "точечная рамка" in figure.svg
    [weights] = matrix_figures(SCORES.softmax(2), "weights")
    assert "Σ = 1.000000" in weights.table and "толстая сплошная рамка" in weights.svg


def test_a_matrix_whose_numbers_are_a_stage_transposed_has_keys_for_rows(notebook):
    """KQᵀ of a Q and K whose QKᵀ is not symmetric: its rows are the keys, its columns the queries, as labelled."""
    q2, k2 = Tensor([[[1, 0], [0, 1]]]), Tensor([[[1, 2], [0, 1]]])
    CELLS_NAMES.update(Q2=q2, K2=k2)
    try:
        [swapped] = matrix_figures(k2 @ q2.mT, "scores")
        [kept] = matrix_figures(q2 @ k2.mT, "scores")
    finally:
        del CELLS_NAMES["Q2"], CELLS_NAMES["K2"]
    assert "k_1" in swapped.table.splitlines()[-1] and "q_1" in swapped.table.splitlines()[0], swapped.table
    assert "q_1" in kept.table.splitlines()[-1] and "k_1" in kept.table.splitlines()[0], kept.table


@pytest.mark.parametrize("role", tiered(list(ROLES), {"query", "key", "value", "raw-scores", "weights"}))
def test_every_role_draws_an_array_and_a_tensor_alike(role):
    values = np.array([[[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]]])
    assert matrix_figures(values, role)[0].svg == matrix_figures(Tensor(values), role)[0].svg


def test_a_batch_gives_one_figure_per_element_and_a_vector_one_row():
    batch = matrix_figures(np.arange(8.0).reshape(2, 2, 2), "output")
    assert [f.title.rsplit(" · ", 1)[1] for f in batch] == ["b = 0", "b = 1"]
    [row] = matrix_figures([0.5, 0.5])
    assert CELLS.findall(row.svg)[-2:] == ["0.500000", "0.500000"] and row.title == "матрица формы [1, 2]"
    assert "рамка" not in row.svg, "a matrix of no role has no role's frame"


@pytest.mark.parametrize("bad", [np.float64(2.0), np.zeros((0, 2, 2)), np.zeros((1, 2, 2, 2))])
def test_what_is_not_a_matrix_is_told_in_the_editions_words(bad):
    with pytest.raises(ValueError, match="show рисует матрицы.*форма"):
        matrix_figures(bad, "scores")


def test_a_role_is_named_after_its_tensor_and_an_unknown_one_lists_the_roles(english):
    with pytest.raises(ValueError, match="show has no role 'weigths'. The roles: query, key"):
        as_shown((SCORES, "weigths"))
    with pytest.raises(ValueError, match="comes right after the tensor"):
        as_shown(("weights", SCORES))
    section = Section("t", ())
    assert as_shown((section,)) == [section]
    assert [f.title for f in as_shown((SCORES, "scaled", SCORES))] == ["scaled scores", "a matrix of shape [2, 2]"]


def _titles(*parts):
    """The titles ``show`` gives its parts (value, role, value, role, …) in a notebook whose cells named Q, K, V,
    without drawing them."""
    return [title_of(value, role, CELLS_NAMES) for value, role in zip(parts[::2], parts[1::2])]


def test_a_title_states_the_heads_formula_only_where_the_numbers_are_that_stage(english):
    scores = Q @ K.transpose(1, 2)
    S = scores / math.sqrt(2)
    assert _titles(scores, "scores", S, "scaled", S.softmax(2), "weights", S.softmax(2) @ V, "output") == [
        "QKᵀ: dot products", "S = QKᵀ/√d_k: scaled scores", "A = softmax(S) along rows", "O = AV: mixtures of values"]
    assert _titles(scores * (1 / math.sqrt(2)), "scaled", (Q / math.sqrt(2)) @ K.mT, "scaled", scores.mT.mT,
                   "scores") == ["S = QKᵀ/√d_k: scaled scores"] * 2 + ["QKᵀ: dot products"], "the same numbers"
    assert _titles(scores / 2, "scaled", scores, "scaled", scores.softmax(2), "weights") == [
        "QKᵀ/2: scaled scores, not the head's on these inputs", "QKᵀ: scaled scores, not the head's on these inputs",
        "softmax(QKᵀ): weights, not the head's on these inputs"]
    q2, k2 = Tensor([[[1, 0], [0, 1]]]), Tensor([[[1, 2], [0, 1]]])  # a second example, whose QKᵀ is not symmetric
    assert [title_of(k2 @ q2.mT, "scores", {"Q2": q2, "K2": k2}), title_of(K @ Q.mT, "scores", CELLS_NAMES)] == [
        "K2Q2ᵀ: scores, not the head's on these inputs", "QKᵀ: dot products"], "KQᵀ = QKᵀ where QKᵀ is symmetric"
    assert _titles(S / 0.5, "scaled", S.softmax(0), "weights") == [
        "QKᵀ/√2/0.5: scaled scores, not the head's on these inputs",
        "softmax(QKᵀ/√2, axis=0): weights, not the head's on these inputs"]
    e = S.exp()
    assert _titles(e, "exponentials", e / e.sum(2, keepdims=True), "weights", S.softmax(2).data, "weights",
                   S.softmax(2).sum(2), "row-sums", S.softmax(2).sum(2), "column-sums") == [
        "e^S: the softmax's numerators", "A = softmax(S) along rows", "A = softmax(S) along rows",
        "row sums of A: Σ_j A_ij", "sum(softmax(QKᵀ/√2), axis=2): column sums, not the head's on these inputs"]
    head = scaled_dot_product_self_attention(Q, K, V)  # the engine's softmax: exp of log_softmax
    assert _titles(head.weights, "weights", head.output, "output") == [
        "A = softmax(S) along rows", "O = AV: mixtures of values"]


def test_a_title_claims_nothing_where_no_inputs_are_known(english):
    """Outside a notebook's Q, K and V there is nothing to compare with: the formula only, with its inputs
    numbered, or the name alone for numbers typed in."""
    scores = Q @ K.transpose(1, 2)
    assert [title_of(scores / 2, "scaled", {}), title_of(scores.data, "scaled", {})] == [
        "scaled scores: X₁X₂ᵀ/2", "scaled scores"]
    assert title_of(np.ones((1, 2, 2)), "weights", CELLS_NAMES) == "weights", "no inputs of its own to compare"


def test_weights_along_the_wrong_axis_are_titled_by_it_and_say_their_rows_do_not_sum_to_1(english, notebook):
    [columns] = as_shown((((Q @ K.transpose(1, 2)) / 2).softmax(1), "weights"))
    assert columns.title == "softmax(QKᵀ/2, axis=1): weights, not the head's on these inputs"
    note = "Not every row sums to 1, so these are not the weights of a softmax along rows."
    assert note in " ".join(re.findall(r"<text[^>]*>([^<]*)</text>", columns.svg)) or note in " ".join(
        re.findall(r"<!-- (.*?) -->", columns.svg)), "said under the map, in lines of its width"
    assert columns.table.endswith(note) and "Σ = 1.040733" in columns.table
    [rows] = as_shown(((Q @ K.transpose(1, 2)).softmax(2), "weights"))
    assert note not in rows.svg and note not in rows.table


def test_show_displays_the_figure_with_its_table(monkeypatch):
    shown = []
    monkeypatch.setattr("llm_from_scratch.book.display.display", lambda bundle, raw: shown.append(bundle))
    show(SCORES, "scores")
    [bundle] = shown
    assert "<img alt=" in bundle["text/html"] and "<details>" in bundle["text/html"]
    assert "q_0" in bundle["text/plain"] and "<svg" in bundle["image/svg+xml"]


def test_check_takes_a_tensor_a_cell_computed_its_batch_axis_of_one_dropped():
    q = Tensor([[[0.0, 3.0], [2.0, -1.0]]], requires_grad=True)
    k = Tensor([[[3.0, 0.0], [-1.0, 2.0]]])
    assert check("scores", q @ k.transpose(1, 2)).correct
    assert not check("scores", q @ k).correct


def test_none_is_told_what_it_usually_is():
    with pytest.raises(ValueError, match="Показывать нечего: здесь None.*retain_grad"):
        matrix_figures(Tensor([[1.0]]).grad, "grad-query")


def test_a_masked_score_is_drawn_as_minus_infinity_on_white_with_words_and_no_warning():
    import warnings

    from llm_from_scratch.book.figures import contrast_ratio
    from llm_from_scratch.book.text import set_language

    set_language("en")
    Q, K = Tensor([[[0, 3], [2, -1]]]), Tensor([[[3, 0], [-1, 2]]])
    S = Q @ K.transpose(1, 2) / math.sqrt(2) + Tensor([[[0, -np.inf], [-np.inf, -np.inf]]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning from the package's own arithmetic on −∞
        [scores] = as_shown((S, "scaled"))
        [weights] = as_shown((S.softmax(2), "weights"))
    assert scores.table.splitlines()[1].split()[1:] == ["0", "−∞"]
    assert "A white cell holding ∞ or −∞ is outside the colour scale" in scores.table
    cells = re.findall(r'style="fill: (#[0-9a-f]{6}); stroke: (#[0-9a-f]{6})', scores.svg)
    assert ("#ffffff", "#737373") in cells, "a −∞ cell is white in a grey edge, not a colour of the map"
    assert contrast_ratio((1, 1, 1), (0, 0, 0)) >= 4.5
    assert weights.table.splitlines()[2].split() == ["q_1", "—", "—", "Σ", "=", "—"]
    assert "Rows without weights: q_1. Every score in them is −∞" in weights.table and "NaN" in weights.table
    assert "Not every row sums to 1" not in weights.table, "the one row with weights sums to 1"


def test_a_fold_of_shapes_says_when_the_cells_tensors_give_other_shapes_than_the_questions(monkeypatch):
    from llm_from_scratch.book.text import set_language
    from llm_from_scratch.ch27 import sections
    from llm_from_scratch.ch27.notebook import show_folded

    set_language("en")
    notes = []
    monkeypatch.setattr("llm_from_scratch.book.display.show_note", notes.append)
    monkeypatch.setattr("llm_from_scratch.book.display.show_folded", lambda *parts: None)
    for shape, said in (((4, 7, 5), False), ((2, 5, 4), True)):
        head = scaled_dot_product_self_attention(np.zeros((*shape[:2], 3)), np.zeros((*shape[:2], 3)),
                                                 np.zeros(shape))
        show_folded(sections.output_shape(head.weights, head.output), answers="output-shape",
                    shape=head.output.shape)
        assert bool(notes) == said
    assert notes == ["These are the shapes your cell's tensors gave (O: [2, 5, 4]), not the chapter's answer to "
                     "“the output's shape”, which is for the tensors the question names."]


def test_rows_follow_the_graph_a_softmax_down_the_columns_keeps_queries_and_k_q_transposed_gives_keys(monkeypatch):
    from llm_from_scratch.book.text import set_language

    set_language("en")
    Q, K = Tensor([[[0, 3], [2, -1]]]), Tensor([[[3, 0], [-1, 2]]])  # S is symmetric: q₀·k₁ = q₁·k₀ = 6
    monkeypatch.setattr("llm_from_scratch.ch27.figures.notebook_namespace", lambda: {"Q": Q, "K": K})
    S = Q @ K.transpose(1, 2) / math.sqrt(2)
    rows = {}
    for name, value, role in (("columns", S.softmax(1), "weights"), ("kq", K @ Q.transpose(1, 2) / 2, "scaled"),
                              ("exp", (K @ Q.transpose(1, 2) / 2).exp(), "exponentials"),
                              ("softmax", (K @ Q.transpose(1, 2) / 2).softmax(2), "weights")):
        [figure] = as_shown((value, role))
        rows[name] = figure.table.splitlines()[1].split()[0]
    assert rows == {"columns": "q_0", "kq": "k_0", "exp": "k_0", "softmax": "k_0"}, rows


def test_a_mixture_writes_each_weight_with_the_decimals_of_its_row():
    from llm_from_scratch.book.blocks import to_text
    from llm_from_scratch.book.text import set_language
    from llm_from_scratch.ch27 import sections

    set_language("en")
    A, V = np.array([[[1.0, 0.0], [0.25, 0.75]]]), np.array([[[3.0, -3.0], [1.0, 3.0]]])
    said = to_text(sections.mixture_of(A, V, A @ V))
    assert "= [1,0]" in said and "1·[3,-3] + 0·[1,3]" in said and "0.250000·[3,-3] + 0.750000·[1,3]" in said, said


def test_the_reports_row_sum_check_is_shown_in_06_and_named_in_09_in_both_editions():
    from support.notebooks import code_cells, load

    from llm_from_scratch.book.blocks import to_text
    from llm_from_scratch.book.text import set_language
    from llm_from_scratch.ch27 import sections

    set_language("en")
    Q, K = Tensor([[[0, 3], [2, -1]]]), Tensor([[[3, 0], [-1, 2]]])
    S = Q @ K.transpose(1, 2) / math.sqrt(2)
    assert "< 1e-12" in to_text(sections.row_sums_check(S.softmax(2))) and "✔" in to_text(
        sections.row_sums_check(S.softmax(2)))
    columns = to_text(sections.row_sums_check(S.softmax(1)))
    assert "1.3e-02" in columns and "✘" in columns, columns  # rows of a column softmax: 1.014 and 0.986
    root = pathlib.Path(__file__).resolve().parents[1] / "chapter27"
    for folder in (root, root / "en"):
        assert any("sections.row_sums_check(head.weights)" in c.source
                   for c in code_cells(load(folder / "06_head_from_primitives.ipynb")))
        assert "10^{-12}" in load(folder / "09_next.ipynb").cells[9].source
