"""A learner's slip, and the one search over slips that the answer judge and the code judge both run.

A ``Slip`` does some steps of a computation otherwise: ``steps`` maps the name of each step it changes to how it
is done instead, in terms the computation understands (a token its instance reads, or a function that replaces the
step). Two steps belong to the book: ``ANSWER``, the whole answer (``how(instance)`` gives it), and ``WRITTEN``,
the writing down of a value (``how(value)``; such a slip is compared within ``scale`` times the tolerance).
``message`` is the catalogue key of the slip's words; ``covers`` names the values that a learner's line making
this slip may read, as its words allow (the code judge, ``ch27.code_slips.agrees``, checks the rest).

The search: ``outcomes(library, outcome)`` is every slip alone, then every pair of slips that change different
steps, both in the library's order, each with what the computation gives under it (``outcome(recipe)``: none, one
or several). The answer judge (``book.mistakes``) names the nearest of them; the code judge
(``book.code_search``) the only one that fits every probe.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TypeVar

ANSWER = "answer"  # the step that gives the whole answer
WRITTEN = "written"  # the step that writes a value down

Outcome = TypeVar("Outcome")


@dataclass(frozen=True, eq=False)
class Slip:
    """Some steps of a computation done otherwise: ``steps`` is step -> how; ``message`` its words' key."""

    id: str
    message: str
    steps: Mapping[str, object]
    scale: float = 1.0
    covers: frozenset[str] = frozenset()  # values its words speak of that a line making it may read (a q already
    #                                       scaled, scores already scaled before a mask)


def recipe(slips: Sequence[Slip]) -> dict[str, object]:
    """The steps ``slips`` do otherwise together ({} for the right computation)."""
    return {step: how for slip in slips for step, how in slip.steps.items()}


def hypotheses(library: Sequence[Slip]) -> list[tuple[Slip, ...]]:
    """Every slip alone, then every pair of slips that change different steps, in the library's order."""
    pairs = [(a, b) for a, b in combinations(library, 2) if not set(a.steps) & set(b.steps)]
    return [(slip,) for slip in library] + pairs


def outcomes(library: Sequence[Slip], outcome: Callable[[dict[str, object]], list[Outcome]]
             ) -> list[tuple[tuple[Slip, ...], Outcome]]:
    """Each hypothesis with each thing the computation gives under its recipe, in the order of ``hypotheses``."""
    return [(slips, found) for slips in hypotheses(library) for found in outcome(recipe(slips))]
