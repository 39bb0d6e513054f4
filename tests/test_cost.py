"""The appendix's counts agree with numpy's own accounting and with the engine's record."""

import re

import numpy as np
import pytest

from llm_from_scratch import Tensor, scaled_dot_product_self_attention
from llm_from_scratch.ch27.cost import HeadCost, cost_lines, doubling_lines, measure_engine, measurement_figure, size
from llm_from_scratch.ch27.text import set_language


def naive_multiply_adds(subscripts: str, *operands: np.ndarray) -> int:
    """numpy's count for an einsum contraction (it reports 2 FLOPs per multiply-add)."""
    report = np.einsum_path(subscripts, *operands, optimize=False)[1]
    return round(float(re.search(r"Naive FLOP count:\s+(\S+)", report).group(1)) / 2)


@pytest.mark.parametrize("batch, tokens, key_width, value_width", [(1, 2, 2, 2), (3, 5, 4, 7), (2, 9, 1, 3)])
def test_counts_match_numpy_and_the_record(batch, tokens, key_width, value_width):
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((2, batch, tokens, key_width))
    v = rng.standard_normal((batch, tokens, value_width))
    cost = HeadCost(batch, tokens, key_width, value_width)
    weights = np.ones((batch, tokens, tokens))
    assert cost.score_multiply_adds == naive_multiply_adds("btd,bsd->bts", q, k)
    assert cost.mixture_multiply_adds == naive_multiply_adds("bts,bsd->btd", weights, v)
    upstream = np.ones((batch, tokens, value_width))
    backward = (naive_multiply_adds("btd,bsd->bts", upstream, v)  # dA = dO Vᵀ
                + naive_multiply_adds("bts,btd->bsd", weights, upstream)  # dV = Aᵀ dO
                + naive_multiply_adds("bts,bsd->btd", weights, k)  # dQ = dS K
                + naive_multiply_adds("bts,btd->bsd", weights, q))  # dK = dSᵀ Q
    assert cost.backward_multiply_adds == backward
    record = scaled_dot_product_self_attention(Tensor(q), Tensor(k), Tensor(v))
    kept = (record.raw_scores, record.scaled_scores, record.weights, record.output)
    assert cost.record_bytes == sum(t.data.nbytes for t in kept)
    assert cost.score_bytes == record.weights.data.nbytes
    assert cost.input_bytes == q.nbytes + k.nbytes + v.nbytes


def test_the_tables_say_what_doubling_does():
    set_language("en")
    try:
        lines = cost_lines(8, [16, 2048], 64, 64)
        assert "2,147,483,648" in lines[-1] and "256 MiB" in lines[-1] and "776 MiB" in lines[-1]
        rows = {line.split()[0]: line.split()[1:] for line in doubling_lines(8, 512, 64, 64)[2:]}
        # QKᵀ, AV, forward+backward, one [B,T,T], record, inputs
        assert rows["B"] == ["×2"] * 6
        assert rows["T"] == ["×4", "×4", "×4", "×4", "×3.92", "×2"]
        assert rows["d_k"] == ["×2", "×1", "×1.5", "×1", "×1", "×1.667"]
        assert rows["d_v"] == ["×1", "×2", "×1.5", "×1", "×1.04", "×1.333"]
    finally:
        set_language("ru")


def test_sizes_pick_a_readable_unit():
    assert [size(n) for n in (96, 1536, 256 * 2**20, 3 * 2**30)] == ["96 B", "1.5 KiB", "256 MiB", "3 GiB"]


def test_the_measurement_covers_every_length_and_draws_both_panels():
    measured = measure_engine([8, 16], batch=1, width=4, repeats=1)
    assert measured.tokens == [8, 16]
    assert all(x > 0 for x in measured.forward_ms + measured.forward_backward_ms + measured.peak_mib)
    assert measured.peak_mib[1] > measured.peak_mib[0]
    figure = measurement_figure(measured)
    assert figure.svg.startswith("<?xml") and len(figure.table.split("\n\n")) == 2
