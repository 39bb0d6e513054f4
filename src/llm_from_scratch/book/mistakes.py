"""The diagnosis every computed exercise uses: which slips, alone or two together, make the learner's answer.

A chapter's library holds ``book.slips.Slip``s of three sorts, by the steps they change:

* the whole answer (``ANSWER``): ``how(instance)`` gives the answer the mistake makes (one value or several;
  None where it cannot apply);
* steps of the instance's own computation: the instance computes any recipe of them
  (``instance.computed({step: how, …})``, a list of values), so two such slips compose;
* the writing down (``WRITTEN``, the book's ``READINGS``: percent for a fraction, a number cut instead of
  rounded…): it composes with any one other slip.

``diagnose`` compares the learner's answer with the right answer and with what every hypothesis of the one search
(``book.slips.outcomes``) gives on the instance:

* the answer is right within ``tolerance``, or within a rounding to two decimals (then the feedback gives the
  exact value as well);
* otherwise a hypothesis within the same tolerance of the answer (or within its last written decimal) is
  named. Of those the answer matches as written (0.002 matches 0.0025 and 0.0017 alike), the one with the
  fewest slips, then the first in the library's order (readings last); if none, the nearest. Hypotheses
  within the exercise's tolerance of each other count as one. [0.0025, 0.9975] is the scale forgotten,
  [0, 1] the largest score taking all. One that gives the right answer on this instance, or a rounding of
  it, is never named (in the worked example √T, √d_v and √d_k are all √2). Two slips are told one by one.

What the hypotheses give on an instance is computed once and kept (``named``), so a second answer on the same
instance costs only the comparison.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .answers import LARGEST_PLAUSIBLE
from .slips import ANSWER, WRITTEN, Slip, outcomes
from .state import STATE
from .tolerances import FLOAT_NOISE, ROUNDED, SAME_ANSWER, TYPED
from .verdicts import Judgement, Phrase, right, wrong


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


def _percent(value: np.ndarray) -> np.ndarray:
    return value * 100


def _negated(value: np.ndarray) -> np.ndarray:
    return -value


READINGS = (  # each what a learner writes for a value (one or several)
    Slip("percent-for-fraction", "mis.percent-for-fraction", {WRITTEN: _percent}, scale=100.0),
    Slip("truncated", "mis.truncated", {WRITTEN: _truncations}),
    Slip("rounded-coarsely", "mis.rounded-coarsely", {WRITTEN: _coarse}),
    Slip("sign-lost", "mis.sign-lost", {WRITTEN: _one_sign_lost}),
    Slip("negated", "mis.negated", {WRITTEN: _negated}),
)


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


def _computed(instance: Any, expected: np.ndarray) -> Callable[[dict[str, object]], list[np.ndarray]]:
    """What a recipe gives on ``instance``: the whole answer a slip makes, or the instance's computation with the
    steps done otherwise (``expected`` with none), then written down as the recipe writes it. Each recipe of the
    computation is computed once, however many ways of writing it follow."""
    kept: dict[tuple, list[np.ndarray]] = {}

    def computed(recipe: dict[str, object]) -> list[np.ndarray]:
        rest = {step: how for step, how in recipe.items() if step != WRITTEN}
        key = tuple(rest.items())
        if key not in kept:
            kept[key] = (_values(rest[ANSWER](instance)) if ANSWER in rest
                         else _values(instance.computed(rest)) if rest else [expected])
        if WRITTEN not in recipe:
            return kept[key]
        return [written for value in kept[key] for written in _values(recipe[WRITTEN](value))]
    return computed


def _made(library: tuple[Slip, ...], instance: Any, expected: np.ndarray) -> list[Composition]:
    """What every hypothesis gives, fewest slips first, then in the library's order (readings last), without what
    no answer can be (the reader refuses it)."""
    return [Composition(slips, value, math.prod(slip.scale for slip in slips))
            for slips, value in outcomes(library, _computed(instance, expected))
            if np.isfinite(value).all() and np.abs(value).max() <= LARGEST_PLAUSIBLE]


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
