"""Mistakes a learner makes, each named, and the one diagnosis every computed exercise uses: a search over them.

A library holds three kinds of slip, each with an ``id`` (the misconception Feedback names) and a ``message``
(the catalogue key of what the learner did and what to do instead):

* a ``Mistake`` gives the whole answer it makes on an instance (one value or several; None where it cannot
  apply);
* a ``Step`` changes one step of the instance's own computation: ``step`` names the step and ``how`` what is
  done there instead, and the instance computes any recipe of steps (``instance.computed({step: how, …})``,
  a list of values), so two steps compose;
* a ``Reading`` is what a learner does to an answer when writing it down (percent for a fraction, a number
  cut instead of rounded); it composes with any one other slip.

``diagnose`` compares the learner's answer with the right answer and with every composition of up to two slips
on the instance:

* the answer is right within ``tolerance``, or within a rounding to two decimals (then the feedback gives the
  exact value as well);
* otherwise a composition within the same tolerance of the answer (or within its last written decimal) is
  named. Of those the answer matches as written (0.002 matches 0.0025 and 0.0017 alike), the one with the
  fewest slips, then the first in the library's order (readings last); if none, the nearest. Compositions
  within the exercise's tolerance of each other count as one. [0.0025, 0.9975] is the scale forgotten,
  [0, 1] the largest score taking all. One that gives the right answer on this instance, or a rounding of
  it, is never named (in the worked example √T, √d_v and √d_k are all √2). A composition of two is told
  slip by slip.

The compositions of an instance are computed once and kept (``compositions``), so a second answer on the same
instance costs only the comparison.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .answers import LARGEST_PLAUSIBLE
from .state import STATE
from .tolerances import FLOAT_NOISE, ROUNDED, SAME_ANSWER, TYPED
from .verdicts import Judgement, Phrase, right, wrong


@dataclass(frozen=True)
class Mistake:
    """A whole answer made with a mistake: ``gives(instance)`` (a value, a tuple of values or None)."""

    id: str
    message: str
    gives: Callable[[Any], Any]


@dataclass(frozen=True)
class Step:
    """One step of the instance's computation done otherwise: ``step`` done as ``how`` says (the instance knows)."""

    id: str
    message: str
    step: str
    how: Hashable = True


@dataclass(frozen=True)
class Reading:
    """An answer written down otherwise: ``writes(value)`` is what a learner writes for ``value`` (one value or
    several), each compared within ``scale`` times the tolerance."""

    id: str
    message: str
    writes: Callable[[np.ndarray], Any]
    scale: float = 1.0


def _truncations(value: np.ndarray) -> list[np.ndarray]:
    """``value`` cut to 1, 2 and 3 decimals, where cutting is not what rounding gives."""
    cut = [(np.trunc(value * 10 ** decimals) / 10 ** decimals, np.round(value, decimals)) for decimals in (1, 2, 3)]
    return [truncated for truncated, rounded in cut if not np.allclose(truncated, rounded, rtol=0, atol=1e-12)]


def _coarse(value: np.ndarray) -> np.ndarray:
    """``value`` rounded to one decimal, halves away from 0 as a learner rounds them."""
    return np.sign(value) * np.floor(np.abs(value) * 10 + 0.5) / 10


def _one_sign_lost(value: np.ndarray) -> list[np.ndarray]:
    """``value`` with one of its entries (not 0) of the opposite sign."""
    flipped = []
    for i in np.flatnonzero(value):
        one = value.copy().ravel()
        one[i] = -one[i]
        flipped.append(one.reshape(value.shape))
    return flipped


READINGS = (
    Reading("percent-for-fraction", "mis.percent-for-fraction", lambda value: value * 100, scale=100.0),
    Reading("truncated", "mis.truncated", _truncations),
    Reading("rounded-coarsely", "mis.rounded-coarsely", _coarse),
    Reading("sign-lost", "mis.sign-lost", _one_sign_lost),
    Reading("negated", "mis.negated", lambda value: -value),
)

Slip = Mistake | Step | Reading


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


@dataclass(frozen=True)
class Composition:
    """Up to two slips and the answer they make together on one instance."""

    slips: tuple[Slip, ...]
    value: np.ndarray
    scale: float = 1.0


def _made(library: Sequence[Slip], instance: Any, expected: np.ndarray) -> list[Composition]:
    """Every composition of up to two slips, fewest slips first, then in the library's order (readings last)."""
    made: list[tuple[tuple[int, ...], Composition]] = []
    alone: list[tuple[tuple[int, ...], Composition]] = [((), Composition((), expected))]
    for i, slip in enumerate(library):
        if not isinstance(slip, Reading):
            given = slip.gives(instance) if isinstance(slip, Mistake) else instance.computed({slip.step: slip.how})
            alone += [((i,), Composition((slip,), value)) for value in _values(given)]
    for (i, a), (j, b) in itertools.combinations(enumerate(library), 2):
        if isinstance(a, Step) and isinstance(b, Step) and a.step != b.step:
            made += [((i, j), Composition((a, b), value))
                     for value in _values(instance.computed({a.step: a.how, b.step: b.how}))]
    for j, reading in enumerate(library):
        if isinstance(reading, Reading):
            made += [((*order, j), Composition((*composition.slips, reading), value, reading.scale))
                     for order, composition in alone for value in _values(reading.writes(composition.value))]
    made += alone[1:]
    made.sort(key=lambda pair: (len(pair[0]), pair[0]))
    return [composition for _, composition in made  # what no answer can be (the reader refuses it) is left out
            if np.isfinite(composition.value).all() and np.abs(composition.value).max() <= LARGEST_PLAUSIBLE]


