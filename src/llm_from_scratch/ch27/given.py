"""What an answer cell of chapter 27 passes to ``check`` by keyword, and how values that are not the chapter's came
about, said through the reader (``ch27.reader``) and only as far as numbers prove it: the inputs that changed (by
the cells' names), the formula the cells computed, and either that on those inputs it is the head's stage or where
it departs (a divisor or a chain of numbers in all, the softmax's axis, a part transposed, the head's other stage); a
gradient compared with the head's on the inputs the cells named (n times it: backward ran n times). An answer whose
very numbers are a view of the learner's own changed values is said to be theirs, never a slip (``answer_source``).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..book.formatting import trimmed
from ..book.tolerances import FLOAT_NOISE, ROUNDED
from ..book.verdicts import Given, Phrase, as_array
from ..engine import Tensor
from .evidence import HeadRun, LearnerEvidence
from .figures import role_named
from .reader import Inputs, Reading, factor, notebook_namespace, numbers, parts, read, same, softmax_step
from .stages import BY_CELL, BY_NAME, BY_ROLE

# what a softmax runs over, by its axis in a [B, T, T] tensor
AXIS_WORDS = {0: "read.axis_batch", 1: "read.axis_queries", 2: "read.axis_keys"}


def of_run(run: HeadRun) -> dict[str, np.ndarray]:
    """Every value an answer cell may pass, by its name in the cells, on ``run``."""
    head = run.head
    return {"Q": run.query, "K": run.key, "V": run.value, "O_bar": run.upstream, "scores": head.raw_scores.data,
            "S": head.scaled_scores.data, "A": head.weights.data, "O": head.output.data}


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=0.0, atol=FLOAT_NOISE))


def _joined(phrases: list[Phrase], key: str = "given.two") -> Phrase:
    """Phrases said one after another, as one (``key``: how two are joined)."""
    joined = phrases[0]
    for phrase in phrases[1:]:
        joined = Phrase(key, {"first": joined, "second": phrase})
    return joined


def _stage_words(stage: str) -> Phrase:
    return Phrase(BY_NAME[stage].words)


def _stage_difference(name: str, value: object, run: HeadRun) -> Phrase:
    """How the stage ``name`` (scores, S, A or O) of the learner's cells came to differ from ``run``'s, each sentence
    checked on numbers (``reader``): the inputs its graph reads that are not ``run``'s, the formula it computes, and
    either that on those inputs it is the head's stage, or where it departs from the head."""
    stage = BY_CELL[name].name
    reading = read(value, known={"Q": run.query, "K": run.key, "V": run.value})
    said = []
    own = reading.inputs[0] if reading.own else None
    if own is not None:
        ours = {"Q": own.query, "K": own.key, "V": own.value}
        changed = [own.called.get(n, n) for n in BY_CELL[name].reads
                   if ours[n] is not None and not _same(ours[n], of_run(run)[n])]
        said += [Phrase("given.inputs_changed", {"names": ", ".join(changed)})] if changed else []
    if reading.formula is None:
        if own is not None and own.equals(value, stage):
            return _joined(said + [Phrase("read.heads_on_inputs", {"stage": _stage_words(stage)})])
        return _joined(said + [Phrase("read.outside", {"name": name})])
    said.append(Phrase("read.formula", {"name": name, "formula": reading.formula}))
    if reading.equals(stage):
        return _joined(said + [Phrase("read.heads_on_inputs", {"stage": _stage_words(stage)})])
    return _joined(said + departure(value, stage, reading))


def departure(value: Tensor, stage: str, reading: Reading) -> list[Phrase]:
    """Where ``value``, read as the stage ``stage`` and not that stage, departs from the head, each part checked on
    the numbers: the weights' softmax along another axis, or of other scaled scores; the output's weights; a divisor
    or a chain of numbers on the raw scores, or none; the head's other stage; else the last part of it that is a
    stage of the head (maybe transposed), or none."""
    candidates = reading.inputs
    softmax = softmax_step(value)
    if stage == "probabilities" and softmax is not None:
        axis, argument = softmax
        if axis != value.ndim - 1:
            if any(i.equals(argument, "scaled-scores") for i in candidates):
                return [Phrase("read.axis", {"axis": axis, "what": Phrase(AXIS_WORDS.get(axis, "read.axis_other")),
                                             "keys": value.ndim - 1})]
        else:
            return departure(argument, "scaled-scores", reading)
    if stage == "value-mixture" and value.op == "matmul" and softmax_step(value.inputs[0]) is not None:
        return departure(value.inputs[0], "probabilities", reading)
    if stage == "scaled-scores":
        found = _scale_difference(value, candidates)
        if found:
            return found
    other = next((found for found in (i.stage(value) for i in candidates) if found), None)
    if other is not None:
        return [Phrase("read.other_stage", {"stage": _stage_words(other), "asked": _stage_words(stage)})]
    for node in [value, *parts(value)]:  # itself transposed, then its parts, nearest first
        for inputs in candidates:
            found = inputs.match(node)
            if found is not None and found.batch is None:
                key = "read.part_transposed" if found.transposed else "read.part"
                return [Phrase(key, {"part": reading.written(node), "stage": _stage_words(found.stage)})]
    return [Phrase("read.no_part")]


