"""Time and peak memory of a computation, measured as a learner's process would see them.

Timing (``interleaved_ms``): implementations take turns, each time is the
median of several turns, and before every timed call every core is kept busy
for a moment with neutral numpy work (``settle``): a sleeping virtual machine
lets its cores idle down, and the next call then runs up to 2x slower, while
other libraries' idle threads, still spinning after their last call, would
slow whichever call comes next.

Peak memory, two ways: ``traced_peak_mib`` counts what numpy allocates
(tracemalloc, any platform); ``resident_peak_mib`` counts every allocator,
PyTorch's included, as the growth of the process's resident set (Linux only).
Neither changes the allocator's settings: the figures are those of a plain process.
"""

from __future__ import annotations

import gc
import os
import pathlib
import statistics
import threading
import time
import tracemalloc
from collections.abc import Callable, Mapping

import numpy as np

from .cost import MIB

CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def settle(seconds: float) -> None:
    """Keep every core busy with small numpy work for ``seconds``, touching no other library's threads."""
    if seconds <= 0:
        return
    end = time.perf_counter() + seconds
    small = np.ones(4096)

    def spin() -> None:
        while time.perf_counter() < end:
            np.exp(small)

    threads = [threading.Thread(target=spin) for _ in range(CORES)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def interleaved_ms(calls: Mapping[str, Callable[[], object]], repeats: int, settle_seconds: float = 0.0
                   ) -> dict[str, float]:
    """Median wall-clock ms of each call over ``repeats`` turns, the calls taking turns.

    Each call runs once first to warm up; before each timed call the garbage
    collector runs and the cores are kept busy for ``settle_seconds``.
    """
    for call in calls.values():
        call()
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(repeats):
        for name, call in calls.items():
            gc.collect()
            settle(settle_seconds)
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) * 1e3 for name, t in times.items()}


def traced_peak_mib(call: Callable[[], object]) -> float:
    """MiB that numpy (and Python) allocate at the peak of ``call()``, what it returns included."""
    gc.collect()
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    try:
        result = call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        if not was_tracing:
            tracemalloc.stop()
    del result
    return (peak - base) / MIB


def _status_kib(field: str) -> int:
    for line in pathlib.Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"/proc/self/status has no {field}")


def resident_peak_mib(call: Callable[[], object]) -> float:
    """MiB by which the resident set grows at the peak of ``call()`` (Linux: every allocator counts).

    Run it in a fresh process for one figure per implementation: memory that an
    earlier call freed but the allocator kept is already resident and would not count.
    """
    gc.collect()
    pathlib.Path("/proc/self/clear_refs").write_text("5")  # reset the high-water mark
    before = _status_kib("VmRSS")
    result = call()
    peak = _status_kib("VmHWM")
    del result
    return (peak - before) / 1024


def measure_tiled(tokens: int, block_size: int, batch: int = 8, width: int = 64, repeats: int = 3,
                  settle_seconds: float = 0.0) -> tuple[float, float]:
    """(ms, peak MiB) of the tiled head's forward+backward on random float64 inputs.

    ms is the median of ``repeats`` runs after one warm-up; the peak is numpy's
    allocations during one more run (the output and gradients included, the inputs not).
    """
    from ..engine import Tensor
    from .tiled import tiled_self_attention

    rng = np.random.default_rng(tokens)
    q, k, v, upstream = (rng.standard_normal((batch, tokens, width)) for _ in range(4))

    def run() -> list[np.ndarray | None]:
        inputs = [Tensor(x, requires_grad=True) for x in (q, k, v)]
        tiled_self_attention(*inputs, block_size=block_size).backward(upstream)
        return [t.grad for t in inputs]

    ms = interleaved_ms({"tiled": run}, repeats, settle_seconds)["tiled"]
    return ms, traced_peak_mib(run)
