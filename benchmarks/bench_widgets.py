"""Latency of each explorer from a new slider value to its updated figure and numbers.

Measured in this process (compute + render, as the kernel does it), median of N moves.

    python benchmarks/bench_widgets.py [--moves N]
"""

from __future__ import annotations

import argparse
import statistics
import time

from llm_from_scratch.ch27.widgets import KEY_WIDTHS, HeadEditor, ScaleExplorer, WidthExplorer

TARGETS_MS = {"scale": 100, "d_k": 250, "Q/K/V": 100}


def median_ms(move, values) -> float:
    times = []
    for value in values:
        start = time.perf_counter()
        move(value)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=21)
    args = parser.parse_args()
    scale, width, editor = ScaleExplorer(), WidthExplorer(), HeadEditor()
    field = editor.fields[("Q", 0, 0)]
    factors = [round(0.1 * (i % 20) + 0.05, 2) for i in range(args.moves)]
    widths = [KEY_WIDTHS[i % len(KEY_WIDTHS)] for i in range(1, args.moves + 1)]
    entries = [0.25 * i for i in range(1, args.moves + 1)]
    results = {
        "scale": median_ms(lambda v: setattr(scale.slider, "value", v), factors),
        "d_k": median_ms(lambda v: setattr(width.slider, "value", v), widths),
        "Q/K/V": median_ms(lambda v: setattr(field, "value", v), entries),
    }
    print(f"{'explorer':<10}{'median ms':>11}{'target ms':>11}  verdict")
    for name, ms in results.items():
        verdict = "ok" if ms <= TARGETS_MS[name] else "MISSED"
        print(f"{name:<10}{ms:>11.1f}{TARGETS_MS[name]:>11}  {verdict}")


if __name__ == "__main__":
    main()