def _scale_difference(value: Tensor, candidates: tuple[Inputs, ...]) -> list[Phrase]:
    """Scaled scores that are the head's raw scores divided by one number, multiplied by a chain of them, or left
    as they are, said with the head's scale on the same inputs; [] for any other."""
    total, base = factor(value)
    for inputs in candidates:
        run = inputs.run
        if run is None or not inputs.equals(base, "raw-scores"):
            continue
        root, scale = 1 / run.head.scale, run.head.scale
        if base is value:
            return [Phrase("read.unscaled", {"root": trimmed(root, 4)})]
        if value.op == "div" and "divisor" in value.params and value.inputs[0] is base:
            return [Phrase("read.divided", {"divisor": trimmed(value.params["divisor"], 4), "root": trimmed(root, 4)})]
        return [Phrase("read.in_all", {"factor": trimmed(total, 4), "scale": trimmed(scale, 4)})]
    return []


def differs(values: Mapping[str, object], ev: LearnerEvidence, run: HeadRun) -> Phrase:
    """How values given for an exercise on ``run`` (the worked example or the second one) differ from its own: an
    input given by itself (Q, Ō), and the first stage given that differs, read from its graph; a gradient read from
    the cells (S2.grad) compared with the head's on the inputs they named."""
    gradients = [name for name in values if name.endswith(".grad")]
    if gradients:
        return _gradient_difference(values[gradients[0]], GRADIENTS[gradients[0][:1]], run)
    chapter = of_run(run)
    changed = [name for name, value in values.items() if not _same(as_array(value), chapter[name])]
    inputs = [name for name in changed if name not in BY_CELL]
    stage = next((_stage_difference(name, values[name], run) for name in changed if name in BY_CELL), None)
    said = ([Phrase("given.inputs_changed", {"names": ", ".join(inputs)})] if inputs else []) + (
        [stage] if stage else [])
    return _joined(said or [Phrase("read.numbers_differ", {"names": ", ".join(values)})])


def given(*names: str, answer, tolerance: float = ROUNDED) -> Given:
    """The values ``names`` an answer cell passes by keyword, and the right answer for any of them, ``answer(values)``
    (right within ``tolerance``); on the exercise's own inputs they are its example's (its ``example``)."""
    return Given(names, lambda run: {name: of_run(run)[name] for name in names}, answer, differs, tolerance)


def cells_differ(example: object) -> tuple[str, ...]:
    """The cells' Q, K and V that stand where ``example``'s inputs do but hold other numbers: for each of its queries,
    keys and values that no tensor of the notebook holds, the cells' tensor of that name, where it has the same
    shape. What a check judged on the example says (``ExerciseBook(cells_differ=…)``); nothing where the cells hold
    every input of the example (05's K_same beside K), or no Q, K or V of its shape (another example: 10's Q2 is
    no edit of its Q3), so that the note is never said of an example the cells merely have not made yet."""
    if not isinstance(example, HeadRun):
        return ()
    namespace = notebook_namespace()
    held = [numbers(v) for v in namespace.values() if isinstance(v, (Tensor, np.ndarray)) and np.ndim(v) == 3]
    mine = {letter: numbers(namespace[letter]) for letter in "QKV"
            if isinstance(namespace.get(letter), (Tensor, np.ndarray))}
    return tuple(letter for letter, its in zip("QKV", (example.query, example.key, example.value))
                 if letter in mine and mine[letter].shape == its.shape and not any(same(h, its) for h in held))


def answer_source(answer: object, run: object) -> tuple[str, Phrase] | None:
    """Where an answer's very numbers came from, for the book's judge (``ExerciseBook(read_from=…)``): the names of
    the learner's values it is a view of and how they differ from ``run``'s; None where it is none of theirs."""
    values = read_from(answer, run)
    return (", ".join(values), differs(values, None, run)) if values else None


