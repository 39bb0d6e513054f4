"""The second example and the review's evidence, against plain numpy; their sections in both languages."""

import math

import numpy as np
import pytest

from llm_from_scratch.book.blocks import to_text
from llm_from_scratch.book.text import set_language
from llm_from_scratch.ch27.evidence import LearnerEvidence
from llm_from_scratch.ch27.examples import hand_arrays
from llm_from_scratch.ch27.sections import hand_example, render_report
from llm_from_scratch.ch27.strings import text
from llm_from_scratch.engine.closed_form import array_softmax

Q, K, V = (x[0] for x in hand_arrays())  # the second example's inputs (literals in evidence.py)


@pytest.fixture(scope="module")
def ev():
    return LearnerEvidence()


def test_the_engine_computes_the_second_example(ev):
    head = ev.hand.head
    np.testing.assert_array_equal(head.raw_scores.data[0], Q @ K.T)
    assert head.key_width == 4 and head.scale == 0.5
    np.testing.assert_allclose(head.weights.data[0], array_softmax(Q @ K.T / 2), atol=1e-12)
    np.testing.assert_allclose(ev.hand.output[0], array_softmax(Q @ K.T / 2) @ V, atol=1e-12)
    weights = head.weights.data[0]
    assert not np.array_equal(head.raw_scores.data[0], head.raw_scores.data[0].T), "QKᵀ is not symmetric"
    assert 0.1 < weights.min() and weights.max() < 0.9, "every weight is visibly mixed"


def test_the_reviews_evidence(ev):
    np.testing.assert_array_equal(ev.fixed.temperature.cold, [0, 1, 0])
    np.testing.assert_allclose(ev.fixed.temperature.hot, [1 / 3] * 3, atol=1e-5)
    assert ev.row_shift.max_difference < 1e-12 and ev.row_shift.shift == 10
    saturated = ev.fixed.saturated
    np.testing.assert_allclose(saturated.weights[0], [[0, 1], [1, 0]], atol=1e-6)
    assert np.abs(saturated.grad_query).max() < 1e-6 < np.abs(saturated.grad_value).max()
    assert (ev.head_split.key_width, ev.head_split.scale) == (64, 0.125)
    e = math.e
    np.testing.assert_allclose(ev.hand_causal, [[1, 0, 0], [1 / (1 + e), e / (1 + e), 0],
                                                array_softmax(Q @ K.T / 2)[2]], atol=1e-12)


@pytest.mark.parametrize("lang, words", [("ru", "Второй пример"), ("en", "The second example")])
def test_the_second_example_is_shown_step_by_step(lang, words):
    from llm_from_scratch.book.text import set_language

    set_language(lang)
    shown = to_text(*hand_example(LearnerEvidence()))
    assert shown.count(words) == 4
    for figure in ["S_0,: = [1,0,0]", "[2.718282,1.000000,1.000000]", "4.718282",
                   "A_0,: = [0.576117,0.211942,0.211942]", "o_2 = [0.844638,0.577681]"]:
        assert figure in shown, figure


def test_the_report_carries_the_second_example_once():
    set_language("ru")
    report = render_report()
    assert report.count(text("section.hand_inputs")) == 1
    assert "A_1,: = [0.155362,0.422319,0.422319]" in report
