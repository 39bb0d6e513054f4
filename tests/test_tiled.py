"""The tiled head: the reading engine's numbers forward and backward (to 1e-12), its refusals, memory linear in T."""

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import oracle

from llm_from_scratch import SelfAttentionError, Tensor, scaled_dot_product_self_attention, tiled_self_attention
from llm_from_scratch.engine import functions as F
from llm_from_scratch.fast import parallel
from llm_from_scratch.fast.measure import measure_tiled


def both_heads(q, k, v, upstream, block_size, needs=(True, True, True)):
    """(output, grads) of the head and of the tiled head on the same inputs."""
    results = []
    for run in (lambda *x: scaled_dot_product_self_attention(*x).output,
                lambda *x: tiled_self_attention(*x, block_size=block_size)):
        tensors = [Tensor(x, requires_grad=need) for x, need in zip((q, k, v), needs)]
        output = run(*tensors)
        output.backward(upstream)
        results.append((output.data, [t.grad for t in tensors]))
    return results


def assert_same(head, tiled):
    np.testing.assert_allclose(tiled[0], head[0], rtol=1e-12, atol=1e-12)
    for mine, theirs in zip(tiled[1], head[1]):
        if theirs is None:
            assert mine is None
        else:
            np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(batch=st.integers(0, 3), tokens=st.integers(1, 40), key_width=st.integers(1, 6),
       value_width=st.integers(1, 6), block_size=st.integers(1, 50), threads=st.sampled_from(["as is", "split"]),
       seed=st.integers(0, 2**16))
def test_output_and_gradients_equal_the_heads(batch, tokens, key_width, value_width, block_size, threads, seed):
    rng = np.random.default_rng(seed)
    q, k = (rng.uniform(-3, 3, (batch, tokens, key_width)) for _ in range(2))
    v, upstream = (rng.uniform(-3, 3, (batch, tokens, value_width)) for _ in range(2))
    with pytest.MonkeyPatch.context() as mp:
        if threads == "split":  # every size is split, by batch or (with 3 workers) by tiles
            mp.setattr(parallel, "PARALLEL_MIN_ELEMENTS", 1)
            mp.setattr(parallel, "WORKERS", 3)
        assert_same(*both_heads(q, k, v, upstream, block_size))


@pytest.mark.parametrize("batch, tokens, key_width, value_width, block_size", [
    (2, 37, 5, 3, 8),  # T not a multiple of the block
    (1, 1, 4, 4, 128),  # T = 1
    (0, 5, 3, 2, 2),  # empty batch
    (3, 64, 8, 11, 16),  # d_v != d_k, T a multiple of the block
    (2, 9, 3, 3, 1),  # one-token tiles
])
def test_the_edge_cases_equal_the_head(batch, tokens, key_width, value_width, block_size):
    rng = np.random.default_rng(tokens)
    q, k = (rng.standard_normal((batch, tokens, key_width)) for _ in range(2))
    v, upstream = (rng.standard_normal((batch, tokens, value_width)) for _ in range(2))
    assert_same(*both_heads(q, k, v, upstream, block_size))


def test_only_inputs_that_require_gradients_get_them():
    rng = np.random.default_rng(1)
    q, k, v, upstream = (rng.standard_normal((2, 10, 4)) for _ in range(4))
    head, tiled = both_heads(q, k, v, upstream, 3, needs=(False, True, False))
    assert tiled[1][0] is None and tiled[1][2] is None
    assert_same(head, tiled)


def test_it_composes_with_other_primitives_and_gradients_accumulate():
    rng = np.random.default_rng(2)
    q = Tensor(rng.standard_normal((1, 6, 3)), requires_grad=True)
    for _ in range(2):
        F.reduce_sum(F.mul(tiled_self_attention(q, q, q, block_size=4), 2.0)).backward()
    once = Tensor(q.data, requires_grad=True)
    F.reduce_sum(F.mul(scaled_dot_product_self_attention(once, once, once).output, 2.0)).backward()
    np.testing.assert_allclose(q.grad, 2 * once.grad, rtol=1e-12, atol=1e-12)


def ones(*shape):
    return np.ones(shape)


def huge(*shape):
    return np.full(shape, 1e200)


def with_value(shape, index, bad):
    array = ones(*shape)
    array[index] = bad
    return array


