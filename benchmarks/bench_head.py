"""Benchmark: the engine's head and the tiled head against numpy and PyTorch, interleaved in one run.

Implementations, all float64 on the CPU:
  engine       llm_from_scratch: the head composed of primitives, autodiff backward
  closed form  llm_from_scratch.reference: numpy, one reused T x T buffer, hand-derived backward
  torch        PyTorch autograd on the same composition: matmul, x 1/sqrt(d), softmax, matmul
  sdpa         torch.nn.functional.scaled_dot_product_attention on [B, 1, T, d]
  tiled        llm_from_scratch.tiled_self_attention (FlashAttention-style), --block keys per tile
PyTorch comes from the optional `bench` extra (`pip install -e '.[bench]'`); without it
only the numpy implementations run.

Every figure is measured in a plain process, as a learner runs the head: no
allocator variables. The one exception is a labelled extra column, "engine
(malloc tuned)": the engine again, in a process of its own where glibc keeps
freed memory (MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_), to show what
fresh pages cost; it is never the figure a target is judged on.

Time: for each B, T and pass (forward; forward+backward) the implementations take
turns, each time the median of --repeats turns, with --settle seconds of neutral
busy work on every core before each timed call (llm_from_scratch.measure).
FLOPs count the head's matrix products only (2 per multiply-add; forward two
products, backward four; the tiled head does one more, recomputing the scores);
GFLOP/s is set against the machine's limit, the best of a large numpy and torch
matrix product. Peak memory: the growth of the resident set during one pass,
each implementation in a fresh process of its own, after a warm-up pass at T = 16
(llm_from_scratch.measure.resident_peak_mib).

Then the tiled head alone against SDPA at --tiled-tokens, for several block sizes.
Each target is printed with its measured figure and a verdict. Writes head.md
(the tables) and head.svg (time and memory against T) to --out, by default the
git-ignored artifacts/bench/.

    python benchmarks/bench_head.py [--repeats N] [--tokens 16 128 512 2048] [--batches 1 8]
                                    [--tiled-tokens 4096] [--blocks 64 128 256 512]
"""

from __future__ import annotations

import argparse
import inspect
import math
import os
import pathlib
import subprocess
import sys
import time

import numpy as np

from llm_from_scratch import Tensor, scaled_dot_product_self_attention, tiled_self_attention
from llm_from_scratch.book.figures import Panel, line_panels
from llm_from_scratch.cost import HeadCost
from llm_from_scratch.measure import CORES, interleaved_ms, resident_peak_mib
from llm_from_scratch.reference import closed_form_backward, closed_form_forward

try:
    import torch
except ImportError:  # the bench extra is not installed
    torch = None

WIDTH = 64
BLOCK = inspect.signature(tiled_self_attention).parameters["block_size"].default  # tiled's default block
PASSES = ("forward", "forward+backward")
TIME_TARGETS = {512: 1.2, 2048: 1.0}  # engine / torch autograd, B = 8, forward+backward, plain process
MEMORY_TARGET = (2048, 1.5)  # engine peak / torch autograd peak, B = 8, forward+backward, at this T
TILED_TARGETS = (4096, 1.0, 2.0)  # at this T: tiled / sdpa time, tiled / sdpa peak, B = 8, forward+backward
MALLOC_TUNED = {"MALLOC_MMAP_THRESHOLD_": "4294967296", "MALLOC_TRIM_THRESHOLD_": "68719476736"}
OUT = pathlib.Path(__file__).resolve().parents[1] / "artifacts" / "bench"  # git-ignored
MIB = 2**20


def engine(q, k, v, upstream, backward, block=BLOCK):
    if not backward:
        return scaled_dot_product_self_attention(q, k, v).output.data
    inputs = [Tensor(x, requires_grad=True) for x in (q, k, v)]
    record = scaled_dot_product_self_attention(*inputs)
    record.output.backward(upstream)
    return record.output.data, *(t.grad for t in inputs)


def closed_form(q, k, v, upstream, backward, block=BLOCK):
    weights, output = closed_form_forward(q, k, v)
    if not backward:
        return output
    return output, *closed_form_backward(q, k, v, upstream, weights)


