"""The price of clarity and the way out: five heads side by side, against the machine's limit, in one run.

Implementations, all float64 on the CPU, forward+backward, B = 8, d = 64:
  engine       the reading engine: the head composed of primitives, autodiff backward (llm_from_scratch)
  closed form  the engine's closed form on numpy arrays (backward recomputes A)
  tiled        llm_from_scratch.tiled_self_attention: FlashAttention's algorithm, no T x T matrix
  torch        PyTorch autograd on the same composition: matmul, x 1/sqrt(d), softmax, matmul
  sdpa         torch.nn.functional.scaled_dot_product_attention on [B, 1, T, d]
PyTorch comes from the optional `bench` extra (`pip install -e '.[bench]'`, which make bench installs);
without it only the numpy implementations run and the targets are not judged.

Every figure is measured in a plain process, as a learner runs the head: no allocator variables.
Time: the implementations take turns, each time the median of --repeats turns, with --settle seconds of
neutral busy work on every core before each timed call (llm_from_scratch.fast.measure). Peak memory:
the growth of the resident set during one pass, each implementation in a fresh process of its own, after
a warm-up pass at T = 16.

The machine's limit: the best GFLOP/s of a 2048 x 2048 float64 matrix product (numpy and torch, all
cores) and the exponentials per second of numpy's exp on every core into arrays already touched, so
that page faults are not counted as arithmetic. An implementation's limit is the time its own
arithmetic takes at those rates: its matrix products (2·B·T²·d FLOP each) plus its exponentials (B·T²
each); see ALGORITHMS. Writes head.md (the tables) and head.svg (time and memory against T) to --out,
by default the git-ignored artifacts/bench/.

    python benchmarks/bench_head.py [--tokens 512 2048 4096] [--repeats 5] [--settle 0.2]
"""

from __future__ import annotations

import argparse
import math
import os
import pathlib
import subprocess
import sys
import threading
import time

import numpy as np

from llm_from_scratch import Tensor, scaled_dot_product_self_attention, tiled_self_attention
from llm_from_scratch.book.figures import Panel, line_panels
from llm_from_scratch.engine.closed_form import closed_form_backward, closed_form_head
from llm_from_scratch.fast.measure import CORES, interleaved_ms, resident_peak_mib

try:
    import torch
except ImportError:  # the bench extra is not installed
    torch = None

BATCH, WIDTH = 8, 64
# implementation -> (matrix products of 2·B·T²·d FLOP, exponentials per score) its algorithm performs
ALGORITHMS = {
    "engine": (6, 3),  # QKᵀ, AV; backward: two per matmul. exp in log_softmax, in exp, and in log_softmax's backward
    "closed form": (7, 2),  # the same six, and QKᵀ again when backward recomputes A (one softmax each time)
    "tiled": (7, 2),  # backward recomputes each tile of S from the log-sum-exp: one more QKᵀ and its exponentials
    "torch": (6, 1),  # softmax keeps its output for backward
    "sdpa": (7, 2),  # PyTorch's CPU kernel is FlashAttention's algorithm: it recomputes as the tiled head does
}
TIME_TARGETS = {"engine / torch": (("engine", "torch"), (512, 2048), 3.0)}
MEMORY_TARGETS = {"engine / torch": (("engine", "torch"), (512, 2048), 3.0)}
TILED_TOKENS = 4096
TILED_TARGETS = {"time": 0.8, "memory": 1.5, "limit": 1.25}  # tiled against sdpa (time, memory) and its limit
OUT = pathlib.Path(__file__).resolve().parents[1] / "artifacts" / "bench"  # git-ignored


def engine(q, k, v, upstream):
    inputs = [Tensor(x, requires_grad=True) for x in (q, k, v)]
    record = scaled_dot_product_self_attention(*inputs)
    record.output.backward(upstream)
    return record.output.data, *(t.grad for t in inputs)


