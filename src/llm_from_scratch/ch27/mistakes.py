"""Chapter 27's mistake library: what an answer would be after each plausible mistake, on the exercise's run.

Every mistake about a head's stages works on an ``Asked``: the run the exercise is about (the worked
example or the second one), the other example, the stage asked for and where in it. Four families:

* a stage confusion: another quantity of the same run at the asked place — S for QKᵀ, A for O, the
  scores for the weights, a transposed matrix, another query's row, the other example's;
* a wrong operation: the head recomputed with one step wrong — no scale, 1/d_k, 1/√T or 1/√d_v, the
  scale after the softmax, the softmax over the queries, the scores normalised as they are, the
  exponentials left unnormalised, the largest score taking all, uniform weights, the keys mixed
  instead of the values, Aᵀ mixing the values, K Qᵀ for Q Kᵀ, QᵀK, Q Qᵀ;
* an order slip: the rows in reverse order, one row reversed;
* a property the chapter's examples might suggest, wrongly (in the exercises about it): a lone token
  attends to nothing; equal keys go to the first.

The backward pass, one stage at a time, has its own: A or V left untransposed, the two gradients of
O = AV swapped, the forward output for a gradient; for S̄, the softmax's rule skipped, its row term left
out or summed over the queries, its factor A left out, the scale applied a step too early.

``book.mistakes.diagnose`` tries them all; one that gives the right answer on an instance is not named there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..book.mistakes import Mistake
from ..engine.closed_form import softmax
from .evidence import HeadRun, causal_mask, masked_softmax


@dataclass(frozen=True)
class Asked:
    """What an exercise asks of a head run: a stage of batch element 0, at ``index`` (() is all of it)."""

    run: HeadRun
    other: HeadRun  # the other example
    stage: str
    index: tuple = ()

    @cached_property
    def right(self) -> dict[str, np.ndarray]:
        return stages(self.run)

    def at(self, matrix: np.ndarray) -> np.ndarray | None:
        """``matrix`` at the asked place; None where it has no such place."""
        try:
            return matrix[self.index]
        except IndexError:
            return None

    def on(self, run_stages: dict[str, np.ndarray]) -> np.ndarray | None:
        return self.at(run_stages[self.stage])

    def confused(self, *others: str) -> list[np.ndarray | None]:
        """The right run's other stages at the asked place: what a stage confusion gives."""
        return [self.at(self.right[name]) for name in others if name != self.stage]


def stages(run: HeadRun) -> dict[str, np.ndarray]:
    """The engine's own stages of batch element 0 of ``run``."""
    head = run.head
    return {"raw": head.raw_scores.data[0], "scaled": head.scaled_scores.data[0], "weights": head.weights.data[0],
            "output": head.output.data[0]}


