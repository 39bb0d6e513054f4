"""The head in closed form on plain numpy arrays: the derivation, without autodiff.

Used to set the hand-derived backward beside autodiff and finite differences,
and as the baseline of the benchmark.
"""

from __future__ import annotations

import math

import numpy as np


def softmax(x: np.ndarray) -> np.ndarray:
    """softmax over the last axis, shifted by each row's maximum."""
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def closed_form_forward(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return (A, O) with A = softmax(Q K^T / sqrt(d_k)) over keys and O = A V."""
    a = np.matmul(q, np.swapaxes(k, 1, 2))
    a *= 1.0 / math.sqrt(q.shape[2])
    a -= a.max(axis=2, keepdims=True)
    np.exp(a, out=a)
    a /= a.sum(axis=2, keepdims=True)
    return a, np.matmul(a, v)


def closed_form_backward(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, upstream: np.ndarray, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (dQ, dK, dV) for upstream dO, by the chapter's formulas.

    dV = A^T dO,  dA = dO V^T,  dS = A * (dA - rowsum(A * dA)),
    dQ = dS K / sqrt(d_k),  dK = dS^T Q / sqrt(d_k).
    """
    a = closed_form_forward(q, k, v)[0] if weights is None else weights
    scale = 1.0 / math.sqrt(q.shape[2])
    grad_v = np.matmul(np.swapaxes(a, 1, 2), upstream)
    grad_s = np.matmul(upstream, np.swapaxes(v, 1, 2))  # dA, turned into dS in place
    grad_s -= (a * grad_s).sum(axis=2, keepdims=True)
    grad_s *= a
    grad_q = np.matmul(grad_s, k) * scale
    grad_k = np.matmul(np.swapaxes(grad_s, 1, 2), q) * scale
    return grad_q, grad_k, grad_v