def closed_form(q, k, v, upstream):
    return closed_form_head(q, k, v), *closed_form_backward(q, k, v, upstream)


def tiled(q, k, v, upstream):
    inputs = [Tensor(x, requires_grad=True) for x in (q, k, v)]
    output = tiled_self_attention(*inputs)
    output.backward(upstream)
    return output.data, *(t.grad for t in inputs)


def torch_autograd(q, k, v, upstream):
    query, key, value = (torch.from_numpy(x).requires_grad_(True) for x in (q, k, v))
    output = torch.softmax(query @ key.transpose(1, 2) * (1 / math.sqrt(q.shape[2])), dim=-1) @ value
    output.backward(torch.from_numpy(upstream))
    return output.detach().numpy(), query.grad.numpy(), key.grad.numpy(), value.grad.numpy()


def torch_sdpa(q, k, v, upstream):
    inputs = [torch.from_numpy(x).unsqueeze(1).requires_grad_(True) for x in (q, k, v)]
    output = torch.nn.functional.scaled_dot_product_attention(*inputs)
    output.backward(torch.from_numpy(upstream).unsqueeze(1))
    return output.detach().squeeze(1).numpy(), *(t.grad.squeeze(1).numpy() for t in inputs)


IMPLEMENTATIONS = {"engine": engine, "closed form": closed_form, "tiled": tiled}
if torch is not None:
    IMPLEMENTATIONS |= {"torch": torch_autograd, "sdpa": torch_sdpa}


def inputs(tokens: int, batch: int = BATCH) -> list[np.ndarray]:
    rng = np.random.default_rng(27 + tokens)
    return [rng.standard_normal((batch, tokens, WIDTH)) for _ in range(4)]


def graph_kept(tokens: int) -> tuple[float, float]:
    """What the graph of a forward pass with no gradient keeps alive beyond its inputs and its output (every step
    records what it read): MiB, and how many B x T x T float64 matrices that is."""
    query, key, value = (Tensor(x) for x in inputs(tokens)[:3])
    output = (query @ key.transpose(1, 2) / math.sqrt(WIDTH)).softmax(2) @ value
    seen, kept, stack = set(), 0, list(output.inputs)
    while stack:
        tensor = stack.pop()
        if id(tensor) in seen or tensor.op == "input":
            continue
        seen.add(id(tensor))
        stack.extend(tensor.inputs)
        kept += tensor.data.nbytes if tensor.data.base is None else 0  # a view (Kᵀ) holds its input's bytes
    return kept / 2**20, kept / (BATCH * tokens * tokens * 8)


def matmul_gflops(size: int = 2048, repeats: int = 5) -> dict[str, float]:
    """The best GFLOP/s of a size x size float64 matrix product on all cores, in numpy and in torch."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((size, size)), rng.standard_normal((size, size))
    products = {"numpy": lambda: a @ b}
    if torch is not None:
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        products["torch"] = lambda: ta @ tb
    best = {}
    for name, product in products.items():
        product()
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            product()
            times.append(time.perf_counter() - start)
        best[name] = 2 * size**3 / min(times) / 1e9
    return best


def exp_per_second(block: int = 1 << 16, passes: int = 2000) -> float:
    """numpy's exp on every core at once, each thread on a cache-sized block it has already touched."""
    blocks = [(np.random.default_rng(i).standard_normal(block), np.empty(block)) for i in range(CORES)]
    for x, out in blocks:
        np.exp(x, out=out)

    def run(x, out):
        for _ in range(passes):
            np.exp(x, out=out)

    threads = [threading.Thread(target=run, args=pair) for pair in blocks]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return CORES * passes * block / (time.perf_counter() - start)


def limit_ms(name: str, tokens: int, gflops: float, exps: float) -> float:
    products, exponentials = ALGORITHMS[name]
    flop = products * 2 * BATCH * tokens * tokens * WIDTH
    return 1e3 * (flop / (gflops * 1e9) + exponentials * BATCH * tokens * tokens / exps)


