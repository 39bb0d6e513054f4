"""Reading the stages of a learner's head and backward from probes that expose one stage each.

The head. With V = [I | 0] (T = 3 tokens, d_v = 5 columns) the output's first T columns are the
learner's weights A themselves (or Aᵀ, if they mix the values with it). From them: which axis sums to
1; and, because softmax makes the log-ratio of two weights in a row proportional to the difference of
their scores, the number the scores were divided by, solved from the learner's own weights. T = 3,
d_k = 4 and d_v = 5 make √T, √d_k, √d_v and d_k four different numbers. A batch of two with different
keys shows whether one element sees the other's keys, and large scores show whether exp overflows.

The backward. On the same Q, K and a V and Ō of its own, the learner's dV is compared with AᵀŌ and AŌ,
and dQ, dK with S̄K and S̄ᵀQ (and with the swapped or the row-sum-less S̄), solving the number each
was divided by.

A diagnosis is (misconception id, its message's fields), or None when the probes find nothing the cases did
not already say; the exercise says each misconception in its own string of that name.
"""

from __future__ import annotations

import math

import numpy as np

from ..book.code_check import run_probes
from ..book.formatting import num, shape, vector
from ..book.tolerances import CODE_AGREES
from ..engine.closed_form import attention_weights, closed_form_head
from .strings import text

QUERY = np.array([[[1.0, 2.0, 0.0, -1.0], [0.0, 1.0, 2.0, 1.0], [2.0, -1.0, 1.0, 0.0]]])  # [1, 3, 4]
KEY = np.array([[[1.0, 0.0, 1.0, 2.0], [-1.0, 1.0, 0.0, 1.0], [0.0, 2.0, -1.0, 0.0]]])  # QKᵀ not symmetric
TOKENS, KEY_WIDTH, VALUE_WIDTH = 3, 4, 5
READ_WEIGHTS = np.concatenate([np.eye(TOKENS), np.zeros((TOKENS, VALUE_WIDTH - TOKENS))], axis=1)[None]
VALUES = np.array([[[1.0, -2.0, 0.5, 3.0, 0.0], [2.0, 1.0, -1.0, 0.0, 1.5], [-1.0, 0.0, 2.0, 1.0, -2.0]]])
UPSTREAM = np.array([[[0.5, 1.0, -1.0, 2.0, 0.0], [1.0, 0.0, 0.5, -1.5, 1.0], [-2.0, 1.0, 0.0, 0.5, 1.0]]])
OVERFLOWING = 400.0  # Q times this: scaled scores up to 800, so exp overflows unless each row's maximum is subtracted
# the head's probes: the weights read through V = [I | 0]; a batch of two whose second keys differ, and its first
# element alone; scores large enough to overflow exp without the row maximum subtracted
HEAD_PROBES = {"weights": (QUERY, KEY, READ_WEIGHTS),
               "batch": (np.concatenate([QUERY, QUERY]), np.concatenate([KEY, KEY[:, ::-1] * 2]),
                         np.concatenate([VALUES, VALUES])),
               "alone": (QUERY, KEY, VALUES), "large": (QUERY * OVERFLOWING, KEY, VALUES)}
BACKWARD_PROBES = {"gradients": (QUERY, KEY, VALUES, UPSTREAM), "large": (QUERY * OVERFLOWING, KEY, VALUES, UPSTREAM)}


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.all(np.isfinite(a))) and bool(
        np.abs(a - b).max() <= CODE_AGREES * max(float(np.abs(b).max()), 1e-12))


# the numbers a learner's scores may be divided by on the probes, and the mistake each one is
DIVISORS = {"missing-scale": 1.0, "scale-by-dk": float(KEY_WIDTH), "scale-by-root-t": math.sqrt(TOKENS),
            "scale-by-root-dv": math.sqrt(VALUE_WIDTH)}