def torch_autograd(q, k, v, upstream, backward, block=BLOCK):
    inputs = [torch.from_numpy(x).requires_grad_(backward) for x in (q, k, v)]
    query, key, value = inputs
    with torch.set_grad_enabled(backward):
        weights = torch.softmax(query @ key.transpose(1, 2) * (1 / math.sqrt(q.shape[2])), dim=-1)
        output = weights @ value
    if not backward:
        return output.numpy()
    output.backward(torch.from_numpy(upstream))
    return output.detach().numpy(), *(t.grad.numpy() for t in inputs)


def torch_sdpa(q, k, v, upstream, backward, block=BLOCK):
    inputs = [torch.from_numpy(x).unsqueeze(1).requires_grad_(backward) for x in (q, k, v)]
    with torch.set_grad_enabled(backward):
        output = torch.nn.functional.scaled_dot_product_attention(*inputs)
    if not backward:
        return output.squeeze(1).numpy()
    output.backward(torch.from_numpy(upstream).unsqueeze(1))
    return output.detach().squeeze(1).numpy(), *(t.grad.squeeze(1).numpy() for t in inputs)


def tiled(q, k, v, upstream, backward, block=BLOCK):
    if not backward:
        return tiled_self_attention(q, k, v, block_size=block).data
    inputs = [Tensor(x, requires_grad=True) for x in (q, k, v)]
    output = tiled_self_attention(*inputs, block_size=block)
    output.backward(upstream)
    return output.data, *(t.grad for t in inputs)


IMPLEMENTATIONS = {"engine": engine, "closed form": closed_form}
if torch is not None:
    IMPLEMENTATIONS |= {"torch": torch_autograd, "sdpa": torch_sdpa}
IMPLEMENTATIONS["tiled"] = tiled
PEERS = [name for name in ("closed form", "torch", "sdpa") if name in IMPLEMENTATIONS]


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
        for mine, theirs in zip(reference, fn(q, k, v, upstream, True, block=7)):
            if not np.allclose(mine, theirs, rtol=1e-9, atol=1e-11):
                raise SystemExit(f"{name} disagrees with the engine at B={batch}, T={tokens}")


def median_ms(names: list[str], batch: int, tokens: int, backward: bool, repeats: int, settle: float,
              blocks: dict[str, int] | None = None) -> dict[str, float]:
    """Median ms of each named implementation, taking turns; ``blocks`` maps a label to a tiled block."""
    data = inputs(batch, tokens)
    calls = {name: (lambda fn=IMPLEMENTATIONS[name]: fn(*data, backward)) for name in names}
    for label, block in (blocks or {}).items():
        calls[label] = lambda block=block: tiled(*data, backward, block=block)
    return interleaved_ms(calls, repeats, settle)


def run_here(*args: str, env: dict[str, str] | None = None) -> str:
    """Run this script again in a fresh interpreter, so its memory and allocator are its own."""
    result = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, check=True,
                            env=os.environ | (env or {}))
    return result.stdout


def peak_in_this_process(name: str, backward: bool, batch: int, tokens: int, block: int) -> float:
    """MiB the resident set grows during one pass, after a warm-up pass at T = 16."""
    fn = IMPLEMENTATIONS[name]
    fn(*inputs(batch, 16), backward, block=block)  # libraries' one-time allocations are not the pass's
    data = inputs(batch, tokens)
    return resident_peak_mib(lambda: fn(*data, backward, block=block))


def peak_mib(name: str, backward: bool, batch: int, tokens: int, block: int = BLOCK) -> float:
    return float(run_here("--peak-memory", name, str(int(backward)), str(batch), str(tokens), str(block)))


def malloc_tuned_engine_ms(batch: int, tokens: int, backward: bool, repeats: int, settle: float) -> float:
    """The engine's median ms in a process whose glibc keeps freed memory: the extra column only."""
    return float(run_here("--engine-ms", str(batch), str(tokens), str(int(backward)), str(repeats), str(settle),
                          env=MALLOC_TUNED))


def verdict(what: str, ratio: float, target: float) -> str:
    return f"{what}: {ratio:.2f} (target <= {target}): {'met' if ratio <= target else 'MISSED'}"


def ratio(mine: float, theirs: float) -> str:
    """mine / theirs, or "n/a" where a peak too small to measure would divide by zero."""
    return f"{mine / theirs:.2f}" if theirs > 0 else "n/a"


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(row) + " |" for row in rows)]


