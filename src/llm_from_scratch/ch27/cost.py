"""What the score matrix costs: counts from the shapes, and the engine measured against T.

Counts are exact functions of B, T, d_k, d_v. Measurements (time, and peak
memory of numpy arrays as tracemalloc sees them) vary with the machine.
"""

from __future__ import annotations

import gc
import statistics
import time
import tracemalloc
from dataclasses import dataclass

import numpy as np

from ..attention import scaled_dot_product_self_attention
from ..tensor import Tensor
from .figures import Figure, Panel, line_panels
from .text import text

FLOAT_BYTES = 8
MIB = 2**20


@dataclass(frozen=True)
class HeadCost:
    """Multiply-adds and bytes of one head on [B, T, d_k] queries and keys and [B, T, d_v] values."""

    batch: int
    tokens: int
    key_width: int
    value_width: int

    @property
    def score_entries(self) -> int:
        """Entries of one [B, T, T] matrix: scores, scaled scores or weights."""
        return self.batch * self.tokens * self.tokens

    @property
    def score_multiply_adds(self) -> int:
        """QKᵀ: one d_k-long dot product per (query, key) pair."""
        return self.score_entries * self.key_width

    @property
    def mixture_multiply_adds(self) -> int:
        """AV: each of T×T weights scales a d_v-wide value row."""
        return self.score_entries * self.value_width

    @property
    def forward_multiply_adds(self) -> int:
        return self.score_multiply_adds + self.mixture_multiply_adds

    @property
    def backward_multiply_adds(self) -> int:
        """dA = dO Vᵀ, dV = Aᵀ dO, dQ = dS K, dK = dSᵀ Q: each product of the forward pass, twice."""
        return 2 * self.forward_multiply_adds

    @property
    def score_bytes(self) -> int:
        return FLOAT_BYTES * self.score_entries

    @property
    def record_bytes(self) -> int:
        """What the record keeps: raw scores, scaled scores, weights (all [B, T, T]) and the output."""
        return 3 * self.score_bytes + FLOAT_BYTES * self.batch * self.tokens * self.value_width

    @property
    def input_bytes(self) -> int:
        return FLOAT_BYTES * self.batch * self.tokens * (2 * self.key_width + self.value_width)


def size(nbytes: float) -> str:
    """Bytes in the largest binary unit that keeps the number at or above 1: 768 B, 1.5 KiB, 256 MiB."""
    for unit in ("B", "KiB", "MiB"):
        if nbytes < 1024:
            return f"{nbytes:.4g} {unit}"
        nbytes /= 1024
    return f"{nbytes:.4g} GiB"


def _counts(c: HeadCost) -> list[int]:
    """The columns of both tables: three counts of multiply-adds, then three sizes in bytes."""
    return [c.score_multiply_adds, c.mixture_multiply_adds, c.forward_multiply_adds + c.backward_multiply_adds,
            c.score_bytes, c.record_bytes, c.input_bytes]


def _table(first_column: str, rows: list[list[str]]) -> list[str]:
    header = [first_column, "QKᵀ", "AV", text("cost.forward_backward"), text("cost.score_bytes"),
              text("cost.record_bytes"), text("cost.input_bytes")]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return ["  ".join(cell.rjust(w) for cell, w in zip(row, widths)) for row in [header, *rows]]


def cost_lines(batch: int, tokens: list[int], key_width: int, value_width: int) -> list[str]:
    """A table of multiply-adds and bytes for each T."""
    rows = []
    for t in tokens:
        counts = _counts(HeadCost(batch, t, key_width, value_width))
        rows.append([str(t), *(f"{n:,}" for n in counts[:3]), *(size(n) for n in counts[3:])])
    return [text("cost.table_title", batch=batch, key_width=key_width, value_width=value_width), *_table("T", rows)]


def doubling_lines(batch: int, tokens: int, key_width: int, value_width: int) -> list[str]:
    """How each count grows when one of B, T, d_k, d_v doubles and the others stay."""
    base = _counts(HeadCost(batch, tokens, key_width, value_width))
    doubled = {
        "B": HeadCost(2 * batch, tokens, key_width, value_width),
        "T": HeadCost(batch, 2 * tokens, key_width, value_width),
        "d_k": HeadCost(batch, tokens, 2 * key_width, value_width),
        "d_v": HeadCost(batch, tokens, key_width, 2 * value_width),
    }
    rows = [[name, *(f"×{new / old:.4g}" for new, old in zip(_counts(cost), base))] for name, cost in doubled.items()]
    title = text("cost.doubling_title", batch=batch, tokens=tokens, key_width=key_width, value_width=value_width)
    return [title, *_table(text("cost.doubled"), rows)]


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
