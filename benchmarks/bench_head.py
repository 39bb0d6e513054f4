"""Benchmark: the engine's head against closed-form numpy heads, interleaved in one run.

Two baselines: "plain" is the head as one would write it in numpy, one expression a
step (the issue's reference); "in place" is llm_from_scratch.reference, which reuses
one T x T buffer for scores, softmax and weights, the leanest numpy can do. Prints
forward and forward+backward medians and ratios, and peak memory at the largest T
against the bytes the engine's record must keep.

`make bench` sets MALLOC_MMAP_THRESHOLD_ and MALLOC_TRIM_THRESHOLD_ so glibc keeps
freed T x T arrays in the heap for reuse: otherwise each one goes back to the OS and
every new one pays page faults (on this VM up to ms per MiB on first touch), which
swamps the arithmetic being compared. The setting applies to every implementation.

    python benchmarks/bench_head.py [--repeats N] [--tokens 128 512 2048]
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import statistics
import time
import tracemalloc

import numpy as np

from llm_from_scratch import Tensor, scaled_dot_product_self_attention
from llm_from_scratch.reference import closed_form_backward, closed_form_forward

BATCH, WIDTH = 8, 64


def engine_forward(q, k, v, upstream):
    scaled_dot_product_self_attention(q, k, v)


def engine_forward_backward(q, k, v, upstream):
    tensors = [Tensor(x, requires_grad=True) for x in (q, k, v)]
    scaled_dot_product_self_attention(*tensors).output.backward(upstream)


def plain_forward(q, k, v, upstream):
    scores = q @ k.transpose(0, 2, 1) / math.sqrt(q.shape[2])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights, weights @ v


def plain_forward_backward(q, k, v, upstream):
    weights, _ = plain_forward(q, k, v, upstream)
    grad_v = weights.transpose(0, 2, 1) @ upstream
    grad_weights = upstream @ v.transpose(0, 2, 1)
    grad_scores = weights * (grad_weights - (weights * grad_weights).sum(axis=-1, keepdims=True))
    scale = 1 / math.sqrt(q.shape[2])
    return grad_scores @ k * scale, grad_scores.transpose(0, 2, 1) @ q * scale, grad_v


def in_place_forward(q, k, v, upstream):
    closed_form_forward(q, k, v)


def in_place_forward_backward(q, k, v, upstream):
    weights, _ = closed_form_forward(q, k, v)
    closed_form_backward(q, k, v, upstream, weights)


PASSES = {
    "forward": {"engine": engine_forward, "plain": plain_forward, "in place": in_place_forward},
    "forward+backward": {"engine": engine_forward_backward, "plain": plain_forward_backward,
                         "in place": in_place_forward_backward},
}


def seconds(fn, inputs) -> float:
    gc.collect()
    start = time.perf_counter()
    fn(*inputs)
    return time.perf_counter() - start


def peak_bytes(fn, inputs) -> int:
    gc.collect()
    tracemalloc.start()
    fn(*inputs)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def prefault(nbytes: int) -> float:
    """Touch and free ``nbytes`` once, returning the seconds it took.

    On a virtual machine the first touch of memory the guest never used costs
    milliseconds per MiB; without this, whichever implementation first needs
    more memory than the process has touched pays it inside its timing.
    """
    start = time.perf_counter()
    block = np.ones(nbytes // 8)
    del block
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--tokens", type=int, nargs="+", default=[128, 512, 2048])
    args = parser.parse_args()

    rng = np.random.default_rng(27)
    largest = 12 * BATCH * max(args.tokens) ** 2 * 8  # well above every implementation's peak
    print(f"pre-faulted {largest / 2**30:.1f} GiB in {prefault(largest):.1f} s; "
          f"MALLOC_MMAP_THRESHOLD_={os.environ.get('MALLOC_MMAP_THRESHOLD_', 'unset (expect page-fault noise)')}")
    print(f"B = {BATCH}, d_k = d_v = {WIDTH}, float64, median of {args.repeats} interleaved repeats (ms)")
    print(f"{'T':>5}  {'pass':<17}{'engine':>9}{'plain':>9}{'in place':>10}{'engine/plain':>14}{'engine/in place':>17}")
    for tokens in args.tokens:
        inputs = [rng.standard_normal((BATCH, tokens, WIDTH)) for _ in range(4)]
        for name, implementations in PASSES.items():
            times = {label: [] for label in implementations}
            for fn in implementations.values():
                fn(*inputs)  # warm up
            for _ in range(args.repeats):
                for label, fn in implementations.items():
                    times[label].append(seconds(fn, inputs))
            e, p, c = (statistics.median(times[label]) * 1e3 for label in implementations)
            print(f"{tokens:>5}  {name:<17}{e:>9.2f}{p:>9.2f}{c:>10.2f}{e / p:>14.2f}{e / c:>17.2f}")

    tokens = max(args.tokens)
    inputs = [rng.standard_normal((BATCH, tokens, WIDTH)) for _ in range(4)]
    score_bytes = BATCH * tokens * tokens * 8
    record = 3 * score_bytes + BATCH * tokens * WIDTH * 8  # raw, scaled, weights, output
    mib = 2**20
    print(f"\npeak memory at T = {tokens} (tracemalloc, numpy allocations), MiB:")
    print(f"  the engine's record must keep raw, scaled, weights and output: {record / mib:.1f}")
    for name, implementations in PASSES.items():
        peaks = {label: peak_bytes(fn, inputs) / mib for label, fn in implementations.items()}
        print(f"  {name:<17}" + "  ".join(f"{label} {peak:8.1f}" for label, peak in peaks.items())
              + f"  (engine = {peaks['engine'] * mib / record:.2f} x record)")


if __name__ == "__main__":
    main()
