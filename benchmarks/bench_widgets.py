"""Latency of each explorer of every chapter from a new control value to its updated figure and numbers.

Measured in this process (compute + render, as the kernel does it), median and worst of N moves, beside the
bounds issue 25 sets for a whole step (100 ms median, 250 ms worst). The browser test prints the whole step,
from the key going down to the settled numbers on screen (tests/test_browser.py, report_slider_steps).
A chapter offers its explorers through ``controls(moves)`` in its module of benchmarks/hooks/.

    python benchmarks/bench_widgets.py [--moves N]
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import time

from hooks import hooks_of

from llm_from_scratch.book.chapters import chapters

ROOT = pathlib.Path(__file__).resolve().parents[1]


def step_ms(move, values) -> tuple[float, float]:
    """Median and worst milliseconds of ``move(value)`` over ``values``."""
    times = []
    for value in values:
        start = time.perf_counter()
        move(value)
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times), max(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=21)
    args = parser.parse_args()
    print(f"{'chapter':<11}{'explorer':<10}{'median ms':>11}{'worst ms':>10}{'target ms':>11}  verdict (in the kernel)")
    for chapter in chapters(ROOT):
        hooks = hooks_of(chapter)
        if hooks is None:
            continue
        for name, (control, values, target) in hooks.controls(args.moves).items():
            median, worst = step_ms(lambda v, c=control: setattr(c, "value", v), values)
            verdict = "ok" if median <= target and worst <= 2.5 * target else "MISSED"
            print(f"{chapter.name:<11}{name:<10}{median:>11.1f}{worst:>10.1f}{target:>11}  {verdict}")


if __name__ == "__main__":
    main()
