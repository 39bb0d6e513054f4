"""A value's recorded graph read as the head's stages: which step made it, and with what.

The judge reads it to say how a learner's cells differ from the chapter's (``given``), the figures to title a
tensor by what was computed (``figures``). A tensor made another way, or a plain array, matches no stage.
"""

from __future__ import annotations

import math

from ..book.tolerances import FLOAT_NOISE
from ..engine import Tensor


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
