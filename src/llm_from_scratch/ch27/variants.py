"""Fresh instances of chapter 27's computed exercises, generated for each learner and each family.

A family is what several exercises share: ``worked`` (the first look, the scores and the first row of
weights, on a Q, K, V of two tokens like the worked example's), ``gradient`` (V̄ and Ā on two tokens whose
weights are none of the other families'), ``hand`` (the second example's steps),
``causal``, ``shape``, ``split`` (the head width), ``single``, ``identical`` and ``code``
(the learner's head and backward). Variant n ≥ 1 of a family, for a learner, is the n-th
draw of a random stream seeded by the learner's id and the family that meets the family's
constraints; the first DISTINCT differ from each other and from variant 0, the notebooks' own. A later
one comes from a stream of its own, seeded by the id, the family and n, so variant 10⁹ is as quick as 21.
So the same learner gets the same n-th variant again and two learners get different ones.

What a hand computes is kept to what the chapter gives it: small integer entries, T of 2
or 3, d_k of 1 or 4 (√d_k is whole), scaled scores of −1, 0 or 1 only (their exponentials
are e, 1 and 1/e, with e ≈ 2.718), so no weight exceeds 0.9; QKᵀ is never symmetric, and
the commonest mistakes give weights far from the right ones and from each other. The first
ANSWERS_APART variants give each question an answer of its own, so a learner who has seen a few
cannot pick the next one's from them. The engine computes every answer.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import itertools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..engine.closed_form import array_softmax
from .evidence import Draw, LearnerEvidence, causal_mask, identical_keys_inputs, masked_softmax, single_token_inputs
from .examples import HEADS, MODEL_WIDTH, OUTPUT_SHAPE_INPUTS, hand_arrays, worked_arrays

HAND_TOKENS, HAND_TOKENS_P = (2, 3), (0.4, 0.6)  # a 3×3 by hand is the most a page of working should hold
HAND_KEY_WIDTHS, HAND_KEY_WIDTHS_P = (1, 4), (0.35, 0.65)  # √d_k whole and small
VALUE_ENTRIES = (-2, -1, 0, 1, 2)
GRADIENT_KEY_WIDTHS = (4, 9)  # √d_k of 2 or 3: scaled scores in halves or thirds
WORKED_ENTRIES = (-2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2)  # halves: scores in quarters, so a row's weights vary
SHAPE_SIZES = range(2, 10)
HEAD_COUNTS = (2, 4, 6, 8, 12, 16)
HEAD_KEY_WIDTHS = tuple(range(8, 257, 8))  # every multiple of 8 up to 256: each variant's answer its own
SINGLE_ENTRIES = range(-9, 10)
IDENTICAL_TOKENS = (2, 3, 4)
DISTINCT = 20  # the first variants of a family are all unlike (later ones may repeat one of them)
ANSWERS_APART = 10  # … and the first of them each give every question of the family an answer of its own
MISTAKES_APART = 0.05  # how far apart the weights of the named mistakes are: well beyond a hand's ±0.01
MAX_DRAWS = 10_000  # a family that cannot meet its constraints in this many draws is a bug, not bad luck


def _batch(*rows) -> tuple[np.ndarray, ...]:
    return tuple(np.array([r], dtype=np.float64) for r in rows)


@functools.cache
def _small_vectors(width: int) -> np.ndarray:
    """Every vector of ``width`` entries −1, 0 or 1."""
    return np.array(list(itertools.product((-1, 0, 1), repeat=width)), dtype=np.float64)


def _queries_for(keys: np.ndarray, rng: np.random.Generator) -> np.ndarray | None:
    """A query for each key row's set: entries −1, 0 or 1, every score q·k_j equal to −√d, 0 or √d, and each
    query's row of scores not all equal (None when no such query exists for these keys)."""
    width = keys.shape[1]
    root = round(np.sqrt(width))
    candidates = _small_vectors(width)
    scores = candidates @ keys.T
    fits = np.all(np.isin(scores, (-root, 0, root)), axis=1) & (np.ptp(scores, axis=1) > 0)
    if not fits.any():
        return None
    chosen = rng.choice(np.flatnonzero(fits), size=len(keys))
    return candidates[chosen]


