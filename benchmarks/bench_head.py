"""Benchmark: the engine's head against a closed-form numpy head and PyTorch, interleaved in one run.

Implementations, all float64 on the CPU:
  engine       llm_from_scratch: the head composed of primitives, autodiff backward
  closed form  llm_from_scratch.reference: numpy, one reused T x T buffer, hand-derived backward
  torch        PyTorch autograd on the same composition: matmul, x 1/sqrt(d), softmax, matmul
  sdpa         torch.nn.functional.scaled_dot_product_attention on [B, 1, T, d]
PyTorch comes from the optional `bench` extra (`pip install -e '.[bench]'`); without it
only the numpy implementations run.

For each B, T and pass (forward; forward+backward) the implementations take turns,
and each time is the median of --repeats turns. Before every timed call the script
keeps every core busy with a neutral numpy loop for --settle seconds: OpenBLAS's and
OpenMP's idle threads spin for a while after each call and would otherwise slow
down whichever implementation runs next, and a plain sleep lets this virtual
machine's cores idle down, which slowed the next call by up to 2x.
FLOPs count the matrix products only (2 per multiply-add; the forward pass has two
products, backward four); GFLOP/s is set against the machine's limit, the best of
a large numpy and torch matrix product. Peak memory is measured for each
implementation in a process of its own (Linux: the resident set's high-water mark,
reset just before the pass, minus the resident set just before), with glibc told to
give freed memory back at once, so the resident set follows what is allocated.

Writes head.md (the tables) and head.svg (time and memory against T, both
logarithmic) to --out, by default the git-ignored artifacts/bench/.

    python benchmarks/bench_head.py [--repeats N] [--tokens 16 128 512 2048] [--batches 1 8]
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import pathlib
import statistics
import subprocess
import sys
import threading
import time

import numpy as np

from llm_from_scratch import Tensor, scaled_dot_product_self_attention
from llm_from_scratch.book.figures import Panel, line_panels
from llm_from_scratch.cost import HeadCost
from llm_from_scratch.reference import closed_form_backward, closed_form_forward

try:
    import torch
except ImportError:  # the bench extra is not installed
    torch = None

WIDTH = 64
PASSES = ("forward", "forward+backward")
TARGETS = {512: 1.2, 2048: 1.0}  # engine / torch autograd, B = 8, forward+backward
MEMORY_TARGET = (2048, 1.5)  # engine peak / torch autograd peak, B = 8, forward+backward, at this T
OUT = pathlib.Path(__file__).resolve().parents[1] / "artifacts" / "bench"  # git-ignored
MIB = 2**20


def engine(q, k, v, upstream, backward):
    if not backward:
        return scaled_dot_product_self_attention(q, k, v).output.data
    inputs = [Tensor(x, requires_grad=True) for x in (q, k, v)]
    record = scaled_dot_product_self_attention(*inputs)
    record.output.backward(upstream)
    return record.output.data, *(t.grad for t in inputs)


def closed_form(q, k, v, upstream, backward):
    weights, output = closed_form_forward(q, k, v)
    if not backward:
        return output
    return output, *closed_form_backward(q, k, v, upstream, weights)


def torch_autograd(q, k, v, upstream, backward):
    inputs = [torch.from_numpy(x).requires_grad_(backward) for x in (q, k, v)]
    query, key, value = inputs
    with torch.set_grad_enabled(backward):
        weights = torch.softmax(query @ key.transpose(1, 2) * (1 / math.sqrt(q.shape[2])), dim=-1)
        output = weights @ value
    if not backward:
        return output.numpy()
    output.backward(torch.from_numpy(upstream))
    return output.detach().numpy(), *(t.grad.numpy() for t in inputs)


def torch_sdpa(q, k, v, upstream, backward):
    inputs = [torch.from_numpy(x).unsqueeze(1).requires_grad_(backward) for x in (q, k, v)]
    with torch.set_grad_enabled(backward):
        output = torch.nn.functional.scaled_dot_product_attention(*inputs)
    if not backward:
        return output.squeeze(1).numpy()
    output.backward(torch.from_numpy(upstream).unsqueeze(1))
    return output.detach().squeeze(1).numpy(), *(t.grad.squeeze(1).numpy() for t in inputs)


IMPLEMENTATIONS = {"engine": engine, "closed form": closed_form}
if torch is not None:
    IMPLEMENTATIONS |= {"torch": torch_autograd, "sdpa": torch_sdpa}


def inputs(batch: int, tokens: int) -> list[np.ndarray]:
    rng = np.random.default_rng(27 + tokens + batch)
    return [rng.standard_normal((batch, tokens, WIDTH)) for _ in range(4)]


def flops(batch: int, tokens: int, backward: bool) -> int:
    cost = HeadCost(batch, tokens, WIDTH, WIDTH)
    return 2 * (cost.forward_multiply_adds + (cost.backward_multiply_adds if backward else 0))


def machine_peak_gflops(size: int = 2048, repeats: int = 5) -> dict[str, float]:
    """The best GFLOP/s of a size x size float64 matrix product, in numpy and in torch."""
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


def check_agreement(batch: int, tokens: int) -> None:
    """Every implementation computes the same output and gradients before any is timed."""
    q, k, v, upstream = inputs(batch, tokens)
    reference = engine(q, k, v, upstream, True)
    for name, fn in IMPLEMENTATIONS.items():
        for mine, theirs in zip(reference, fn(q, k, v, upstream, True)):
            if not np.allclose(mine, theirs, rtol=1e-9, atol=1e-11):
                raise SystemExit(f"{name} disagrees with the engine at B={batch}, T={tokens}")


def settle(seconds: float) -> None:
    """Keep every core busy with small numpy work for ``seconds``, touching no implementation's threads."""
    end = time.perf_counter() + seconds
    small = np.ones(4096)

    def spin() -> None:
        while time.perf_counter() < end:
            np.exp(small)

    threads = [threading.Thread(target=spin) for _ in range(os.cpu_count() or 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def median_ms(batch: int, tokens: int, backward: bool, repeats: int, settle_seconds: float) -> dict[str, float]:
    data = inputs(batch, tokens)
    times: dict[str, list[float]] = {name: [] for name in IMPLEMENTATIONS}
    for fn in IMPLEMENTATIONS.values():
        fn(*data, backward)  # warm up
    for _ in range(repeats):
        for name, fn in IMPLEMENTATIONS.items():
            gc.collect()
            settle(settle_seconds)
            start = time.perf_counter()
            fn(*data, backward)
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) * 1e3 for name, t in times.items()}


