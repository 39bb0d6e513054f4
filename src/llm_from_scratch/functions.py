"""Differentiable primitives: each forward sits next to its backward rule.

A backward rule receives the gradient of the primitive's result and returns
one gradient per parent (``None`` where a parent needs none). Every gradient
array is handed to exactly one rule, so a rule may overwrite the array it
receives; the rules here do so where that saves a temporary.
"""

from __future__ import annotations

import numpy as np

from .tensor import Tensor


def _tensor(x: Tensor | object) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor(x)


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``grad`` over the axes that broadcasting added or stretched to reach it."""
    if grad.shape == shape:
        return grad
    added = grad.ndim - len(shape)
    grad = grad.sum(axis=tuple(range(added)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if stretched:
        grad = grad.sum(axis=stretched, keepdims=True)
    return grad.reshape(shape)


def _swap_last(a: np.ndarray) -> np.ndarray:
    return np.swapaxes(a, -1, -2)


def transpose(x: Tensor, axis1: int, axis2: int) -> Tensor:
    """Swap two axes (a view: nothing is copied)."""
    x = _tensor(x)
    for axis in (axis1, axis2):
        if not -x.ndim <= axis < x.ndim:
            raise ValueError(f"transpose axis {axis} is out of range for a tensor of rank {x.ndim}")

    def backward(grad: np.ndarray) -> tuple[np.ndarray]:
        return (np.swapaxes(grad, axis1, axis2),)

    return Tensor.from_op(np.swapaxes(x.data, axis1, axis2), (x,), backward, "transpose")


def matmul(a: Tensor, b: Tensor) -> Tensor:
    """Batched matrix product over the last two axes; leading axes broadcast."""
    a, b = _tensor(a), _tensor(b)
    if a.ndim < 2 or b.ndim < 2:
        raise ValueError(f"matmul needs tensors of rank two or more, got ranks {a.ndim} and {b.ndim}")
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(
            f"matmul inner sizes differ: {list(a.shape)} @ {list(b.shape)} "
            f"({a.shape[-1]} columns against {b.shape[-2]} rows)"
        )
    try:
        data = np.matmul(a.data, b.data)
    except ValueError:
        raise ValueError(f"matmul batch axes do not broadcast: {list(a.shape)} @ {list(b.shape)}") from None

    def backward(grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        grad_a = unbroadcast(np.matmul(grad, _swap_last(b.data)), a.shape) if a.requires_grad else None
        grad_b = unbroadcast(np.matmul(_swap_last(a.data), grad), b.shape) if b.requires_grad else None
        return grad_a, grad_b

    return Tensor.from_op(data, (a, b), backward, "matmul")


def mul(a: Tensor, b: Tensor | float) -> Tensor:
    """Elementwise product with numpy broadcasting; ``b`` may be a plain number."""
    a, b = _tensor(a), _tensor(b)
    try:
        data = np.multiply(a.data, b.data)
    except ValueError:
        raise ValueError(f"mul operands do not broadcast: {list(a.shape)} * {list(b.shape)}") from None

    def backward(grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        grad_b = unbroadcast(grad * a.data, b.shape) if b.requires_grad else None
        if not a.requires_grad:
            return None, grad_b
        if grad.shape == a.shape and grad.flags.writeable:
            return np.multiply(grad, b.data, out=grad), grad_b
        return unbroadcast(grad * b.data, a.shape), grad_b

    return Tensor.from_op(data, (a, b), backward, "mul")


def exp(x: Tensor) -> Tensor:
    """Elementwise e**x."""
    x = _tensor(x)
    out = np.exp(x.data)

    def backward(grad: np.ndarray) -> tuple[np.ndarray]:
        if grad.flags.writeable:
            return (np.multiply(grad, out, out=grad),)
        return (grad * out,)

    return Tensor.from_op(out, (x,), backward, "exp")


def log_softmax(x: Tensor, axis: int = -1) -> Tensor:
    """log(softmax(x)) along ``axis``, shifted by the maximum so exp never overflows."""
    x = _tensor(x)
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"log_softmax axis {axis} is out of range for a tensor of rank {x.ndim}")
    if x.shape[axis] == 0:
        raise ValueError("log_softmax needs at least one element along its axis")
    out = x.data - x.data.max(axis=axis, keepdims=True)
    shifted_exp = np.exp(out)
    totals = shifted_exp.sum(axis=axis, keepdims=True)
    out -= np.log(totals)
    if not x.requires_grad:
        del shifted_exp

    def backward(grad: np.ndarray) -> tuple[np.ndarray]:
        # softmax(x) = shifted_exp / totals; the division is folded into the small row factor
        correction = shifted_exp * (grad.sum(axis=axis, keepdims=True) / totals)
        return (np.subtract(grad, correction, out=correction),)

    return Tensor.from_op(out, (x,), backward, "log_softmax")


def sum(x: Tensor, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Sum over ``axis`` (all axes when None)."""
    x = _tensor(x)
    data = np.sum(x.data, axis=axis, keepdims=keepdims)

    def backward(grad: np.ndarray) -> tuple[np.ndarray]:
        if not keepdims and axis is not None:
            grad = np.expand_dims(grad, axis)
        return (np.broadcast_to(grad, x.shape).copy(),)

    return Tensor.from_op(np.asarray(data), (x,), backward, "sum")