def write_plot(out: pathlib.Path, tokens: list[int], batch: int, times: dict, peaks: dict) -> None:
    names = [name for name in ("engine", "torch", "sdpa", "tiled") if name in IMPLEMENTATIONS]  # four line styles
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
    parser.add_argument("--tiled-tokens", type=int, nargs="*", default=[4096],
                        help="T for the tiled head against SDPA (none: skip that table)")
    parser.add_argument("--blocks", type=int, nargs="+", default=[64, 128, 256, 512],
                        help="block sizes of the tiled head against SDPA")
    parser.add_argument("--out", type=pathlib.Path, default=OUT, help="folder for head.md and head.svg")
    parser.add_argument("--peak-memory", nargs=5, metavar=("IMPL", "BACKWARD", "B", "T", "BLOCK"),
                        help=argparse.SUPPRESS)
    parser.add_argument("--engine-ms", nargs=5, metavar=("B", "T", "BACKWARD", "REPEATS", "SETTLE"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.peak_memory:
        name, backward, batch, tokens, block = args.peak_memory
        print(peak_in_this_process(name, backward == "1", int(batch), int(tokens), int(block)))
        return
    if args.engine_ms:
        batch, tokens, backward, repeats, settle = args.engine_ms
        print(median_ms(["engine"], int(batch), int(tokens), backward == "1", int(repeats), float(settle))["engine"])
        return

    report: list[str] = []

    def say(*lines: str) -> None:
        for line in lines:
            print(line, flush=True)
            report.append(line)

    if torch is None:
        print("PyTorch is not installed (pip install -e '.[bench]'): comparing the numpy implementations only")
    else:
        print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; numpy {np.__version__}")
    load_at_start = os.getloadavg()[0]
    peak = machine_peak_gflops()
    limit = max(peak.values())
    say(f"# Head benchmark (d = {WIDTH}, float64, plain process, median of {args.repeats} interleaved turns, "
        f"{args.settle} s of neutral busy work before each)", "",
        "Machine limit, float64 2048 x 2048 product: " + ", ".join(f"{n} {v:.1f} GFLOP/s" for n, v in peak.items()),
        "", f"Load average (1 min) at the start: {load_at_start:.2f} on {CORES} cores: other processes "
        "running at the same time slow some implementations more than others.",
        "", f"tiled: block {BLOCK}. engine (malloc tuned): the engine in its own process with "
        + " ".join(f"{k}={v}" for k, v in MALLOC_TUNED.items()) + " (glibc keeps freed memory); extra column only.",
        "")

    names = list(IMPLEMENTATIONS)
    header = ["B", "T", "pass", "GFLOP", *(f"{n} ms" for n in names), "engine (malloc tuned) ms",
              "engine GFLOP/s", "engine % of limit", *(f"engine/{n}" for n in PEERS),
              *(["tiled/sdpa"] if "sdpa" in names else [])]
    say(*table(header, []))
    times, rows = {}, []
    for batch in args.batches:
        for tokens in args.tokens:
            check_agreement(batch, min(tokens, 64))
            for backward in (False, True):
                ms = median_ms(names, batch, tokens, backward, args.repeats, args.settle)
                tuned = malloc_tuned_engine_ms(batch, tokens, backward, args.repeats, args.settle)
                times[(batch, tokens, backward)] = ms
                work = flops(batch, tokens, backward)
                rate = work / ms["engine"] / 1e6
                row = [str(batch), str(tokens), PASSES[backward], f"{work / 1e9:.3f}",
                       *(f"{ms[n]:.2f}" for n in names), f"{tuned:.2f}", f"{rate:.1f}", f"{100 * rate / limit:.0f}%",
                       *(f"{ms['engine'] / ms[n]:.2f}" for n in PEERS),
                       *([f"{ms['tiled'] / ms['sdpa']:.2f}"] if "sdpa" in names else [])]
                rows.append(row)
                say(table(header, [row])[-1])

    rate_rows = [[str(b), str(t), PASSES[bw], *(f"{flops(b, t, bw) / ms[n] / 1e6:.1f} "
                                                  f"({100 * flops(b, t, bw) / ms[n] / 1e6 / limit:.0f}%)"
                                                  for n in names)] for (b, t, bw), ms in times.items()]
    say("", "Achieved GFLOP/s of the head's matrix products (% of the machine's limit)", "",
        *table(["B", "T", "pass", *names], rate_rows))

    batch = max(args.batches)
    say("", f"Peak memory: resident-set growth during one pass, B = {batch}, each implementation "
        "in a fresh plain process (MiB)", "")
    memory_header = ["T", "pass", *names, "record must keep"]
    say(*table(memory_header, []))
    peaks = {}
    for tokens in args.tokens:
        for backward in (False, True):
            for name in names:
                peaks[(name, backward, tokens)] = peak_mib(name, backward, batch, tokens)
            record = HeadCost(batch, tokens, WIDTH, WIDTH).record_bytes / MIB
            say(table(memory_header, [[str(tokens), PASSES[backward],
                                       *(f"{peaks[(n, backward, tokens)]:.1f}" for n in names),
                                       f"{record:.1f}"]])[-1])

    tiled_results = tiled_against_sdpa(args, batch, say)

    verdicts = targets(args, batch, times, peaks, tiled_results)
    say("", "Targets (B = 8, d = 64, float64, forward+backward, plain process)", "", *verdicts,
        "", f"Load average (1 min) at the end: {os.getloadavg()[0]:.2f}")

    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "head.md").write_text("\n".join(report) + "\n", encoding="utf-8")
    write_plot(args.out, args.tokens, batch, times, peaks)
    print(f"\nwrote {args.out / 'head.md'} and {args.out / 'head.svg'}")


def tiled_against_sdpa(args, batch: int, say) -> dict[int, tuple[dict[str, float], dict[str, float]]]:
    """For each T in --tiled-tokens: forward+backward ms (interleaved) and peak MiB of SDPA and each block."""
    results = {}
    for tokens in args.tiled_tokens:
        check_agreement(batch, min(tokens, 64))
        labels = {f"tiled, block {b}": b for b in args.blocks}
        others = ["sdpa"] if "sdpa" in IMPLEMENTATIONS else []
        ms = median_ms(others, batch, tokens, True, args.repeats, args.settle, blocks=labels)
        peaks = {name: peak_mib(name, True, batch, tokens) for name in others}
        peaks |= {label: peak_mib("tiled", True, batch, tokens, block) for label, block in labels.items()}
        rows = []
        for label in ms:
            row = [label, f"{ms[label]:.1f}", f"{peaks[label]:.1f}"]
            if others:
                row += [f"{ms[label] / ms['sdpa']:.2f}", ratio(peaks[label], peaks["sdpa"])]
            rows.append(row)
        say("", f"Tiled head against SDPA: B = {batch}, T = {tokens}, d = {WIDTH}, forward+backward; "
            "time interleaved, peak (resident-set growth) each in a fresh plain process", "",
            *table(["implementation", "ms", "peak MiB", *(["time / sdpa", "peak / sdpa"] if others else [])], rows))
        results[tokens] = (ms, peaks)
    return results


def targets(args, batch: int, times: dict, peaks: dict, tiled_results: dict) -> list[str]:
    """Each target with its measured figure and a verdict, or why it was not measured."""
    if torch is None:
        return ["not judged: the targets compare with PyTorch, which is not installed"]
    if batch != 8:
        return [f"not judged: the targets are for B = 8 (this run: B = {batch})"]
    lines = []
    for tokens, target in TIME_TARGETS.items():
        what = f"engine / torch autograd time, T = {tokens}"
        if (8, tokens, True) in times:
            lines.append(verdict(what, times[(8, tokens, True)]["engine"] / times[(8, tokens, True)]["torch"], target))
        else:
            lines.append(f"{what}: not measured (add {tokens} to --tokens)")
    tokens, target = MEMORY_TARGET
    what = f"engine / torch autograd peak memory, T = {tokens}"
    if ("engine", True, tokens) in peaks:
        lines.append(verdict(what, peaks[("engine", True, tokens)] / peaks[("torch", True, tokens)], target))
    else:
        lines.append(f"{what}: not measured (add {tokens} to --tokens)")
    tokens, time_target, memory_target = TILED_TARGETS
    label = f"tiled, block {BLOCK}"
    if tokens in tiled_results and label in tiled_results[tokens][0]:
        ms, peak = tiled_results[tokens]
        lines.append(verdict(f"tiled (block {BLOCK}) / sdpa time, T = {tokens}", ms[label] / ms["sdpa"], time_target))
        lines.append(verdict(f"tiled (block {BLOCK}) / sdpa peak memory, T = {tokens}", peak[label] / peak["sdpa"],
                             memory_target))
    else:
        lines.append(f"tiled / sdpa, T = {tokens}: not measured (add {tokens} to --tiled-tokens, {BLOCK} to --blocks)")
    return lines


if __name__ == "__main__":
    main()
