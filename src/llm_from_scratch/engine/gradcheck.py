"""Central differences: compare analytic gradients with numeric ones, coordinate by coordinate."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

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
