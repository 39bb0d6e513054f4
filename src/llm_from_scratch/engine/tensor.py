"""The tensor: float64 numpy data, its gradient, and reverse-mode differentiation.

Every tensor made by a step records what it was computed from, whether or not a
gradient is needed: ``op`` (the step's name), ``params`` (its axes, its divisor)
and ``inputs`` (the tensors it read). Reading them back from a result gives the
formula that made it: ``A.op == "softmax"``, ``A.params == {"axis": 2}``,
``A.inputs[0]`` is S. A tensor made by a primitive (``Tensor.from_op``) that
needs a gradient also keeps its ``parents`` and its backward rule: a function
from the gradient of the result to one gradient per parent. ``backward`` visits the graph from the result back
to the inputs (a reversed topological order) and adds up every gradient that
reaches a tensor, so a tensor used twice receives both contributions. No rule
writes into an array it is given: each returns new arrays (or views of them),
so adding them up is right by construction. An input keeps a copy of its own,
which nothing else in the graph or the caller's code sees; so does a result that
asked to keep its gradient (``retain_grad``). Like PyTorch, ``backward`` adds to
``.grad``: set it to None to start again.

The operators and methods a formula needs (``Q @ K.transpose(1, 2) * scale``,
``.log_softmax(2)``, ``.exp()``, ``-``, ``/`` …) are the primitives of
``functions.py``, attached to the class there, beside their definitions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

BackwardRule = Callable[[np.ndarray], Sequence[np.ndarray | None]]

_NUMERIC_KINDS = "biuf"  # bool, signed and unsigned integers, real floats


class BackwardRuleError(RuntimeError):
    """A backward rule returned the wrong number of gradients, or one of the wrong kind or shape."""


def as_float_array(data: object, what: str = "tensor data") -> np.ndarray:
    """Array-like real numbers as a float64 array (a float64 array is wrapped, not copied), or a clear error."""
    if isinstance(data, Tensor):
        return data.data
    if isinstance(data, (str, bytes)):
        raise TypeError(f"{what} must be real numbers, got text {data!r}")
    try:
        array = np.asarray(data)
    except ValueError as error:  # ragged nesting such as [[1, 2], [3]]
        raise ValueError(
            f"{what} must be a rectangular array of real numbers; "
            f"its nested lists have different lengths ({error})"
        ) from None
    if array.dtype.kind == "c":
        raise TypeError(f"{what} must be real numbers, got complex values")
    if array.dtype.kind not in _NUMERIC_KINDS:
        example = f" (for example {array.flat[0]!r})" if array.size else ""
        raise TypeError(f"{what} must be real numbers, got values of type {array.dtype}{example}")
    return np.asarray(array, dtype=np.float64)


class Tensor:
    """An n-dimensional float64 array that can carry a gradient.

    Its operators, each defined in ``functions.py`` beside its backward rule: ``a @ b``, ``a + b``, ``a - b``,
    ``-a``, ``a * b``, ``a / b`` (by a number, or a tensor or array with broadcasting), ``2 / a``, ``a ** 2`` (by a
    number), ``a[0, 1]`` and ``a[:, 1:]`` (a Tensor), ``a.mT`` (the last two axes swapped), ``a.transpose(1, 2)``,
    ``a.exp()``, ``a.log_softmax(2)``, ``a.softmax(2)``, ``a.sum(2, keepdims=True)``. numpy functions are not
    applied to a Tensor (``np.exp(a)`` is refused: write ``a.exp()``, or ``np.exp(a.data)`` for plain numbers).
    """

    def __init__(self, data: object, requires_grad: bool = False) -> None:
        self.data = as_float_array(data)
        self.grad: np.ndarray | None = None
        self.requires_grad = requires_grad
        self.op = "input"
        self.params: dict[str, object] = {}
        self.inputs: tuple[Tensor, ...] = ()
        self.parents: tuple[Tensor, ...] = ()
        self.backward_rule: BackwardRule | None = None
        self.retains_grad = False

    @classmethod
    def from_op(cls, data: np.ndarray, parents: Sequence[Tensor], backward_rule: BackwardRule, op: str,
                **params: object) -> Tensor:
        """A primitive's result. It records its op, its parameters and its inputs always; its parents and rule only
        when some parent needs a gradient."""
        out = cls(data)
        out.op, out.params, out.inputs = op, params, tuple(parents)
        if any(parent.requires_grad for parent in parents):
            out.requires_grad = True
            out.parents = tuple(parents)
            out.backward_rule = backward_rule
        return out

    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    @property
    def ndim(self) -> int:
        return self.data.ndim

    def __repr__(self) -> str:
        numbers = np.array2string(self.data, precision=6, suppress_small=True, separator=", ", prefix="Tensor(")
        return f"Tensor({numbers}, op={self.op!r}{', requires_grad=True' if self.requires_grad else ''})"

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        """The numbers as a numpy array, so ``np.asarray(tensor)`` works (a learner's head may return a Tensor);
        ``np.array(tensor)`` gets a copy of its own."""
        array = self.data if dtype is None else self.data.astype(dtype, copy=False)
        return array.copy() if copy and array is self.data else array

    def retain_grad(self) -> Tensor:
        """Keep the gradient that reaches this result in ``.grad`` (an input keeps its own anyway), as PyTorch's
        ``retain_grad``: Ā and S̄ are read from the engine, not from a second formula."""
        self.retains_grad = True
        return self

    def backward(self, upstream: object = None) -> None:
        """Add d(sum(self * upstream))/d(input) to the ``.grad`` of every input with requires_grad=True.

        ``upstream`` defaults to 1 for a single-element tensor.
        """
        if not self.requires_grad:
            raise ValueError("backward() needs a tensor that depends on an input with requires_grad=True")
        if upstream is None and self.data.size != 1:
            raise ValueError(f"backward() on a tensor of shape {list(self.shape)} needs an upstream "
                             "gradient of the same shape")
        seed = np.ones(self.shape) if upstream is None else as_float_array(upstream, "upstream gradient")
        if seed.shape != self.shape:
            raise ValueError(f"upstream gradient has shape {list(seed.shape)}, "
                             f"but the tensor has shape {list(self.shape)}")

        grads = {self: seed}  # tensor -> the sum of the gradients that reached it so far
        for tensor in reversed(_topological_order(self)):
            grad = grads.pop(tensor, None)
            if grad is None:
                continue
            if tensor.backward_rule is None or tensor.retains_grad:  # .grad: an array of its own
                tensor.grad = grad.copy() if tensor.grad is None else tensor.grad + grad
            if tensor.backward_rule is None:  # an input: nothing further back
                continue
            for parent, parent_grad in _checked(tensor, tensor.backward_rule(grad)):
                grads[parent] = parent_grad if parent not in grads else grads[parent] + parent_grad


def _checked(tensor: Tensor, grads: object) -> list[tuple[Tensor, np.ndarray]]:
    """The (parent, gradient) pairs of a rule's result, or BackwardRuleError if the rule broke its contract."""
    where = f"{tensor.op} backward (result shape {list(tensor.shape)})"
    if not (isinstance(grads, (tuple, list)) and len(grads) == len(tensor.parents)):
        got = f"{len(grads)} gradients" if isinstance(grads, (tuple, list)) else f"a {type(grads).__name__}"
        raise BackwardRuleError(f"{where} returned {got}; it must return a tuple of {len(tensor.parents)}, "
                                "one per input")
    pairs = []
    for i, (parent, grad) in enumerate(zip(tensor.parents, grads)):
        if not parent.requires_grad or grad is None:
            continue
        if not (isinstance(grad, np.ndarray) and grad.dtype == np.float64 and grad.shape == parent.shape):
            got = (f"a {grad.dtype} array of shape {list(grad.shape)}" if isinstance(grad, np.ndarray)
                   else f"a {type(grad).__name__}")
            raise BackwardRuleError(f"{where} gave {got} for input {i}; "
                                    f"it must be a float64 array of that input's shape {list(parent.shape)}")
        pairs.append((parent, grad))
    return pairs


def _topological_order(root: Tensor) -> list[Tensor]:
    """Every tensor ``root`` depends on, each after its parents (no recursion, so deep graphs are fine)."""
    order: list[Tensor] = []
    seen: set[int] = set()
    stack: list[tuple[Tensor, bool]] = [(root, False)]
    while stack:
        tensor, parents_done = stack.pop()
        if parents_done:
            order.append(tensor)
        elif id(tensor) not in seen:
            seen.add(id(tensor))
            stack.append((tensor, True))
            stack.extend((parent, False) for parent in tensor.parents if id(parent) not in seen)
    return order
