"""A head's counts agree with numpy's own accounting and with the engine's record."""

import re

import numpy as np
import pytest

from llm_from_scratch import Tensor, scaled_dot_product_self_attention
from llm_from_scratch.fast.cost import HeadCost, size


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


def test_sizes_pick_a_readable_unit():
    assert [size(n) for n in (96, 1536, 256 * 2**20, 3 * 2**30)] == ["96 B", "1.5 KiB", "256 MiB", "3 GiB"]


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_nonsense_sizes_are_refused_in_the_learners_language(lang):
    from llm_from_scratch.book.text import set_language
    from llm_from_scratch.ch27.appendix import cost_table, doubling_table
    from llm_from_scratch.ch27.strings import STRINGS

    set_language(lang)
    for call, name, value in ((lambda: cost_table(1, [-4], 64, 64), "T[0]", "-4"),
                              (lambda: cost_table(1, [8, 2.5], 64, 64), "T[1]", "2.5"),
                              (lambda: doubling_table(0, 8, 64, 64), "B", "0"),
                              (lambda: doubling_table(1, 8, True, 64), "d_k", "True")):
        with pytest.raises(ValueError) as refused:
            call()
        assert str(refused.value) == STRINGS.text_in(lang, "cost.not_a_size", name=name, value=value)
    from llm_from_scratch.book.blocks import to_text

    assert to_text(cost_table(1, [4.0], 64, 64)).splitlines()[-1].startswith("4  1,024"), "a whole 4.0 is 4"
