"""What an answer cell of chapter 27 passes to ``check`` by keyword, and how values that are not the chapter's came
about.

A value's graph is read back (``Tensor.inputs``) to the tensors made from data, the inputs cell's Q, K and V.
Where those are not the chapter's, the inputs changed; where the value is not what the head computes from the
inputs it was made from, a line above computes it otherwise, and the slip search names how (S divided by d_k,
the softmax along the queries…). An input given by itself (Q, K, Ō) can only have changed.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..book.exercises import Given, Phrase, as_array
from ..book.mistakes import diagnose
from ..book.tolerances import FLOAT_NOISE, ROUNDED
from ..engine import Tensor
from .evidence import HeadRun, LearnerEvidence, run_head
from .mistakes import HEAD_MISTAKES, Asked

INPUTS = ("Q", "K", "V")
# a stage's name in the cells -> the stage as the slip search knows it, and the inputs its formula reads in order
STAGES = {"scores": ("raw", ("Q", "K")), "S": ("scaled", ("Q", "K")), "A": ("weights", ("Q", "K")),
          "O": ("output", ("Q", "K", "V"))}


def of_run(run: HeadRun) -> dict[str, np.ndarray]:
    """Every value an answer cell may pass, by its name in the cells, on ``run``."""
    head = run.head
    return {"Q": run.query, "K": run.key, "V": run.value, "O_bar": run.upstream, "scores": head.raw_scores.data,
            "S": head.scaled_scores.data, "A": head.weights.data, "O": head.output.data}


def leaves(value: object) -> list[Tensor]:
    """The tensors of rank 3 made from data that ``value`` was computed from, in the order its formula reads them
    (Q before K before V); none for a value that is no Tensor."""
    if not isinstance(value, Tensor):
        return []
    found, seen, stack = [], set(), [value]
    while stack:
        tensor = stack.pop()
        if id(tensor) in seen:
            continue
        seen.add(id(tensor))
        if tensor.op == "input":
            found += [tensor] if tensor.ndim == 3 else []  # a number a step multiplied by is no input
        else:
            stack.extend(reversed(tensor.inputs))
    return found


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=0.0, atol=FLOAT_NOISE))


def _stage_phrase(name: str, value: np.ndarray, run: HeadRun, other: HeadRun) -> Phrase | None:
    """How ``value``, the stage ``name``, differs from what ``run``'s head gives there: the slip search's name
    for it, or a plain "computed otherwise"; None if it does not differ."""
    stage = STAGES[name][0]
    ours = of_run(run)[name]
    if _same(value, ours):
        return None
    if value.shape == ours.shape:
        found = diagnose(value[0], ours[0], HEAD_MISTAKES, Asked(run, other, stage), 0.0, str)
        if found is not None and not found.correct:
            return Phrase("given.stage_changed", {"name": name, "slip": Phrase(found.key, found.fields)})
    return Phrase("given.stage_unnamed", {"name": name})


def differs(values: Mapping[str, object], ev: LearnerEvidence, run: HeadRun) -> Phrase:
    """How values given for an exercise on ``run`` (the worked example or the second one) differ from its own
    (``differs_from``; the other example is the one whose slips the search also knows)."""
    return differs_from(values, run, ev.hand if run is ev.worked else ev.worked)


def differs_from(values: Mapping[str, object], run: HeadRun, other: HeadRun) -> Phrase:
    """How the given values differ from ``run``'s (``other`` is the other example, whose slips the search knows):
    an input given by itself (Q, Ō), or a stage's (read from its graph: the inputs it was computed from, then the
    stage itself on them)."""
    chapter = of_run(run)
    changed = [name for name, value in values.items() if not _same(as_array(value), chapter[name])]
    inputs = [name for name in changed if name not in STAGES]
    stage = next((_stage_difference(name, values[name], run, other) for name in changed if name in STAGES), None)
    if inputs and stage:
        return Phrase("given.inputs_and_stage", {"inputs": Phrase("given.inputs_changed", {
            "names": ", ".join(inputs)}), "stage": stage})
    return stage or Phrase("given.inputs_changed", {"names": ", ".join(inputs)})


def _stage_difference(name: str, value: object, run: HeadRun, other: HeadRun) -> Phrase:
    """How the stage ``name`` of the learner's cells came to differ from ``run``'s: the inputs its graph reads
    back to, then the stage itself on those inputs."""
    chapter, reads, found = of_run(run), STAGES[name][1], leaves(value)
    if len(found) != len(reads):  # typed in, or made otherwise: only its numbers can be compared
        return Phrase("given.stage_unnamed", {"name": name})
    inputs = {**dict(zip(INPUTS, (run.query, run.key, run.value))), **{n: leaf.data for n, leaf in zip(reads, found)}}
    changed = [n for n in reads if not _same(inputs[n], chapter[n])]
    try:
        theirs = run_head(*(inputs[n] for n in INPUTS)) if changed else run
    except ValueError:  # inputs the head refuses (their shapes): the inputs are what differs
        theirs = None
    stage = _stage_phrase(name, as_array(value), theirs, other) if theirs is not None else None
    if changed and stage:
        return Phrase("given.inputs_and_stage", {"inputs": Phrase("given.inputs_changed", {
            "names": ", ".join(changed)}), "stage": stage})
    return stage or Phrase("given.inputs_changed", {"names": ", ".join(changed)})


def given(*names: str, answer, tolerance: float = ROUNDED) -> Given:
    """The values ``names`` an answer cell passes by keyword, and the right answer for any of them, ``answer(values)``
    (right within ``tolerance``); on the exercise's own inputs they are its example's (its ``instance``)."""
    return Given(names, lambda run: {name: of_run(run)[name] for name in names}, answer, differs, tolerance)


ROLE_STAGES = {"scores": "scores", "scaled": "S", "weights": "A", "output": "O"}  # a heatmap's role -> its stage


def fold_difference(value: object, role: str, run: object, other: HeadRun) -> Phrase:
    """How a fold's tensor, shown in ``role``, differs from the answer on ``run`` (the exercise's example): as
    ``differs_from`` names a stage; for a gradient or another instance, which keep no readable graph, that a cell
    above changed."""
    name = ROLE_STAGES.get(role)
    if name is None or not isinstance(run, HeadRun):
        return Phrase("given.cells_changed")
    return differs_from({name: value}, run, other)

