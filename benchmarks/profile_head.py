"""Where the engine's head spends its time: each primitive's forward and backward, in ms.

Wraps the primitives the head calls and the backward rules they record, runs
forward+backward back to back, and prints the median of each part over the runs.

    python benchmarks/profile_head.py [--runs N] [--batch 8] [--tokens 512 2048]
"""

from __future__ import annotations

import argparse
import collections
import statistics
import time

import numpy as np

from llm_from_scratch import Tensor, scaled_dot_product_self_attention
from llm_from_scratch import functions as F

PRIMITIVES = ("transpose", "matmul", "mul", "log_softmax", "exp")
WIDTH = 64
spent: collections.defaultdict[str, float] = collections.defaultdict(float)


def timed(name: str, fn):
    def primitive(*args, **kwargs):
        start = time.perf_counter()
        out = fn(*args, **kwargs)
        spent[f"{name} forward"] += time.perf_counter() - start
        if out.node is not None:
            rule = out.node.rule

            def backward(grad):
                start = time.perf_counter()
                grads = rule(grad)
                spent[f"{name} backward"] += time.perf_counter() - start
                return grads

            out.node.rule = backward
        return out

    return primitive


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--tokens", type=int, nargs="+", default=[512, 2048])
    args = parser.parse_args()
    for name in PRIMITIVES:
        setattr(F, name, timed(name, getattr(F, name)))

    rng = np.random.default_rng(27)
    for tokens in args.tokens:
        q, k, v, upstream = (rng.standard_normal((args.batch, tokens, WIDTH)) for _ in range(4))
        runs = []
        for _ in range(args.runs + 1):  # the first run warms up
            spent.clear()
            start = time.perf_counter()
            inputs = [Tensor(x, requires_grad=True) for x in (q, k, v)]
            scaled_dot_product_self_attention(*inputs).output.backward(upstream)
            spent["total"] = time.perf_counter() - start
            runs.append(dict(spent))
        parts = {part: statistics.median(run.get(part, 0.0) for run in runs[1:]) * 1e3 for part in runs[1]}
        print(f"B = {args.batch}, T = {tokens}, d = {WIDTH}, forward+backward, median of {args.runs} runs (ms)")
        for part, ms in sorted(parts.items(), key=lambda item: -item[1]):
            print(f"  {part:<22}{ms:8.1f}")
        print()


if __name__ == "__main__":
    main()
