"""Appendix 27.11: what the score matrix costs, as tables from the shapes and the engine measured against T.

Counts are exact functions of B, T, d_k, d_v (``llm_from_scratch.cost``).
Measurements (time, and peak memory of numpy arrays as tracemalloc sees them)
vary with the machine.
"""

from __future__ import annotations

import gc
import statistics
import time
import tracemalloc
from dataclasses import dataclass

import numpy as np

from ..attention import scaled_dot_product_self_attention
from ..book.figures import Figure, Panel, line_panels
from ..book.sections import Section, Table
from ..cost import HeadCost, size
from ..tensor import Tensor
from .strings import text

MIB = 2**20


def _counts(c: HeadCost) -> list[int]:
    """The columns of both tables: three counts of multiply-adds, then three sizes in bytes."""
    return [c.score_multiply_adds, c.mixture_multiply_adds, c.forward_multiply_adds + c.backward_multiply_adds,
            c.score_bytes, c.record_bytes, c.input_bytes]


def _table(title: str, first_column: str, rows: list[tuple[str, ...]]) -> Section:
    header = (first_column, "QKᵀ", "AV", text("cost.forward_backward"), text("cost.score_bytes"),
              text("cost.record_bytes"), text("cost.input_bytes"))
    return Section(title, (Table(header, tuple(rows), "r" * len(header)),))


def cost_table(batch: int, tokens: list[int], key_width: int, value_width: int) -> Section:
    """Multiply-adds and bytes for each T."""
    rows = []
    for t in tokens:
        counts = _counts(HeadCost(batch, t, key_width, value_width))
        rows.append((str(t), *(f"{n:,}" for n in counts[:3]), *(size(n) for n in counts[3:])))
    return _table(text("cost.table_title", batch=batch, key_width=key_width, value_width=value_width), "T", rows)


def doubling_table(batch: int, tokens: int, key_width: int, value_width: int) -> Section:
    """How each count grows when one of B, T, d_k, d_v doubles and the others stay."""
    base = _counts(HeadCost(batch, tokens, key_width, value_width))
    doubled = {
        "B": HeadCost(2 * batch, tokens, key_width, value_width),
        "T": HeadCost(batch, 2 * tokens, key_width, value_width),
        "d_k": HeadCost(batch, tokens, 2 * key_width, value_width),
        "d_v": HeadCost(batch, tokens, key_width, 2 * value_width),
    }
    rows = [(name, *(f"×{new / old:.4g}" for new, old in zip(_counts(cost), base))) for name, cost in doubled.items()]
    title = text("cost.doubling_title", batch=batch, tokens=tokens, key_width=key_width, value_width=value_width)
    return _table(title, text("cost.doubled"), rows)


@dataclass(frozen=True)
class Measurement:
    """The engine on one machine: milliseconds and peak MiB for each T."""

    tokens: list[int]
    batch: int
    width: int
    forward_ms: list[float]
    forward_backward_ms: list[float]
    peak_mib: list[float]


def _milliseconds(run, repeats: int, *args: np.ndarray) -> float:
    times = []
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        run(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def _forward_backward(q: np.ndarray, k: np.ndarray, v: np.ndarray, upstream: np.ndarray) -> None:
    inputs = [Tensor(x, requires_grad=True) for x in (q, k, v)]
    scaled_dot_product_self_attention(*inputs).output.backward(upstream)


def measure_engine(tokens: list[int], batch: int = 1, width: int = 64, repeats: int = 3) -> Measurement:
    """Time the head (forward; forward+backward) and its peak memory for each T, on random inputs."""
    rng = np.random.default_rng(27)
    forward, both, peaks = [], [], []
    for t in tokens:
        q, k, v, upstream = (rng.standard_normal((batch, t, width)) for _ in range(4))
        forward.append(_milliseconds(scaled_dot_product_self_attention, repeats, q, k, v))
        both.append(_milliseconds(_forward_backward, repeats, q, k, v, upstream))
        gc.collect()
        tracemalloc.start()
        _forward_backward(q, k, v, upstream)
        peaks.append(tracemalloc.get_traced_memory()[1] / MIB)
        tracemalloc.stop()
    return Measurement(list(tokens), batch, width, forward, both, peaks)


def measurement_figure(m: Measurement) -> Figure:
    """Time and memory against T, both axes logarithmic, with the T² slope from the largest T."""
    tokens = np.array(m.tokens, dtype=float)
    quadratic = (tokens / tokens[-1]) ** 2
    score = np.array([HeadCost(m.batch, t, m.width, m.width).score_bytes / MIB for t in m.tokens])
    time_panel = Panel(text("cost.time_title", batch=m.batch, width=m.width), text("cost.time_axis"), {
        text("cost.forward"): np.array(m.forward_ms),
        text("cost.forward_backward"): np.array(m.forward_backward_ms),
        text("cost.quadratic"): m.forward_backward_ms[-1] * quadratic,
    }, log2_y=True)
    memory_panel = Panel(text("cost.memory_title"), text("cost.memory_axis"), {
        text("cost.peak"): np.array(m.peak_mib),
        text("cost.one_score_matrix"): score,
    }, log2_y=True)
    return line_panels([str(t) for t in m.tokens], "T", [time_panel, memory_panel])
