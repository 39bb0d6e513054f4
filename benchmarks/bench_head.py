"""Benchmark: the engine's head against the closed-form numpy head, interleaved in one run.

Prints forward and forward+backward medians, their ratio, and the engine's peak
memory at the largest T against the bytes its record must keep.

    python benchmarks/bench_head.py [--repeats N] [--tokens 128 512 2048]
"""

from __future__ import annotations

import argparse
import gc
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


def closed_forward(q, k, v, upstream):
    closed_form_forward(q, k, v)


def closed_forward_backward(q, k, v, upstream):
    weights, _ = closed_form_forward(q, k, v)
    closed_form_backward(q, k, v, upstream, weights)


PAIRS = {
    "forward": (engine_forward, closed_forward),
    "forward+backward": (engine_forward_backward, closed_forward_backward),
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--tokens", type=int, nargs="+", default=[128, 512, 2048])
    args = parser.parse_args()

    rng = np.random.default_rng(27)
    print(f"B = {BATCH}, d_k = d_v = {WIDTH}, float64, median of {args.repeats} interleaved repeats")
    print(f"{'T':>5}  {'pass':<17}{'engine ms':>11}{'closed ms':>11}{'ratio':>8}")
    for tokens in args.tokens:
        inputs = [rng.standard_normal((BATCH, tokens, WIDTH)) for _ in range(4)]
        for name, (engine, closed) in PAIRS.items():
            engine(*inputs), closed(*inputs)  # warm up
            times = {engine: [], closed: []}
            for _ in range(args.repeats):
                for fn in (engine, closed):
                    times[fn].append(seconds(fn, inputs))
            e, c = (statistics.median(times[fn]) * 1e3 for fn in (engine, closed))
            print(f"{tokens:>5}  {name:<17}{e:>11.2f}{c:>11.2f}{e / c:>8.2f}")

    tokens = max(args.tokens)
    inputs = [rng.standard_normal((BATCH, tokens, WIDTH)) for _ in range(4)]
    score_bytes = BATCH * tokens * tokens * 8
    record = 3 * score_bytes + BATCH * tokens * WIDTH * 8  # raw, scaled, weights, output
    mib = 2**20
    print(f"\npeak memory at T = {tokens} (tracemalloc, numpy allocations):")
    print(f"  record must keep (raw, scaled, weights, output): {record / mib:8.1f} MiB")
    for name, (engine, closed) in PAIRS.items():
        e, c = peak_bytes(engine, inputs), peak_bytes(closed, inputs)
        print(f"  {name:<17} engine {e / mib:8.1f} MiB ({e / record:.2f}x record)   closed form {c / mib:8.1f} MiB")


if __name__ == "__main__":
    main()
