"""One unmasked scaled dot-product self-attention head, composed from the engine's primitives.

    S = Q Kᵀ / √d_k,    A = softmax(S) over the keys of each row,    O = A V

The head checks its inputs once, then takes six steps: transpose K, matmul,
multiply by 1/√d_k, log_softmax over the keys, exp, matmul with V.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from . import functions  # noqa: F401  (makes the primitives the Tensor's operators)
from .tensor import Tensor, as_float_array

INPUT_NAMES = ("query", "key", "value")

# The stages that compute numbers, in forward order, with the words the error messages use.
STAGES = {
    "raw-scores": "raw query-key scores",
    "scaled-scores": "scaled query-key scores",
    "row-log-softmax": "row log-softmax",
    "probabilities": "attention probabilities",
    "value-mixture": "weighted value mixture",
}


class SelfAttentionError(ValueError):
    """A refused Q/K/V input or a failed stage of the forward pass.

    ``kind`` is a stable identifier; ``details`` holds the numbers behind it
    (for a failed stage, ``stage`` names the stage).
    """

    def __init__(self, kind: str, message: str, **details: object) -> None:
        super().__init__(message)
        self.kind = kind
        self.details = details

    @property
    def stage(self) -> str | None:
        return self.details.get("stage")  # type: ignore[return-value]


@dataclass(frozen=True)
class SelfAttentionForward:
    """Inspectable record of one head's forward pass (every field a Tensor or a number)."""

    raw_scores: Tensor  # Q Kᵀ, shape [B, T, T]
    scaled_scores: Tensor  # Q Kᵀ / √d_k
    weights: Tensor  # each row normalized over the key positions
    output: Tensor  # weights @ V, shape [B, T, d_v]
    scale: float  # 1 / √d_k
    key_width: int  # d_k
    value_width: int  # d_v

    @property
    def dot_products(self) -> Tensor:
        """Alias: each raw score is one query-key dot product."""
        return self.raw_scores

    @property
    def probabilities(self) -> Tensor:
        """Alias for the row-normalized attention weights."""
        return self.weights


def scaled_dot_product_self_attention(query: object, key: object, value: object) -> SelfAttentionForward:
    """One unmasked scaled dot-product self-attention head: Q and K [B, T, d_k], V [B, T, d_v].

    Returns the record of every stage. Inputs that are Tensors with requires_grad=True
    receive their gradients from ``record.output.backward(upstream)``.
    """
    query, key, value = validated_inputs(query, key, value)
    scale = 1.0 / math.sqrt(query.shape[2])  # d_k is the width of the queries and keys

    with stage("raw-scores"):
        raw_scores = query @ key.transpose(1, 2)  # one dot product per query and key
    with stage("scaled-scores"):
        scaled_scores = raw_scores * scale
    with stage("row-log-softmax"):
        log_weights = scaled_scores.log_softmax(2)  # axis 2: the keys of each query's row
    with stage("probabilities"):
        weights = log_weights.exp()
    with stage("value-mixture"):
        output = weights @ value

    return SelfAttentionForward(raw_scores, scaled_scores, weights, output, scale, query.shape[2], value.shape[2])


@contextlib.contextmanager
def stage(name: str) -> Iterator[None]:
    """Run one stage of the head; an overflow, an invalid operation or an error in it is refused, named.

    numpy raises instead of warning while the stage runs, so a stage never hands on inf or nan.
    """
    try:
        with np.errstate(over="raise", invalid="raise"):
            yield
    except (ArithmeticError, ValueError, MemoryError) as error:
        raise SelfAttentionError("stage-failure", f"self-attention {STAGES[name]} failed: {error}",
                                 stage=name) from error


def validated_inputs(query: object, key: object, value: object) -> tuple[Tensor, Tensor, Tensor]:
    """Q, K, V as Tensors, or SelfAttentionError for the first rule they break; no arithmetic is done."""
    tensors = tuple(x if isinstance(x, Tensor) else Tensor(as_float_array(x, f"self-attention {name}"))
                    for x, name in zip((query, key, value), INPUT_NAMES))
    shapes = dict(zip(INPUT_NAMES, (t.shape for t in tensors)))
    for name, shape in shapes.items():
        if len(shape) != 3:
            raise SelfAttentionError("input-rank", f"self-attention {name} must have rank three "
                                     f"[batch, tokens, features], got rank {len(shape)} (shape {list(shape)})",
                                     operand=name, rank=len(shape))
    q, k, v = shapes.values()
    for kind, axis, what in (("batch-mismatch", 0, "batch sizes"), ("token-mismatch", 1, "token counts")):
        if not q[axis] == k[axis] == v[axis]:
            raise SelfAttentionError(kind, f"self-attention {what} must match, got query {q[axis]}, "
                                     f"key {k[axis]}, value {v[axis]}", query=q[axis], key=k[axis], value=v[axis])
    if q[1] == 0:
        raise SelfAttentionError("empty-token-axis", "unmasked self-attention needs at least one token so every "
                                 "row of weights has a key", tokens=0)
    for name, shape in shapes.items():
        if shape[2] == 0:
            raise SelfAttentionError("empty-feature-width", f"self-attention {name} needs a nonzero feature width, "
                                     f"got shape {list(shape)}", operand=name, width=0)
    if q[2] != k[2]:
        raise SelfAttentionError("query-key-width-mismatch", "self-attention query and key widths must match for "
                                 f"a dot product, got query {q[2]}, key {k[2]}", query=q[2], key=k[2])
    for name, tensor in zip(INPUT_NAMES, tensors):
        finite = np.isfinite(tensor.data)
        if not finite.all():
            where = [int(i) for i in np.argwhere(~finite)[0]]
            bad = float(tensor.data[tuple(where)])
            raise SelfAttentionError("non-finite-input", f"self-attention {name} must hold finite numbers, "
                                     f"got {bad} at index {where}", operand=name, index=where, value=bad)
    return tensors