@pytest.mark.parametrize("inputs", [
    (ones(2, 2), ones(1, 2, 2), ones(1, 2, 2)),
    (ones(1, 2, 2), ones(1, 2, 2, 1), ones(1, 2, 2)),
    (ones(1, 2, 2), ones(2, 2, 2), ones(1, 2, 2)),
    (ones(1, 2, 2), ones(1, 3, 2), ones(1, 2, 2)),
    (ones(1, 0, 2), ones(1, 0, 2), ones(1, 0, 2)),
    (ones(1, 2, 2), ones(1, 2, 3), ones(1, 2, 2)),
    (ones(1, 2, 0), ones(1, 2, 0), ones(1, 2, 2)),
    (ones(1, 2, 2), ones(1, 2, 2), ones(1, 2, 0)),
    (ones(1, 2, 2), ones(1, 2, 2), with_value((1, 2, 2), (0, 1, 1), np.nan)),
    (with_value((1, 2, 2), (0, 0, 1), np.inf), ones(1, 2, 2), ones(1, 2, 2)),
    (ones(1, 2, 2), with_value((1, 2, 2), (0, 1, 0), -np.inf), ones(1, 2, 2)),
    (huge(1, 2, 2), huge(1, 2, 2), ones(1, 2, 2)),  # the raw scores overflow
    (ones(1, 3, 2), ones(1, 3, 2), np.full((1, 3, 2), 1.7e308)),  # the mixture overflows
    (ones(1, 3, 2), ones(1, 3, 2), np.array([[[1.7e308, 1], [1.7e308, 1], [1, 1]]])),  # only Σ e^(s-m) v would
    ([[[1, 2]]], [[[1, 2]]], [[[3]]]),  # nested lists are accepted
])
def test_every_refusal_is_the_heads(inputs):
    try:
        expected = scaled_dot_product_self_attention(*inputs).output.data
    except SelfAttentionError as head_error:
        with pytest.raises(SelfAttentionError) as caught:
            tiled_self_attention(*inputs, block_size=1)
        mine = caught.value  # details compared as text: nan != nan
        assert (mine.kind, str(mine.details)) == (head_error.kind, str(head_error.details))
        assert isinstance(caught.value, ValueError)
    else:
        np.testing.assert_allclose(tiled_self_attention(*inputs, block_size=1).data, expected, rtol=1e-12)


def test_non_numeric_input_is_the_heads_type_error():
    with pytest.raises(TypeError, match="self-attention key must be real numbers"):
        tiled_self_attention(ones(1, 2, 2), [[["a", "b"], ["c", "d"]]], ones(1, 2, 2))


@pytest.mark.parametrize("block_size, error", [
    (0, ValueError), (-3, ValueError), (1.5, TypeError), ("8", TypeError), (True, TypeError), (None, TypeError)])
def test_block_size_must_be_a_positive_int(block_size, error):
    with pytest.raises(error, match="block_size must be a positive int"):
        tiled_self_attention(ones(1, 2, 2), ones(1, 2, 2), ones(1, 2, 2), block_size=block_size)


def test_block_size_accepts_numpy_integers():
    assert tiled_self_attention(ones(1, 3, 2), ones(1, 3, 2), ones(1, 3, 2), block_size=np.int64(2)).shape == (1, 3, 2)


def traced_peak(tokens: int, block_size: int) -> int:
    """Bytes allocated at the peak of one forward+backward pass, inputs excluded."""
    rng = np.random.default_rng(tokens)
    q, k, v, upstream = (rng.standard_normal((1, tokens, 8)) for _ in range(4))
    tensors = [Tensor(x, requires_grad=True) for x in (q, k, v)]
    tracemalloc.start()
    try:
        tiled_self_attention(*tensors, block_size=block_size).backward(upstream)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_peak_memory_grows_like_t_not_t_squared():
    small, large = traced_peak(256, 64), traced_peak(1024, 64)
    assert large / small < 6, (small, large)  # T x 4: a T x T score matrix would make it about 16
    assert large < 1024 * 1024 * 8  # far below one 1024 x 1024 float64 matrix


def test_measure_tiled_gives_time_and_peak_for_a_block_size():
    ms, peak = measure_tiled(64, 16, batch=1, width=4, repeats=1)
    assert ms > 0 and 0 < peak < 1  # MiB: output, gradients and a few 16 x 16 tiles


# ---- nothing a caller keeps is overwritten by a later pass ---------------------------------------

@pytest.mark.slow
def test_results_a_caller_keeps_survive_the_next_pass():
    rng = np.random.default_rng(3)
    q, k, v, upstream = (rng.standard_normal((2, 300, 4)) for _ in range(4))  # [2, 300, 300]: over 1 MiB
    runs = []
    for scale in (1.0, -2.0):
        inputs = [x * scale for x in (q, k, v)]
        tensors = [Tensor(x, requires_grad=True) for x in inputs]
        head = scaled_dot_product_self_attention(*tensors)
        head.output.backward(upstream)
        runs.append((inputs, head, [t.grad for t in tensors]))
    for inputs, head, grads in runs:  # the second pass overwrote nothing the first one's caller holds
        weights, output = oracle.head(*inputs)
        np.testing.assert_allclose(head.weights.data, weights, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(head.output.data, output, rtol=1e-12, atol=1e-15)
        for grad, expected in zip(grads, oracle.head_gradients(*inputs, upstream)):
            np.testing.assert_allclose(grad, expected, rtol=1e-10, atol=1e-12)
