"""Latency of each explorer of every chapter from a new control value to its updated figure and numbers.

Measured in this process (compute + render, as the kernel does it), median of N moves.
A chapter offers its explorers through ``controls(moves)`` in its ``widgets`` module.

    python benchmarks/bench_widgets.py [--moves N]
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import pathlib
import statistics
import time

from llm_from_scratch.book.chapters import chapters

ROOT = pathlib.Path(__file__).resolve().parents[1]


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
    print(f"{'chapter':<11}{'explorer':<10}{'median ms':>11}{'target ms':>11}  verdict")
    for chapter in chapters(ROOT):
        module = f"{chapter.package}.widgets"
        if importlib.util.find_spec(chapter.package) is None or importlib.util.find_spec(module) is None:
            continue
        for name, (control, values, target) in importlib.import_module(module).controls(args.moves).items():
            ms = median_ms(lambda v, c=control: setattr(c, "value", v), values)
            verdict = "ok" if ms <= target else "MISSED"
            print(f"{chapter.name:<11}{name:<10}{ms:>11.1f}{target:>11}  {verdict}")


if __name__ == "__main__":
    main()