def _resident_kib(field: str) -> int:
    for line in pathlib.Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"/proc/self/status has no {field}")


def peak_in_this_process(name: str, backward: bool, batch: int, tokens: int) -> float:
    """MiB above the resident set that one pass of ``name`` needs at its peak."""
    data = inputs(batch, tokens)
    fn = IMPLEMENTATIONS[name]
    fn(*data, backward)  # libraries' one-time allocations are not the pass's
    gc.collect()
    pathlib.Path("/proc/self/clear_refs").write_text("5")  # reset the high-water mark
    before = _resident_kib("VmRSS")
    fn(*data, backward)
    return (_resident_kib("VmHWM") - before) / 1024


def peak_mib(name: str, backward: bool, batch: int, tokens: int) -> float:
    """Run ``peak_in_this_process`` in a fresh interpreter, so no other implementation's memory counts."""
    env = os.environ | {"MALLOC_MMAP_THRESHOLD_": "65536", "MALLOC_TRIM_THRESHOLD_": "0"}
    result = subprocess.run(
        [sys.executable, __file__, "--peak-memory", name, str(int(backward)), str(batch), str(tokens)],
        capture_output=True, text=True, check=True, env=env)
    return float(result.stdout)


def write_plot(out: pathlib.Path, tokens: list[int], batch: int, times: dict, peaks: dict) -> None:
    names = list(IMPLEMENTATIONS)
    time_panel = Panel(f"forward+backward time, B = {batch}, d = {WIDTH}", "ms (log scale)", {
        name: np.array([times[(batch, t, True)][name] for t in tokens]) for name in names}, log2_y=True)
    memory_panel = Panel(f"peak memory, forward+backward, B = {batch}", "MiB (log scale)", {
        name: np.array([max(peaks[(name, True, t)], 0.01) for t in tokens]) for name in names}, log2_y=True)
    figure = line_panels([str(t) for t in tokens], "T", [time_panel, memory_panel])
    (out / "head.svg").write_text(figure.svg, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--settle", type=float, default=0.2,
                        help="seconds of neutral busy work before each timed call")
    parser.add_argument("--tokens", type=int, nargs="+", default=[16, 128, 512, 2048])
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--out", type=pathlib.Path, default=OUT, help="folder for head.md and head.svg")
    parser.add_argument("--peak-memory", nargs=4, metavar=("IMPL", "BACKWARD", "B", "T"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.peak_memory:
        name, backward, batch, tokens = args.peak_memory
        print(peak_in_this_process(name, backward == "1", int(batch), int(tokens)))
        return

    peers = [name for name in IMPLEMENTATIONS if name != "engine"]
    if torch is None:
        print("PyTorch is not installed (pip install -e '.[bench]'): comparing the numpy implementations only")
    else:
        print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; numpy {np.__version__}")
    peak = machine_peak_gflops()
    limit = max(peak.values())
    print("machine limit, float64 2048 x 2048 product: "
          + ", ".join(f"{name} {value:.1f} GFLOP/s" for name, value in peak.items()))
    print(f"d = {WIDTH}, float64, median of {args.repeats} interleaved turns, "
          f"{args.settle} s of neutral busy work before each\n")

    header = (f"| B | T | pass | GFLOP | {' | '.join(f'{n} ms' for n in IMPLEMENTATIONS)} | "
              f"engine GFLOP/s | engine % of limit | {' | '.join(f'engine/{n}' for n in peers)} |")
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    print(header + "\n" + lines[1])
    times = {}
    for batch in args.batches:
        for tokens in args.tokens:
            check_agreement(batch, min(tokens, 128))
            for backward in (False, True):
                ms = median_ms(batch, tokens, backward, args.repeats, args.settle)
                times[(batch, tokens, backward)] = ms
                work = flops(batch, tokens, backward)
                rate = work / ms["engine"] / 1e6
                row = (f"| {batch} | {tokens} | {PASSES[backward]} | {work / 1e9:.3f} | "
                       + " | ".join(f"{ms[n]:.2f}" for n in IMPLEMENTATIONS)
                       + f" | {rate:.1f} | {100 * rate / limit:.0f}% | "
                       + " | ".join(f"{ms['engine'] / ms[n]:.2f}" for n in peers) + " |")
                lines.append(row)
                print(row, flush=True)

    rate_header = f"| B | T | pass | {' | '.join(IMPLEMENTATIONS)} |"
    rate_lines = [rate_header, "|" + "---|" * (rate_header.count("|") - 1)]
    for (batch, tokens, backward), ms in times.items():
        work = flops(batch, tokens, backward)
        rate_lines.append(f"| {batch} | {tokens} | {PASSES[backward]} | " + " | ".join(
            f"{work / ms[n] / 1e6:.1f} ({100 * work / ms[n] / 1e6 / limit:.0f}%)" for n in IMPLEMENTATIONS) + " |")
    print("\nachieved GFLOP/s of the matrix products (% of the machine's limit)\n" + "\n".join(rate_lines))

    batch = max(args.batches)
    print(f"\npeak memory above the resident set, B = {batch}, each implementation in its own process (MiB)")
    memory_header = f"| T | pass | {' | '.join(IMPLEMENTATIONS)} | record must keep |"
    memory_lines = [memory_header, "|" + "---|" * (memory_header.count("|") - 1)]
    print(memory_header + "\n" + memory_lines[1])
    peaks = {}
    for tokens in args.tokens:
        for backward in (False, True):
            for name in IMPLEMENTATIONS:
                peaks[(name, backward, tokens)] = peak_mib(name, backward, batch, tokens)
            record = HeadCost(batch, tokens, WIDTH, WIDTH).record_bytes / MIB
            row = (f"| {tokens} | {PASSES[backward]} | "
                   + " | ".join(f"{peaks[(n, backward, tokens)]:.1f}" for n in IMPLEMENTATIONS)
                   + f" | {record:.1f} |")
            memory_lines.append(row)
            print(row, flush=True)

    verdicts = []
    if torch is not None and batch == 8:
        for tokens, target in TARGETS.items():
            if (8, tokens, True) in times:
                ratio = times[(8, tokens, True)]["engine"] / times[(8, tokens, True)]["torch"]
                verdicts.append(f"engine/torch, B = 8, T = {tokens}, forward+backward: {ratio:.2f} "
                                f"(target <= {target}): {'met' if ratio <= target else 'MISSED'}")
        tokens, target = MEMORY_TARGET
        if tokens in args.tokens:
            ratio = peaks[("engine", True, tokens)] / peaks[("torch", True, tokens)]
            verdicts.append(f"engine/torch peak memory, B = 8, T = {tokens}: {ratio:.2f} "
                            f"(target <= {target}): {'met' if ratio <= target else 'MISSED'}")
    print("\n" + "\n".join(verdicts))

    args.out.mkdir(parents=True, exist_ok=True)
    limit_line = ", ".join(f"{name} {value:.1f} GFLOP/s" for name, value in peak.items())
    (args.out / "head.md").write_text("\n".join([
        f"# Head benchmark (d = {WIDTH}, float64, median of {args.repeats})", "",
        f"Machine limit (2048 x 2048 float64 product): {limit_line}", "", *lines, "",
        "Achieved GFLOP/s of the matrix products (% of the machine's limit)", "", *rate_lines, "",
        f"Peak memory above the resident set, B = {batch}, own process (MiB)", "", *memory_lines, "",
        *verdicts, ""]), encoding="utf-8")
    write_plot(args.out, args.tokens, batch, times, peaks)
    print(f"\nwrote {args.out / 'head.md'} and {args.out / 'head.svg'}")


if __name__ == "__main__":
    main()