def check_agreement(tokens: int) -> None:
    """Every implementation computes the same output and gradients before any is timed."""
    q, k, v, upstream = inputs(tokens, batch=2)
    reference = engine(q, k, v, upstream)
    for name, fn in IMPLEMENTATIONS.items():
        for mine, theirs in zip(reference, fn(q, k, v, upstream)):
            if not np.allclose(mine, theirs, rtol=1e-9, atol=1e-11):
                raise SystemExit(f"{name} disagrees with the engine at T={tokens}")


def peak_in_this_process(name: str, tokens: int) -> float:
    """MiB the resident set grows during one pass, after a warm-up pass at T = 16."""
    fn = IMPLEMENTATIONS[name]
    fn(*inputs(16))  # libraries' one-time allocations are not the pass's
    data = inputs(tokens)
    return resident_peak_mib(lambda: fn(*data))


def peak_mib(name: str, tokens: int) -> float:
    """The peak in a fresh interpreter, so that its memory and its allocator are its own."""
    result = subprocess.run([sys.executable, __file__, "--peak-memory", name, str(tokens)], capture_output=True,
                            text=True, check=True)
    return float(result.stdout)


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(row) + " |" for row in rows)]


def verdict(what: str, ratio: float, target: float) -> str:
    return f"{what}: {ratio:.2f} (target <= {target}): {'met' if ratio <= target else 'MISSED'}"


def targets(times: dict, peaks: dict, limits: dict) -> list[str]:
    """Each target with its measured figure and a verdict, or why it was not measured."""
    if torch is None:
        return ["not judged: the targets compare with PyTorch, which is not installed"]
    lines = []
    for label, ((mine, theirs), tokens, target) in TIME_TARGETS.items():
        for t in tokens:
            if (t, mine) in times:
                lines.append(verdict(f"{label} time, T = {t}", times[t, mine] / times[t, theirs], target))
    for label, ((mine, theirs), tokens, target) in MEMORY_TARGETS.items():
        for t in tokens:
            if (t, mine) in peaks:
                lines.append(verdict(f"{label} peak memory, T = {t}", peaks[t, mine] / peaks[t, theirs], target))
    t = TILED_TOKENS
    if (t, "tiled") not in times:
        return [*lines, f"tiled: not measured (add {t} to --tokens)"]
    lines.append(verdict(f"tiled / sdpa time, T = {t}", times[t, "tiled"] / times[t, "sdpa"], TILED_TARGETS["time"]))
    lines.append(verdict(f"tiled / sdpa peak memory, T = {t}", peaks[t, "tiled"] / peaks[t, "sdpa"],
                         TILED_TARGETS["memory"]))
    lines.append(verdict(f"tiled / its limit, T = {t}", times[t, "tiled"] / limits[t, "tiled"],
                         TILED_TARGETS["limit"]))
    return lines


