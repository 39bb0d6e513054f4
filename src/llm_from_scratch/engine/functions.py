"""Differentiable primitives: each forward sits next to its backward rule.

A backward rule receives the gradient of the primitive's result and returns one
gradient per input, of that input's shape (``None`` for an input that needs
none). Rules compute new arrays and never write into the ones they are given.

After the primitives come the few steps composed of them (negation, difference,
division, softmax, the last two axes swapped), and the block that makes all of them the Tensor's
operators and methods, so a cell writes the formula: ``(Q @ K.transpose(1, 2)) / math.sqrt(d_k)``.

A forward whose numbers leave float64's range gives ±∞ or NaN, as numpy does, without numpy's warning
(``quiet``): the engine speaks no language, and the chapter's figures and checks say what such numbers are.
"""

from __future__ import annotations

import numpy as np

from .tensor import Tensor


def quiet() -> np.errstate:
    """numpy's warnings off for a forward (±∞ and NaN are said by the chapter), where numpy would warn: a caller
    that asked numpy to raise (the head's stages) still gets the error."""
    return np.errstate(**{kind: "ignore" for kind, now in np.geterr().items() if now == "warn"})


def as_tensor(x: Tensor | object) -> Tensor:
    """``x`` itself if it is a Tensor, else a constant Tensor of it (a plain number included)."""
    return x if isinstance(x, Tensor) else Tensor(x)


def _plain_number(b: object) -> bool:
    """A real number given by itself (not text, a bool or an array)."""
    return np.isscalar(b) and not isinstance(b, (str, bytes, bool, complex))


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

    return Tensor.from_op(np.swapaxes(x.data, axis1, axis2), (x,), backward, "transpose", axes=(axis1, axis2))


def matmul(a: Tensor, b: Tensor) -> Tensor:
    """Batched matrix product over the last two axes; leading axes broadcast."""
    a, b = as_tensor(a), as_tensor(b)
    if a.ndim < 2 or b.ndim < 2:
        raise ValueError(f"matmul needs tensors of rank two or more, got ranks {a.ndim} and {b.ndim}")
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"matmul inner sizes differ: {list(a.shape)} @ {list(b.shape)} "
                         f"({a.shape[-1]} columns against {b.shape[-2]} rows)")
    try:
        with quiet():
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

    with quiet():
        return Tensor.from_op(a.data + b.data, (a, b), backward, "add")


def mul(a: Tensor, b: Tensor | float) -> Tensor:
    """Elementwise product with numpy broadcasting; ``b`` may be a plain number."""
    a, b = as_tensor(a), as_tensor(b)
    _broadcast("mul", "*", a, b)

    def backward(grad):
        return (unbroadcast(grad * b.data, a.shape) if a.requires_grad else None,
                unbroadcast(grad * a.data, b.shape) if b.requires_grad else None)

    with quiet():
        return Tensor.from_op(a.data * b.data, (a, b), backward, "mul")


def exp(x: Tensor) -> Tensor:
    """Elementwise e**x."""
    x = as_tensor(x)
    with quiet():
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
    with quiet():  # a row of −∞ alone (every key masked) has no softmax: NaN
        shifted = x.data - x.data.max(axis=axis, keepdims=True)
        out = shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))

    def backward(grad):
        # out_i = x_i - log Σ_j e^(x_j), so d out_i / d x_j = [i = j] - softmax(x)_j
        return (grad - np.exp(out) * grad.sum(axis=axis, keepdims=True),)

    return Tensor.from_op(out, (x,), backward, "log_softmax", axis=axis)


