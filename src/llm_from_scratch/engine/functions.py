"""Differentiable primitives: each forward sits next to its backward rule.

A backward rule receives the gradient of the primitive's result and returns one
gradient per input, of that input's shape (``None`` for an input that needs
none). Rules compute new arrays and never write into the ones they are given.
"""

from __future__ import annotations

import numpy as np

from .tensor import Tensor


def as_tensor(x: Tensor | object) -> Tensor:
    """``x`` itself if it is a Tensor, else a constant Tensor of it (a plain number included)."""
    return x if isinstance(x, Tensor) else Tensor(x)


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``grad`` over the axes that broadcasting added or stretched to reach it, back to ``shape``."""
    if grad.shape == shape:
        return grad
    added = grad.ndim - len(shape)
    grad = grad.sum(axis=tuple(range(added)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return np.asarray(grad.sum(axis=stretched, keepdims=True)).reshape(shape)


def _swap_last(a: np.ndarray) -> np.ndarray:
    return np.swapaxes(a, -1, -2)


def transpose(x: Tensor, axis1: int, axis2: int) -> Tensor:
    """Swap two axes."""
    x = as_tensor(x)
    for axis in (axis1, axis2):
        if not -x.ndim <= axis < x.ndim:
            raise ValueError(f"transpose axis {axis} is out of range for a tensor of rank {x.ndim}")

    def backward(grad):
        return (np.swapaxes(grad, axis1, axis2),)

    return Tensor.from_op(np.swapaxes(x.data, axis1, axis2), (x,), backward, "transpose")


def matmul(a: Tensor, b: Tensor) -> Tensor:
    """Batched matrix product over the last two axes; leading axes broadcast."""
    a, b = as_tensor(a), as_tensor(b)
    if a.ndim < 2 or b.ndim < 2:
        raise ValueError(f"matmul needs tensors of rank two or more, got ranks {a.ndim} and {b.ndim}")
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"matmul inner sizes differ: {list(a.shape)} @ {list(b.shape)} "
                         f"({a.shape[-1]} columns against {b.shape[-2]} rows)")
    try:
        data = a.data @ b.data
    except ValueError:
        raise ValueError(f"matmul batch axes do not broadcast: {list(a.shape)} @ {list(b.shape)}") from None

    def backward(grad):
        return (unbroadcast(grad @ _swap_last(b.data), a.shape) if a.requires_grad else None,
                unbroadcast(_swap_last(a.data) @ grad, b.shape) if b.requires_grad else None)

    return Tensor.from_op(data, (a, b), backward, "matmul")


def _broadcast(op: str, symbol: str, a: Tensor, b: Tensor) -> None:
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise ValueError(f"{op} operands do not broadcast: {list(a.shape)} {symbol} {list(b.shape)}") from None


def add(a: Tensor, b: Tensor | float) -> Tensor:
    """Elementwise sum with numpy broadcasting; ``b`` may be a plain number."""
    a, b = as_tensor(a), as_tensor(b)
    _broadcast("add", "+", a, b)

    def backward(grad):
        return (unbroadcast(grad, a.shape) if a.requires_grad else None,
                unbroadcast(grad, b.shape) if b.requires_grad else None)

    return Tensor.from_op(a.data + b.data, (a, b), backward, "add")


def mul(a: Tensor, b: Tensor | float) -> Tensor:
    """Elementwise product with numpy broadcasting; ``b`` may be a plain number."""
    a, b = as_tensor(a), as_tensor(b)
    _broadcast("mul", "*", a, b)

    def backward(grad):
        return (unbroadcast(grad * b.data, a.shape) if a.requires_grad else None,
                unbroadcast(grad * a.data, b.shape) if b.requires_grad else None)

    return Tensor.from_op(a.data * b.data, (a, b), backward, "mul")


def exp(x: Tensor) -> Tensor:
    """Elementwise e**x."""
    x = as_tensor(x)
    out = np.exp(x.data)

    def backward(grad):
        return (grad * out,)  # d e^x / dx = e^x

    return Tensor.from_op(out, (x,), backward, "exp")


def log_softmax(x: Tensor, axis: int = -1) -> Tensor:
    """log(softmax(x)) along ``axis``; the row maximum is subtracted first, so exp never overflows."""
    x = as_tensor(x)
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"log_softmax axis {axis} is out of range for a tensor of rank {x.ndim}")
    if x.shape[axis] == 0:
        raise ValueError("log_softmax needs at least one element along its axis")
    shifted = x.data - x.data.max(axis=axis, keepdims=True)
    out = shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))

    def backward(grad):
        # out_i = x_i - log Σ_j e^(x_j), so d out_i / d x_j = [i = j] - softmax(x)_j
        return (grad - np.exp(out) * grad.sum(axis=axis, keepdims=True),)

    return Tensor.from_op(out, (x,), backward, "log_softmax")


def sum(x: Tensor, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Sum over ``axis`` (all axes when None)."""
    x = as_tensor(x)

    def backward(grad):
        if not keepdims and axis is not None:
            grad = np.expand_dims(grad, axis)
        return (np.broadcast_to(grad, x.shape),)  # every summed entry receives the same gradient

    return Tensor.from_op(np.asarray(np.sum(x.data, axis=axis, keepdims=keepdims)), (x,), backward, "sum")
