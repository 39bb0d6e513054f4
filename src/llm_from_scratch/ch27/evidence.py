"""Every claim of chapter 27, computed by the engine at run time.

The inputs are written in ``examples.py`` (the source's Q, K, V, the second example's and the
edge cases'), as the notebooks write them out; every score, weight, output, gradient and verdict
is computed here with the same Tensor operations the notebooks' cells use.
``evidence()`` is the kernel's one ``LearnerEvidence``: each fact is computed the first
time something asks for it, and kept. A variant's evidence is a ``LearnerEvidence`` of an
``Draw``: the inputs that variant draws in place of the chapter's (``ch27.variants``).
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..engine import Tensor
from ..engine.attention import SelfAttentionError, SelfAttentionForward, scaled_dot_product_self_attention
from ..engine.closed_form import array_softmax, closed_form_backward
from ..engine.gradcheck import GradCheckReport, check_gradients
from .examples import (
    DIVISOR_KEY_WIDTH,
    HEADS,
    MODEL_WIDTH,
    NO_MATCH_KEY,
    NO_MATCH_QUERY,
    NO_MATCH_VALUE,
    OUTPUT_SHAPE_INPUTS,
    RANDOM_BATCH,
    RANDOM_SEED,
    RANDOM_TOKENS,
    REJECTION_CASES,
    ROW_SHIFT,
    SATURATING_FACTOR,
    SCALE_EXAMPLE_KEY_WIDTH,
    SCALE_EXAMPLE_SCORES,
    SINGLE_TOKEN_VALUE,
    TEMPERATURE_LIMITS,
    TEMPERATURE_SCORES,
    WIDTH_ONE_QUERY,
    WIDTH_TWO_QUERY,
    hand_arrays,
    invalid_inputs,
    worked_arrays,
)
from .stages import Stages


@dataclass(frozen=True)
class HeadRun:
    """One forward and backward pass: the record plus the inputs' gradients."""

    query: np.ndarray
    key: np.ndarray
    value: np.ndarray
    upstream: np.ndarray
    head: SelfAttentionForward
    grad_query: np.ndarray
    grad_key: np.ndarray
    grad_value: np.ndarray

    @property
    def weights(self) -> np.ndarray:
        return self.head.weights.data

    @property
    def output(self) -> np.ndarray:
        return self.head.output.data

    @property
    def loss(self) -> float:
        """L = <O, dO>: the scalar whose gradient the upstream dO defines."""
        return float(np.sum(self.output * self.upstream))

    @property
    def weighted_terms(self) -> np.ndarray:
        """terms[b, i, j] = A[b, i, j] * v[b, j]; summing over j gives output row i."""
        return self.weights[..., None] * self.value[:, None, :, :]

    def arrays(self) -> tuple[np.ndarray, ...]:
        h = self.head
        return (h.raw_scores.data, h.scaled_scores.data, h.weights.data, h.output.data,
                self.grad_query, self.grad_key, self.grad_value)


def run_head(query, key, value, upstream=None, stages: Stages | None = None) -> HeadRun:
    """Run the head forward, then backward with ``upstream`` (ones when omitted); the scaled scores and the
    weights keep their gradients (S̄, Ā). With ``stages`` other than the chapter's (a cell's divisor or softmax
    axis), the head as those cells compute it, step by step in the engine's operators."""
    tensors = [Tensor(x, requires_grad=True) for x in (query, key, value)]
    if stages is None or stages.are_the_chapters(tensors[0].shape[-1]):
        head = scaled_dot_product_self_attention(*tensors)
    else:
        query, key, value = tensors
        raw = query @ key.transpose(1, 2)
        scaled = raw / stages.divisor
        weights = scaled.softmax(stages.axis)
        head = SelfAttentionForward(raw, scaled, weights, weights @ value, 1 / stages.divisor, query.shape[-1],
                                    value.shape[-1])
    head.scaled_scores.retain_grad()
    head.weights.retain_grad()
    upstream = np.ones_like(head.output.data) if upstream is None else np.asarray(upstream, dtype=np.float64)
    head.output.backward(upstream)
    grads = [t.grad if t.grad is not None else np.zeros_like(t.data) for t in tensors]
    return HeadRun(*(t.data for t in tensors), upstream, head, *grads)


def head_loss(inputs) -> float:
    """L = <O, dO> for (Q, K, V, dO): the function the gradient check differentiates."""
    query, key, value, upstream = inputs
    return float(np.sum(scaled_dot_product_self_attention(query, key, value).output.data * upstream))


