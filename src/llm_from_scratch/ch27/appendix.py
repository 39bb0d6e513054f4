"""Appendix 27.11: what the score matrix costs, as tables from the shapes, and the head and the tiled
head (which never holds T×T) measured against T and against the tile size.

Counts are exact functions of B, T, d_k, d_v (``fast.cost``).
Measurements (``fast.measure``: time after a warm-up, implementations
taking turns; peak memory of numpy arrays as tracemalloc sees them) vary with the
machine and from run to run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import ipywidgets as w
import numpy as np
from IPython.display import display

from ..book.blocks import Section, Table
from ..book.figures import Figure, Panel, line_panels
from ..book.formatting import num
from ..book.widgets import Explorer, LiveWidget, Slider, snapshot
from ..engine import Tensor, scaled_dot_product_self_attention
from ..fast.cost import MIB, HeadCost, size
from ..fast.measure import interleaved_ms, traced_peak_mib
from ..fast.tiled import tiled_self_attention
from .strings import text

UNIT_KEYS = ("unit.B", "unit.KiB", "unit.MiB", "unit.GiB")  # the words for fast.cost's BYTE_UNITS, in order
IMPLEMENTATION_NAMES = {"head": "cost.impl.head", "tiled": "cost.impl.tiled", "torch": "cost.impl.torch",
                        "sdpa": "cost.impl.sdpa"}  # the catalogue keys of their names


def _counts(c: HeadCost) -> list[int]:
    """The columns of both tables: three counts of multiply-adds, then three sizes in bytes."""
    return [c.score_multiply_adds, c.mixture_multiply_adds, c.forward_multiply_adds + c.backward_multiply_adds,
            c.score_bytes, c.record_bytes, c.input_bytes]


def _table(title: str, first_column: str, rows: list[tuple[str, ...]]) -> Section:
    header = (first_column, "QKᵀ", "AV", text("cost.forward_backward"), text("cost.score_bytes"),
              text("cost.record_bytes"), text("cost.input_bytes"))
    return Section(title, (Table(header, tuple(rows), "r" * len(header)),))


def _whole(**sizes: object) -> None:
    """Each size a whole number of at least 1 (B, T, d_k, d_v count things), or a ValueError in the learner's
    language naming the first that is not."""
    for name, value in sizes.items():
        number = value if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool) \
            else None
        if number is None or not np.isfinite(number) or number < 1 or number != int(number):
            raise ValueError(text("cost.not_a_size", name=name, value=repr(value)))


def cost_table(batch: int, tokens: list[int], key_width: int, value_width: int) -> Section:
    """Multiply-adds and bytes for each T."""
    _whole(B=batch, d_k=key_width, d_v=value_width, **{f"T[{i}]": t for i, t in enumerate(tokens)})
    batch, key_width, value_width, tokens = int(batch), int(key_width), int(value_width), [int(t) for t in tokens]
    rows, units = [], tuple(text(key) for key in UNIT_KEYS)
    for t in tokens:
        counts = _counts(HeadCost(batch, t, key_width, value_width))
        rows.append((str(t), *(f"{n:,}" for n in counts[:3]), *(size(n, units) for n in counts[3:])))
    return _table(text("cost.table_title", batch=batch, key_width=key_width, value_width=value_width), "T", rows)


def doubling_table(batch: int, tokens: int, key_width: int, value_width: int) -> Section:
    """How each count grows when one of B, T, d_k, d_v doubles and the others stay."""
    _whole(B=batch, T=tokens, d_k=key_width, d_v=value_width)
    batch, tokens, key_width, value_width = int(batch), int(tokens), int(key_width), int(value_width)
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


def _head(q: np.ndarray, k: np.ndarray, v: np.ndarray, upstream: np.ndarray) -> None:
    inputs = [Tensor(x, requires_grad=True) for x in (q, k, v)]
    scaled_dot_product_self_attention(*inputs).output.backward(upstream)


def _tiled(q: np.ndarray, k: np.ndarray, v: np.ndarray, upstream: np.ndarray, block: int = 256) -> None:
    inputs = [Tensor(x, requires_grad=True) for x in (q, k, v)]
    tiled_self_attention(*inputs, block_size=block).backward(upstream)


def _torch_heads() -> dict[str, Callable[..., None]]:
    """PyTorch autograd on the same composition and its fused SDPA, when PyTorch is installed (make bench)."""
    try:
        import torch
    except ImportError:
        return {}

    def autograd(q, k, v, upstream) -> None:
        q, k, v = (torch.tensor(x, requires_grad=True) for x in (q, k, v))
        scores = q @ k.transpose(1, 2) / q.shape[-1] ** 0.5
        (torch.softmax(scores, dim=-1) @ v).backward(torch.tensor(upstream))

    def sdpa(q, k, v, upstream) -> None:
        q, k, v = (torch.tensor(x, requires_grad=True) for x in (q, k, v))
        torch.nn.functional.scaled_dot_product_attention(q, k, v).backward(torch.tensor(upstream))

    return {"torch": autograd, "sdpa": sdpa}


@dataclass(frozen=True)
class Measurement:
    """Forward+backward of each implementation on one machine: median ms and peak MiB for each T."""

    tokens: list[int]
    batch: int
    width: int
    ms: dict[str, list[float]]  # implementation -> one figure per T
    peak_mib: dict[str, list[float]]  # numpy's allocations (tracemalloc): the engine's heads only


def measure_heads(tokens: list[int], batch: int = 1, width: int = 64, repeats: int = 3) -> Measurement:
    """Time the head and the tiled head (and PyTorch's two, if installed) against T, taking turns after a
    warm-up, and the peak memory numpy allocates for the engine's two."""
    rng = np.random.default_rng(27)
    implementations = {"head": _head, "tiled": _tiled, **_torch_heads()}
    ms: dict[str, list[float]] = {name: [] for name in implementations}
    peaks: dict[str, list[float]] = {"head": [], "tiled": []}
    for t in tokens:
        q, k, v, upstream = (rng.standard_normal((batch, t, width)) for _ in range(4))
        calls = {name: partial(f, q, k, v, upstream) for name, f in implementations.items()}
        for name, value in interleaved_ms(calls, repeats).items():
            ms[name].append(value)
        for name in peaks:
            peaks[name].append(traced_peak_mib(calls[name]))
    return Measurement(list(tokens), batch, width, ms, peaks)


def measurement_figure(m: Measurement) -> Figure:
    """Time and memory against T, both axes logarithmic, with the T² slope through the head's last point."""
    tokens = np.array(m.tokens, dtype=float)
    quadratic = (tokens / tokens[-1]) ** 2
    score = np.array([HeadCost(m.batch, t, m.width, m.width).score_bytes / MIB for t in m.tokens])
    time_panel = Panel(text("cost.time_title", batch=m.batch, width=m.width), text("cost.time_axis"), {
        **{text(IMPLEMENTATION_NAMES[name]): np.array(values) for name, values in m.ms.items()},
        text("cost.quadratic"): m.ms["head"][-1] * quadratic,
    }, log2_y=True)
    memory_panel = Panel(text("cost.memory_title"), text("cost.memory_axis"), {
        **{text(IMPLEMENTATION_NAMES[name]): np.array(values) for name, values in m.peak_mib.items()},
        text("cost.one_score_matrix"): score,
    }, log2_y=True)
    return line_panels([str(t) for t in m.tokens], "T", [time_panel, memory_panel])


BLOCK_SIZES = (16, 32, 64, 128, 256, 512)


@dataclass(frozen=True)
class BlockState:
    block_size: int
    ms: float
    peak_mib: float


class BlockSizeExplorer(Explorer):
    """The tiled head at one T for each block size: time against memory, measured when it is made."""

    def __init__(self, tokens: int = 512, batch: int = 1, width: int = 64) -> None:
        self.tokens, self.batch, self.width = tokens, batch, width
        rng = np.random.default_rng(tokens)
        self.inputs = [rng.standard_normal((batch, tokens, width)) for _ in range(4)]
        self.curves = [self.measure(block) for block in BLOCK_SIZES]
        self.slider = Slider(options=list(BLOCK_SIZES), value=256, description=text("cost.block.slider"))
        self.figure = w.HTML()
        self.numbers = w.HTML()
        self.state = self.draw_every_position()

    def measure(self, block: int) -> BlockState:
        run = partial(_tiled, *self.inputs, block=block)
        return BlockState(block, interleaved_ms({"tiled": run}, 3)["tiled"], traced_peak_mib(run))

    def state_for(self, block: int) -> BlockState:
        return self.curves[BLOCK_SIZES.index(block)]

    def render(self, state: BlockState) -> tuple[Figure, str]:
        head_peak = HeadCost(self.batch, self.tokens, self.width, self.width).record_bytes / MIB
        figure = line_panels([str(b) for b in BLOCK_SIZES], text("cost.block.axis"), [
            Panel(text("cost.block.time_title", tokens=self.tokens, batch=self.batch, width=self.width),
                  text("cost.time_axis"), {text("cost.impl.tiled"): np.array([c.ms for c in self.curves])},
                  log2_y=True),
            Panel(text("cost.block.memory_title"), text("cost.memory_axis"), {
                text("cost.impl.tiled"): np.array([c.peak_mib for c in self.curves]),
                text("cost.block.head_record"): np.full(len(BLOCK_SIZES), head_peak)}, log2_y=True),
        ], mark=BLOCK_SIZES.index(state.block_size))
        return figure, text("cost.block.numbers", block=state.block_size, ms=num(state.ms, 1),
                            peak=num(state.peak_mib, 2), record=num(head_peak, 2))

    def show(self) -> None:
        snapshot(list(self.render(self.state)))
        display(LiveWidget([self.slider, self.numbers, self.figure], text("cost.block.repr")))
