"""Chapter 27's mistake library: the slips a learner makes, on the exercise's own instance.

Every slip about a head's stages changes a step of the head's computation as ``Asked`` computes it: the run the
exercise is about (the worked example or the second one), the other example, the variants this learner has
seen, the stage asked for and where in it. The steps, in the order the head takes them:

* the inputs: the other example's, a variant's the learner has seen, or one entry misread (a sign of Q or K,
  two rows of V in each other's place);
* the scores: KQᵀ, QK without the transpose, QᵀK, QQᵀ, Q ⊙ K, the values for the keys (QVᵀ), cosines,
  the sums multiplied; a slip of the pencil in one dot product (a sign, a term left out);
* the scale: none, 1/d_k, the other example's, 1/√T, 1/√d_v, √d_k multiplied; applied after the softmax;
* the weighing: the largest score taking all, uniform weights, no exponential, the exponentials left
  unnormalised or divided by the largest, log-weights, the softmax skipped, e taken as 3, a sigmoid, the
  columns or the whole matrix normalised, the weights rounded to one decimal on the way;
* the mixing: the keys mixed instead of the values, Aᵀ mixing the values;
* the stage given: a neighbouring stage for the asked one (S for QKᵀ, the exponentials, the scores for the
  weights, A for O…);
* the place and the order: another query's row, rows swapped or in reverse order, A or the result transposed;
  one row reversed.

Two steps of different kinds compose (``book.mistakes.diagnose`` tries every pair, and the book's readings:
percent, a number cut or rounded coarsely, one sign lost, every sign flipped). The review's properties (a lone
token, equal keys, the temperature's limits, the causal mask, the head width) and the backward pass one stage
at a time have whole-answer mistakes of their own.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..book.slips import ANSWER, Slip
from ..engine.closed_form import array_softmax
from .evidence import HeadRun, causal_mask, masked_softmax
from .stages import HANDING_IN

# a stage given for the asked one: the slip's how -> asked stage -> the stages given instead (the stages are
# ch27.stages's; "exp-raw-scores" and "exp-scaled-scores" are the exponentials of the scores, which a learner may
# hand in for them)
CONFUSIONS = {
    "scaled-too-early": {"raw-scores": ("scaled-scores",)},
    "not-normalized": {"probabilities": ("raw-scores", "scaled-scores")},
    "weights-for-scores": {"raw-scores": ("probabilities",), "scaled-scores": ("probabilities",)},
    "weights-for-output": {"value-mixture": ("probabilities",)},
    "output-for-weights": {"raw-scores": ("value-mixture",), "scaled-scores": ("value-mixture",),
                           "probabilities": ("value-mixture",)},
    "exponentials-for-scores": {"raw-scores": ("exp-raw-scores",), "scaled-scores": ("exp-scaled-scores",)},
}


# the steps of a recipe that change what the head makes (ch27.stages's, in the order the head takes them); the
# others (stages.HANDING_IN) pick a stage, a place or an order from what they made
MAKING = ("inputs", "pencil", "scores", "scale", "scale-at", "weigh", "weights-transposed", "mix")


@dataclass(frozen=True, eq=False)
class Asked:
    """What an exercise asks of a head run: a stage (by its name in ch27.stages) of batch element 0, at ``index``
    (() is all of it); ``other`` is the other example, ``seen`` the runs of the variants the learner has seen.
    Equal, and hashed, by all the inputs it computes from."""

    run: HeadRun
    other: HeadRun
    stage: str
    index: tuple = ()
    seen: tuple[HeadRun, ...] = field(default=())
    _made: dict = field(default_factory=dict, init=False, repr=False)  # see _stages

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
        answer): one value, several (a slip that can fall in several places) or none (one that cannot apply). A
        step it does not compute is refused, so a new slip cannot pass unnoticed as the right answer."""
        unknown = set(recipe) - set(MAKING) - set(HANDING_IN)
        if unknown:
            raise ValueError(f"Asked computes the steps {MAKING} and picks by {HANDING_IN}; not {sorted(unknown)}: "
                             "a new step needs its place in Asked._stages or _rest")
        values = []
        for found in self._stages(tuple(recipe.get(step) for step in MAKING)):
            for given in CONFUSIONS[recipe["stage"]].get(self.stage, ()) if "stage" in recipe else (self.stage,):
                if given in found:
                    values += [self._reversed(placed) if recipe.get("order") else placed
                               for placed in self._placed(found[given], recipe.get("place"))]
        return [value for value in values if value is not None]

    def _stages(self, making: tuple) -> list[dict[str, np.ndarray]]:
        """Every stage the head makes with the steps ``making`` (the recipe's values of MAKING) done otherwise, once
        per instance: the slips of the stage given, the place and the order only pick from them."""
        if making not in self._made:
            inputs, pencil, scores = making[:3]
            recipe = {step: how for step, how in zip(MAKING, making) if how is not None}
            self._made[making] = [
                found for q, k, v in (read for given in self._inputs(inputs) for read in _misread(
                    *given, pencil == "misread"))
                for raw in _raw(q, k, v, scores, pencil if pencil != "misread" else None)
                for found in _rest(raw, q, k, v, recipe, self.other.query.shape[2])]
        return self._made[making]

    def _inputs(self, how: str | None) -> list[tuple[np.ndarray, ...]]:
        runs = {None: [self.run], "other": [self.other], "seen": list(self.seen)}[how]
        return [(run.query[0], run.key[0], run.value[0]) for run in runs]

    def _reversed(self, row: np.ndarray | None) -> np.ndarray | None:
        """One row asked for, its entries in reverse order (None for any other question)."""
        return row[::-1] if len(self.index) == 1 and row is not None and row.ndim == 1 else None

    def _placed(self, matrix: np.ndarray, how: str | None) -> list[np.ndarray | None]:
        if how is None:
            return [self.at(matrix)]
        if how == "wrong-row":
            return [matrix[j] for j in range(len(matrix)) if len(self.index) == 1 and j != self.index[0]]
        if how == "rows-swapped":  # all in reverse order, or two of them swapped
            orders = [list(range(len(matrix)))[::-1]]
            for i, j in itertools.combinations(range(len(matrix)), 2):
                order = list(range(len(matrix)))
                order[i], order[j] = j, i
                orders.append(order)
            return [matrix[order] for order in orders] if not self.index and matrix.ndim == 2 else []
        if how == "result-transposed":
            return [matrix.T] if not self.index and self.stage != "probabilities" and matrix.ndim == 2 else []
        return [self.at(matrix.T)] if self.stage == "probabilities" and matrix.ndim == 2 else []  # A transposed