def gradcheck_head(run: HeadRun) -> GradCheckReport:
    """Check dQ, dK, dV of ``run`` against central differences."""
    return check_gradients(
        lambda xs: head_loss((*xs, run.upstream)),
        (run.query, run.key, run.value),
        (run.grad_query, run.grad_key, run.grad_value),
        ("query", "key", "value"),
    )


def worked_example() -> HeadRun:
    """The source's example with upstream dO = I, so L = O[0,0] + O[1,1]."""
    return run_head(*worked_arrays(), upstream=np.eye(2)[None])


@dataclass(frozen=True)
class BackwardSteps:
    """The worked example's backward pass one stage at a time (batch element 0): V̄, then Ā, then S̄."""

    grad_value: np.ndarray  # V̄ = Aᵀ Ō
    grad_weights: np.ndarray  # Ā = Ō Vᵀ
    grad_scores: np.ndarray  # S̄ = A ⊙ (Ā − rowsum(A ⊙ Ā)), the gradient of the scaled scores


def backward_steps(run: HeadRun) -> BackwardSteps:
    """Each stage's gradient as the engine's backward left it: V̄ on V, Ā and S̄ kept on the weights and the
    scaled scores (``retain_grad``)."""
    return BackwardSteps(run.grad_value[0], run.head.weights.grad[0], run.head.scaled_scores.grad[0])


def closed_form_difference(run: HeadRun) -> float:
    """The largest difference between the autodiff gradients of ``run`` and the closed-form ones."""
    closed = closed_form_backward(run.query, run.key, run.value, run.upstream)
    autodiff = (run.grad_query, run.grad_key, run.grad_value)
    return max(float(np.max(np.abs(a - c))) for a, c in zip(autodiff, closed))


def row_sum_deviation(run: HeadRun) -> float:
    """How far any row of A sums from 1."""
    return float(np.max(np.abs(run.weights.sum(axis=-1) - 1.0)))


@dataclass(frozen=True)
class ScaleExample:
    scores: tuple[float, ...]
    key_width: int
    unscaled: np.ndarray
    scaled: np.ndarray

    @property
    def scale(self) -> float:
        return 1.0 / np.sqrt(self.key_width)


def scale_example() -> ScaleExample:
    """Softmax of [1, 0] without and with the 1/sqrt(d_k) factor at d_k = 2."""
    scale = 1.0 / np.sqrt(SCALE_EXAMPLE_KEY_WIDTH)
    return ScaleExample(
        SCALE_EXAMPLE_SCORES, SCALE_EXAMPLE_KEY_WIDTH,
        array_softmax(SCALE_EXAMPLE_SCORES), array_softmax(scale * np.array(SCALE_EXAMPLE_SCORES)),
    )


def random_query_key(key_width: int) -> tuple[np.ndarray, np.ndarray]:
    """q and k of shape [RANDOM_BATCH, RANDOM_TOKENS, key_width], every component drawn independently
    with mean 0 and variance 1 (one seed per width, so every width is reproducible on its own)."""
    rng = np.random.default_rng(RANDOM_SEED + key_width)
    return tuple(rng.standard_normal((RANDOM_BATCH, RANDOM_TOKENS, key_width)) for _ in range(2))


@dataclass(frozen=True)
class DivisorExample:
    """Random scores q·k divided by sqrt(d_k) and by d_k: the variance and each row's mean largest weight."""

    key_width: int
    tokens: int
    variance_root: float
    variance_width: float
    max_weight_root: float
    max_weight_width: float


def divisor_example(key_width: int = DIVISOR_KEY_WIDTH) -> DivisorExample:
    """The head's scores of random q, k (divided by sqrt(d_k)) against the same dot products divided by d_k."""
    q, k = random_query_key(key_width)
    head = scaled_dot_product_self_attention(q, k, k)  # keys double as values: only the scores matter here
    raw = head.raw_scores.data
    by_width = raw / key_width
    return DivisorExample(key_width, raw.shape[-1], float(head.scaled_scores.data.var()), float(by_width.var()),
                          float(head.weights.data.max(axis=-1).mean()),
                          float(array_softmax(by_width).max(axis=-1).mean()))


def exponentials(scores) -> np.ndarray:
    """e to the power of each score, through the engine's exp: the numerators of a softmax by hand."""
    return Tensor(scores).exp().data