def written_precision(answer: np.ndarray) -> float:
    """Half a unit of the answer's last decimal, as a learner rounds: 0.0005 for "0.020"; 0 for whole numbers
    and fractions. A typed answer says how many decimals it has; numbers given as numbers show them."""
    decimals = getattr(answer, "decimals", None)
    if decimals is None:
        decimals = next((d for d in range(7) if np.allclose(answer * 10 ** d, np.round(answer * 10 ** d), rtol=0,
                                                             atol=1e-6)), 0)
    return 0.5 * 10.0 ** -decimals + FLOAT_NOISE if decimals else 0.0


class Named:
    """The compositions that can be named on one instance, each shape's stacked for a quick comparison: none that
    gives the right answer (or one within a rounding of it), and of those that fall in one cell of a grid as fine
    as the exercise's tolerance (so within it of each other) only the first."""

    def __init__(self, made: list[Composition], expected: np.ndarray, tolerance: float) -> None:
        self.tolerance = max(tolerance, ROUNDED)
        apart = max(tolerance, SAME_ANSWER)
        wrong_answers = [c for c in made if distance(c.value, expected) / c.scale > self.tolerance]
        self.by_shape = {}
        for shape in dict.fromkeys(c.value.shape for c in wrong_answers):
            of_shape = [c for c in wrong_answers if c.value.shape == shape]
            values = np.stack([c.value for c in of_shape]).reshape(len(of_shape), -1)
            scales = np.array([c.scale for c in of_shape])
            cells = np.round(values / (apart * scales[:, None])).astype(np.int64)  # one cell: within ``apart``
            first: dict[tuple[bytes, float], int] = {}
            for i, cell in enumerate(cells):  # a percentage is a cell of its own: 98.6 is not 0.986
                first.setdefault((cell.tobytes(), float(scales[i])), i)
            kept = sorted(first.values())
            self.by_shape[shape] = ([of_shape[i] for i in kept], values[kept], scales[kept])

    def nearest(self, answer: np.ndarray) -> Composition | None:
        """The composition ``answer`` matches: of those it matches as written (within its own last decimal) the
        first, else the nearest within the tolerance; None if there is none."""
        if answer.shape not in self.by_shape or not np.isfinite(answer).all():
            return None
        found, values, scales = self.by_shape[answer.shape]
        off = np.abs(values - answer.ravel()).max(axis=1, initial=0.0)
        written = written_precision(answer)
        close = off <= np.maximum(self.tolerance * scales, written)
        if not close.any():
            return None
        as_written = close & (off <= max(written, SAME_ANSWER))
        return found[int(np.argmax(as_written))] if as_written.any() else found[int(np.argmin(np.where(
            close, off / scales, np.inf)))]


NAMED_KEPT = 256  # instances whose compositions a kernel keeps (a learner meets a few dozen)


def named(library: tuple[Slip, ...], instance: Hashable, expected: np.ndarray, tolerance: float) -> Named:
    """The nameable compositions of ``library`` on ``instance``, computed once per instance (``instance`` is
    hashed by what it computes from)."""
    key = (library, instance, expected.shape, expected.tobytes(), tolerance)
    kept = STATE.named
    if key not in kept:
        if len(kept) >= NAMED_KEPT:
            kept.clear()
        kept[key] = Named(_made(library, instance, expected), expected, tolerance)
    return kept[key]


def said(composition: Composition) -> tuple[str, str, dict[str, object]]:
    """The misconception, message and fields that tell ``composition``: one slip in its own words, two one by one."""
    first, *rest = composition.slips
    if not rest:
        return first.id, first.message, {}
    return (f"{first.id}+{rest[0].id}", "mis.two-slips",
            {"first": Phrase(first.message), "second": Phrase(rest[0].message)})


def diagnose(answer: np.ndarray, expected: np.ndarray, library: tuple[Slip, ...], instance: Hashable,
             tolerance: float, exact: Callable[[np.ndarray], str]) -> Judgement | None:
    """Right, right as rounded (the message cites ``exact(expected)``), the nearest composition of up to two slips
    of ``library`` (with the book's READINGS) the answer matches, or None when the answer is none of these."""
    off = distance(answer, expected)
    if off <= max(tolerance, TYPED):
        return right()
    if off <= ROUNDED:
        return right("feedback.right_rounded", exact=exact(expected))
    found = named((*library, *READINGS), instance, expected, tolerance).nearest(answer)
    if found is None:
        return None
    misconception, message, fields = said(found)
    return wrong(misconception, message, **fields)
