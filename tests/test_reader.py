"""The one reader of a learner's computation (ch27/reader.py): the formula a graph records, written whole with the
cells' own names, and the stage a value's numbers are, found by comparing numbers with a numpy head written here."""

import math

import numpy as np
import pytest

from llm_from_scratch import Tensor
from llm_from_scratch.ch27.reader import Inputs, Match, factor, formula, names_of, read

Q, K, V = Tensor([[[0, 3], [2, -1]]]), Tensor([[[3, 0], [-1, 2]]]), Tensor([[[3, -3], [1, 3]]])
NAMES = names_of({"Q": Q, "K": K, "V": V})
ROOT = math.sqrt(2)


def numpy_head(q, k, v, axis=-1):
    """The head in plain numpy: the tests' own oracle."""
    s = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    e = np.exp(s - s.max(axis=axis, keepdims=True))
    a = e / e.sum(axis=axis, keepdims=True)
    return {"raw-scores": q @ np.swapaxes(k, -1, -2), "scaled-scores": s, "probabilities": a, "value-mixture": a @ v}


@pytest.mark.parametrize("value, written", [
    ((Q / ROOT) @ K.transpose(1, 2), "(Q/√2)·Kᵀ"),
    (Q @ K.transpose(1, 2) / ROOT / 0.5, "QKᵀ/√2/0.5"),
    (K @ Q.mT, "KQᵀ"),
    (Q @ K.transpose(2, 1), "QKᵀ"),
    (Q.transpose(0, 1) @ K.transpose(0, 1).mT, "Q.transpose(0, 1)·K.transpose(0, 1)ᵀ"),
    ((Q @ K.mT / ROOT).softmax(0), "softmax(QKᵀ/√2, axis=0)"),
    ((Q @ K.mT / ROOT).softmax(-1) @ V, "softmax(QKᵀ/√2)·V"),
    (Q @ K.mT / ROOT + Tensor([[[0, -np.inf], [0, 0]]]), "QKᵀ/√2 + M"),
    (Q @ K.mT - Q @ K.mT * 2, "QKᵀ − QKᵀ·2"),
    (Q @ K.mT / 1.414, "QKᵀ/1.414"),  # typed: no root
    (Q @ K.mT * (1 / ROOT) * -2, "QKᵀ·(1/√2)·(−2)"),
    (-(Q @ K.mT), "−(QKᵀ)"),
])
def test_the_formula_is_what_the_cells_computed_with_their_names(value, written):
    assert formula(value, NAMES) == written


def test_unnamed_inputs_are_numbered_and_numbers_typed_in_have_no_formula():
    assert formula(Tensor(Q.data) @ Tensor(K.data).mT, {}) == "X₁X₂ᵀ"
    assert formula(Q, NAMES) is None and formula(Q.data, NAMES) is None


def test_a_chain_of_numbers_is_said_in_all():
    total, scores = factor(Q @ K.mT / ROOT / 0.5)
    assert total == pytest.approx(1 / ROOT / 0.5) and scores.op == "matmul"
    assert factor((Q @ K.mT) * 2 / 4)[0] == pytest.approx(0.5)
    assert factor(Q @ K.mT)[0] == 1.0


def test_a_stage_is_named_by_its_numbers_on_the_inputs_the_graph_reads():
    oracle = numpy_head(Q.data, K.data, V.data)
    namespace = {"Q": Q, "K": K, "V": V}
    pre_scaled = read((Q / ROOT) @ K.mT, namespace=namespace)
    assert pre_scaled.own and pre_scaled.equals("scaled-scores")
    assert np.allclose(pre_scaled.value.data, oracle["scaled-scores"])
    chained = read(Q @ K.mT / ROOT / 0.5, namespace=namespace)
    assert chained.comparable and not any(chained.equals(stage) for stage in oracle)
    assert not np.allclose(chained.value.data, oracle["scaled-scores"])


def test_the_matcher_finds_a_stage_transposed_or_one_batch_element():
    q2, k2 = np.array([[[1.0, 0], [0, 1]]]), np.array([[[1.0, 2], [0, 1]]])
    inputs = Inputs(q2, k2, np.array([[[1.0], [2.0]]]), np.ones((1, 2, 1)))
    oracle = numpy_head(q2, k2, inputs.value)
    assert inputs.match(oracle["raw-scores"]) == Match("raw-scores")
    assert inputs.match(np.swapaxes(oracle["raw-scores"], -1, -2)) == Match("raw-scores", transposed=True)
    assert inputs.match(oracle["probabilities"][0]) == Match("probabilities", batch=0)
    assert inputs.match(oracle["raw-scores"] + 1) is None
    uniform = Inputs(q2, np.zeros((1, 2, 2)))  # every score 0: each row of weights is [0.5, 0.5]
    assert uniform.match(np.array([0.5, 0.5])) == Match("probabilities", broadcast=True)


def test_plain_numbers_are_compared_with_every_set_of_inputs_the_cells_named():
    q2, k2 = Tensor([[[1.0, 0], [0, 1]]]), Tensor([[[1.0, 2], [0, 1]]])
    namespace = {"Q": Q, "K": K, "V": V, "Q2": q2, "K2": k2}
    second = read(numpy_head(q2.data, k2.data, np.zeros((1, 2, 1)))["probabilities"], namespace=namespace)
    assert second.equals("probabilities") and not second.comparable, "an array says nothing of where it came from"
    assert read(k2 @ q2.mT, namespace=namespace).comparable
