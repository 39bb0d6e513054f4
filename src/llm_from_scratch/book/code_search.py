"""Name what is wrong in a learner's function: which slips, alone or two together, turn the right computation
into exactly what the function gave on probes made to tell the slips apart.

A computation is written as steps: ``compute(*args, steps=steps)`` calls ``steps[name](...)`` for each of them,
and ``right`` holds the right version of every step. A code slip (``book.slips.Slip``) replaces one or more steps
with a learner's mistaken version, written the way a learner writes it in numpy, so that it raises where the
learner's code would. A ``Search`` runs the computation on every probe under every hypothesis of the one search
(``book.slips.outcomes``), once; ``candidates(fn)`` runs the learner's function on the same probes and returns the
single slips that give what it gave on every probe, else the pairs that do; ``named(fn)`` the one, where only one
does: a slip is named on the probes alone only when it is the only explanation they leave.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cached_property

import numpy as np

from .code_check import RAISED, Probed, read_arrays, relative_error, run_probes
from .slips import Slip, outcomes

Result = tuple[np.ndarray, ...] | str | None  # the arrays, RAISED, or None when nothing could be read


class Search:
    """The slips of one computation, what each hypothesis gives on its probes, and the learner's among them."""

    def __init__(self, compute: Callable, right: Mapping[str, Callable], slips: tuple[Slip, ...],
                 probes: Mapping[str, tuple[np.ndarray, ...]], outputs: int):
        unknown = {stage for slip in slips for stage in slip.steps} - set(right)
        if unknown:
            raise ValueError(f"slips replace steps the computation does not have: {sorted(unknown)}")
        self.compute, self.right, self.slips, self.probes, self.outputs = compute, right, slips, probes, outputs

    def run(self, recipe: Mapping[str, object]) -> dict[str, Result]:
        """What the computation with the steps of ``recipe`` done otherwise gives on every probe."""
        steps = {**self.right, **recipe}
        results: dict[str, Result] = {}
        for name, args in self.probes.items():
            try:
                with np.errstate(all="ignore"):
                    returned = self.compute(*(a.copy() for a in args), steps=steps)
            except Exception:
                results[name] = RAISED
                continue
            try:
                results[name] = read_arrays(returned, self.outputs)
            except Exception:
                results[name] = None
        return results

    def steps_of(self, recipe: Mapping[str, object], args: tuple[np.ndarray, ...]) -> list[tuple[str, object]]:
        """Each step the computation with ``recipe`` takes on ``args``, in the order taken, with what it gave; where
        a step raised, the steps before it and then (RAISED, the exception)."""
        taken: list[tuple[str, object]] = []

        def kept(name: str, how: Callable) -> Callable:
            def step(*inputs):
                given = how(*inputs)
                taken.append((name, given))
                return given
            return step

        steps = {name: kept(name, how) for name, how in {**self.right, **recipe}.items()}
        try:
            with np.errstate(all="ignore"):
                self.compute(*(a.copy() for a in args), steps=steps)
        except Exception as error:
            taken.append((RAISED, error))
        return taken

    @cached_property
    def right_results(self) -> dict[str, Result]:
        return self.run({})

    @cached_property
    def fingerprints(self) -> list[tuple[tuple[Slip, ...], dict[str, Result]]]:
        """Every hypothesis with what it gives on every probe (computed once, on first use)."""
        return outcomes(self.slips, lambda recipe: [self.run(recipe)])

    def matching(self, probed: Probed) -> list[tuple[Slip, ...]]:
        """The hypotheses that give what the learner's function gave on every probe."""
        return [slips for slips, results in self.fingerprints
                if all(_agrees(probed.results[name], result, probed.tolerance) for name, result in results.items())]

    def candidates(self, fn: Callable) -> list[tuple[Slip, ...]]:
        """The single slips the learner's function agrees with on every probe, else the pairs (none when it agrees
        with the right computation on every probe: its slip lies where no probe looks)."""
        probed = run_probes(fn, self.probes, self.outputs)
        if all(_agrees(probed.results[name], result, probed.tolerance) for name, result in self.right_results.items()):
            return []
        found = self.matching(probed)
        return next(([slips for slips in found if len(slips) == size] for size in (1, 2)
                     if any(len(slips) == size for slips in found)), [])

    def named(self, fn: Callable) -> tuple[Slip, ...] | None:
        """The only single slip the learner's function agrees with on every probe, else the only pair, else None."""
        found = self.candidates(fn)
        return found[0] if len(found) == 1 else None


def _agrees(learner: Result, hypothesis: Result, tolerance: float) -> bool:
    """Both raised, or the same shapes with the same numbers (nan and inf in the same places)."""
    if learner is None or hypothesis is None:
        return False
    if isinstance(learner, str) or isinstance(hypothesis, str):
        return learner == hypothesis
    return relative_error(learner, hypothesis) <= tolerance
