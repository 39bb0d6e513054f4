"""Where the reading engine's head spends its time: each primitive's forward and backward, in ms.

Wraps the primitives the head calls and the backward rules they record, runs
forward+backward back to back, and prints the median of each part over the runs,
with the process's CPU time in user and kernel mode (page faults are kernel time)
and its minor page faults.

    python benchmarks/profile_head.py [--runs N] [--batch 8] [--tokens 512 2048]
"""

from __future__ import annotations

import argparse
import collections
import resource
import statistics
import time

import numpy as np

from llm_from_scratch import Tensor, scaled_dot_product_self_attention
from llm_from_scratch.engine import functions as F

# each primitive the head calls, with the Tensor's operators and methods that are it (``Q @ K.transpose(1, 2)``)
PRIMITIVES = {"transpose": ("transpose",), "matmul": ("__matmul__", "matmul"), "mul": ("__mul__", "__rmul__", "mul"),
              "log_softmax": ("log_softmax",), "exp": ("exp",)}
WIDTH = 64
spent: collections.defaultdict[str, float] = collections.defaultdict(float)


def timed(name: str, fn):
    def primitive(*args, **kwargs):
        start = time.perf_counter()
        out = fn(*args, **kwargs)
        spent[f"{name} forward"] += time.perf_counter() - start
        if out.backward_rule is not None:
            rule = out.backward_rule

            def backward(grad):
                start = time.perf_counter()
                grads = rule(grad)
                spent[f"{name} backward"] += time.perf_counter() - start
                return grads

            out.backward_rule = backward
        return out

    return primitive


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--tokens", type=int, nargs="+", default=[512, 2048])
    args = parser.parse_args()
    for name, methods in PRIMITIVES.items():
        wrapped = timed(name, getattr(F, name))
        setattr(F, name, wrapped)
        for method in methods:
            setattr(Tensor, method, wrapped)

    rng = np.random.default_rng(27)
    for tokens in args.tokens:
        q, k, v, upstream = (rng.standard_normal((args.batch, tokens, WIDTH)) for _ in range(4))
        runs, usage = [], []
        for _ in range(args.runs + 1):  # the first run warms up
            spent.clear()
            before = resource.getrusage(resource.RUSAGE_SELF)
            start = time.perf_counter()
            inputs = [Tensor(x, requires_grad=True) for x in (q, k, v)]
            scaled_dot_product_self_attention(*inputs).output.backward(upstream)
            spent["total"] = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_SELF)
            runs.append(dict(spent))
            usage.append((after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime,
                          after.ru_minflt - before.ru_minflt))
        parts = {part: statistics.median(run.get(part, 0.0) for run in runs[1:]) * 1e3 for part in runs[1]}
        print(f"B = {args.batch}, T = {tokens}, d = {WIDTH}, forward+backward, median of {args.runs} runs (ms)")
        for part, ms in sorted(parts.items(), key=lambda item: -item[1]):
            print(f"  {part:<22}{ms:8.1f}")
        user, kernel, faults = (statistics.median(u[i] for u in usage[1:]) for i in range(3))
        print(f"  CPU time, all threads: user {user * 1e3:.1f} ms, kernel {kernel * 1e3:.1f} ms; "
              f"minor page faults {faults:.0f}")
        print()


if __name__ == "__main__":
    main()
