"""Chapter 27's mistake library: the slips a learner makes, on the exercise's own instance.

Every slip about a head's stages is a ``Step`` of the head's computation as ``Asked`` computes it: the run the
exercise is about (the worked example or the second one), the other example, the variants this learner has
seen, the stage asked for and where in it. The steps, in the order the head takes them:

* the inputs: the other example's, or a variant's the learner has seen;
* the scores: KQᵀ, QK without the transpose, QᵀK, Q Qᵀ, Q ⊙ K, the values for the keys (Q Vᵀ); one sign
  slipped in one product of one dot product;
* the scale: none, 1/d_k, 1/√T or 1/√d_v; applied after the softmax;
* the weighing: the largest score taking all, uniform weights, no exponential, the exponentials left
  unnormalised, log-weights, the softmax skipped, the columns normalised;
* the mixing: the keys mixed instead of the values, Aᵀ mixing the values;
* the stage given: a neighbouring stage for the asked one (S for QKᵀ, the scores for the weights, A for O…);
* the place: another query's row, the rows in reverse order, one row reversed, A transposed.

Two steps of different kinds compose (``book.mistakes.diagnose`` tries every pair, and the book's readings:
percent, a number cut). The review's properties (a lone token, equal keys, the temperature's limits, the causal
mask, the head width) and the backward pass one stage at a time have whole-answer mistakes of their own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..book.mistakes import Mistake, Step
from ..engine.closed_form import softmax
from .evidence import HeadRun, causal_mask, masked_softmax

# a stage given for the asked one: the slip's how -> asked stage -> the stages given instead
CONFUSIONS = {
    "scaled-too-early": {"raw": ("scaled",)},
    "not-normalized": {"weights": ("raw", "scaled")},
    "weights-for-scores": {"raw": ("weights",), "scaled": ("weights",)},
    "weights-for-output": {"output": ("weights",)},
    "output-for-weights": {"raw": ("output",), "scaled": ("output",), "weights": ("output",)},
}


@dataclass(frozen=True, eq=False)
class Asked:
    """What an exercise asks of a head run: a stage of batch element 0, at ``index`` (() is all of it); ``other``
    is the other example, ``seen`` the runs of the variants the learner has seen. Equal, and hashed, by all the
    inputs it computes from."""

    run: HeadRun
    other: HeadRun
    stage: str
    index: tuple = ()
    seen: tuple[HeadRun, ...] = field(default=())

    @cached_property
    def fingerprint(self) -> tuple:
        runs = (self.run, self.other, *self.seen)
        return (self.stage, self.index, *((x.shape, x.tobytes()) for r in runs for x in (r.query, r.key, r.value)))

    def __hash__(self) -> int:
        return hash(self.fingerprint)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Asked) and self.fingerprint == other.fingerprint

    def at(self, matrix: np.ndarray) -> np.ndarray | None:
        """``matrix`` at the asked place; None where it has no such place."""
        try:
            return matrix[self.index]
        except IndexError:
            return None

    def computed(self, recipe: dict) -> list[np.ndarray]:
        """What the head gives at the asked place with the steps of ``recipe`` done otherwise ({}: the right
        answer): one value, several (a slip that can fall in several places) or none (one that cannot apply)."""
        values = []
        for q, k, v in self._inputs(recipe.get("inputs")):
            for raw in _raw(q, k, v, recipe.get("scores"), recipe.get("sign")):
                found = _rest(raw, q, k, v, recipe)
                for given in CONFUSIONS[recipe["stage"]].get(self.stage, ()) if "stage" in recipe else (self.stage,):
                    if given in found:
                        values += self._placed(found[given], recipe.get("place"))
        return [value for value in values if value is not None]

    def _inputs(self, how: str | None) -> list[tuple[np.ndarray, ...]]:
        runs = {None: [self.run], "other": [self.other], "seen": list(self.seen)}[how]
        return [(run.query[0], run.key[0], run.value[0]) for run in runs]

    def _placed(self, matrix: np.ndarray, how: str | None) -> list[np.ndarray | None]:
        if how is None:
            return [self.at(matrix)]
        if how == "wrong-row":
            return [matrix[j] for j in range(len(matrix)) if len(self.index) == 1 and j != self.index[0]]
        if how == "rows-swapped":
            return [matrix[::-1]] if not self.index else []
        if how == "row-reversed":
            return [self.at(matrix)[::-1]] if len(self.index) == 1 and self.at(matrix) is not None else []
        return [self.at(matrix.T)] if self.stage == "weights" and matrix.ndim == 2 else []  # A transposed


def _raw(q: np.ndarray, k: np.ndarray, v: np.ndarray, scores: str | None, sign: bool | None) -> list[np.ndarray]:
    """The scores as the recipe makes them (a slip that yields two matrices, QᵀK and KᵀQ say, gives both)."""
    if sign:
        if scores:
            return []
        raw = q @ k.T
        terms = q[:, None, :] * k[None, :, :]  # terms[i, j, m] = q_i[m] k_j[m]: one of them with its sign slipped
        slipped = []
        for i, j, m in zip(*np.nonzero(terms)):
            changed = raw.copy()
            changed[i, j] -= 2 * terms[i, j, m]
            if not any(np.array_equal(changed, seen) for seen in slipped):
                slipped.append(changed)
        return slipped
    made = {None: lambda: [q @ k.T], "KQᵀ": lambda: [k @ q.T], "QᵀK": lambda: [q.T @ k, k.T @ q],
            "QQᵀ": lambda: [q @ q.T, k @ k.T], "QK": lambda: [q @ k], "Q⊙K": lambda: [q * k],
            "QVᵀ": lambda: [q @ v.T]}[scores]
    try:
        return made()
    except ValueError:  # shapes that do not multiply: the slip cannot be made here
        return []


def _weighed(scaled: np.ndarray, how: str | None) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # a slip may divide by 0: nan, no warning
        return {None: lambda s: softmax(s), "columns": lambda s: softmax(s, axis=0),
                "hard": lambda s: (s == s.max(axis=-1, keepdims=True)).astype(float),
                "uniform": lambda s: np.full(s.shape, 1 / s.shape[-1]),
                "ratio": lambda s: s / s.sum(axis=-1, keepdims=True), "exp": np.exp,
                "log": lambda s: np.log(softmax(s)), "none": lambda s: s}[how](scaled)


def _rest(raw: np.ndarray, q: np.ndarray, k: np.ndarray, v: np.ndarray, recipe: dict) -> dict[str, np.ndarray]:
    """Every stage from the scores on, each as far as the shapes let it go."""
    width, tokens = q.shape[1], q.shape[0]
    root = {None: math.sqrt(width), "1": 1.0, "d_k": width, "√T": math.sqrt(tokens),
            "√d_v": math.sqrt(v.shape[1])}[recipe.get("divisor")]
    after = recipe.get("scale_at") == "after"
    scaled = raw if after else raw / root
    weights = _weighed(scaled, recipe.get("weigh")) / (root if after else 1.0)
    found = {"raw": raw, "scaled": scaled, "weights": weights}
    mixing = weights.T if recipe.get("weights_t") else weights
    mixed = k if recipe.get("mix") == "K" else v
    if mixing.shape[1] == mixed.shape[0]:
        with np.errstate(invalid="ignore", over="ignore"):  # weights a slip left infinite: no output, no warning
            found["output"] = mixing @ mixed
    return found


def _step(misconception: str, step: str, how: object = True) -> Step:
    return Step(misconception, f"mis.{misconception}", step, how)


HEAD_MISTAKES = (  # where two give the same answer, the one a learner makes more often comes first
    # a stage given for the asked one, or given at another place
    *(_step(name, "stage", name) for name in CONFUSIONS),
    _step("wrong-row", "place", "wrong-row"),
    # other inputs
    _step("other-example", "inputs", "other"),
    _step("other-variant", "inputs", "seen"),
    # the weighing, the scores, the scale and the mixing, as learners slip most
    _step("hard-attention", "weigh", "hard"),
    _step("uniform-weights", "weigh", "uniform"),
    _step("transposed-scores", "scores", "KQᵀ"),
    _step("missing-scale", "divisor", "1"),
    _step("scale-by-dk", "divisor", "d_k"),
    _step("scale-by-root-t", "divisor", "√T"),
    _step("scale-by-root-dv", "divisor", "√d_v"),
    _step("scale-after-softmax", "scale_at", "after"),
    _step("columns-normalized", "weigh", "columns"),
    _step("no-exponential", "weigh", "ratio"),
    _step("exponentials-not-normalized", "weigh", "exp"),
    _step("log-weights", "weigh", "log"),
    _step("softmax-skipped", "weigh", "none"),
    _step("mixed-keys", "mix", "K"),
    _step("transposed-weights", "weights_t"),
    # order slips (A transposed after the columns normalized: with a symmetric QKᵀ the two are equal)
    _step("weights-transposed", "place", "transposed"),
    _step("rows-swapped", "place", "rows-swapped"),
    _step("row-reversed", "place", "row-reversed"),
    # rarer products for the scores
    _step("scores-not-transposed", "scores", "QK"),
    _step("features-for-positions", "scores", "QᵀK"),
    _step("query-with-query", "scores", "QQᵀ"),
    _step("elementwise-scores", "scores", "Q⊙K"),
    _step("values-for-keys", "scores", "QVᵀ"),
    # a slip of the pencil, last: where another slip explains an answer as well, that one is named
    _step("sign-slipped", "sign"),
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
    Mistake("temperature-ignored", "mis.temperature-ignored",
            lambda ev: np.tile(softmax(np.array(ev.temperature.scores)), (2, 1))),
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
    Mistake("mask-zeroes-scores", "mis.mask-zeroes-scores",
            lambda ev: softmax(np.where(_mask(ev), ev.hand.head.scaled_scores.data[0], 0.0))),
    Mistake("missing-scale", "mis.missing-scale",
            lambda ev: masked_softmax(ev.hand.head.raw_scores.data[0], _mask(ev))),
)
HEAD_WIDTH_MISTAKES = (
    Mistake("dk-is-dmodel", "mis.dk-is-dmodel", lambda ev: _width(ev.head_split.model_width, ev)),
    Mistake("heads-multiply-width", "mis.heads-multiply-width",
            lambda ev: _width(ev.head_split.model_width * ev.head_split.heads, ev)),
    Mistake("scale-without-root", "mis.scale-without-root",
            lambda ev: np.array([ev.head_split.key_width, 1 / ev.head_split.key_width])),
    Mistake("root-for-scale", "mis.root-for-scale",
            lambda ev: np.array([ev.head_split.key_width, math.sqrt(ev.head_split.key_width)])),
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