def _ratio(s: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return s / s.sum(axis=-1, keepdims=True)


def _one_hot(s: np.ndarray) -> np.ndarray:
    return (s == s.max(axis=-1, keepdims=True)).astype(float)


def slipped(run: HeadRun, *, divisor: float | None = None, after: bool = False, axis: int = -1, weigh=softmax,
            mix: str = "value", transpose_weights: bool = False, scores: str = "QKᵀ") -> dict[str, np.ndarray]:
    """The head on batch element 0 of ``run`` with one step done differently (None: as the head does it)."""
    q, k, v = run.query[0], run.key[0], run.value[0]
    raw = {"QKᵀ": q @ k.T, "KQᵀ": k @ q.T}[scores]
    root = math.sqrt(q.shape[1]) if divisor is None else divisor
    scaled = raw if after else raw / root
    with np.errstate(over="ignore", invalid="ignore"):  # a mistake may divide by a row sum of 0: nan, not a warning
        weights = weigh(scaled, axis=axis) if weigh is softmax else weigh(scaled)
        if after:
            weights = weights / root
        output = (weights.T if transpose_weights else weights) @ {"value": v, "key": k}[mix]
    return {"raw": raw, "scaled": scaled, "weights": weights, "output": output}


def _operation(**step) -> callable:
    return lambda asked: asked.on(slipped(asked.run, **step))


def _tokens(asked: Asked) -> int:
    return asked.run.query.shape[1]


HEAD_MISTAKES = (
    # stage confusions
    Mistake("scaled-too-early", "mis.scaled-too-early", lambda a: a.confused("scaled") if a.stage == "raw" else None),
    Mistake("not-normalized", "mis.not-normalized",
            lambda a: a.confused("raw", "scaled") if a.stage == "weights" else None),
    Mistake("weights-for-scores", "mis.weights-for-scores",
            lambda a: a.confused("weights") if a.stage in ("raw", "scaled") else None),
    Mistake("weights-for-output", "mis.weights-for-output",
            lambda a: a.confused("weights") if a.stage == "output" else None),
    Mistake("output-for-weights", "mis.output-for-weights",
            lambda a: a.confused("output") if a.stage in ("raw", "scaled", "weights") else None),
    Mistake("wrong-row", "mis.wrong-row", lambda a: [a.right[a.stage][j] for j in range(_tokens(a))
                                                     if len(a.index) == 1 and j != a.index[0]]),
    Mistake("other-example", "mis.other-example", lambda a: a.at(stages(a.other)[a.stage])),
    Mistake("features-for-positions", "mis.features-for-positions",
            lambda a: (a.run.query[0].T @ a.run.key[0], a.run.key[0].T @ a.run.query[0]) if a.stage == "raw"
            else None),
    Mistake("query-with-query", "mis.query-with-query",
            lambda a: (a.run.query[0] @ a.run.query[0].T, a.run.key[0] @ a.run.key[0].T) if a.stage == "raw"
            else None),
    # wrong operations (where two give the same answer, the one a learner makes more often comes first)
    Mistake("hard-attention", "mis.hard-attention", _operation(weigh=_one_hot)),
    Mistake("uniform-weights", "mis.uniform-weights", _operation(weigh=lambda s: np.full(s.shape, 1 / s.shape[-1]))),
    Mistake("transposed-scores", "mis.transposed-scores", _operation(scores="KQᵀ")),
    Mistake("missing-scale", "mis.missing-scale", _operation(divisor=1.0)),
    Mistake("scale-by-dk", "mis.scale-by-dk", lambda a: a.on(slipped(a.run, divisor=a.run.query.shape[2]))),
    Mistake("scale-by-root-t", "mis.scale-by-root-t", lambda a: a.on(slipped(a.run, divisor=math.sqrt(_tokens(a))))),
    Mistake("scale-by-root-dv", "mis.scale-by-root-dv",
            lambda a: a.on(slipped(a.run, divisor=math.sqrt(a.run.value.shape[2])))),
    Mistake("scale-after-softmax", "mis.scale-after-softmax", _operation(after=True)),
    Mistake("columns-normalized", "mis.columns-normalized", _operation(axis=0)),
    Mistake("no-exponential", "mis.no-exponential", _operation(weigh=_ratio)),
    Mistake("exponentials-not-normalized", "mis.exponentials-not-normalized", _operation(weigh=np.exp)),
    Mistake("mixed-keys", "mis.mixed-keys", _operation(mix="key")),
    Mistake("transposed-weights", "mis.transposed-weights", _operation(transpose_weights=True)),
    # order slips (Aᵀ last: with a symmetric QKᵀ it equals the weights normalized over the queries)
    Mistake("weights-transposed", "mis.weights-transposed",
            lambda a: a.at(a.right["weights"].T) if a.stage == "weights" else None),
    Mistake("rows-swapped", "mis.rows-swapped", lambda a: a.at(a.right[a.stage][::-1]) if not a.index else None),
    Mistake("row-reversed", "mis.row-reversed", lambda a: a.at(a.right[a.stage])[::-1] if len(a.index) == 1 else None),
)


# --- the shape rule: the instance is the shape question's ShapeCase ------------------------------------------

SHAPE_MISTAKES = (
    Mistake("weights-shape-for-output", "mis.weights-shape-for-output", lambda case: np.array(case.weights_shape)),
    Mistake("dk-for-dv", "mis.dk-for-dv", lambda case: np.array(case.query_shape)),
    Mistake("batch-axis-dropped", "mis.batch-axis-dropped", lambda case: np.array(case.output_shape[1:])),
    Mistake("shape-axes-swapped", "mis.shape-axes-swapped",
            lambda case: [np.array(case.output_shape)[list(order)] for order in ((0, 2, 1), (1, 0, 2), (2, 1, 0))]),
)


# --- the head's properties and the review: the instance is the evidence ---------------------------------------

def _lone(ev) -> np.ndarray:
    return np.zeros(1 + ev.single_token.output.size)


SINGLE_TOKEN_MISTAKES = (
    Mistake("lone-token-attends-to-nothing", "mis.lone-token-attends-to-nothing", _lone),
    Mistake("scale-on-values", "mis.scale-on-values",
            lambda ev: np.concatenate([[1.0], ev.single_token.output.ravel() * ev.worked.head.scale])),
)
def _first_key_only(ev) -> tuple[np.ndarray, np.ndarray]:
    """All the weight on the first of the equal keys: one row, or the whole matrix."""
    tokens = ev.identical_keys.weights.shape[-1]
    first = np.eye(tokens)[0]
    return first, np.tile(first, (tokens, 1))


IDENTICAL_KEYS_MISTAKES = (
    Mistake("equal-keys-go-to-first", "mis.equal-keys-go-to-first", _first_key_only),
)
TEMPERATURE_MISTAKES = (
    Mistake("temperature-swapped", "mis.temperature-swapped",
            lambda ev: np.stack([ev.temperature.hot, ev.temperature.cold])),
)


def _causal(ev, keep) -> np.ndarray:
    return masked_softmax(ev.hand.head.scaled_scores.data[0], keep)


def _mask(ev) -> np.ndarray:
    return causal_mask(ev.hand.query.shape[1])


def _width(width: int, ev) -> list[np.ndarray]:
    """A wrong d_k, with the scale that follows from it or with the right scale."""
    return [np.array([width, 1 / math.sqrt(width)]), np.array([width, ev.head_split.scale])]


CAUSAL_MISTAKES = (
    Mistake("mask-keeps-future", "mis.mask-keeps-future", lambda ev: _causal(ev, _mask(ev).T)),
    Mistake("mask-hides-self", "mis.mask-hides-self", lambda ev: _causal(ev, np.tril(_mask(ev), -1))),
    Mistake("mask-not-renormalized", "mis.mask-not-renormalized", lambda ev: ev.hand.weights[0] * _mask(ev)),
    Mistake("mask-ignored", "mis.mask-ignored", lambda ev: ev.hand.weights[0]),
    Mistake("missing-scale", "mis.missing-scale",
            lambda ev: masked_softmax(ev.hand.head.raw_scores.data[0], _mask(ev))),
)
HEAD_WIDTH_MISTAKES = (
    Mistake("dk-is-dmodel", "mis.dk-is-dmodel", lambda ev: _width(ev.head_split.model_width, ev)),
    Mistake("heads-multiply-width", "mis.heads-multiply-width",
            lambda ev: _width(ev.head_split.model_width * ev.head_split.heads, ev)),
    Mistake("scale-without-root", "mis.scale-without-root",
            lambda ev: np.array([ev.head_split.key_width, 1 / ev.head_split.key_width])),
)


# --- the backward pass one stage at a time: the instance is the evidence (its worked example) -------------------

def _backward(ev) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A, V, Ō and O of the worked example's batch element 0."""
    run = ev.worked
    return run.weights[0], run.value[0], run.upstream[0], run.output[0]


def _softmax_backward(ev, row_term_axis: int | None = -1, weighted: bool = True) -> np.ndarray:
    """S̄ from Ā with one slip: the row term summed along another axis or left out, or the factor A left out."""
    weights, grad_weights = _backward(ev)[0], ev.worked_steps.grad_weights
    term = 0.0 if row_term_axis is None else (weights * grad_weights).sum(axis=row_term_axis, keepdims=True)
    return (weights if weighted else 1.0) * (grad_weights - term)


VALUE_GRADIENT_MISTAKES = (
    Mistake("weights-not-transposed", "mis.weights-not-transposed", lambda ev: _backward(ev)[0] @ _backward(ev)[2]),
    Mistake("gradients-swapped", "mis.value-gradient-is-weights-gradient", lambda ev: ev.worked_steps.grad_weights),
    Mistake("output-for-gradient", "mis.output-for-gradient", lambda ev: _backward(ev)[3]),
)
WEIGHT_GRADIENT_MISTAKES = (
    Mistake("values-not-transposed", "mis.values-not-transposed", lambda ev: _backward(ev)[2] @ _backward(ev)[1]),
    Mistake("gradients-swapped", "mis.weights-gradient-is-value-gradient", lambda ev: ev.worked_steps.grad_value),
    Mistake("output-for-gradient", "mis.output-for-gradient", lambda ev: _backward(ev)[3]),
)
SCORE_GRADIENT_MISTAKES = (
    Mistake("softmax-backward-skipped", "mis.softmax-backward-skipped", lambda ev: ev.worked_steps.grad_weights),
    Mistake("row-term-missing", "mis.row-term-missing", lambda ev: _softmax_backward(ev, row_term_axis=None)),
    Mistake("row-term-over-queries", "mis.row-term-over-queries", lambda ev: _softmax_backward(ev, row_term_axis=0)),
    Mistake("weight-factor-missing", "mis.weight-factor-missing", lambda ev: _softmax_backward(ev, weighted=False)),
    Mistake("raw-score-gradient", "mis.raw-score-gradient",
            lambda ev: ev.worked_steps.grad_scores * ev.worked.head.scale),
)
