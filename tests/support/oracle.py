"""The tests' own oracle: softmax, the head and its gradients, written apart from the package (with einsum).

The package's numbers are checked against these, never against the package's own closed form.
"""

from __future__ import annotations

import numpy as np


def softmax(x, axis: int = -1) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    z = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return z / np.sum(z, axis=axis, keepdims=True)


def head(q, k, v) -> tuple[np.ndarray, np.ndarray]:
    """(A, O) of one unmasked head."""
    weights = softmax(np.einsum("btd,bsd->bts", q, k) / np.sqrt(q.shape[-1]))
    return weights, np.einsum("bts,bsd->btd", weights, v)


def head_gradients(q, k, v, upstream) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(dQ, dK, dV) of L = <O, upstream>, through the softmax Jacobian diag(a) - a aᵀ of each row."""
    weights, _ = head(q, k, v)
    grad_weights = np.einsum("btd,bsd->bts", upstream, v)
    jacobian = np.einsum("bts,rs->btrs", weights, np.eye(weights.shape[-1])) - np.einsum(
        "btr,bts->btrs", weights, weights)
    grad_scores = np.einsum("btrs,btr->bts", jacobian, grad_weights) / np.sqrt(q.shape[-1])
    return (np.einsum("bts,bsd->btd", grad_scores, k), np.einsum("bts,btd->bsd", grad_scores, q),
            np.einsum("bts,btd->bsd", weights, upstream))