def reduce_sum(x: Tensor, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
    """Sum over ``axis`` (all axes when None)."""
    x = as_tensor(x)

    def backward(grad):
        if not keepdims and axis is not None:
            grad = np.expand_dims(grad, axis)
        return (np.broadcast_to(grad, x.shape),)  # every summed entry receives the same gradient

    return Tensor.from_op(np.asarray(np.sum(x.data, axis=axis, keepdims=keepdims)), (x,), backward, "sum",
                          axis=axis, keepdims=keepdims)


def power(x: Tensor, exponent: float) -> Tensor:
    """Elementwise x**exponent for a plain number ``exponent``."""
    if not _plain_number(exponent):
        raise TypeError(f"a tensor is raised to a plain number only, got {type(exponent).__name__}")
    x = as_tensor(x)
    exponent = float(exponent)

    def backward(grad):
        return (grad * exponent * x.data ** (exponent - 1),)  # d x^p / dx = p x^(p-1)

    with quiet():
        return Tensor.from_op(x.data ** exponent, (x,), backward, "pow", exponent=exponent)


def index(x: Tensor, where: object) -> Tensor:
    """``x[where]``, as numpy reads it (a number, a slice, a list of positions, …); a Tensor, whose gradient goes
    back to the entries it took (to each as often as it took it)."""
    x = as_tensor(x)
    try:
        data = x.data[where]
    except IndexError as error:
        raise IndexError(f"index {where!r} does not fit a tensor of shape {list(x.shape)} ({error})") from None

    def backward(grad):
        back = np.zeros(x.shape)
        np.add.at(back, where, grad)
        return (back,)

    return Tensor.from_op(np.array(data, dtype=np.float64), (x,), backward, "index", where=where)


# Steps composed of the primitives: each has no backward rule of its own.
def recorded_as(out: Tensor, op: str, inputs: tuple[Tensor, ...], **params: object) -> Tensor:
    """The last primitive of a composed step, recorded as the one step a formula writes (its op, its inputs, its
    parameters), so the graph reads ``S / 2`` and ``S.softmax(2)``; backward still goes through the primitives."""
    out.op, out.inputs, out.params = op, inputs, params
    return out


def neg(x: Tensor) -> Tensor:
    """−x: ``mul`` by −1."""
    return mul(x, -1.0)


def sub(a: Tensor, b: Tensor | float) -> Tensor:
    """a − b: ``add`` of the negation."""
    return add(a, neg(b))


def rsub(a: Tensor, b: float) -> Tensor:
    """b − a, for a plain number on the left of ``-``."""
    return add(neg(a), b)


def div(a: Tensor, b: Tensor | float) -> Tensor:
    """a / b: by a plain number, ``mul`` by its reciprocal (recorded with its ``divisor``); by a tensor or an array,
    with broadcasting, ``mul`` by ``power(b, -1)``."""
    if isinstance(b, (str, bytes)):
        raise TypeError(f"a tensor is divided by numbers, got text {b!r}")
    a = as_tensor(a)
    if _plain_number(b):
        if b == 0:
            raise ZeroDivisionError("a tensor divided by 0")
        return recorded_as(mul(a, 1.0 / b), "div", (a,), divisor=float(b))
    b = as_tensor(b)
    _broadcast("div", "/", a, b)
    return recorded_as(mul(a, power(b, -1.0)), "div", (a, b))


def rdiv(a: Tensor, b: float) -> Tensor:
    """b / a, for a plain number or an array on the left of ``/``."""
    return div(as_tensor(b), a)


def last_two_swapped(x: Tensor) -> Tensor:
    """``x.mT``: the last two axes swapped (every matrix of a batch transposed), as PyTorch's ``mT``."""
    x = as_tensor(x)
    if x.ndim < 2:
        raise ValueError(f"mT needs a tensor of rank two or more, got rank {x.ndim}")
    return transpose(x, -2, -1)


def softmax(x: Tensor, axis: int = -1) -> Tensor:
    """e^x / Σ e^x along ``axis``, composed as the head does it: ``exp`` of ``log_softmax``, recorded as a step of
    its own."""
    x = as_tensor(x)
    return recorded_as(exp(log_softmax(x, axis)), "softmax", (x,), axis=axis)


def rmatmul(a: Tensor, b: object) -> Tensor:
    """b @ a, for an array on the left of ``@``."""
    return matmul(b, a)


# The primitives as the Tensor's operators and methods. numpy defers to them: an array on the left of a tensor
# (``np.eye(2) @ V``) gives a Tensor, not an array of Tensors.
Tensor.__array_ufunc__ = None
Tensor.__matmul__ = Tensor.matmul = matmul
Tensor.__rmatmul__ = rmatmul
Tensor.__add__ = Tensor.__radd__ = Tensor.add = add
Tensor.__mul__ = Tensor.__rmul__ = Tensor.mul = mul
Tensor.__neg__ = neg
Tensor.__sub__ = sub
Tensor.__rsub__ = rsub
Tensor.__truediv__ = div
Tensor.__rtruediv__ = rdiv
Tensor.__pow__ = power
Tensor.__getitem__ = index
Tensor.mT = property(last_two_swapped)
Tensor.transpose = transpose
Tensor.exp = exp
Tensor.log_softmax = log_softmax
Tensor.softmax = softmax
Tensor.sum = reduce_sum
