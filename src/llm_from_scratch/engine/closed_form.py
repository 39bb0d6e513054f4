"""The head in closed form on plain numpy arrays: the formulas, without autodiff.

The package's one softmax of arrays lives here (``array_softmax``; a Tensor's ``softmax`` is its steps through the
primitives); everything that needs a softmax of plain
numbers uses it. Only numpy is used (imported as np), so a learner can paste the
functions a reveal shows into a notebook and run them. The closed-form backward sets the derivation beside autodiff
and central differences, and both are the solutions a learner's own head and
backward are compared with.
"""

from __future__ import annotations

import numpy as np


def array_softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """e^x / Σ e^x along ``axis``; the maximum is subtracted first, so no exponential overflows."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(invalid="ignore"):  # a row of −∞ alone (every key masked) has no softmax: NaN, no warning
        e = np.exp(x - x.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)


def attention_weights(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """A = softmax(Q Kᵀ / √d_k) over the keys of each row, for Q and K of shape [B, T, d_k]."""
    return array_softmax(q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]))


def closed_form_head(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """O = A V, for Q, K [B, T, d_k] and V [B, T, d_v]."""
    return attention_weights(q, k) @ v


def closed_form_backward(q: np.ndarray, k: np.ndarray, v: np.ndarray,
                         upstream: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Q̄, K̄, V̄) for the upstream gradient Ō, by the chapter's formulas:

    V̄ = Aᵀ Ō,  Ā = Ō Vᵀ,  S̄ = A ⊙ (Ā − rowsum(A ⊙ Ā)),  Q̄ = S̄ K / √d_k,  K̄ = S̄ᵀ Q / √d_k.
    """
    weights = attention_weights(q, k)
    scale = 1.0 / np.sqrt(q.shape[-1])
    grad_v = np.swapaxes(weights, -1, -2) @ upstream
    grad_weights = upstream @ np.swapaxes(v, -1, -2)
    grad_scores = weights * (grad_weights - (weights * grad_weights).sum(axis=-1, keepdims=True))
    return grad_scores @ k * scale, np.swapaxes(grad_scores, -1, -2) @ q * scale, grad_v
