"""How long judging takes: a 2×2 answer in a fresh kernel and after, a wrong answer on a variant (the search over
compositions of slips, built once per instance, then reused), a long answer, the code exercises: a wrong head and
a wrong backward, written as notebook cells (so the judge reads their lines), the first time (every slip and pair of
slips run on the probes, once) and later, each under the 3 s the judge gives the learner's code.

Every figure comes from a fresh interpreter that imports the chapter's exercises, as a notebook's first cell
does. The first check computes the evidence it needs (the worked example's forward and backward pass; no
gradient check), the later ones reuse it. Progress goes to a throwaway store.

    python benchmarks/bench_checks.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ONE_KERNEL = """
import json, linecache, statistics, time
import numpy as np
from llm_from_scratch.ch27.exercises import check, check_code, variant
from llm_from_scratch.engine.closed_form import closed_form_backward, closed_form_head

def ms(call, repeats=1):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)

def cell(code, name):
    # a learner's function, defined as a notebook cell defines it: its source is where the judge reads lines
    filename = f"<ipython-input-{abs(hash(code))}-bench>"
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    namespace = {"np": np}
    exec(compile(code, filename, "exec"), namespace)
    return namespace[name]

unscaled = cell('''def my_head(q, k, v):
    s = q @ k.swapaxes(1, 2)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) @ v
''', "my_head")
negated = cell('''def my_backward(q, k, v, upstream):
    d_k = q.shape[-1]
    s = q @ k.swapaxes(1, 2) / np.sqrt(d_k)
    a = np.exp(s - s.max(axis=-1, keepdims=True))
    a = a / a.sum(axis=-1, keepdims=True)
    dv = a.swapaxes(1, 2) @ upstream
    da = upstream @ v.swapaxes(1, 2)
    ds = a * ((a * da).sum(axis=-1, keepdims=True) - da)
    return ds @ k / np.sqrt(d_k), ds.swapaxes(1, 2) @ q / np.sqrt(d_k), dv
''', "my_backward")

figures = {"first check of a 2×2 answer": ms(lambda: check("scores", "[[0, 6], [6, -4]]"))}
figures["a later check of a 2×2 answer"] = ms(lambda: check("scores", "[[0, 6], [6, -4]]"), 50)
def scores_of(n):
    given = variant("scores-by-hand", n)
    return given["query"][0] @ given["key"][0].T

for n in (1, 2, 3):  # three variants seen, then a fourth: its judge searches over every one of them too
    check("scores-by-hand", scores_of(n).tolist(), variant=n)
uniform = np.full((len(scores_of(4)),) * 2, 1 / len(scores_of(4))).round(2).tolist()
figures["first wrong answer on variant 4, 4 seen (slips composed)"] = ms(
    lambda: check("weights-by-hand", uniform, variant=4))
figures["a later wrong answer on variant 4"] = ms(lambda: check("weights-by-hand", uniform, variant=4), 50)
figures["a typed answer of 1,000 numbers"] = ms(lambda: check("scores", ", ".join(["0.5"] * 1000)), 5)
figures["a typed answer of 10,000 characters"] = ms(lambda: check("scores", "[" + "1 " * 4999 + "]"), 5)
figures["check_code: a right head (6 cases)"] = ms(lambda: check_code("write-head", closed_form_head), 5)
figures["check_code: a first wrong head (cases, probes, every slip's fingerprint, its lines read)"] = ms(
    lambda: check_code("write-head", unscaled))
figures["check_code: a later wrong head (cases, probes, search, its lines read)"] = ms(
    lambda: check_code("write-head", unscaled), 5)
figures["check_code: a wrong head no slip explains (search, then the first stage)"] = ms(
    lambda: check_code("write-head", lambda q, k, v: closed_form_head(q, k, v) + 1), 5)
figures["check_code: a right backward (6 cases)"] = ms(lambda: check_code("write-backward", closed_form_backward), 5)

figures["check_code: a first wrong backward (every slip's fingerprint, its lines read)"] = ms(
    lambda: check_code("write-backward", negated))
figures["check_code: a later wrong backward"] = ms(lambda: check_code("write-backward", negated), 5)
print(json.dumps(figures))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="fresh interpreters")
    args = parser.parse_args()
    runs = []
    with tempfile.TemporaryDirectory() as folder:
        env = os.environ | {"LLM_FROM_SCRATCH_PROGRESS": os.path.join(folder, "progress.json")}
        for _ in range(args.runs):
            out = subprocess.run([sys.executable, "-c", ONE_KERNEL], capture_output=True, text=True, check=True,
                                 env=env)
            runs.append(json.loads(out.stdout))
    print(f"How long a check takes, ms: median (and worst) of {args.runs} fresh kernels")
    for name in runs[0]:
        values = [run[name] for run in runs]
        print(f"  {name:<86}{statistics.median(values):9.2f}  ({max(values):.2f})")


if __name__ == "__main__":
    main()
