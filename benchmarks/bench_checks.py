"""How long judging an answer takes: the first check in a fresh kernel, and the ones after it.

Each figure comes from a fresh interpreter that imports the chapter's exercises (as a notebook's
first cell does), then checks a 2×2 answer: the first call computes the evidence it needs (the
worked example's forward and backward pass; no gradient check), the later ones reuse it. Progress
goes to a throwaway store.

    python benchmarks/bench_checks.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

ONE_KERNEL = """
import statistics, time
from llm_from_scratch.ch27.exercises import check
start = time.perf_counter()
assert check("scores", "[[0, 6], [6, -4]]").correct
first = time.perf_counter() - start
later = []
for _ in range(50):
    start = time.perf_counter()
    check("scores", "[[0, 6], [6, -4]]")
    later.append(time.perf_counter() - start)
print(first * 1e3, statistics.median(later) * 1e3)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="fresh interpreters")
    args = parser.parse_args()
    firsts, laters = [], []
    with tempfile.TemporaryDirectory() as folder:
        env = os.environ | {"LLM_FROM_SCRATCH_PROGRESS": os.path.join(folder, "progress.json")}
        for _ in range(args.runs):
            out = subprocess.run([sys.executable, "-c", ONE_KERNEL], capture_output=True, text=True, check=True,
                                 env=env)
            first, later = map(float, out.stdout.split())
            firsts.append(first)
            laters.append(later)
    print(f"check of a 2×2 answer, median of {args.runs} fresh kernels: first {statistics.median(firsts):.2f} ms "
          f"(worst {max(firsts):.2f}), later ones {statistics.median(laters):.2f} ms")


if __name__ == "__main__":
    main()
