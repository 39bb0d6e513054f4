"""Tensor: float64 numpy data with reverse-mode gradients.

A tensor made by a primitive gets a ``Node`` (made in one place,
``Tensor.from_op``) that records the primitive, its inputs' nodes and its
backward rule. The graph holds nodes and what each rule keeps, never the value
of an intermediate tensor, so an intermediate nobody holds is freed as soon as
the forward pass is done with it. ``backward`` walks the nodes in reversed
topological order and sums every gradient that reaches a node, so leaves
accumulate ``.grad`` across calls. float64 arrays are wrapped, not copied.

The engine owns gradient memory. Every rule receives a gradient array it owns
(writeable, seen by nothing else), so it may overwrite it and return it or
views of it. A rule returns arrays it made, the array it received, or views of
these; the engine keeps a returned array as an input's gradient only if nothing
else can see it and copies it otherwise: when it is read-only (a broadcast
view) or shares memory with another gradient the same rule returned (``add``
hands one array to both inputs). The caller's upstream is copied once, and
further gradients reaching a node are added into the one it already has.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence

import numpy as np

BackwardRule = Callable[[np.ndarray], Sequence[np.ndarray | None]]

_NUMERIC_KINDS = "biuf"  # bool, signed and unsigned integers, real floats


class BackwardRuleError(RuntimeError):
    """A backward rule returned the wrong number of gradients, or one of the wrong kind or shape."""


def as_float_array(data: object, what: str = "tensor data") -> np.ndarray:
    """Convert array-like real numbers to a float64 array, or explain why not."""
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


class Node:
    """One step of the graph: a primitive's name, its inputs' nodes and its backward rule.

    A leaf's node has no rule; it refers weakly to its tensor, which receives the gradient.
    ``parents`` has ``None`` for an input that needs no gradient.
    """

    __slots__ = ("op", "parents", "rule", "shape", "leaf")

    def __init__(self, op: str, parents: tuple[Node | None, ...], rule: BackwardRule | None,
                 shape: tuple[int, ...], leaf: Tensor | None = None) -> None:
        self.op = op
        self.parents = parents
        self.rule = rule
        self.shape = shape
        self.leaf = weakref.ref(leaf) if leaf is not None else None

    def __repr__(self) -> str:
        return f"Node(op={self.op!r}, shape={list(self.shape)})"


class Tensor:
    """An n-dimensional float64 array that can carry a gradient."""

    __slots__ = ("data", "grad", "node", "op", "__weakref__")

    def __init__(self, data: object, requires_grad: bool = False) -> None:
        self.data = as_float_array(data)
        self.grad: np.ndarray | None = None
        self.op = "input"
        self.node = Node("input", (), None, self.data.shape, leaf=self) if requires_grad else None

    @classmethod
    def from_op(
        cls, data: np.ndarray, parents: Sequence[Tensor], rule: BackwardRule, op: str
    ) -> Tensor:
        """The one place where a primitive's result records its inputs and backward rule."""
        out = cls.__new__(cls)
        out.data = data
        out.grad = None
        out.op = op
        needs = any(p.requires_grad for p in parents)
        out.node = Node(op, tuple(p.node for p in parents), rule, data.shape) if needs else None
        return out

    @property
    def requires_grad(self) -> bool:
        return self.node is not None

    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    @property
    def ndim(self) -> int:
        return self.data.ndim

    def __repr__(self) -> str:
        return f"Tensor(shape={list(self.shape)}, op={self.op!r}, requires_grad={self.requires_grad})"

    def backward(self, upstream: object = None) -> None:
        """Accumulate d(sum(self * upstream))/d(leaf) into every leaf's ``.grad``.

        ``upstream`` defaults to 1 for a single-element tensor.
        """
        if self.node is None:
            raise ValueError("backward() needs a tensor that depends on an input with requires_grad=True")
        if upstream is None:
            if self.data.size != 1:
                raise ValueError(
                    f"backward() on a tensor of shape {list(self.shape)} needs an upstream "
                    "gradient of the same shape"
                )
            seed = np.ones_like(self.data)
        else:
            seed = as_float_array(upstream, "upstream gradient")
            if seed.shape != self.shape:
                raise ValueError(
                    f"upstream gradient has shape {list(seed.shape)}, "
                    f"but the tensor has shape {list(self.shape)}"
                )
            seed = seed.copy()  # the caller keeps its array; the rules get the engine's

        order = _topological_order(self.node)
        pending: dict[int, np.ndarray] = {id(self.node): seed}  # each array owned by the engine alone
        for node in reversed(order):
            grad = pending.pop(id(node), None)
            if grad is None:
                continue
            if node.rule is None:  # a leaf
                leaf = node.leaf()
                if leaf is not None:
                    leaf.grad = grad if leaf.grad is None else leaf.grad + grad
                continue
            parent_grads = node.rule(grad)
            del grad  # a rule's input gradient is dead once the rule is done
            _check_count(node, parent_grads)
            kept: list[np.ndarray] = []
            for i, (parent, parent_grad) in enumerate(zip(node.parents, parent_grads)):
                if parent is None or parent_grad is None:
                    continue
                _check_gradient(node, i, parent, parent_grad)
                key = id(parent)
                if key in pending:  # read at once, into a sum the engine owns
                    np.add(pending[key], parent_grad, out=pending[key])
                    continue
                if not parent_grad.flags.writeable or any(np.may_share_memory(parent_grad, k) for k in kept):
                    parent_grad = parent_grad.copy()
                pending[key] = parent_grad
                kept.append(parent_grad)


def _check_count(node: Node, grads: object) -> None:
    """Raise BackwardRuleError unless a rule returned a tuple (or list) of one gradient per input."""
    if isinstance(grads, (tuple, list)) and len(grads) == len(node.parents):
        return
    got = f"{len(grads)} gradients" if isinstance(grads, (tuple, list)) else f"a {type(grads).__name__}"
    raise BackwardRuleError(
        f"{node.op} backward (result shape {list(node.shape)}) returned {got}; "
        f"it must return a tuple of {len(node.parents)}, one per input"
    )


def _check_gradient(node: Node, i: int, parent: Node, grad: object) -> None:
    """Raise BackwardRuleError unless ``grad`` is a float64 array of the input's shape."""
    if isinstance(grad, np.ndarray) and grad.dtype == np.float64 and grad.shape == parent.shape:
        return
    got = f"a {grad.dtype} array of shape {list(grad.shape)}" if isinstance(grad, np.ndarray) else (
        f"a {type(grad).__name__}")
    raise BackwardRuleError(
        f"{node.op} backward (result shape {list(node.shape)}) gave {got} for input {i}; "
        f"it must be a float64 array of that input's shape {list(parent.shape)}"
    )


def _topological_order(root: Node) -> list[Node]:
    order: list[Node] = []
    seen: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for parent in node.parents:
            if parent is not None and id(parent) not in seen:
                stack.append((parent, False))
    return order