def write_plot(out: pathlib.Path, tokens: list[int], times: dict, peaks: dict) -> None:
    names = list(IMPLEMENTATIONS)
    time_panel = Panel(f"forward+backward, B = {BATCH}, d = {WIDTH}", "ms (log scale)",
                       {name: np.array([times[t, name] for t in tokens]) for name in names}, log2_y=True)
    memory_panel = Panel(f"peak memory, B = {BATCH}", "MiB (log scale)",
                         {name: np.array([max(peaks[t, name], 0.01) for t in tokens]) for name in names}, log2_y=True)
    figure = line_panels([str(t) for t in tokens], "T", [time_panel, memory_panel])
    (out / "head.svg").write_text(figure.svg, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, nargs="+", default=[512, 2048, 4096])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--settle", type=float, default=0.2, help="seconds of neutral busy work before each timed call")
    parser.add_argument("--out", type=pathlib.Path, default=OUT, help="folder for head.md and head.svg")
    parser.add_argument("--peak-memory", nargs=2, metavar=("IMPL", "T"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.peak_memory:
        print(peak_in_this_process(args.peak_memory[0], int(args.peak_memory[1])))
        return

    report: list[str] = []

    def say(*lines: str) -> None:
        for line in lines:
            print(line, flush=True)
            report.append(line)

    versions = f"numpy {np.__version__}" + (f", torch {torch.__version__} ({torch.get_num_threads()} threads)"
                                             if torch is not None else ", no PyTorch (pip install -e '.[bench]')")
    load_at_start = os.getloadavg()[0]
    gflops = matmul_gflops()
    best, exps = max(gflops.values()), exp_per_second()
    say(f"# Head benchmark: B = {BATCH}, d = {WIDTH}, float64, forward+backward, plain process", "",
        f"{versions}; {CORES} cores; load average (1 min) at the start {load_at_start:.2f}", "",
        "Machine limit: float64 2048 x 2048 product " + ", ".join(f"{n} {v:.1f}" for n, v in gflops.items())
        + f" GFLOP/s (best {best:.1f}); exp {exps / 1e9:.2f} G/s on {CORES} cores into memory already touched.",
        "An implementation's limit = its matrix products × 2·B·T²·d FLOP / best GFLOP/s "
        "+ its exponentials per score × B·T² / exp rate:",
        *(f"  {name}: {p} products, {e} exp per score" for name, (p, e) in ALGORITHMS.items()
          if name in IMPLEMENTATIONS),
        "", f"Time: median of {args.repeats} interleaved turns, {args.settle} s of neutral busy work before each. "
        "Peak: resident-set growth during one pass, each in a fresh plain process.", "")
    header = ["T", "implementation", "ms", "limit ms", "× limit", "peak MiB", "× torch time", "× torch peak"]
    say(*table(header, []))
    times, peaks, limits = {}, {}, {}
    for tokens in args.tokens:
        check_agreement(min(tokens, 64))
        data = inputs(tokens)
        calls = {name: (lambda fn=fn, data=data: fn(*data)) for name, fn in IMPLEMENTATIONS.items()}
        for name, ms in interleaved_ms(calls, args.repeats, args.settle).items():
            times[tokens, name] = ms
        for name in IMPLEMENTATIONS:
            peaks[tokens, name] = peak_mib(name, tokens)
            limits[tokens, name] = limit_ms(name, tokens, best, exps)
        for name in IMPLEMENTATIONS:
            ms, peak = times[tokens, name], peaks[tokens, name]
            versus = ([f"{ms / times[tokens, 'torch']:.2f}", f"{peak / peaks[tokens, 'torch']:.2f}"]
                      if torch is not None else ["", ""])
            say(table(header, [[str(tokens), name, f"{ms:.1f}", f"{limits[tokens, name]:.1f}",
                                f"{ms / limits[tokens, name]:.2f}", f"{peak:.1f}", *versus]])[-1])
    say("", f"Targets (B = {BATCH}, d = {WIDTH}, float64, forward+backward, plain process)", "",
        *targets(times, peaks, limits), "",
        "The graph a forward pass without gradients records (the steps' inputs, read back by the judge): "
        "(Q Kᵀ / √d).softmax(2) V keeps, beyond its inputs and its output,",
        *(f"  T = {tokens}: {mib:.1f} MiB, {matrices:.1f} B x T x T matrices" for tokens in args.tokens
          for mib, matrices in [graph_kept(tokens)]), "",
        f"Load average (1 min) at the end: {os.getloadavg()[0]:.2f}")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "head.md").write_text("\n".join(report) + "\n", encoding="utf-8")
    write_plot(args.out, args.tokens, times, peaks)
    print(f"\nwrote {args.out / 'head.md'} and {args.out / 'head.svg'}")


if __name__ == "__main__":
    main()
