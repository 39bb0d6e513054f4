"""The head's stages in one table, keyed by the engine's (``engine.attention.STAGES``, in forward order), and the
backward's after them: what a stage is called in the cells and in a figure, the inputs its formula reads, its
words, and the finer steps a learner takes in it, with a pencil or in numpy.

Every part of the chapter that names a stage or a step names it from here: the figures (``show`` takes a stage's
name for its role), the given values (a cell's name and what it reads), the sections (a stage's words), the
mistake library (the steps a pencil slips in) and the code slips (the steps a function is written in). Tests check
that no other name is used. The role names the cells use (``show(A, "weights")``, ``show(S, "scaled")``) stay
what they are: a stage's role, or an alias of one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..book.tolerances import FLOAT_NOISE


@dataclass(frozen=True)
class Stage:
    """One stage: ``cell`` its name in the answer cells (None if no cell passes it), ``role`` the figure role that
    draws it, ``reads`` the inputs its formula reads, ``words`` the catalogue key of its name, ``steps`` its finer
    steps in the order they are taken."""

    name: str
    cell: str | None
    role: str | None
    reads: tuple[str, ...]
    words: str | None
    steps: tuple[str, ...]


FORWARD = (
    # the inputs read, a slip of the pencil in one product, the products taken
    Stage("raw-scores", "scores", "raw-scores", ("Q", "K"), "stage.raw-scores", ("inputs", "pencil", "scores")),
    # the width taken for d_k, the divisor made of it, and where it is applied
    Stage("scaled-scores", "S", "scaled-scores", ("Q", "K"), "stage.scaled-scores", ("width", "scale", "scale-at")),
    # the axis of the softmax, each row's maximum subtracted, the exponential
    Stage("row-log-softmax", None, None, ("Q", "K"), "stage.row-log-softmax", ("axis", "shift", "exp")),
    # each row divided by its sum ("weigh": the whole softmax, as a pencil does it otherwise)
    Stage("probabilities", "A", "weights", ("Q", "K"), "stage.probabilities", ("normalise", "weigh")),
    # the weights, as they are or transposed, times the values
    Stage("value-mixture", "O", "output", ("Q", "K", "V"), "stage.value-mixture", ("weights-transposed", "mix")),
)
BACKWARD = (
    Stage("value-gradient", None, "grad-value", ("Q", "K", "V"), "stage.value-gradient", ("value-gradient",)),
    Stage("weight-gradient", None, "grad-weights", ("Q", "K", "V"), "stage.weight-gradient", ("weight-gradient",)),
    Stage("score-gradient", None, "grad-scores", ("Q", "K", "V"), "stage.score-gradient",
          ("row-term", "score-gradient")),
    Stage("query-gradient", None, "grad-query", ("Q", "K", "V"), "stage.query-gradient",
          ("query-gradient", "query-scale")),
    Stage("key-gradient", None, "grad-key", ("Q", "K", "V"), "stage.key-gradient", ("key-gradient", "key-scale")),
)
# How an answer is handed in rather than computed: a neighbouring stage for the asked one, another place in it,
# its entries in another order, a function's outputs in another order.
HANDING_IN = ("stage", "place", "order", "result")

BY_NAME = {stage.name: stage for stage in (*FORWARD, *BACKWARD)}
BY_CELL = {stage.cell: stage for stage in FORWARD if stage.cell}
BY_ROLE = {stage.role: stage for stage in (*FORWARD, *BACKWARD) if stage.role}
STEPS = tuple(step for stage in (*FORWARD, *BACKWARD) for step in stage.steps)


@dataclass(frozen=True)
class Stages:
    """The head's two choices a cell can change: the number the scores are divided by, and the softmax's axis."""

    divisor: float
    axis: int = 2

    def are_the_chapters(self, key_width: int) -> bool:
        return self.axis == 2 and abs(self.divisor - math.sqrt(key_width)) <= FLOAT_NOISE
