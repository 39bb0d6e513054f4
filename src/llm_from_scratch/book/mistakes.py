"""Mistakes a learner makes, each named, and the one diagnosis every computed exercise uses.

A ``Mistake`` is a named transformation of a chapter's computation: on an instance (whatever the
exercise computes from, such as a head's run), ``gives`` returns what an answer made with that mistake
would be, one value or several, or None where the mistake cannot apply. ``diagnose`` compares the
learner's answer with the right answer and with what every mistake gives on the same instance:

* the answer is right within ``tolerance``, or within a rounding to two decimals (then the feedback
  gives the exact value as well);
* otherwise the nearest mistake wins, if the answer lies within the same tolerance of it: the answer is
  then nearer to the mistake than to the right answer, which it missed by more. A mistake that gives the
  right answer on this instance is not applicable here and is never named (in the worked example √T,
  √d_v and √d_k are all √2). Where two mistakes give the same answer, the first in the list is named.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .exercises import Judgement, right, wrong
from .tolerances import ROUNDED, TYPED


@dataclass(frozen=True)
class Mistake:
    """``id``: the misconception Feedback names; ``message``: the catalogue key of what the learner did and
    what to do instead; ``gives(instance)``: the answer the mistake makes there (a value, a tuple of values
    or None)."""

    id: str
    message: str
    gives: Callable[[Any], Any]


def _values(given: Any) -> list[np.ndarray]:
    if given is None:
        return []
    found = given if isinstance(given, (tuple, list)) else (given,)
    return [np.asarray(value, dtype=np.float64) for value in found if value is not None]


def distance(a: np.ndarray, b: np.ndarray) -> float:
    """The largest difference of two arrays of one shape (inf for other shapes or a non-finite one)."""
    if a.shape != b.shape:
        return float("inf")
    with np.errstate(invalid="ignore"):
        difference = np.abs(a - b)
    return float(difference.max()) if difference.size and np.isfinite(difference).all() else float("inf")


def diagnose(answer: np.ndarray, expected: np.ndarray, mistakes: Iterable[Mistake], instance: Any,
             tolerance: float, exact: Callable[[np.ndarray], str]) -> Judgement | None:
    """Right, right as rounded (the message cites ``exact(expected)``), the nearest applicable mistake the
    answer matches, or None when the answer is none of these."""
    off = distance(answer, expected)
    if off <= max(tolerance, TYPED):
        return right()
    if off <= ROUNDED:
        return right("feedback.right_rounded", exact=exact(expected))
    nearest = min(((distance(answer, value), mistake) for mistake in mistakes for value in _values(
        mistake.gives(instance)) if distance(value, expected) > max(tolerance, TYPED)), default=None,
        key=lambda pair: pair[0])
    if nearest and nearest[0] <= max(tolerance, ROUNDED):
        return wrong(nearest[1].id, nearest[1].message)
    return None