def _hand_draw(rng: np.random.Generator) -> Draw | None:
    tokens, width = int(rng.choice(HAND_TOKENS, p=HAND_TOKENS_P)), int(rng.choice(HAND_KEY_WIDTHS, p=HAND_KEY_WIDTHS_P))
    keys = rng.choice((-1.0, 0.0, 1.0), size=(tokens, width), p=(0.25, 0.5, 0.25))
    if not keys.any(axis=1).all():
        return None
    queries = _queries_for(keys, rng)
    if queries is None:
        return None
    values = rng.choice(VALUE_ENTRIES, size=(tokens, 2)).astype(np.float64)
    if len(np.unique(values, axis=0)) < tokens or np.ptp(values[:, 0]) == 0:  # ā = V's first column: S̄'s row 0
        return None
    return Draw(hand=_batch(queries, keys, values))


def _hand_fits(draw: Draw) -> bool:
    """QKᵀ not symmetric, no weight above 0.9, and the weights that the commonest mistakes give (KQᵀ, the scale
    missing, the columns normalized, uniform rows) each far from the right ones and from each other."""
    query, key, _ = (x[0] for x in draw.hand)
    raw = query @ key.T
    root = np.sqrt(query.shape[1])
    weights = array_softmax(raw / root)
    answers = [weights, array_softmax(raw.T / root), array_softmax(raw / root, axis=0),
               np.full_like(weights, 1 / len(raw))]
    if root > 1:
        answers.append(array_softmax(raw))
    apart = all(np.abs(a - b).max() > MISTAKES_APART for a, b in itertools.combinations(answers, 2))
    return not np.array_equal(raw, raw.T) and bool(weights.max() <= 0.9) and apart


def _shape_draw(rng: np.random.Generator) -> Draw | None:
    batch, tokens, key_width, value_width = (int(x) for x in rng.choice(SHAPE_SIZES, size=4))
    if len({batch, tokens, key_width, value_width}) < 4:  # every axis of a wrong shape tells which it is
        return None
    return Draw(shapes=((batch, tokens, key_width), (batch, tokens, key_width), (batch, tokens, value_width)))


def _split_draw(rng: np.random.Generator) -> Draw | None:
    heads, key_width = int(rng.choice(HEAD_COUNTS)), int(rng.choice(HEAD_KEY_WIDTHS))
    return Draw(split=(heads * key_width, heads))


def _single_draw(rng: np.random.Generator) -> Draw | None:
    query, key, value = rng.choice(SINGLE_ENTRIES, size=(3, 2))
    if not (query.any() and key.any() and value.all()):
        return None
    return Draw(single=_batch([query], [key], [value]))


def _identical_draw(rng: np.random.Generator) -> Draw | None:
    tokens = int(rng.choice(IDENTICAL_TOKENS))
    query = rng.choice(VALUE_ENTRIES, size=(tokens, 2))
    key = np.tile(rng.choice(VALUE_ENTRIES, size=2), (tokens, 1))
    value = rng.choice(VALUE_ENTRIES, size=(tokens, 2))
    return Draw(identical=_batch(query, key, value)) if key.any() and query.any() else None


def _worked_draw(rng: np.random.Generator) -> Draw | None:
    """Two tokens of width 2 like the worked example's, entries −2 to 2 in halves (scores in quarters, so the
    weights take a dozen values), each query's two scores different (so it favours one value), no value row
    repeated."""
    query, key, value = (rng.choice(WORKED_ENTRIES, size=(2, 2)).astype(np.float64) for _ in range(3))
    if np.any((query @ key.T)[:, 0] == (query @ key.T)[:, 1]) or np.array_equal(value[0], value[1]):
        return None
    return Draw(worked=_batch(query, key, value))


def _worked_fits(draw: Draw) -> bool:
    """What the second example's family asks of its weights (``_hand_fits``), on these; and V and A not symmetric,
    so the gradients' transposes (V̄ = AᵀŌ, Ā = ŌVᵀ) tell a transpose forgotten."""
    query, key, value = (x[0] for x in draw.worked)
    weights = array_softmax(query @ key.T / np.sqrt(query.shape[1]))
    return (_hand_fits(Draw(hand=draw.worked)) and not np.array_equal(value, value.T)
            and np.abs(weights - weights.T).max() > MISTAKES_APART)


