"""The engine's threaded paths give numpy's results, and the graph keeps no value it does not need."""

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llm_from_scratch import Tensor, parallel, scaled_dot_product_self_attention
from llm_from_scratch import functions as F
from llm_from_scratch.reference import closed_form_backward, closed_form_forward


@pytest.fixture
def split_everything(monkeypatch):
    """Make every array big enough to be split, in blocks of a few rows, so tests reach the threads."""
    monkeypatch.setattr(parallel, "PARALLEL_MIN_ELEMENTS", 1)
    monkeypatch.setattr(parallel, "BLOCK_ELEMENTS", 7)
    monkeypatch.setattr(parallel, "WORKERS", 3)


shapes = st.tuples(st.integers(1, 3), st.integers(1, 9), st.integers(1, 9))


@settings(max_examples=30, deadline=None)
@given(shape=shapes, seed=st.integers(0, 2**16))
def test_split_elementwise_matmul_and_log_softmax_equal_numpy(shape, seed):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(parallel, "PARALLEL_MIN_ELEMENTS", 1)
        mp.setattr(parallel, "BLOCK_ELEMENTS", 5)
        rng = np.random.default_rng(seed)
        x, y = rng.standard_normal(shape), rng.standard_normal(shape)
        np.testing.assert_array_equal(parallel.elementwise(np.multiply, x, 0.5, out=np.empty(shape)), x * 0.5)
        np.testing.assert_array_equal(parallel.elementwise(np.exp, x, out=np.empty(shape)), np.exp(x))
        np.testing.assert_allclose(parallel.matmul(x, np.swapaxes(y, 1, 2)), x @ np.swapaxes(y, 1, 2), rtol=1e-12)
        expected = x - np.log(np.exp(x - x.max(2, keepdims=True)).sum(2, keepdims=True)) - x.max(2, keepdims=True)
        np.testing.assert_allclose(F.log_softmax(Tensor(x), axis=2).data, expected, rtol=1e-12, atol=1e-12)


def test_the_split_head_matches_the_closed_form_forward_and_backward(split_everything):
    rng = np.random.default_rng(6)
    q, k, v, upstream = (rng.standard_normal((2, 11, 4)) for _ in range(4))
    tensors = [Tensor(x, requires_grad=True) for x in (q, k, v)]
    record = scaled_dot_product_self_attention(*tensors)
    record.output.backward(upstream)
    weights, output = closed_form_forward(q, k, v)
    np.testing.assert_allclose(record.output.data, output, rtol=1e-12)
    for tensor, grad in zip(tensors, closed_form_backward(q, k, v, upstream, weights)):
        np.testing.assert_allclose(tensor.grad, grad, rtol=1e-10, atol=1e-12)


def test_the_callers_numpy_error_state_holds_in_the_workers(split_everything):
    big = np.full((4, 6), 1000.0)
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        parallel.elementwise(np.exp, big, out=np.empty_like(big))
    with np.errstate(over="ignore"):
        assert np.isinf(parallel.elementwise(np.exp, big, out=np.empty_like(big))).all()


def test_log_softmax_along_a_middle_axis_and_its_gradient(split_everything):
    rng = np.random.default_rng(3)
    x = Tensor(rng.standard_normal((3, 5, 4)), requires_grad=True)
    out = F.log_softmax(x, axis=1)
    np.testing.assert_allclose(np.exp(out.data).sum(axis=1), 1.0)
    upstream = rng.standard_normal((3, 5, 4))
    out.backward(upstream)
    softmax = np.exp(out.data)
    np.testing.assert_allclose(x.grad, upstream - softmax * upstream.sum(axis=1, keepdims=True), rtol=1e-12)


def test_after_the_forward_pass_only_the_record_holds_score_sized_arrays():
    tokens = 256
    rng = np.random.default_rng(1)
    q, k, v = (Tensor(rng.standard_normal((1, tokens, 8)), requires_grad=True) for _ in range(3))
    scores = tokens * tokens * 8
    tracemalloc.start()
    record = scaled_dot_product_self_attention(q, k, v)
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    # raw scores, scaled scores and weights; the log-weights were freed, log_softmax keeps one number a row
    assert 3 * scores <= held < 3.25 * scores, held / scores
    assert record.weights.node.parents[0].op == "log_softmax"
