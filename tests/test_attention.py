"""The head: its errors and its properties (the worked example is tested in test_worked_example.py)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from support import oracle

from llm_from_scratch import SelfAttentionError, Tensor, scaled_dot_product_self_attention
from llm_from_scratch.engine import functions as F
from llm_from_scratch.engine.closed_form import attention_weights, closed_form_backward, closed_form_head
from llm_from_scratch.engine.gradcheck import check_gradients


def test_scale_example_matches_the_source():
    assert F.exp(F.log_softmax(Tensor([1.0, 0.0]))).data[0] == pytest.approx(0.731059, abs=1e-6)
    scaled = F.exp(F.log_softmax(F.mul(Tensor([1.0, 0.0]), 1 / np.sqrt(2)))).data[0]
    assert scaled == pytest.approx(0.669762, abs=1e-6)


def ones(*shape):
    return np.ones(shape)


@pytest.mark.parametrize(
    "inputs, kind, details",
    [
        ((ones(2, 2), ones(1, 2, 2), ones(1, 2, 2)), "input-rank", {"operand": "query", "rank": 2}),
        ((ones(1, 2, 2), ones(1, 2, 2, 1), ones(1, 2, 2)), "input-rank", {"operand": "key", "rank": 4}),
        ((ones(1, 2, 2), ones(2, 2, 2), ones(1, 2, 2)), "batch-mismatch", {"query": 1, "key": 2, "value": 1}),
        ((ones(1, 2, 2), ones(1, 3, 2), ones(1, 2, 2)), "token-mismatch", {"query": 2, "key": 3, "value": 2}),
        ((ones(1, 0, 2), ones(1, 0, 2), ones(1, 0, 2)), "empty-token-axis", {"tokens": 0}),
        ((ones(1, 2, 2), ones(1, 2, 3), ones(1, 2, 2)), "query-key-width-mismatch", {"query": 2, "key": 3}),
        ((ones(1, 2, 0), ones(1, 2, 0), ones(1, 2, 2)), "empty-feature-width", {"operand": "query", "width": 0}),
        ((ones(1, 2, 2), ones(1, 2, 2), ones(1, 2, 0)), "empty-feature-width", {"operand": "value", "width": 0}),
    ],
)
def test_each_invalid_shape_gets_its_kind_and_numbers(inputs, kind, details):
    with pytest.raises(SelfAttentionError) as caught:
        scaled_dot_product_self_attention(*inputs)
    assert caught.value.kind == kind
    assert caught.value.details == details
    assert isinstance(caught.value, ValueError)
    message = str(caught.value)
    assert message.startswith(("self-attention", "unmasked self-attention")) and "Traceback" not in message


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_input_names_the_input_and_where(bad):
    value = ones(1, 2, 2)
    value[0, 1, 1] = bad
    with pytest.raises(SelfAttentionError, match="value must hold finite numbers") as caught:
        scaled_dot_product_self_attention(ones(1, 2, 2), ones(1, 2, 2), value)
    assert caught.value.kind == "non-finite-input"
    assert caught.value.details["operand"] == "value" and caught.value.details["index"] == [0, 1, 1]


def test_non_numeric_input_is_a_clear_type_error():
    with pytest.raises(TypeError, match="self-attention key must be real numbers"):
        scaled_dot_product_self_attention(ones(1, 2, 2), [[["a", "b"], ["c", "d"]]], ones(1, 2, 2))


def test_overflowing_scores_name_the_stage_and_return_nothing():
    huge = np.full((1, 2, 2), 1e200)
    with pytest.raises(SelfAttentionError) as caught:
        scaled_dot_product_self_attention(huge, huge, ones(1, 2, 2))
    assert caught.value.kind == "stage-failure" and caught.value.stage == "raw-scores"


def test_an_overflow_is_refused_even_where_the_output_would_stay_finite():
    """One score overflows to −inf, another to +inf: the row's softmax would give the −inf key a weight of 0 and a
    finite output, so only the check inside the stage can notice."""
    query = np.array([[[1e200, 0.0], [0.0, 0.0]]])
    key = np.array([[[1e200, 0.0], [-1e200, 0.0]]])
    with pytest.raises(SelfAttentionError) as caught:
        scaled_dot_product_self_attention(query, key, ones(1, 2, 2))
    assert caught.value.kind == "stage-failure" and caught.value.stage == "raw-scores"


def test_a_failure_inside_a_stage_names_that_stage(monkeypatch):
    def broken(*args, **kwargs):
        raise ValueError("broken on purpose")

    monkeypatch.setattr(Tensor, "log_softmax", broken)  # the method the head calls
    q = Tensor(ones(1, 2, 2), requires_grad=True)
    with pytest.raises(SelfAttentionError, match="row log-softmax failed: broken on purpose") as caught:
        scaled_dot_product_self_attention(q, ones(1, 2, 2), ones(1, 2, 2))
    assert caught.value.stage == "row-log-softmax"
    assert q.grad is None


def test_empty_batch_and_narrow_values_are_valid():
    head = scaled_dot_product_self_attention(ones(0, 2, 2), ones(0, 2, 2), ones(0, 2, 3))
    assert head.weights.shape == (0, 2, 2) and head.output.shape == (0, 2, 3)
    head = scaled_dot_product_self_attention(ones(1, 2, 2), ones(1, 2, 2), ones(1, 2, 1))
    assert head.output.shape == (1, 2, 1) and head.value_width == 1 and head.key_width == 2


def test_the_output_shape_rule():
    head = scaled_dot_product_self_attention(ones(4, 7, 3), ones(4, 7, 3), ones(4, 7, 5))
    assert head.weights.shape == (4, 7, 7) and head.output.shape == (4, 7, 5)


# Random heads: shapes and values drawn by hypothesis.
dims = st.tuples(st.integers(1, 3), st.integers(1, 4), st.integers(1, 4), st.integers(1, 3))


@st.composite
def heads(draw, elements=st.floats(-2, 2, allow_nan=False)):
    b, t, dk, dv = draw(dims)
    return tuple(draw(arrays(np.float64, shape, elements=elements)) for shape in ((b, t, dk), (b, t, dk), (b, t, dv)))


@settings(max_examples=40, deadline=None)
@given(heads())
def test_rows_sum_to_one_and_the_head_and_its_closed_form_match_the_oracle(qkv):
    head = scaled_dot_product_self_attention(*qkv)
    np.testing.assert_allclose(head.weights.data.sum(axis=2), 1.0, atol=1e-12)
    weights, output = oracle.head(*qkv)
    for mine in (head.weights.data, attention_weights(*qkv[:2])):
        np.testing.assert_allclose(mine, weights, atol=1e-12)
    for mine in (head.output.data, closed_form_head(*qkv)):
        np.testing.assert_allclose(mine, output, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(heads(), st.randoms(use_true_random=False))
def test_a_common_permutation_permutes_the_output(qkv, random):
    tokens = qkv[0].shape[1]
    order = list(range(tokens))
    random.shuffle(order)
    original = scaled_dot_product_self_attention(*qkv).output.data
    permuted = scaled_dot_product_self_attention(*(x[:, order] for x in qkv)).output.data
    np.testing.assert_allclose(permuted, original[:, order], atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(heads())
def test_batch_elements_are_independent(qkv):
    together = scaled_dot_product_self_attention(*qkv).output.data
    for b in range(qkv[0].shape[0]):
        alone = scaled_dot_product_self_attention(*(x[b:b + 1] for x in qkv)).output.data
        np.testing.assert_allclose(together[b:b + 1], alone, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(heads())
def test_identical_keys_give_uniform_rows(qkv):
    q, k, v = qkv
    k = np.broadcast_to(k[:, :1], k.shape).copy()
    weights = scaled_dot_product_self_attention(q, k, v).weights.data
    np.testing.assert_allclose(weights, 1.0 / k.shape[1], atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(heads())
def test_head_gradients_match_the_oracle_the_closed_form_and_central_differences(qkv):
    upstream = np.random.default_rng(1).normal(size=qkv[2].shape)
    tensors = [Tensor(x, requires_grad=True) for x in qkv]
    scaled_dot_product_self_attention(*tensors).output.backward(upstream)
    grads = [t.grad for t in tensors]
    for autodiff, closed, expected in zip(grads, closed_form_backward(*qkv, upstream),
                                          oracle.head_gradients(*qkv, upstream)):
        np.testing.assert_allclose(autodiff, expected, atol=1e-10)
        np.testing.assert_allclose(closed, expected, atol=1e-10)

    def loss(xs):
        return float(np.sum(scaled_dot_product_self_attention(*xs).output.data * upstream))

    assert check_gradients(loss, qkv, grads, ("query", "key", "value")).passed


@settings(max_examples=40, deadline=None)
@given(heads(elements=st.floats(-1e3, 1e3, allow_nan=False)))
def test_large_but_finite_scores_stay_finite(qkv):
    head = scaled_dot_product_self_attention(*qkv)
    assert np.isfinite(head.weights.data).all() and np.isfinite(head.output.data).all()
    np.testing.assert_allclose(head.weights.data.sum(axis=2), 1.0, atol=1e-12)