def _gradient_draw(rng: np.random.Generator) -> Draw | None:
    """Two tokens like the worked example's, but d_k of 4 or 9 with entries −1, 0 or 1 in Q and K, and every
    scaled score difference a half or a third that is not whole: each row of A is then one of 0.58, 0.62, 0.66,
    0.79, 0.82, 0.84 (to two decimals) and its complement, which no row of two weights of the worked family or of
    the second example's rounds to; a review page that shows A for a gradient question shows no weights answer of
    another item."""
    width = int(rng.choice(GRADIENT_KEY_WIDTHS))
    query, key = (rng.choice((-1.0, 0.0, 1.0), size=(2, width)) for _ in range(2))
    value = rng.choice(VALUE_ENTRIES, size=(2, 2)).astype(np.float64)
    gaps = np.abs(query @ key.T @ np.array([1.0, -1.0])) / np.sqrt(width)
    if np.any(np.isclose(gaps, np.round(gaps))) or np.array_equal(value[0], value[1]):
        return None
    return Draw(worked=_batch(query, key, value))


def _gradient_answers(draw: Draw) -> tuple[bytes, ...]:
    """V̄ = AᵀŌ with Ō = I: the weights."""
    query, key, _ = (x[0] for x in draw.worked)
    return (_answer(_weights(query, key)),)


def _code_draw(rng: np.random.Generator) -> Draw | None:
    hand = _hand_draw(rng)
    return None if hand is None else Draw(hand=hand.hand, case_seed=int(rng.integers(2**31)))


def _hand_default() -> Draw:
    return Draw(hand=hand_arrays())


def _answer(values: np.ndarray) -> bytes:
    """An answer as a learner gives it: to two decimals, as a set (a pair swapped is the same answer)."""
    return np.sort(np.round(values, 2).ravel()).tobytes()


def _weights(query: np.ndarray, key: np.ndarray) -> np.ndarray:
    return array_softmax(query @ key.T / np.sqrt(query.shape[1]))


def _worked_answers(draw: Draw) -> tuple[bytes, ...]:
    """The first query's weights (02's question); the family's other questions vary with the inputs themselves."""
    query, key, _ = (x[0] for x in draw.worked)
    return (_answer(_weights(query, key)[0]),)


def _hand_answers(draw: Draw) -> tuple[bytes, ...]:
    """The scores, the weights, and the weights under the causal mask."""
    query, key, _ = (x[0] for x in draw.hand)
    scaled = query @ key.T / np.sqrt(query.shape[1])
    return _answer(query @ key.T), _answer(_weights(query, key)), _answer(masked_softmax(scaled, causal_mask(len(key))))


@dataclass(frozen=True)
class Family:
    draw: Callable[[np.random.Generator], Draw | None]  # one candidate, or None when it cannot be one
    key: Callable[[Draw], bytes]  # what makes two variants alike
    default: Callable[[], Draw]  # variant 0, the notebooks' own
    fits: Callable[[Draw], bool] = lambda draw: True
    # the answers of the family's questions whose variety the inputs alone do not make (the first ANSWERS_APART
    # variants differ in each, from each other and from variant 0)
    answers: Callable[[Draw], tuple[bytes, ...]] = lambda draw: ()


def _arrays(*arrays) -> bytes:
    return b"|".join(np.asarray(a, dtype=np.float64).tobytes() + str(np.shape(a)).encode() for a in arrays)