# the gradient a tensor's .grad holds, by the letter the cells name it with (S2.grad: the scores' gradient)
GRADIENTS = {"Q": "query-gradient", "K": "key-gradient", "V": "value-gradient", "A": "weight-gradient",
             "S": "score-gradient"}


def read_from(answer: object, run: object) -> dict[str, object]:
    """The stage of the cells whose very numbers ``answer`` is a view of (scores, S, A or O as the notebook names
    them, or a gradient: S2.grad), where they are not ``run``'s: {} for an answer typed in, computed anew, or read
    from the chapter's values."""
    base = _base(answer) if isinstance(answer, np.ndarray) else None
    if base is None or base is answer or not isinstance(run, HeadRun):
        return {}
    for name, value in notebook_namespace().items():
        if not isinstance(value, Tensor):
            continue
        if name in BY_CELL and _base(value.data) is base:
            return {} if _same(value.data, of_run(run)[name]) else {name: value}
        if value.grad is not None and _base(value.grad) is base and name[:1] in GRADIENTS:
            chapter = dict(Inputs(run.query, run.key, run.value, run.upstream).stages()).get(GRADIENTS[name[:1]])
            same_numbers = chapter is not None and _same(value.grad, chapter)
            return {} if same_numbers else {f"{name}.grad": value.grad}
    return {}


def _base(array: np.ndarray) -> np.ndarray:
    while array.base is not None and isinstance(array.base, np.ndarray):
        array = array.base
    return array


def fold_difference(shown: list[tuple[object, str]], run: object) -> Phrase:
    """How a fold's tensors (each with its role) differ from the answer on ``run`` (the exercise's example): the
    first whose numbers are not ``run``'s stage for its role, explained as ``differs`` explains a stage (a gradient
    compared with the head's on the inputs the cells named: a whole multiple of it is backward run that many
    times), after those before it that are still the chapter's; else that a cell above changed."""
    if not isinstance(run, HeadRun):
        return Phrase("given.cells_changed")
    unchanged = []
    for value, role in shown:
        stage = BY_ROLE.get(role_named(role)) if role else None
        chapter = dict(Inputs(run.query, run.key, run.value, run.upstream).stages()).get(stage.name) if stage else None
        if chapter is None or numbers(value).shape != chapter.shape:
            continue
        if same(numbers(value), chapter):
            unchanged.append(_stage_words(stage.name))
            continue
        said = [Phrase("read.unchanged", {"stages": _joined(unchanged, "read.list")})] if unchanged else []
        if stage.cell is not None:
            return _joined(said + [_stage_difference(stage.cell, value, run)])
        return _joined(said + [_gradient_difference(value, stage.name, run)])
    return Phrase("given.cells_changed")


def _gradient_difference(value: object, stage: str, run: HeadRun) -> Phrase:
    """A gradient's numbers against the head's on each set of inputs the cells named: the inputs that differ from
    ``run``'s, and whether it is the head's on them or a whole multiple of it."""
    data = numbers(value)
    for inputs in read(value).inputs:
        ours = {"Q": inputs.query, "K": inputs.key, "V": inputs.value, "O_bar": inputs.upstream}
        chapter = {"Q": run.query, "K": run.key, "V": run.value, "O_bar": run.upstream}
        if any(array is None for array in ours.values()):
            continue
        changed = [inputs.called.get(n, n) for n in ours if not _same(ours[n], chapter[n])]
        said = [Phrase("given.inputs_changed", {"names": ", ".join(changed)})] if changed else []
        head = dict(inputs.stages()).get(stage)
        if head is None or head.shape != data.shape:
            continue
        if same(data, head):
            return _joined(said + [Phrase("read.heads_on_inputs", {"stage": _stage_words(stage)})])
        times = _multiple(data, head)
        if times is not None:
            return _joined(said + [Phrase("read.accumulated", {"times": times})])
    return Phrase("given.cells_changed")


def _multiple(data: np.ndarray, head: np.ndarray) -> int | None:
    """The whole number k ≥ 2 with data = k · head (head not all 0), else None."""
    largest = float(np.abs(head).max(initial=0.0))
    if largest <= FLOAT_NOISE:
        return None
    k = float(np.abs(data).max()) / largest
    whole = round(k)
    return whole if whole >= 2 and same(data, whole * head) else None