def _pencil(q: np.ndarray, k: np.ndarray, how: str) -> list[np.ndarray]:
    """QKᵀ with one slip of the pencil in one dot product: a term's sign flipped or the product's sign lost
    ("sign"), or a term left out ("term")."""
    raw = q @ k.T
    terms = q[:, None, :] * k[None, :, :]  # terms[i, j, m] = q_i[m] k_j[m]
    changes = [(i, j, (2 if how == "sign" else 1) * terms[i, j, m]) for i, j, m in zip(*np.nonzero(terms))]
    if how == "sign":
        changes += [(i, j, 2 * raw[i, j]) for i, j in zip(*np.nonzero(raw))]
    slipped: list[np.ndarray] = []
    for i, j, change in changes:
        made = raw.copy()
        made[i, j] -= change
        if not any(np.array_equal(made, seen) for seen in slipped):
            slipped.append(made)
    return slipped


def _misread(q: np.ndarray, k: np.ndarray, v: np.ndarray, misread: bool) -> list[tuple[np.ndarray, ...]]:
    """The inputs as read: as they are, or with one entry of Q or K read with the other sign, or two rows of V
    read in each other's place."""
    if not misread:
        return [(q, k, v)]
    read = []
    for which, matrix in ((0, q), (1, k)):
        for i, j in zip(*np.nonzero(matrix)):
            flipped = matrix.copy()
            flipped[i, j] = -flipped[i, j]
            read.append((flipped, k, v) if which == 0 else (q, flipped, v))
    for i, j in itertools.combinations(range(len(v)), 2):
        swapped = v.copy()
        swapped[[i, j]] = v[[j, i]]
        read.append((q, k, swapped))
    return read


