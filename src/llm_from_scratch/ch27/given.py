"""What an answer cell of chapter 27 passes to ``check`` by keyword, and how values that are not the chapter's came
about.

A value's graph is read back (``Tensor.inputs``, ``Tensor.params``) from the stage given to the tensors made from
data, the inputs cell's Q, K and V. What it recorded is said where the head does otherwise: an input that is not
the chapter's, Q and K in each other's place, a divisor or factor other than √d_k's, the softmax along another
axis. A value whose graph says nothing of the kind (typed in, or made another way) is only said to be computed
otherwise. An input given by itself (Q, K, Ō) can only have changed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from ..book.formatting import trimmed
from ..book.tolerances import FLOAT_NOISE, ROUNDED
from ..book.verdicts import Given, Phrase, as_array
from ..engine import Tensor
from .evidence import HeadRun, LearnerEvidence, run_head
from .figures import role_named
from .graph import factor_of, is_scores
from .stages import BY_CELL, BY_ROLE

INPUTS = ("Q", "K", "V")
KEY_AXES = (2, -1)  # the head's softmax runs along the keys


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


def recorded(name: str, value: object, run: HeadRun) -> list[Phrase]:
    """What ``value``'s graph (the stage ``name``: scores, S or A) records that ``run``'s head does otherwise, read
    from the value back to the scores: the softmax's axis, the divisor or factor, Q and K in each other's place."""
    said: list[Phrase] = []
    tensor = value
    if name == "A":
        if not isinstance(tensor, Tensor) or tensor.op != "softmax":
            return said
        if tensor.params["axis"] not in KEY_AXES:
            said.append(Phrase("graph.axis", {"axis": tensor.params["axis"]}))
        tensor, name = tensor.inputs[0], "S"
    if name == "S":
        factor = factor_of(tensor)
        if isinstance(tensor, Tensor) and tensor.op == "div" and "divisor" in tensor.params:
            root = _root(tensor.inputs[0], run)
            if abs(tensor.params["divisor"] - root) > FLOAT_NOISE:
                said.append(Phrase("graph.divisor", {"divisor": trimmed(tensor.params["divisor"], 4),
                                                     "root": trimmed(root, 4)}))
            tensor = tensor.inputs[0]
        elif factor is not None:
            root = _root(factor[1], run)
            if abs(factor[0] - 1 / root) > FLOAT_NOISE:
                said.append(Phrase("graph.factor", {"factor": trimmed(factor[0], 4), "scale": trimmed(1 / root, 4)}))
            tensor = factor[1]
        elif isinstance(tensor, Tensor) and tensor.op == "matmul":
            said.append(Phrase("graph.no_scale", {"root": trimmed(_root(tensor, run), 4)}))
        else:
            return said
        name = "scores"
    if name == "scores" and isinstance(tensor, Tensor) and tensor.op == "matmul" and tensor.inputs[1].op == "transpose":
        first, second = tensor.inputs[0].data, tensor.inputs[1].inputs[0].data
        if _same(first, run.key) and _same(second, run.query) and not _same(run.query, run.key):
            said.append(Phrase("graph.swapped"))
    return said


def _root(scores: object, run: HeadRun) -> float:
    """√d_k of the queries ``scores`` were computed from (the cells' own width), or of ``run``'s where the graph
    does not say."""
    return math.sqrt(scores.inputs[0].shape[-1] if is_scores(scores) else run.query.shape[-1])


def _joined(phrases: list[Phrase]) -> Phrase:
    """Phrases said one after another, as one."""
    joined = phrases[0]
    for phrase in phrases[1:]:
        joined = Phrase("given.two", {"first": joined, "second": phrase})
    return joined


def _stage_difference(name: str, value: object, run: HeadRun) -> Phrase:
    """How the stage ``name`` of the learner's cells came to differ from ``run``'s: the inputs its graph reads back
    to (Q and K in each other's place are no new inputs), then what its steps record."""
    reads, found = BY_CELL[name].reads, leaves(value)
    chapter = of_run(run)
    if len(found) != len(reads):  # typed in, or made otherwise: only its numbers can be compared
        return _joined(recorded(name, value, run) or [Phrase("given.stage_unnamed", {"name": name})])
    inputs = {**dict(zip(INPUTS, (run.query, run.key, run.value))), **{n: leaf.data for n, leaf in zip(reads, found)}}
    changed = [n for n in reads if not _same(inputs[n], chapter[n])]
    if changed and _same(inputs["Q"], chapter["K"]) and _same(inputs["K"], chapter["Q"]):
        changed = []  # the chapter's Q and K, each in the other's place: the graph says so below
    said = [Phrase("given.inputs_changed", {"names": ", ".join(changed)})] if changed else []
    steps = recorded(name, value, run)
    if not steps:
        try:
            theirs = run_head(*(inputs[n] for n in INPUTS)) if changed else run
        except ValueError:  # inputs the head refuses (their shapes): the inputs are what differs
            theirs = None
        if theirs is not None and not _same(as_array(value), of_run(theirs)[name]):
            steps = [Phrase("given.stage_unnamed", {"name": name})]
    return _joined(said + steps or [Phrase("given.stage_unnamed", {"name": name})])


def differs(values: Mapping[str, object], ev: LearnerEvidence, run: HeadRun) -> Phrase:
    """How values given for an exercise on ``run`` (the worked example or the second one) differ from its own: an
    input given by itself (Q, Ō), and the first stage given that differs, read from its graph."""
    chapter = of_run(run)
    changed = [name for name, value in values.items() if not _same(as_array(value), chapter[name])]
    inputs = [name for name in changed if name not in BY_CELL]
    stage = next((_stage_difference(name, values[name], run) for name in changed if name in BY_CELL), None)
    said = ([Phrase("given.inputs_changed", {"names": ", ".join(inputs)})] if inputs else []) + (
        [stage] if stage else [])
    return _joined(said or [Phrase("given.stage_unnamed", {"name": ", ".join(values)})])


def given(*names: str, answer, tolerance: float = ROUNDED) -> Given:
    """The values ``names`` an answer cell passes by keyword, and the right answer for any of them, ``answer(values)``
    (right within ``tolerance``); on the exercise's own inputs they are its example's (its ``example``)."""
    return Given(names, lambda run: {name: of_run(run)[name] for name in names}, answer, differs, tolerance)


def fold_difference(value: object, role: str, run: object) -> Phrase:
    """How a fold's tensor, shown in ``role``, differs from the answer on ``run`` (the exercise's example), read from
    its graph as ``differs`` reads a stage; for a gradient or another example, which keep no graph to read, that a
    cell above changed."""
    stage = BY_ROLE.get(role_named(role))
    if stage is None or stage.cell is None or not isinstance(run, HeadRun):
        return Phrase("given.cells_changed")
    return _stage_difference(stage.cell, value, run)
