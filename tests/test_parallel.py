"""fast/parallel.py: the thread pool shares work exactly, starts only when first used, and keeps the caller's
numpy error state; the reading engine holds the graph's stages and nothing more."""

import subprocess
import sys
import tracemalloc
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llm_from_scratch import Tensor, scaled_dot_product_self_attention
from llm_from_scratch.fast import parallel


@pytest.fixture
def split_everything(monkeypatch):
    """Make every job big enough to be split among three workers, so tests reach the threads."""
    monkeypatch.setattr(parallel, "PARALLEL_MIN_ELEMENTS", 1)
    monkeypatch.setattr(parallel, "WORKERS", 3)


@settings(max_examples=40, deadline=None)
@given(count=st.integers(0, 50), work=st.integers(0, 10**6))
def test_shares_cover_every_index_once(count, work):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(parallel, "WORKERS", 3)
        seen = []
        parallel.for_shares(lambda lo, hi: seen.extend(range(lo, hi)), count, work)
    assert sorted(seen) == list(range(count))


def test_the_callers_numpy_error_state_holds_in_the_workers(split_everything):
    big = np.zeros(6)
    big[-1] = 1000.0  # only the last share, a worker's, overflows

    def task(lo, hi):
        np.exp(big[lo:hi])

    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        parallel.for_shares(task, 6, 6)
    with np.errstate(over="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        parallel.for_shares(task, 6, 6)


@pytest.mark.slow
def test_importing_the_package_starts_no_thread_and_the_tiled_head_starts_the_pool():
    script = """
import threading
import numpy as np
import llm_from_scratch
from llm_from_scratch.ch27 import notebook
before = threading.active_count()
x = np.random.default_rng(0).standard_normal((4, 64, 8))
llm_from_scratch.scaled_dot_product_self_attention(x, x, x)
engine = threading.active_count()
llm_from_scratch.tiled_self_attention(x, x, x, block_size=16)
print(before, engine, threading.active_count())
"""
    before, engine, tiled = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                                           check=True).stdout.split()
    assert before == engine == "1", "the reading engine starts no thread"
    assert int(tiled) == 1 + (parallel.WORKERS - 1), "the tiled head starts the pool's workers"


def test_after_the_forward_pass_the_graph_holds_its_four_score_sized_stages():
    """Raw scores, scaled scores, log-weights and weights: the plain engine keeps each stage it made, no more."""
    tokens = 256
    rng = np.random.default_rng(1)
    q, k, v = (Tensor(rng.standard_normal((1, tokens, 8)), requires_grad=True) for _ in range(3))
    scores = tokens * tokens * 8
    tracemalloc.start()
    record = scaled_dot_product_self_attention(q, k, v)
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert 4 * scores <= held < 4.25 * scores, held / scores
    assert record.weights.parents[0].op == "log_softmax"