def _solved_divisor(weights: np.ndarray, scores: np.ndarray, axis: int) -> float | None:
    """The one number d with log(w_ij / w_i0) = (s_ij - s_i0) / d along ``axis`` for every pair, if there is one."""
    if np.any(weights <= 0) or not np.all(np.isfinite(weights)):
        return None
    logs, scores = np.log(weights), scores
    if axis == 0:
        logs, scores = logs.T, scores.T
    differences = scores - scores[:, :1]
    ratios = logs - logs[:, :1]
    usable = np.abs(differences) > 1e-9
    factors = ratios[usable] / differences[usable]
    if not factors.size or np.ptp(factors) > CODE_AGREES * np.abs(factors).max() or factors.mean() <= 0:
        return None
    return float(1 / factors.mean())


def scale_mistake(divisor: float, candidates: dict[str, float] = DIVISORS) -> str | None:
    """The mistake a measured divisor is ("scale-other" for a number none of them is), or None when it is √d_k."""
    if abs(divisor - math.sqrt(KEY_WIDTH)) <= 1e-3 * divisor:
        return None
    return next((mistake for mistake, value in candidates.items() if abs(divisor - value) <= 1e-3 * value),
                "scale-other")


def diagnose_head(fn) -> tuple[str, dict] | None:
    """What the probes show is wrong in the learner's head, with the number found, or None."""
    raw = (QUERY @ KEY.swapaxes(1, 2))[0]
    given = run_probes(fn, HEAD_PROBES, outputs=1)
    probe = text("code.probe.weights", tokens=TOKENS, key_width=KEY_WIDTH, value_width=VALUE_WIDTH)
    fields = {"probe": probe, "right": num(math.sqrt(KEY_WIDTH), 2), "tokens": TOKENS, "key_width": KEY_WIDTH,
              "value_width": VALUE_WIDTH}
    read = given["weights"]
    if read is None:
        return None
    output = read[0]
    if output.shape == (1, TOKENS, TOKENS):
        return "returns-weights", {**fields, "shape": shape(output.shape)}
    if output.shape == (1, TOKENS, KEY_WIDTH):
        return "mixed-keys", {**fields, "shape": shape(output.shape)}
    if output.shape != (1, TOKENS, VALUE_WIDTH) or not np.all(np.isfinite(output)):
        return None  # nan or inf on moderate scores: not an overflow, and nothing the probes can read
    found = _weights_mistake(output[0, :, :TOKENS], raw, fields)
    if found:
        return found
    alone, together = given["alone"], given["batch"]
    if together is not None and alone is not None and together[0].shape == (2, TOKENS, VALUE_WIDTH) and np.all(
            np.isfinite(together[0])) and np.all(np.isfinite(alone[0])) and not _close(together[0][0], alone[0][0]):
        return "batch-leak", {**fields, "together": vector(together[0][0, 0], 3),
                                                           "alone": vector(alone[0][0, 0], 3)}
    large = given["large"]
    if large is not None and not np.all(np.isfinite(large[0])) and np.all(np.isfinite(
            closed_form_head(QUERY * OVERFLOWING, KEY, VALUES))):
        return "no-max-shift", {**fields, "probe": text("code.probe.large")}
    return None


