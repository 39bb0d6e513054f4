"""Differentiable primitives: each forward sits next to its backward rule.

A backward rule receives the gradient of the primitive's result and returns
one float64 gradient per parent, of that parent's shape (``None`` where a
parent needs none). The engine (``Tensor.backward``) owns gradient memory: the
array a rule receives is the rule's own, so the rule may overwrite it and
return it or views of it; the rules here do so where that saves a temporary.
A rule may return one array for two parents, or a read-only view: the engine
copies whatever would otherwise be seen twice. A rule never returns an array it
keeps, and keeps only the arrays (and shapes) it needs, so a result nobody
holds can be freed. Big results come from ``parallel.empty``; the speed
devices are all listed in ``parallel``'s docstring.
"""

from __future__ import annotations

import numpy as np

from . import parallel
from .parallel import elementwise, for_row_blocks
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
    return np.asarray(grad).reshape(shape)  # a full sum gives a numpy scalar, not an array


def _swap_last(a: np.ndarray) -> np.ndarray:
    return np.swapaxes(a, -1, -2)


def transpose(x: Tensor, axis1: int, axis2: int) -> Tensor:
    """Swap two axes (a view: nothing is copied)."""
    x = _tensor(x)
    for axis in (axis1, axis2):
        if not -x.ndim <= axis < x.ndim:
            raise ValueError(f"transpose axis {axis} is out of range for a tensor of rank {x.ndim}")

    def backward(grad: np.ndarray) -> tuple[np.ndarray]:
        return (np.swapaxes(grad, axis1, axis2),)  # a view of the rule's own array

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
        data = parallel.matmul(a.data, b.data)
    except ValueError:
        raise ValueError(f"matmul batch axes do not broadcast: {list(a.shape)} @ {list(b.shape)}") from None
    a_data, b_data = a.data, b.data
    a_shape, b_shape = a.shape, b.shape
    needs_a, needs_b = a.requires_grad, b.requires_grad

    def backward(grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        grad_a = unbroadcast(parallel.matmul(grad, _swap_last(b_data)), a_shape) if needs_a else None
        grad_b = unbroadcast(parallel.matmul(_swap_last(a_data), grad), b_shape) if needs_b else None
        return grad_a, grad_b

    return Tensor.from_op(data, (a, b), backward, "matmul")


def mul(a: Tensor, b: Tensor | float) -> Tensor:
    """Elementwise product with numpy broadcasting; ``b`` may be a plain number."""
    a, b = _tensor(a), _tensor(b)
    data = _binary(np.multiply, a.data, b.data, parallel.empty(_broadcast_shape("mul", "*", a, b)))
    a_shape, b_shape = a.shape, b.shape
    needs_a, needs_b = a.requires_grad, b.requires_grad
    a_data = a.data if needs_b else None  # each factor is kept only for the other's gradient
    b_data = b.data if needs_a else None

    def backward(grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        grad_b = unbroadcast(grad * a_data, b_shape) if needs_b else None
        if not needs_a:
            return None, grad_b
        if grad.shape == a_shape:  # grad is the rule's own and grad_b is done: write into it
            return _binary(np.multiply, grad, b_data, grad), grad_b
        return unbroadcast(grad * b_data, a_shape), grad_b

    return Tensor.from_op(data, (a, b), backward, "mul")


def add(a: Tensor, b: Tensor | float) -> Tensor:
    """Elementwise sum with numpy broadcasting; ``b`` may be a plain number."""
    a, b = _tensor(a), _tensor(b)
    data = _binary(np.add, a.data, b.data, parallel.empty(_broadcast_shape("add", "+", a, b)))
    a_shape, b_shape = a.shape, b.shape
    needs_a, needs_b = a.requires_grad, b.requires_grad

    def backward(grad: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        # with equal shapes both are grad itself: the engine copies one of them
        return (unbroadcast(grad, a_shape) if needs_a else None,
                unbroadcast(grad, b_shape) if needs_b else None)

    return Tensor.from_op(data, (a, b), backward, "add")


def _broadcast_shape(op: str, symbol: str, a: Tensor, b: Tensor) -> tuple[int, ...]:
    try:
        return np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise ValueError(f"{op} operands do not broadcast: {list(a.shape)} {symbol} {list(b.shape)}") from None


def _binary(ufunc: np.ufunc, x: np.ndarray, y: np.ndarray, out: np.ndarray) -> np.ndarray:
    """ufunc(x, y) into ``out``, on all cores when each operand is ``out``-shaped or a single number."""
    if all(v.shape == out.shape or v.size == 1 for v in (x, y)):
        return elementwise(ufunc, *(v if v.shape == out.shape else v.item() for v in (x, y)), out=out)
    return ufunc(x, y, out=out)


def exp(x: Tensor) -> Tensor:
    """Elementwise e**x."""
    x = _tensor(x)
    out = elementwise(np.exp, x.data, out=parallel.empty(x.shape))

    def backward(grad: np.ndarray) -> tuple[np.ndarray]:
        return (_binary(np.multiply, grad, out, grad),)  # into the rule's own array

    return Tensor.from_op(out, (x,), backward, "exp")


def log_softmax(x: Tensor, axis: int = -1) -> Tensor:
    """log(softmax(x)) along ``axis``, shifted by the row maximum so exp never overflows.

    Keeps x and each row's log-sum-exp; backward recomputes softmax(x) from
    them rather than keeping a second array the size of x.
    """
    x = _tensor(x)
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"log_softmax axis {axis} is out of range for a tensor of rank {x.ndim}")
    if x.shape[axis] == 0:
        raise ValueError("log_softmax needs at least one element along its axis")
    rows = _rows_along(x.data, axis)
    out = parallel.empty(rows.shape)
    log_sums = np.empty((rows.shape[0], 1))
    for_row_blocks(_log_softmax_rows, rows, out, log_sums)
    rows_shape = np.moveaxis(x.data, axis, -1).shape

    def backward(grad: np.ndarray) -> tuple[np.ndarray]:
        grad_rows = _rows_along(grad, axis)  # the rule's own array, or a copy where its rows are not contiguous
        for_row_blocks(_log_softmax_backward_rows, grad_rows, rows, log_sums)
        return (np.moveaxis(grad_rows.reshape(rows_shape), -1, axis),)

    return Tensor.from_op(np.moveaxis(out.reshape(rows_shape), -1, axis), (x,), backward, "log_softmax")


def _rows_along(a: np.ndarray, axis: int) -> np.ndarray:
    """``a`` as a C-contiguous [rows, n] matrix of its lines along ``axis`` (a view where possible)."""
    lines = np.ascontiguousarray(np.moveaxis(a, axis, -1))
    return lines.reshape(-1, lines.shape[-1])


def _log_softmax_rows(x: np.ndarray, out: np.ndarray, log_sums: np.ndarray) -> None:
    peak = x.max(axis=1, keepdims=True)
    np.subtract(x, peak, out=out)
    np.log(np.exp(out).sum(axis=1, keepdims=True), out=log_sums)
    out -= log_sums
    log_sums += peak


def _log_softmax_backward_rows(grad: np.ndarray, x: np.ndarray, log_sums: np.ndarray) -> None:
    # d/dx: grad - softmax(x) * rowsum(grad), with softmax(x) = exp(x - log-sum-exp)
    grad_sums = grad.sum(axis=1, keepdims=True)
    softmax = np.subtract(x, log_sums)
    np.exp(softmax, out=softmax)
    softmax *= grad_sums
    grad -= softmax


def sum(x: Tensor, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Sum over ``axis`` (all axes when None)."""
    x = _tensor(x)
    data = np.sum(x.data, axis=axis, keepdims=keepdims)
    shape = x.shape  # the shape only: the rule must not keep x alive

    def backward(grad: np.ndarray) -> tuple[np.ndarray]:
        if not keepdims and axis is not None:
            grad = np.expand_dims(grad, axis)
        return (np.broadcast_to(grad, shape),)  # read-only: the engine copies it where it must

    return Tensor.from_op(np.asarray(data), (x,), backward, "sum")