FAMILIES = {
    "worked": Family(_worked_draw, lambda i: _arrays(*i.worked), lambda: Draw(worked=worked_arrays()), _worked_fits,
                     _worked_answers),
    "gradient": Family(_gradient_draw, lambda i: _arrays(*i.worked), lambda: Draw(worked=worked_arrays()),
                       _worked_fits, _gradient_answers),
    "hand": Family(_hand_draw, lambda i: _arrays(*i.hand), _hand_default, _hand_fits, _hand_answers),
    "causal": Family(_hand_draw, lambda i: _arrays(*i.hand), _hand_default, _hand_fits, _hand_answers),
    "code": Family(_code_draw, lambda i: _arrays(*i.hand), _hand_default, _hand_fits),
    "shape": Family(_shape_draw, lambda i: str(i.shapes).encode(), lambda: Draw(shapes=OUTPUT_SHAPE_INPUTS)),
    "split": Family(_split_draw, lambda i: str(i.split[0] // i.split[1]).encode(),  # alike: one head width
                    lambda: Draw(split=(MODEL_WIDTH, HEADS))),
    "single": Family(_single_draw, lambda i: _arrays(*i.single), lambda: Draw(single=single_token_inputs())),
    "identical": Family(_identical_draw, lambda i: _arrays(*i.identical),
                        lambda: Draw(identical=identical_keys_inputs())),
}


def _seed(learner: str, family: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{learner}\n{family}".encode()).digest()[:8], "little")


class ChapterVariants:
    """Each learner's variants of each family, drawn once per kernel and kept, and the evidence of each, computed
    once (a form's prompt, its answer's form and its judge read one head run)."""

    def __init__(self) -> None:
        self._drawn: dict[tuple[str, str], tuple[np.random.Generator, list[Draw], set[bytes], set]] = {}
        self._evidence: dict[tuple[str, str, int], LearnerEvidence] = {}

    def clear(self) -> None:
        """Forget every draw and its evidence (as a new kernel would)."""
        self._drawn.clear()
        self._evidence.clear()

    def draw(self, family: str, learner: str, n: int) -> Draw:
        """Variant ``n`` ≥ 1 of ``family`` for ``learner``: the first DISTINCT drawn in turn, each unlike the ones
        before (the first ANSWERS_APART in their answers too); a later one drawn at once from its own stream, so
        any n takes as long as one draw."""
        kind = FAMILIES[family]
        if n > DISTINCT:
            rng = np.random.default_rng([_seed(learner, family), int(n)])
            for _ in range(MAX_DRAWS):
                candidate = kind.draw(rng)
                if candidate is not None and kind.fits(candidate):
                    return dataclasses.replace(candidate, variant=n)
            raise RuntimeError(f"the family {family!r} found no variant {n} in {MAX_DRAWS} draws")
        if (learner, family) not in self._drawn:
            self._drawn[learner, family] = (np.random.default_rng(_seed(learner, family)), [],
                                            {kind.key(kind.default())}, set(enumerate(kind.answers(kind.default()))))
        rng, found, seen, answered = self._drawn[learner, family]
        for _ in range(MAX_DRAWS):
            if len(found) >= n:
                break
            candidate = kind.draw(rng)
            if candidate is None or not kind.fits(candidate):
                continue
            answers = set(enumerate(kind.answers(candidate))) if len(found) < ANSWERS_APART else set()
            if len(found) < DISTINCT and (kind.key(candidate) in seen or answers & answered):
                continue
            seen.add(kind.key(candidate))
            answered |= answers
            found.append(candidate)
        else:
            raise RuntimeError(f"the family {family!r} found only {len(found)} variants in {MAX_DRAWS} draws")
        return dataclasses.replace(found[n - 1], variant=n)

    def evidence(self, family: str, learner: str, n: int) -> LearnerEvidence:
        key = (family, learner, int(n))
        if key not in self._evidence:
            self._evidence[key] = LearnerEvidence(self.draw(family, learner, n))
        return self._evidence[key]

    def inputs(self, family: str, ev: LearnerEvidence) -> dict[str, object]:
        """What a variant gives the learner to work on."""
        if family in ("worked", "gradient"):
            run = ev.worked
        elif family in ("hand", "causal", "code"):
            run = ev.hand
        elif family == "single":
            run = ev.single_token
        elif family == "identical":
            run = ev.identical_keys
        elif family == "shape":
            case = ev.output_shape
            return {"query_shape": case.query_shape, "key_shape": case.key_shape, "value_shape": case.value_shape}
        else:
            return {"model_width": ev.head_split.model_width, "heads": ev.head_split.heads}
        return {"query": run.query.copy(), "key": run.key.copy(), "value": run.value.copy()}


VARIANTS = ChapterVariants()
