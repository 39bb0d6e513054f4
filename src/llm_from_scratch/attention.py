"""One unmasked scaled dot-product self-attention head, composed from primitives.

transpose K -> matmul -> multiply by 1/sqrt(d_k) -> log_softmax over keys -> exp -> matmul with V
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import functions as F
from .tensor import Tensor, as_float_array

INPUT_NAMES = ("query", "key", "value")

# Stage identifiers in forward order, with the words the error messages use.
STAGES = {
    "key-transpose": "key transpose",
    "raw-scores": "raw query-key scores",
    "score-scale": "score scale",
    "scaled-scores": "scaled query-key scores",
    "row-log-softmax": "row log-softmax",
    "probabilities": "attention probabilities",
    "value-mixture": "weighted value mixture",
}


class SelfAttentionError(ValueError):
    """A rejected Q/K/V input or a failed forward stage.

    ``kind`` is a stable identifier; ``details`` holds the numbers behind it
    (for a stage failure, ``stage`` names the stage).
    """

    def __init__(self, kind: str, message: str, **details: object) -> None:
        super().__init__(message)
        self.kind = kind
        self.details = details

    @property
    def stage(self) -> str | None:
        return self.details.get("stage")  # type: ignore[return-value]

    def offending(self) -> str:
        """The details as ``name=value|...``, in the order they were given."""
        return "|".join(f"{name}={value}" for name, value in self.details.items())


@dataclass(frozen=True)
class SelfAttentionForward:
    """Inspectable record of one head's forward pass (every field a Tensor or a number)."""

    raw_scores: Tensor  # Q K^T, shape [B, T, T]
    scaled_scores: Tensor  # Q K^T / sqrt(d_k)
    weights: Tensor  # row-normalized over key positions
    output: Tensor  # weights @ V, shape [B, T, d_v]
    scale: float  # 1 / sqrt(d_k)
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


def _as_input(x: object, name: str) -> Tensor:
    if isinstance(x, Tensor):
        return x
    return Tensor(as_float_array(x, f"self-attention {name}"))


def validate_inputs(query: Tensor, key: Tensor, value: Tensor) -> None:
    """Raise SelfAttentionError for the first rule Q, K, V break; do no arithmetic."""
    shapes = dict(zip(INPUT_NAMES, (query.shape, key.shape, value.shape)))
    for name, shape in shapes.items():
        if len(shape) != 3:
            raise SelfAttentionError(
                "input-rank",
                f"self-attention {name} must have rank three [batch, tokens, features], "
                f"got rank {len(shape)} (shape {list(shape)})",
                operand=name,
                rank=len(shape),
            )
    q, k, v = shapes.values()
    for kind, axis, what in (("batch-mismatch", 0, "batch sizes"), ("token-mismatch", 1, "token counts")):
        if not q[axis] == k[axis] == v[axis]:
            raise SelfAttentionError(
                kind,
                f"self-attention {what} must match, got query {q[axis]}, key {k[axis]}, value {v[axis]}",
                query=q[axis],
                key=k[axis],
                value=v[axis],
            )
    if q[1] == 0:
        raise SelfAttentionError(
            "empty-token-axis",
            "unmasked self-attention needs at least one token so every probability row has a key",
            tokens=0,
        )
    for name, shape in shapes.items():
        if shape[2] == 0:
            raise SelfAttentionError(
                "empty-feature-width",
                f"self-attention {name} needs a nonzero feature width, got shape {list(shape)}",
                operand=name,
                width=0,
            )
    if q[2] != k[2]:
        raise SelfAttentionError(
            "query-key-width-mismatch",
            f"self-attention query and key widths must match for a dot product, got query {q[2]}, key {k[2]}",
            query=q[2],
            key=k[2],
        )
    for name, tensor in zip(INPUT_NAMES, (query, key, value)):
        finite = np.isfinite(tensor.data)
        if not finite.all():
            where = tuple(int(i) for i in np.argwhere(~finite)[0])
            bad = tensor.data[where]
            raise SelfAttentionError(
                "non-finite-input",
                f"self-attention {name} must hold finite numbers, got {bad} at index {list(where)}",
                operand=name,
                index=list(where),
                value=float(bad),
            )


def _stage(stage: str, compute: Callable[[], Tensor]) -> Tensor:
    """Run one forward stage; any failure inside it becomes an error that names it."""
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            result = compute()
    except (ValueError, ArithmeticError, MemoryError) as error:
        raise SelfAttentionError(
            "stage-failure", f"self-attention {STAGES[stage]} failed: {error}", stage=stage
        ) from error
    return result


def scaled_dot_product_self_attention(query: object, key: object, value: object) -> SelfAttentionForward:
    """Compute one unmasked scaled dot-product self-attention head.

    Q and K: [B, T, d_k]; V: [B, T, d_v]. Returns the record of every stage; the
    inputs keep their gradients, so ``record.output.backward(upstream)`` fills them.
    """
    query, key, value = (_as_input(x, name) for x, name in zip((query, key, value), INPUT_NAMES))
    validate_inputs(query, key, value)
    key_width = query.shape[2]
    scale = 1.0 / math.sqrt(key_width)

    key_t = _stage("key-transpose", lambda: F.transpose(key, 1, 2))
    raw = _stage("raw-scores", lambda: F.matmul(query, key_t))
    scale_tensor = _stage("score-scale", lambda: Tensor(scale))
    scaled = _stage("scaled-scores", lambda: F.mul(raw, scale_tensor))
    log_weights = _stage("row-log-softmax", lambda: F.log_softmax(scaled, axis=2))
    weights = _stage("probabilities", lambda: F.exp(log_weights))
    output = _stage("value-mixture", lambda: F.matmul(weights, value))

    if not np.isfinite(output.data).all():
        _raise_first_non_finite(
            {"raw-scores": raw, "scaled-scores": scaled, "row-log-softmax": log_weights,
             "probabilities": weights, "value-mixture": output}
        )
    return SelfAttentionForward(raw, scaled, weights, output, scale, key_width, value.shape[2])


def _raise_first_non_finite(stages: dict[str, Tensor]) -> None:
    for stage, tensor in stages.items():
        if not np.isfinite(tensor.data).all():
            raise SelfAttentionError(
                "stage-failure",
                f"self-attention {STAGES[stage]} produced non-finite numbers "
                "(the inputs are finite, but too large for float64 arithmetic)",
                stage=stage,
            )