def _cosines(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    lengths = np.outer(np.linalg.norm(q, axis=1), np.linalg.norm(k, axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return q @ k.T / lengths


def _raw(q: np.ndarray, k: np.ndarray, v: np.ndarray, scores: str | None, pencil: str | None) -> list[np.ndarray]:
    """The scores as the recipe makes them (a slip that yields two matrices, QᵀK and KᵀQ say, gives both)."""
    if pencil:
        return [] if scores else _pencil(q, k, pencil)
    made = {None: lambda: [q @ k.T], "KQᵀ": lambda: [k @ q.T], "QᵀK": lambda: [q.T @ k, k.T @ q],
            "QQᵀ": lambda: [q @ q.T, k @ k.T], "QK": lambda: [q @ k], "Q⊙K": lambda: [q * k],
            "QVᵀ": lambda: [q @ v.T], "cos": lambda: [_cosines(q, k)],
            "sums": lambda: [np.outer(q.sum(axis=1), k.sum(axis=1))]}[scores]
    try:
        return made()
    except ValueError:  # shapes that do not multiply: the slip cannot be made here
        return []


def _hard(scores: np.ndarray) -> list[np.ndarray]:
    """All the weight on a row's largest score: shared among equal largest ones, or all on the first of them."""
    largest = scores == scores.max(axis=-1, keepdims=True)
    first = np.zeros_like(scores)
    np.put_along_axis(first, np.argmax(scores, axis=-1)[..., None], 1.0, axis=-1)
    return [largest / largest.sum(axis=-1, keepdims=True), first]


def _weighed(scaled: np.ndarray, how: str | None) -> list[np.ndarray]:
    """The weights as the recipe makes them from the scaled scores (some slips can be made two ways)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # a slip may divide by 0: nan, no warning
        made = {None: lambda s: array_softmax(s), "columns": lambda s: array_softmax(s, axis=0), "hard": _hard,
                "uniform": lambda s: np.full(s.shape, 1 / s.shape[-1]),
                "ratio": lambda s: s / s.sum(axis=-1, keepdims=True), "exp": np.exp,
                "log": lambda s: np.log(array_softmax(s)), "none": lambda s: s,
                "three": lambda s: array_softmax(s * math.log(3)),  # 3^s / Σ 3^s: e taken as 3
                "sigmoid": lambda s: 1 / (1 + np.exp(-s)),
                "matrix": lambda s: np.exp(s - s.max()) / np.exp(s - s.max()).sum(),
                "largest": lambda s: np.exp(s - s.max(axis=-1, keepdims=True)),
                "rounded": lambda s: np.round(array_softmax(s), 1)}[how](scaled)
    return made if isinstance(made, list) else [made]


def _rest(raw: np.ndarray, q: np.ndarray, k: np.ndarray, v: np.ndarray, recipe: dict, other_width: int
          ) -> list[dict[str, np.ndarray]]:
    """Every stage from the scores on, each as far as the shapes let it go (once per way the weights are made);
    ``other_width`` is the other example's d_k, whose scale a learner may carry over."""
    width, tokens = q.shape[1], q.shape[0]
    root = {None: math.sqrt(width), "1": 1.0, "d_k": width, "√T": math.sqrt(tokens), "√d_v": math.sqrt(v.shape[1]),
            "1/√d_k": 1 / math.sqrt(width), "other": math.sqrt(other_width)}[recipe.get("scale")]
    after = recipe.get("scale-at") == "after"
    scaled = raw if after else raw / root
    made = []
    for weighed in _weighed(scaled, recipe.get("weigh")):
        weights = weighed / (root if after else 1.0)
        with np.errstate(over="ignore"):
            found = {"raw-scores": raw, "scaled-scores": scaled, "probabilities": weights,
                     "exp-raw-scores": np.exp(raw), "exp-scaled-scores": np.exp(scaled)}
        mixing = weights.T if recipe.get("weights-transposed") else weights
        mixed = k if recipe.get("mix") == "K" else v
        if mixing.shape[1] == mixed.shape[0]:
            with np.errstate(invalid="ignore", over="ignore"):  # weights a slip left infinite: no output, no warning
                found["value-mixture"] = mixing @ mixed
        made.append(found)
    return made


HEAD_MISTAKES = (  # where two give the same answer, the one a learner makes more often comes first
    # a stage given for the asked one, or given at another place
    Slip("scaled-too-early", "mis.scaled-too-early", {"stage": "scaled-too-early"}),
    Slip("not-normalized", "mis.not-normalized", {"stage": "not-normalized"}),
    Slip("weights-for-scores", "mis.weights-for-scores", {"stage": "weights-for-scores"}),
    Slip("weights-for-output", "mis.weights-for-output", {"stage": "weights-for-output"}),
    Slip("output-for-weights", "mis.output-for-weights", {"stage": "output-for-weights"}),
    Slip("exponentials-for-scores", "mis.exponentials-for-scores", {"stage": "exponentials-for-scores"}),
    Slip("wrong-row", "mis.wrong-row", {"place": "wrong-row"}),
    # other inputs
    Slip("other-example", "mis.other-example", {"inputs": "other"}),
    Slip("other-variant", "mis.other-variant", {"inputs": "seen"}),
    # the weighing, the scores, the scale and the mixing, as learners slip most
    Slip("hard-attention", "mis.hard-attention", {"weigh": "hard"}),
    Slip("uniform-weights", "mis.uniform-weights", {"weigh": "uniform"}),
    Slip("transposed-scores", "mis.transposed-scores", {"scores": "KQᵀ"}),
    Slip("missing-scale", "mis.missing-scale", {"scale": "1"}),
    Slip("scale-by-dk", "mis.scale-by-dk", {"scale": "d_k"}),
    Slip("other-example-scale", "mis.other-example-scale", {"scale": "other"}),
    Slip("scale-by-root-t", "mis.scale-by-root-t", {"scale": "√T"}),
    Slip("scale-by-root-dv", "mis.scale-by-root-dv", {"scale": "√d_v"}),
    Slip("scale-inverted", "mis.scale-inverted", {"scale": "1/√d_k"}),
    Slip("scale-after-softmax", "mis.scale-after-softmax", {"scale-at": "after"}),
    Slip("columns-normalized", "mis.columns-normalized", {"weigh": "columns"}),
    Slip("no-exponential", "mis.no-exponential", {"weigh": "ratio"}),
    Slip("exponentials-not-normalized", "mis.exponentials-not-normalized", {"weigh": "exp"}),
    Slip("log-weights", "mis.log-weights", {"weigh": "log"}),
    Slip("softmax-skipped", "mis.softmax-skipped", {"weigh": "none"}),
    Slip("e-as-three", "mis.e-as-three", {"weigh": "three"}),
    Slip("sigmoid-weights", "mis.sigmoid-weights", {"weigh": "sigmoid"}),
    Slip("matrix-normalized", "mis.matrix-normalized", {"weigh": "matrix"}),
    Slip("divided-by-largest", "mis.divided-by-largest", {"weigh": "largest"}),
    Slip("rounded-too-early", "mis.rounded-too-early", {"weigh": "rounded"}),
    Slip("mixed-keys", "mis.mixed-keys", {"mix": "K"}),
    Slip("transposed-weights", "mis.transposed-weights", {"weights-transposed": True}),
    # order slips (A transposed after the columns normalized: with a symmetric QKᵀ the two are equal)
    Slip("weights-transposed", "mis.weights-transposed", {"place": "transposed"}),
    Slip("rows-swapped", "mis.rows-swapped", {"place": "rows-swapped"}),
    Slip("row-reversed", "mis.row-reversed", {"order": "row-reversed"}),
    Slip("result-transposed", "mis.result-transposed", {"place": "result-transposed"}),
    # rarer products for the scores
    Slip("scores-not-transposed", "mis.scores-not-transposed", {"scores": "QK"}),
    Slip("features-for-positions", "mis.features-for-positions", {"scores": "QᵀK"}),
    Slip("query-with-query", "mis.query-with-query", {"scores": "QQᵀ"}),
    Slip("elementwise-scores", "mis.elementwise-scores", {"scores": "Q⊙K"}),
    Slip("values-for-keys", "mis.values-for-keys", {"scores": "QVᵀ"}),
    Slip("cosine-scores", "mis.cosine-scores", {"scores": "cos"}),
    Slip("sums-multiplied", "mis.sums-multiplied", {"scores": "sums"}),
    # a slip of the pencil, last: where another slip explains an answer as well, that one is named
    Slip("sign-slipped", "mis.sign-slipped", {"pencil": "sign"}),
    Slip("term-dropped", "mis.term-dropped", {"pencil": "term"}),
    Slip("input-misread", "mis.input-misread", {"pencil": "misread"}),
)


# --- the shape rule: the instance is the shape question's ShapeCase ------------------------------------------

SHAPE_MISTAKES = (
    Slip("weights-shape-for-output", "mis.weights-shape-for-output",
         {ANSWER: lambda case: np.array(case.weights_shape)}),
    Slip("dk-for-dv", "mis.dk-for-dv", {ANSWER: lambda case: np.array(case.query_shape)}),
    Slip("batch-axis-dropped", "mis.batch-axis-dropped", {ANSWER: lambda case: np.array(case.output_shape[1:])}),
    Slip("shape-axes-swapped", "mis.shape-axes-swapped",
            {ANSWER: lambda case: [np.array(case.output_shape)[list(order)]
                                   for order in ((0, 2, 1), (1, 0, 2), (2, 1, 0))]}),
    Slip("widths-added", "mis.widths-added",
            {ANSWER: lambda case: np.array([*case.output_shape[:2], case.query_shape[2] + case.value_shape[2]])}),
)


# --- the head's properties and the review: the instance is the evidence ---------------------------------------

def _lone(ev) -> np.ndarray:
    return np.zeros(1 + ev.single_token.output.size)


SINGLE_TOKEN_MISTAKES = (
    Slip("lone-token-attends-to-nothing", "mis.lone-token-attends-to-nothing", {ANSWER: _lone}),
    Slip("scale-on-values", "mis.scale-on-values",
            {ANSWER: lambda ev: np.concatenate([[1.0], ev.single_token.output.ravel() * ev.worked.head.scale])}),
    Slip("output-reversed", "mis.output-reversed",
            {ANSWER: lambda ev: np.concatenate([[1.0], ev.single_token.output.ravel()[::-1]])}),
    Slip("output-summed", "mis.output-summed", {ANSWER: lambda ev: np.array([1.0, ev.single_token.output.sum()])}),
)

def _first_key_only(ev) -> tuple[np.ndarray, np.ndarray]:
    """All the weight on the first of the equal keys: one row, or the whole matrix."""
    tokens = ev.identical_keys.weights.shape[-1]
    first = np.eye(tokens)[0]
    return first, np.tile(first, (tokens, 1))


IDENTICAL_KEYS_MISTAKES = (
    Slip("equal-keys-go-to-first", "mis.equal-keys-go-to-first", {ANSWER: _first_key_only}),
)
def _at_one(ev) -> list[np.ndarray]:
    """The plain softmax (τ = 1) for both limits, or for one of them."""
    plain, example = array_softmax(np.array(ev.fixed.temperature.scores)), ev.fixed.temperature
    return [np.stack([plain, plain]), np.stack([example.cold, plain]), np.stack([plain, example.hot])]


def _shares(ev) -> np.ndarray:
    """The scores' own shares of their sum: weights proportional to the scores."""
    scores = np.array(ev.fixed.temperature.scores)
    return scores / scores.sum()


TEMPERATURE_MISTAKES = (
    Slip("temperature-swapped", "mis.temperature-swapped",
            {ANSWER: lambda ev: np.stack([ev.fixed.temperature.hot, ev.fixed.temperature.cold])}),
    Slip("temperature-ignored", "mis.temperature-ignored", {ANSWER: lambda ev: _at_one(ev)}),
    Slip("proportional-weights", "mis.proportional-weights",
            {ANSWER: lambda ev: [np.stack([ev.fixed.temperature.cold, _shares(ev)]),
                                 np.stack([_shares(ev), ev.fixed.temperature.hot])]}),
)


def _causal(ev, keep) -> np.ndarray:
    return masked_softmax(ev.hand.head.scaled_scores.data[0], keep)


def _mask(ev) -> np.ndarray:
    return causal_mask(ev.hand.query.shape[1])


def _width(width: int, ev) -> list[np.ndarray]:
    """A wrong d_k, with the scale that follows from it or with the right scale."""
    return [np.array([width, 1 / math.sqrt(width)]), np.array([width, ev.head_split.scale])]


CAUSAL_MISTAKES = (
    Slip("mask-keeps-future", "mis.mask-keeps-future", {ANSWER: lambda ev: _causal(ev, _mask(ev).T)}),
    Slip("mask-hides-self", "mis.mask-hides-self", {ANSWER: lambda ev: _causal(ev, np.tril(_mask(ev), -1))}),
    Slip("mask-not-renormalized", "mis.mask-not-renormalized", {ANSWER: lambda ev: ev.hand.weights[0] * _mask(ev)}),
    Slip("mask-ignored", "mis.mask-ignored", {ANSWER: lambda ev: ev.hand.weights[0]}),
    Slip("mask-zeroes-scores", "mis.mask-zeroes-scores",
            {ANSWER: lambda ev: array_softmax(np.where(_mask(ev), ev.hand.head.scaled_scores.data[0], 0.0))}),
    Slip("missing-scale", "mis.missing-scale",
            {ANSWER: lambda ev: masked_softmax(ev.hand.head.raw_scores.data[0], _mask(ev))}),
)
HEAD_WIDTH_MISTAKES = (
    Slip("dk-is-dmodel", "mis.dk-is-dmodel", {ANSWER: lambda ev: _width(ev.head_split.model_width, ev)}),
    Slip("heads-multiply-width", "mis.heads-multiply-width",
            {ANSWER: lambda ev: _width(ev.head_split.model_width * ev.head_split.heads, ev)}),
    Slip("scale-without-root", "mis.scale-without-root",
            {ANSWER: lambda ev: np.array([ev.head_split.key_width, 1 / ev.head_split.key_width])}),
    Slip("root-for-scale", "mis.root-for-scale",
            {ANSWER: lambda ev: np.array([ev.head_split.key_width, math.sqrt(ev.head_split.key_width)])}),
    Slip("heads-for-width", "mis.heads-for-width", {ANSWER: lambda ev: _width(ev.head_split.heads, ev)}),
)


# --- the backward pass one stage at a time: the instance is the evidence (its worked example) -------------------

def _backward(ev) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A, V, Ō and O of the worked example's batch element 0."""
    run = ev.worked
    return run.weights[0], run.value[0], run.upstream[0], run.output[0]


def _unscaled_weights(ev) -> np.ndarray:
    run = ev.worked
    return array_softmax(run.head.raw_scores.data[0])


VALUE_GRADIENT_MISTAKES = (
    Slip("weights-not-transposed", "mis.weights-not-transposed",
         {ANSWER: lambda ev: _backward(ev)[0] @ _backward(ev)[2]}),
    Slip("gradients-swapped", "mis.value-gradient-is-weights-gradient",
         {ANSWER: lambda ev: ev.worked_steps.grad_weights}),
    Slip("output-for-gradient", "mis.output-for-gradient", {ANSWER: lambda ev: _backward(ev)[3]}),
    Slip("weights-factor-missing", "mis.weights-factor-missing", {ANSWER: lambda ev: _backward(ev)[2]}),
    Slip("values-for-upstream", "mis.values-for-upstream", {ANSWER: lambda ev: _backward(ev)[0].T @ _backward(ev)[1]}),
    Slip("missing-scale", "mis.missing-scale", {ANSWER: lambda ev: _unscaled_weights(ev).T @ _backward(ev)[2]}),
    Slip("weights-gradient-for-upstream", "mis.weights-gradient-for-upstream",
            {ANSWER: lambda ev: _backward(ev)[0].T @ ev.worked_steps.grad_weights}),
)
WEIGHT_GRADIENT_MISTAKES = (
    Slip("values-not-transposed", "mis.values-not-transposed",
         {ANSWER: lambda ev: _backward(ev)[2] @ _backward(ev)[1]}),
    Slip("gradients-swapped", "mis.weights-gradient-is-value-gradient",
         {ANSWER: lambda ev: ev.worked_steps.grad_value}),
    Slip("output-for-gradient", "mis.output-for-gradient", {ANSWER: lambda ev: _backward(ev)[3]}),
    Slip("output-for-values", "mis.output-for-values", {ANSWER: lambda ev: _backward(ev)[2] @ _backward(ev)[3].T}),
    Slip("weights-for-upstream", "mis.weights-for-upstream",
         {ANSWER: lambda ev: _backward(ev)[0] @ _backward(ev)[1].T}),
    Slip("softmax-mixed-in", "mis.softmax-mixed-in",
         {ANSWER: lambda ev: _backward(ev)[0] * ev.worked_steps.grad_weights}),
)


# --- the step through one softmax row, by hand on the second example's first query (L = o_00) ----------------------

def _row(ev) -> tuple[np.ndarray, np.ndarray]:
    """a and ā: the weights of the second example's first query and their gradient when L = o_00."""
    return ev.hand.weights[0, 0], ev.hand_steps.grad_weights[0]


def _row_backward(weights: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """s̄ = a ⊙ (ā − ⟨a, ā⟩) for other weights or another ā."""
    return weights * (grad - weights @ grad)


SCORE_GRADIENT_MISTAKES = (
    Slip("softmax-backward-skipped", "mis.softmax-backward-skipped", {ANSWER: lambda ev: _row(ev)[1]}),
    Slip("row-term-missing", "mis.row-term-missing", {ANSWER: lambda ev: _row(ev)[0] * _row(ev)[1]}),
    Slip("weight-factor-missing", "mis.weight-factor-missing",
         {ANSWER: lambda ev: _row(ev)[1] - _row(ev)[0] @ _row(ev)[1]}),
    Slip("row-term-unweighted", "mis.row-term-unweighted",
            {ANSWER: lambda ev: _row(ev)[0] * (_row(ev)[1] - _row(ev)[1].mean())}),
    Slip("row-term-after-product", "mis.row-term-after-product",
            {ANSWER: lambda ev: _row(ev)[0] * _row(ev)[1] - _row(ev)[0] @ _row(ev)[1]}),
    Slip("jacobian-diagonal-only", "mis.jacobian-diagonal-only",
            {ANSWER: lambda ev: _row(ev)[0] * (1 - _row(ev)[0]) * _row(ev)[1]}),
    Slip("weights-and-gradient-swapped", "mis.weights-and-gradient-swapped",
            {ANSWER: lambda ev: _row(ev)[1] * (_row(ev)[0] - _row(ev)[0] @ _row(ev)[1])}),
    Slip("weights-column-for-row", "mis.weights-column-for-row",
            {ANSWER: lambda ev: _row_backward(ev.hand.weights[0, :, 0], _row(ev)[1])}),
    Slip("missing-scale", "mis.score-gradient-unscaled-weights",
            {ANSWER: lambda ev: _row_backward(array_softmax(ev.hand.head.raw_scores.data[0, 0]), _row(ev)[1])}),
    Slip("raw-score-gradient", "mis.raw-score-gradient",
            {ANSWER: lambda ev: ev.hand_steps.grad_scores[0] * ev.hand.head.scale}),
)
