"""Central differences: compare analytic gradients with numeric ones, coordinate by coordinate.

A loss is given either as a function of plain arrays or as a Tensor a cell computed: ``replayed`` recomputes a
Tensor's recorded graph (each step's op, parameters and inputs) with some of its inputs given other numbers, so
the differences are those of the learner's own computation, with no second copy of it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from . import functions as F
from .tensor import Tensor

STEP = 1e-6
TOLERANCE = 2e-6


@dataclass(frozen=True)
class CoordinateCheck:
    input_name: str
    index: tuple[int, ...]
    analytic: float
    numeric: float

    @property
    def error(self) -> float:
        return abs(self.analytic - self.numeric)


@dataclass(frozen=True)
class GradCheckReport:
    coordinates: tuple[CoordinateCheck, ...]
    step: float
    tolerance: float

    @property
    def max_error(self) -> float:
        return max((c.error for c in self.coordinates), default=0.0)

    @property
    def passed(self) -> bool:
        return all(c.error <= self.tolerance for c in self.coordinates)

    def count(self, input_name: str) -> int:
        return sum(1 for c in self.coordinates if c.input_name == input_name)


def central_difference(
    loss: Callable[[Sequence[np.ndarray]], float], inputs: Sequence[np.ndarray], which: int,
    index: tuple[int, ...], step: float = STEP,
) -> float:
    """(L(x + h e_i) - L(x - h e_i)) / 2h for one coordinate of one input."""
    def shifted(delta: float) -> float:
        moved = [np.array(x, dtype=np.float64, copy=True) for x in inputs]
        moved[which][index] = inputs[which][index] + delta  # a fresh copy: the caller's arrays stay
        return loss(moved)

    return (shifted(step) - shifted(-step)) / (2.0 * step)


def check_gradients(
    loss: Callable[[Sequence[np.ndarray]], float],
    inputs: Sequence[np.ndarray],
    analytic: Sequence[np.ndarray],
    names: Sequence[str],
    step: float = STEP,
    tolerance: float = TOLERANCE,
) -> GradCheckReport:
    """Check every coordinate of every input's analytic gradient against central differences."""
    checks = []
    for which, (name, x, grad) in enumerate(zip(names, inputs, analytic)):
        if grad.shape != np.shape(x):
            raise ValueError(f"gradient for {name} has shape {grad.shape}, the input has {np.shape(x)}")
        for index in np.ndindex(*np.shape(x)):
            numeric = central_difference(loss, inputs, which, index, step)
            checks.append(CoordinateCheck(name, index, float(grad[index]), numeric))
    return GradCheckReport(tuple(checks), step, tolerance)


# a recorded step -> how to take it again from its inputs and parameters
STEPS: dict[str, Callable[[list[Tensor], dict], Tensor]] = {
    "matmul": lambda x, p: F.matmul(*x),
    "add": lambda x, p: F.add(*x),
    "mul": lambda x, p: F.mul(*x),
    "exp": lambda x, p: F.exp(*x),
    "log_softmax": lambda x, p: F.log_softmax(x[0], p["axis"]),
    "softmax": lambda x, p: F.softmax(x[0], p["axis"]),
    "sum": lambda x, p: F.reduce_sum(x[0], p["axis"], p["keepdims"]),
    "transpose": lambda x, p: F.transpose(x[0], *p["axes"]),
    "pow": lambda x, p: F.power(x[0], p["exponent"]),
    "index": lambda x, p: F.index(x[0], p["where"]),
    "div": lambda x, p: F.div(x[0], p["divisor"]) if "divisor" in p else F.div(*x),
}


def replayed(root: Tensor, given: Mapping[Tensor, np.ndarray]) -> np.ndarray:
    """``root``'s numbers recomputed along its recorded graph, with each tensor of ``given`` (an input) holding the
    numbers it is mapped to; every other input keeps its own."""
    values: dict[int, Tensor] = {id(t): Tensor(numbers) for t, numbers in given.items()}
    stack = [(root, False)]
    while stack:  # every step after its inputs, no recursion
        tensor, inputs_done = stack.pop()
        if id(tensor) in values and not inputs_done:
            continue
        if inputs_done or tensor.op == "input":
            values[id(tensor)] = tensor if tensor.op == "input" else STEPS[tensor.op](
                [values[id(x)] for x in tensor.inputs], tensor.params)
        else:
            stack.append((tensor, True))
            stack.extend((x, False) for x in tensor.inputs if id(x) not in values)
    return values[id(root)].data