def masked_softmax(scores: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Softmax of each row of [T, T] ``scores`` over the keys ``keep`` allows (zeros elsewhere,
    and a row with no key left is all zeros)."""
    weights = np.zeros_like(scores)
    for i, visible in enumerate(keep):
        if visible.any():
            weights[i, visible] = array_softmax(scores[i, visible])
    return weights


def causal_mask(tokens: int) -> np.ndarray:
    """The causal mask: query i keeps keys j <= i."""
    return np.tril(np.ones((tokens, tokens), dtype=bool))


@dataclass(frozen=True)
class TemperatureExample:
    scores: tuple[float, ...]
    cold: np.ndarray  # array_softmax(scores / tau) at tau close to 0
    hot: np.ndarray  # at a very large tau


def temperature_example() -> TemperatureExample:
    """softmax(s / tau) for tau towards 0 (one-hot on the largest score) and towards infinity (uniform)."""
    cold, hot = (array_softmax(np.array(TEMPERATURE_SCORES) / tau) for tau in TEMPERATURE_LIMITS)
    return TemperatureExample(TEMPERATURE_SCORES, cold, hot)


@dataclass(frozen=True)
class RowShift:
    scores: np.ndarray
    shift: float
    weights: np.ndarray
    shifted: np.ndarray

    @property
    def max_difference(self) -> float:
        return float(np.max(np.abs(self.shifted - self.weights)))


def row_shift(run: HeadRun) -> RowShift:
    """One constant added to a whole row of scaled scores (the first row of ``run``)."""
    scores = run.head.scaled_scores.data[0, 0]
    return RowShift(scores, ROW_SHIFT, array_softmax(scores), array_softmax(scores + ROW_SHIFT))


def saturated() -> HeadRun:
    """The worked example with Q times SATURATING_FACTOR (upstream dO = I): one-hot rows of A, Q̄ ≈ 0."""
    q, k, v = worked_arrays()
    return run_head(SATURATING_FACTOR * q, k, v, upstream=np.eye(2)[None])


@dataclass(frozen=True)
class HeadSplit:
    model_width: int
    heads: int
    key_width: int
    scale: float


def head_split(model_width: int, heads: int) -> HeadSplit:
    """d_model cut into ``heads`` slices, as multi-head attention does; the engine's head on one slice
    reports its d_k and scale."""
    x = np.zeros((1, 2, model_width))
    per_head = x.reshape(1, 2, heads, model_width // heads).transpose(0, 2, 1, 3).reshape(heads, 2, -1)
    head = scaled_dot_product_self_attention(per_head, per_head, per_head)
    return HeadSplit(model_width, heads, head.key_width, head.scale)


def single_token_inputs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One token's q, k and v as [1, 1, 2] arrays."""
    return tuple(np.array([[row]]) for row in ((1.0, -1.0), (2.0, 0.5), SINGLE_TOKEN_VALUE))


def identical_keys_inputs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The worked example's Q and V, with keys whose rows are all its first key k_0 (05's K_same)."""
    q, k, v = worked_arrays()
    return q, k[:, [0] * k.shape[1]], v


@dataclass(frozen=True)
class PermutationEvidence:
    order: tuple[int, ...]
    original: HeadRun
    permuted: HeadRun

    @property
    def max_difference(self) -> float:
        expected = self.original.output[:, list(self.order)]
        return float(np.max(np.abs(self.permuted.output - expected)))


def permutation(order=(1, 0)) -> PermutationEvidence:
    """Permute the token positions of Q, K, V together; the output rows follow."""
    q, k, v = worked_arrays()
    order = tuple(order)
    moved = [x[:, list(order)] for x in (q, k, v)]
    return PermutationEvidence(order, run_head(q, k, v), run_head(*moved))


@dataclass(frozen=True)
class BatchEvidence:
    together: HeadRun
    separately: tuple[HeadRun, ...]

    @property
    def max_difference(self) -> float:
        return max(
            float(np.max(np.abs(a[b] - s_a[0])))
            for b, alone in enumerate(self.separately)
            for a, s_a in zip(self.together.arrays(), alone.arrays())
        )

    @property
    def independent(self) -> bool:
        return self.max_difference <= 1e-12


def batch_independence() -> BatchEvidence:
    """A batch of two (the worked example and its reversed-sign twin) against each alone."""
    q, k, v = worked_arrays()
    second = (-q, k[:, ::-1], 2.0 * v)
    together = run_head(*(np.concatenate(pair) for pair in zip((q, k, v), second)))
    return BatchEvidence(together, (run_head(q, k, v), run_head(*second)))


@dataclass(frozen=True)
class ShapeCase:
    query_shape: tuple[int, ...]
    key_shape: tuple[int, ...]
    value_shape: tuple[int, ...]
    weights_shape: tuple[int, ...]
    output_shape: tuple[int, ...]


def shape_case(query_shape, key_shape, value_shape) -> ShapeCase:
    """Run the head on zeros of the given shapes and report the shapes it returns."""
    head = scaled_dot_product_self_attention(np.zeros(query_shape), np.zeros(key_shape), np.zeros(value_shape))
    return ShapeCase(tuple(query_shape), tuple(key_shape), tuple(value_shape),
                     head.weights.shape, head.output.shape)


def empty_batch() -> ShapeCase:
    return shape_case((0, 2, 2), (0, 2, 2), (0, 2, 3))


def narrow_values() -> ShapeCase:
    """d_v = 1 while d_k = 2."""
    return shape_case((1, 2, 2), (1, 2, 2), (1, 2, 1))


@dataclass(frozen=True)
class RejectedInput:
    label: str
    shapes: tuple[tuple[int, ...], ...]
    error: SelfAttentionError


def rejected_inputs() -> tuple[RejectedInput, ...]:
    """Call the head on each invalid input and keep the error it raises."""
    rejected = []
    for label, inputs in zip((case[0] for case in REJECTION_CASES), invalid_inputs()):
        try:
            scaled_dot_product_self_attention(*inputs)
        except SelfAttentionError as error:
            rejected.append(RejectedInput(label, tuple(x.shape for x in inputs), error))
        else:
            raise AssertionError(f"the head accepted the invalid input {label}")
    return tuple(rejected)


def attention_pairs(queries, keys) -> tuple[tuple[str, str], ...]:
    """Every (query, key) pair a score matrix holds: one row per query, one column per key."""
    return tuple(itertools.product(queries, keys))


@dataclass(frozen=True)
class HistoryEvidence:
    encoder_decoder: tuple[tuple[str, str], ...]
    self_attention: tuple[tuple[str, str], ...]
    stages: tuple[str, ...] = (
        "recurrent-fixed-context",
        "additive-encoder-decoder-alignment",
        "scaled-dot-product-self-attention",
    )

    @property
    def queries_and_keys_from_different_sequences(self) -> bool:
        return all(q.startswith("decoder") and k.startswith("encoder") for q, k in self.encoder_decoder)

    @property
    def queries_and_keys_from_one_sequence(self) -> bool:
        return all(q.startswith("hidden") and k.startswith("hidden") for q, k in self.self_attention)


def attention_history() -> HistoryEvidence:
    """Where the queries and the keys come from, before and after self-attention."""
    decoder = ("decoder-state-0", "decoder-state-1")
    encoder = ("encoder-annotation-0", "encoder-annotation-1")
    hidden = ("hidden-position-0", "hidden-position-1")
    return HistoryEvidence(attention_pairs(decoder, encoder), attention_pairs(hidden, hidden))


@dataclass(frozen=True)
class Draw:
    """The inputs a variant draws in place of the chapter's (None: the chapter's own), and its number."""

    variant: int = 0
    worked: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # the worked example's Q, K, V: [1, 2, 2]
    hand: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # the second example's Q, K, V: [1, T, d]
    shapes: tuple[tuple[int, ...], ...] | None = None  # the shapes of Q, K and V in the shape question
    split: tuple[int, int] | None = None  # d_model and the number of heads
    single: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # one token's q, k, v: [1, 1, d]
    identical: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # Q, K with equal rows, V: [1, T, d]
    case_seed: int | None = None  # the code exercises' hidden random cases


class LearnerEvidence:
    """The evidence of the chapter's own examples (or of a variant's), each fact computed the first time it is asked
    for; ``fixed`` the examples no variant changes; ``seen`` the evidence of the family's variants the learner has
    seen, where a judge is told them (``told``)."""

    def __init__(self, draw: Draw | None = None, seen: tuple[LearnerEvidence, ...] = ()) -> None:
        self.draw = draw or Draw()
        self.seen = seen

    def told(self, seen: tuple[LearnerEvidence, ...]) -> LearnerEvidence:
        """This evidence told the variants the learner has seen; what it computed already is shared, not redone."""
        told = LearnerEvidence(self.draw, seen)
        told.__dict__.update({name: value for name, value in vars(self).items() if name not in ("draw", "seen")})
        return told

    @property
    def fixed(self) -> FixedExamples:
        return fixed_examples()

    @cached_property
    def worked(self) -> HeadRun:
        """The worked example (or a variant's own Q, K, V, run backward with the same Ō = I)."""
        return run_head(*self.draw.worked, upstream=np.eye(2)[None]) if self.draw.worked else worked_example()

    @cached_property
    def worked_steps(self) -> BackwardSteps:
        return backward_steps(self.worked)

    @cached_property
    def worked_gradcheck(self) -> GradCheckReport:
        return gradcheck_head(self.worked)

    @cached_property
    def replay_bitwise(self) -> bool:
        again = worked_example().arrays()
        return all(a.tobytes() == b.tobytes() for a, b in zip(self.worked.arrays(), again))

    @cached_property
    def output_shape(self) -> ShapeCase:
        """The shape rule's question: Q, K [4, 7, 3] and V [4, 7, 5] (or a variant's shapes)."""
        return shape_case(*(self.draw.shapes or OUTPUT_SHAPE_INPUTS))

    @cached_property
    def hand(self) -> HeadRun:
        """The second example, small enough to compute with a pencil (and e)."""
        return run_head(*(self.draw.hand or hand_arrays()))

    @cached_property
    def hand_first_output(self) -> HeadRun:
        """The second example run backward with L = o_00 (Ō is 1 at (0, 0), 0 elsewhere): 27.7's row by hand."""
        run = self.hand
        upstream = np.zeros_like(run.output)
        upstream[0, 0, 0] = 1.0
        return run_head(run.query, run.key, run.value, upstream)

    @cached_property
    def hand_steps(self) -> BackwardSteps:
        return backward_steps(self.hand_first_output)

    @cached_property
    def hand_causal(self) -> np.ndarray:
        """The second example's weights under a causal mask."""
        scaled = self.hand.head.scaled_scores.data[0]
        return masked_softmax(scaled, causal_mask(len(scaled)))

    @cached_property
    def row_shift(self) -> RowShift:
        return row_shift(self.hand)

    @cached_property
    def head_split(self) -> HeadSplit:
        return head_split(*(self.draw.split or (MODEL_WIDTH, HEADS)))

    @cached_property
    def single_token(self) -> HeadRun:
        """One token: its only weight is 1, its output is its value, Q and K get no gradient."""
        return run_head(*(self.draw.single or single_token_inputs()))

    @cached_property
    def identical_keys(self) -> HeadRun:
        """Equal key rows give equal scores, so every weight row is uniform."""
        return run_head(*(self.draw.identical or identical_keys_inputs()))


class FixedExamples:
    """The examples every learner sees as they are (no variant changes them), each computed when first asked for."""

    @cached_property
    def scale(self) -> ScaleExample:
        return scale_example()

    @cached_property
    def divisor(self) -> DivisorExample:
        return divisor_example()

    @cached_property
    def temperature(self) -> TemperatureExample:
        return temperature_example()

    @cached_property
    def saturated(self) -> HeadRun:
        return saturated()

    @cached_property
    def width_one(self) -> HeadRun:
        """Three tokens whose query is their key, at d_k = 1: every positive query's largest weight is on the
        largest key."""
        query = np.array([WIDTH_ONE_QUERY])
        return run_head(query, query, query)

    @cached_property
    def width_two(self) -> HeadRun:
        """The same at d_k = 2, three directions 120° apart: each token's largest weight is on its own key."""
        query = np.array([WIDTH_TWO_QUERY])
        return run_head(query, query, query)

    @cached_property
    def no_match(self) -> HeadRun:
        """A first query whose every score is negative: its weights still sum to 1."""
        return run_head(*(np.array([m]) for m in (NO_MATCH_QUERY, NO_MATCH_KEY, NO_MATCH_VALUE)))

    @cached_property
    def permutation(self) -> PermutationEvidence:
        return permutation()

    @cached_property
    def batch(self) -> BatchEvidence:
        return batch_independence()

    @cached_property
    def empty_batch(self) -> ShapeCase:
        return empty_batch()

    @cached_property
    def narrow_values(self) -> ShapeCase:
        return narrow_values()

    @cached_property
    def rejected(self) -> tuple[RejectedInput, ...]:
        return rejected_inputs()

    @cached_property
    def history(self) -> HistoryEvidence:
        return attention_history()




@functools.cache
def fixed_examples() -> FixedExamples:
    """The kernel's one FixedExamples."""
    return FixedExamples()


@functools.cache
def evidence() -> LearnerEvidence:
    """The kernel's one LearnerEvidence: what one notebook or exercise computed, the next one reuses."""
    return LearnerEvidence()
