"""Draw: the example an exercise is asked on, as the chapter's evidence.

Variant 0 is the chapter's own example, the one the notebooks show; variant n ≥ 1 of an exercise that ``varies`` is
drawn for the learner by the chapter's ``Variants`` (the same learner gets the same n-th variant again, and its
evidence is kept, so its head runs once). Nothing here reads the store: who the learner is comes in from the step
that read it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from .declare import Exercise
from .text import Catalogue

SEEN_KEPT = 5  # how many of the variants a learner has seen a judge is told of


class Variants(Protocol):
    """A chapter's fresh examples: the evidence of a family's variant n ≥ 1 for a learner, and its inputs."""

    def evidence(self, family: str, learner: str, n: int) -> Any: ...

    def inputs(self, family: str, ev: Any) -> dict[str, object]: ...


class Examples:
    """The evidence of each exercise's variants: ``evidence()`` the chapter's own, ``variants`` the fresh ones."""

    def __init__(self, evidence: Callable[[], Any], variants: Variants | None, strings: Catalogue) -> None:
        self.evidence = evidence
        self.variants = variants
        self.strings = strings

    def refusal(self, exercise: Exercise, variant: object) -> str:
        """What is wrong with ``variant`` of ``exercise`` (no whole number ≥ 0; a variant of an exercise with none),
        in the learner's language; "" when nothing is."""
        if isinstance(variant, bool) or not isinstance(variant, (int, np.integer)) or variant < 0:
            return self.strings.text("variant.invalid", variant=repr(variant))
        if variant and (not exercise.varies or self.variants is None):
            return self.strings.text("variant.none", title=self.strings.text(exercise.title))
        return ""

    def of(self, exercise: Exercise, variant: int, learner: Callable[[], str]) -> Any:
        """The evidence of ``variant`` of ``exercise``; a fresh variant is the learner's (``learner()``, their id,
        asked only then). A refused variant raises ValueError, in the learner's language."""
        refused = self.refusal(exercise, variant)
        if refused:
            raise ValueError(refused)
        if variant == 0:
            return self.evidence()
        return self.variants.evidence(exercise.varies, learner(), int(variant))

    def seeing(self, ev: Any, exercise: Exercise, variant: int, answered: Sequence[int],
               learner: Callable[[], str]) -> Any:
        """``ev`` told the variants of the exercise's family that the learner has seen (the notebook's own one and
        the latest of those ``answered``, variants being drawn in order; SEEN_KEPT in all, this one aside), so a
        judge can name an answer made on one of them."""
        if not exercise.varies:
            return ev
        seen = [n for n in dict.fromkeys([0, *sorted(answered, reverse=True)]) if n != variant][:SEEN_KEPT]
        if not seen:
            return ev
        return ev.told(tuple(self.of(exercise, n, learner) for n in seen))

    def inputs(self, exercise: Exercise, ev: Any) -> dict[str, object]:
        """What a variant of ``exercise`` gives the learner to work on."""
        return self.variants.inputs(exercise.varies, ev)
