"""A value's recorded graph read as the head's stages: which step made it, and with what.

The judge reads it to say how a learner's cells differ from the chapter's (``given``), the figures to title a
tensor by what was computed (``figures``). A tensor made another way, or a plain array, matches no stage.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..book.formatting import num, trimmed
from ..book.tolerances import FLOAT_NOISE
from ..engine import Tensor
from .strings import text


def factor_of(value: object) -> tuple[float, Tensor] | None:
    """A step that multiplies by a plain number (``x * c``, ``c * x``): the number and what it multiplies."""
    if not isinstance(value, Tensor) or value.op != "mul":
        return None
    for number, other in (value.inputs, value.inputs[::-1]):
        if number.op == "input" and number.data.size == 1 and other.ndim == 3:
            return float(number.data), other
    return None


def divisor_of(value: object) -> tuple[float, Tensor] | None:
    """A step that divides by a plain number, or multiplies by one (its reciprocal): the divisor and what it
    divides."""
    if isinstance(value, Tensor) and value.op == "div" and "divisor" in value.params:
        return value.params["divisor"], value.inputs[0]
    factor = factor_of(value)
    if factor is None or factor[0] == 0:
        return None
    return 1 / factor[0], factor[1]


def is_scores(value: object) -> bool:
    """``value`` is a matrix product of one tensor with another's last two axes swapped: QKᵀ's formula."""
    if not isinstance(value, Tensor) or value.op != "matmul":
        return False
    second = value.inputs[1]
    rank = second.ndim
    return second.op == "transpose" and sorted(axis % rank for axis in second.params["axes"]) == [rank - 2, rank - 1]


def softmax_of(value: object) -> tuple[int, Tensor] | None:
    """A softmax step (``x.softmax(axis)``, or ``exp`` of ``log_softmax`` as the head computes it): its axis,
    counted from the first, and what it normalizes."""
    if not isinstance(value, Tensor):
        return None
    if value.op == "softmax":
        step = value
    elif value.op == "exp" and value.inputs[0].op == "log_softmax":
        step = value.inputs[0]
    else:
        return None
    return step.params["axis"] % value.ndim, step.inputs[0]


def chapter_loss(loss: object, query: object, key: object, value: object) -> object | None:
    """Ō, where ``loss`` is the chapter's L = ⟨O, Ō⟩ = sum(O * Ō) of the chapter's head on ``query``, ``key`` and
    ``value`` (the scores QKᵀ divided by √d_k, a softmax along the keys, the values mixed); else None."""
    if not isinstance(loss, Tensor) or loss.op != "sum" or loss.params["axis"] is not None:
        return None
    product = loss.inputs[0]
    if product.op != "mul":
        return None
    for output, upstream in (product.inputs, product.inputs[::-1]):
        if output.op != "matmul" or upstream.op != "input" or upstream.shape != output.shape:
            continue
        softmax = softmax_of(output.inputs[0])
        scaled = softmax and softmax[0] == output.ndim - 1 and divisor_of(softmax[1])
        if not scaled or not is_scores(scaled[1]) or output.inputs[1] is not value:
            continue
        scores = scaled[1]
        if scores.inputs[0] is query and scores.inputs[1].inputs[0] is key and (
                abs(scaled[0] - math.sqrt(query.shape[-1])) <= FLOAT_NOISE):
            return upstream
    return None


def inputs_of(value: Tensor) -> list[Tensor]:
    """Every tensor made from data that ``value``'s graph reads."""
    found, seen, stack = [], set(), [value]
    while stack:
        tensor = stack.pop()
        if id(tensor) not in seen:
            seen.add(id(tensor))
            found += [tensor] if tensor.op == "input" else []
            stack.extend(tensor.inputs)
    return found


@dataclass(frozen=True)
class Stages:
    """The head's two choices a cell can change: the number the scores are divided by, and the softmax's axis."""

    divisor: float
    axis: int = 2

    def are_the_chapters(self, key_width: int) -> bool:
        return self.axis == 2 and abs(self.divisor - math.sqrt(key_width)) <= FLOAT_NOISE


def stages_of(weights: object) -> Stages | None:
    """The stages ``weights`` were computed with, read from its graph: a softmax of the scores QKᵀ, divided by a
    number or not; None for weights computed otherwise (or a plain array)."""
    softmax = softmax_of(weights)
    if softmax is None:
        return None
    axis, scaled = softmax
    if is_scores(scaled):
        return Stages(1.0, axis)
    divided = divisor_of(scaled)
    return Stages(divided[0], axis) if divided and is_scores(divided[1]) else None


def stages_note(widget: str, stages: Stages | None, weights: object, first_row: np.ndarray) -> str:
    """What a widget given the cells' A says beside them (``widget``: the key of its name): that it computes as
    they do, where that is not the chapter's head; or that it cannot follow them and keeps the chapter's, its first
    row of weights (``first_row``) beside theirs. Nothing where it was given no A."""
    if weights is None:
        return ""
    name = text(widget)
    if stages is None:
        cells = np.asarray(getattr(weights, "data", weights), dtype=np.float64)
        cells = cells[0] if cells.ndim == 3 else cells
        return text("stages.keeps", widget=name, chapter=_row(first_row),
                    cells=_row(cells[0]) if cells.ndim == 2 else list(cells.shape))
    if stages.are_the_chapters(2):
        return ""
    divided = f"÷ {trimmed(stages.divisor, 3)}"
    along = text("stages.along_rows" if stages.axis == 2 else "stages.along_columns")
    return text("stages.follows", widget=name[:1].upper() + name[1:], divided=divided, along=along)


def _row(weights: np.ndarray) -> str:
    return "[" + ", ".join(num(w, 3) for w in weights) + "]"