def _weights_mistake(weights: np.ndarray, raw: np.ndarray, fields: dict) -> tuple[str, dict] | None:
    """The mistake the learner's weights (read with V = [I | 0]) show, with what was measured."""
    sums = {"row_sums": vector(weights.sum(axis=1), 3), "column_sums": vector(weights.sum(axis=0), 3)}
    rows_one = np.allclose(weights.sum(axis=1), 1, atol=1e-6)
    if np.allclose(weights, 1 / TOKENS, atol=1e-6):
        return "uniform-weights", fields
    if np.all(np.isin(np.round(weights, 12), (0.0, 1.0))) and rows_one:
        return "hard-attention", fields
    if rows_one and _close(weights, raw / raw.sum(axis=1, keepdims=True)):
        return "no-exponential", fields
    if rows_one:
        divisor = _solved_divisor(weights, raw, axis=1)
        if divisor is not None:
            mistake = scale_mistake(divisor)
            return (mistake, {**fields, "found": num(divisor, 2)}) if mistake else None
        divisor = _solved_divisor(weights, raw.T, axis=1)
        if divisor is not None:
            return "transposed-scores", {**fields, "found": num(divisor, 2)}
        return None
    columns_one = np.allclose(weights.sum(axis=0), 1, atol=1e-6)
    if columns_one and _close(weights.T, attention_weights(QUERY, KEY)[0]):  # the output was Aᵀ V: it reads Aᵀ
        return "transposed-weights", fields
    if columns_one and _solved_divisor(weights, raw, axis=0) is not None:
        return "softmax-axis", {**fields, **sums}
    normalised = weights / weights.sum(axis=1, keepdims=True)
    if np.all(np.isfinite(normalised)) and _solved_divisor(normalised, raw, axis=1) is not None:
        row_sum = float(weights.sum(axis=1).mean())
        if np.allclose(weights.sum(axis=1), row_sum, rtol=1e-6) and row_sum < 1:
            return "scale-after-softmax", {**fields, "found": num(row_sum, 3)}
        return "exponentials-not-normalized", {**fields, **sums}
    return None


BACKWARD_DIVISORS = {"missing-scale": 1.0, "scale-by-dk": float(KEY_WIDTH)}


def _solved_factor(mine: np.ndarray, product: np.ndarray) -> float | None:
    """The one number f with mine = product / f, if there is one (solved by least squares, then checked)."""
    if mine.shape != product.shape or not np.all(np.isfinite(mine)):
        return None
    along = float(np.vdot(mine, product))
    if along == 0:
        return None
    factor = float(np.vdot(product, product)) / along
    return factor if _close(mine, product / factor) else None


def diagnose_backward(fn) -> tuple[str, dict] | None:
    """What the probes show is wrong in the learner's backward, with the number found, or None."""
    probes = run_probes(fn, BACKWARD_PROBES, outputs=3)
    given, large = probes["gradients"], probes["large"]
    if given is None or not all(np.all(np.isfinite(g)) for g in given):
        return None
    grad_q, grad_k, grad_v = (g[0] for g in given)
    q, k, v, upstream = QUERY[0], KEY[0], VALUES[0], UPSTREAM[0]
    weights = attention_weights(QUERY, KEY)[0]
    grad_weights = upstream @ v.T
    grad_scores = weights * (grad_weights - (weights * grad_weights).sum(axis=1, keepdims=True))
    without_row_sums = weights * grad_weights
    fields = {"probe": text("code.probe.backward", tokens=TOKENS, key_width=KEY_WIDTH, value_width=VALUE_WIDTH),
              "right": num(math.sqrt(KEY_WIDTH), 2)}
    if grad_v.shape == (TOKENS, VALUE_WIDTH) and not _close(grad_v, weights.T @ upstream) and _close(
            grad_v, weights @ upstream):
        return "dv-not-transposed", fields
    for name, mine, right_product, swapped, plain in (
            ("dq", grad_q, grad_scores @ k, grad_scores.T @ k, without_row_sums @ k),
            ("dk", grad_k, grad_scores.T @ q, grad_scores @ q, without_row_sums.T @ q)):
        factor = _solved_factor(mine, right_product)
        if factor is not None:
            mistake = scale_mistake(factor, BACKWARD_DIVISORS)
            if mistake:
                return mistake, {**fields, "grad": name, "found": num(factor, 2)}
            continue
        if _solved_factor(mine, swapped) is not None:
            return "transposed-grad", {**fields, "grad": name}
        if _solved_factor(mine, plain) is not None:
            return "softmax-jacobian", {**fields, "grad": name}
    if large is not None and not all(np.all(np.isfinite(g)) for g in large):
        return "no-max-shift", {**fields, "probe": text("code.probe.large")}
    return None
