"""The slips a learner makes writing the head and its backward in numpy, and the probes that tell them apart.

The head and the backward are written here in the steps of ``ch27.stages`` (``head``, ``backward``); each slip
replaces one or more of them the way a learner's code does it, so a slip raises where that code raises (a sum without
keepdims on a batch whose size is not T, say). The one search (``book.slips``) runs every slip and every pair of
slips on the probes, and the code judge names the learner's only when nothing else the probes allow fits. The probes
differ in B, T, d_k and d_v, so that every width a learner may take for d_k is a different number on one of them;
one has scores large enough to overflow exp without each row's maximum subtracted; one reads the weights off the
output (V = [I | 0]).

Where no slip is named, ``head_stage`` and ``backward_stage`` say the first stage that differs from what the probes
prove: the mixing (the output is not one set of weights times V), the softmax (the weights' rows do not sum to 1),
the scores (they do, but are other weights); for the backward, which gradients differ.
"""

from __future__ import annotations

import numpy as np

from ..book.code_check import Finding, run_probes
from ..book.code_search import Search
from ..book.formatting import vector
from ..book.slips import Slip
from ..book.tolerances import CODE_AGREES
from ..engine.closed_form import array_softmax, attention_weights


def _t(x):
    """Each element of a batch transposed: the last two axes swapped."""
    return x.swapaxes(-1, -2)


def _softmax_steps(s, steps):
    axis = steps["axis"]()
    e = steps["exp"](steps["shift"](s, axis))
    return steps["normalise"](e, s, axis)


def head(q, k, v, steps):
    """O = softmax(Q Kᵀ / √d_k) V, stage by stage."""
    scores = steps["scale"](steps["scores"](q, k), steps["width"](q, k, v))
    return steps["mix"](_softmax_steps(scores, steps), q, k, v)


HEAD_STEPS = {
    "scores": lambda q, k: q @ _t(k),
    "width": lambda q, k, v: q.shape[-1],
    "scale": lambda s, d: s / np.sqrt(d),
    "axis": lambda: -1,
    "shift": lambda s, axis: s - s.max(axis=axis, keepdims=True),
    "exp": np.exp,
    "normalise": lambda e, s, axis: e / e.sum(axis=axis, keepdims=True),
    "mix": lambda a, q, k, v: a @ v,
}

# Slips of the scale: the width taken for d_k, and what is done with it. Shared by the head and the backward.
WIDTH_SLIPS = (
    Slip("width-from-values", "slip.width-from-values", {"width": lambda q, k, v: v.shape[-1]}),
    Slip("width-from-tokens", "slip.width-from-tokens", {"width": lambda q, k, v: q.shape[1]}),
    Slip("width-from-batch", "slip.width-from-batch", {"width": lambda q, k, v: q.shape[0]}),
    Slip("width-typed-in", "slip.width-typed-in", {"width": lambda q, k, v: 2}),
)
SOFTMAX_SLIPS = (
    Slip("softmax-axis", "slip.softmax-axis", {"axis": lambda: 1}),
    Slip("softmax-over-batch", "slip.softmax-over-batch", {"axis": lambda: 0}),
    Slip("no-max-shift", "slip.no-max-shift", {"shift": lambda s, axis: s}),
    Slip("max-of-whole", "slip.max-of-whole", {"shift": lambda s, axis: s - s.max()}),
    Slip("max-other-axis", "slip.max-other-axis", {"shift": lambda s, axis: s - s.max(axis=-2, keepdims=True)}),
    Slip("max-without-keepdims", "slip.max-without-keepdims", {"shift": lambda s, axis: s - s.max(axis=axis)}),
)
HEAD_SLIPS = (
    Slip("missing-scale", "slip.missing-scale", {"scale": lambda s, d: s}),
    Slip("scale-by-dk", "slip.scale-by-dk", {"scale": lambda s, d: s / d}),
    Slip("scale-inverted", "slip.scale-inverted", {"scale": lambda s, d: s * np.sqrt(d)}),
    *WIDTH_SLIPS,
    Slip("transposed-scores", "slip.transposed-scores", {"scores": lambda q, k: k @ _t(q)}),
    Slip("transpose-by-reshape", "slip.transpose-by-reshape",
         {"scores": lambda q, k: q @ k.reshape(k.shape[0], k.shape[2], k.shape[1])}),
    Slip("transpose-all-axes", "slip.transpose-all-axes", {"scores": lambda q, k: q @ k.T}),
    Slip("values-for-keys", "slip.values-for-keys", {"scores": lambda q, k: q @ _t(q)}),
    Slip("batch-leak", "slip.batch-leak", {"scores": lambda q, k: q @ k.reshape(-1, k.shape[-1]).T,
                        "mix": lambda a, q, k, v: a @ v.reshape(-1, v.shape[-1])}),
    Slip("batch-zero-weights", "slip.batch-zero-weights", {"scores": lambda q, k: q[0] @ k[0].T}),
    Slip("causal-mask", "slip.causal-mask",
         {"scores": lambda q, k: np.where(np.tril(np.ones(q.shape[1])) == 1, q @ _t(k), -np.inf)}),
    Slip("self-scores", "slip.self-scores",
         {"scores": lambda q, k: (q * k).sum(axis=-1), "mix": lambda a, q, k, v: a[..., None] * v}),
    *SOFTMAX_SLIPS,
    Slip("no-exponential", "slip.no-exponential", {"shift": lambda s, axis: s, "exp": lambda s: s}),
    Slip("sum-without-keepdims", "slip.sum-without-keepdims", {"normalise": lambda e, s, axis: e / e.sum(axis=axis)}),
    Slip("sum-of-whole", "slip.sum-of-whole", {"normalise": lambda e, s, axis: e / e.sum()}),
    Slip("exponentials-not-normalized", "slip.exponentials-not-normalized", {"normalise": lambda e, s, axis: e}),
    Slip("shifted-numerator-only", "slip.shifted-numerator-only",
         {"normalise": lambda e, s, axis: e / np.exp(s).sum(axis=axis, keepdims=True)}),
    Slip("hard-attention", "slip.hard-attention",
         {"normalise": lambda e, s, axis: (e == e.max(axis=axis, keepdims=True)) * 1.0}),
    Slip("uniform-weights", "slip.uniform-weights", {"normalise": lambda e, s, axis: np.ones_like(e) / e.shape[axis]}),
    Slip("scale-after-softmax", "slip.scale-after-softmax",
         {"scale": lambda s, d: s, "mix": lambda a, q, k, v: a / np.sqrt(q.shape[-1]) @ v}),
    Slip("transposed-weights", "slip.transposed-weights", {"mix": lambda a, q, k, v: _t(a) @ v}),
    Slip("returns-weights", "slip.returns-weights", {"mix": lambda a, q, k, v: a}),
    Slip("mixed-keys", "slip.mixed-keys", {"mix": lambda a, q, k, v: a @ k}),
    Slip("mixed-queries", "slip.mixed-queries", {"mix": lambda a, q, k, v: a @ q}),
    Slip("elementwise-mix", "slip.elementwise-mix", {"mix": lambda a, q, k, v: a * v}),
    Slip("softmax-after-mixing", "slip.softmax-after-mixing",
         {"shift": lambda s, axis: s, "exp": lambda s: s, "normalise": lambda e, s, axis: e,
                                  "mix": lambda a, q, k, v: array_softmax(a @ v)}),
)


def backward(q, k, v, upstream, steps):
    """(Q̄, K̄, V̄) by the chapter's formulas, the forward recomputed, stage by stage."""
    width = steps["width"](q, k, v)
    weights = _softmax_steps(steps["scale"](steps["scores"](q, k), width), steps)
    grad_v = steps["value-gradient"](weights, upstream)
    grad_weights = steps["weight-gradient"](weights, upstream, v)
    grad_scores = steps["score-gradient"](weights, grad_weights, steps["row-term"](weights, grad_weights))
    grad_q = steps["query-scale"](steps["query-gradient"](grad_scores, q, k), width)
    grad_k = steps["key-scale"](steps["key-gradient"](grad_scores, q, k), width)
    return steps["result"](grad_q, grad_k, grad_v)


BACKWARD_STEPS = {
    **{name: HEAD_STEPS[name] for name in ("scores", "width", "scale", "axis", "shift", "exp", "normalise")},
    "value-gradient": lambda a, up: _t(a) @ up,
    "weight-gradient": lambda a, up, v: up @ _t(v),
    "row-term": lambda a, da: (a * da).sum(axis=-1, keepdims=True),
    "score-gradient": lambda a, da, row: a * (da - row),
    "query-gradient": lambda ds, q, k: ds @ k,
    "key-gradient": lambda ds, q, k: _t(ds) @ q,
    "query-scale": lambda g, d: g / np.sqrt(d),
    "key-scale": lambda g, d: g / np.sqrt(d),
    "result": lambda dq, dk, dv: (dq, dk, dv),
}
_UNSCALED = {"query-scale": lambda g, d: g, "key-scale": lambda g, d: g}
BACKWARD_SLIPS = (
    Slip("dv-not-transposed", "slip.dv-not-transposed", {"value-gradient": lambda a, up: a @ up}),
    Slip("weight-gradient-from-output", "slip.weight-gradient-from-output",
         {"weight-gradient": lambda a, up, v: a @ v @ _t(v)}),
    Slip("weight-gradient-transposed", "slip.weight-gradient-transposed",
         {"weight-gradient": lambda a, up, v: v @ _t(up)}),
    Slip("values-not-transposed", "slip.values-not-transposed", {"weight-gradient": lambda a, up, v: up @ v}),
    Slip("softmax-jacobian", "slip.softmax-jacobian", {"row-term": lambda a, da: 0.0}),
    Slip("row-sum-without-keepdims", "slip.row-sum-without-keepdims",
         {"row-term": lambda a, da: (a * da).sum(axis=-1)}),
    Slip("row-sum-other-axis", "slip.row-sum-other-axis",
         {"row-term": lambda a, da: (a * da).sum(axis=-2, keepdims=True)}),
    Slip("row-sum-without-weights", "slip.row-sum-without-weights",
         {"row-term": lambda a, da: da.sum(axis=-1, keepdims=True)}),
    Slip("diagonal-jacobian", "slip.diagonal-jacobian", {"score-gradient": lambda a, da, row: a * (1 - a) * da}),
    Slip("weights-factor-missing", "slip.weights-factor-missing", {"score-gradient": lambda a, da, row: da - row}),
    Slip("weight-gradient-as-score-gradient", "slip.weight-gradient-as-score-gradient",
         {"score-gradient": lambda a, da, row: da}),
    Slip("grad-scale-missing", "slip.grad-scale-missing", _UNSCALED),
    Slip("query-scale-missing", "slip.query-scale-missing", {"query-scale": lambda g, d: g}),
    Slip("key-scale-missing", "slip.key-scale-missing", {"key-scale": lambda g, d: g}),
    Slip("key-scaled-twice", "slip.key-scaled-twice", {"key-scale": lambda g, d: g / d}),
    Slip("grad-scale-by-dk", "slip.grad-scale-by-dk",
         {"query-scale": lambda g, d: g / d, "key-scale": lambda g, d: g / d}),
    Slip("grad-scale-inverted", "slip.grad-scale-inverted",
         {"query-scale": lambda g, d: g * np.sqrt(d), "key-scale": lambda g, d: g * np.sqrt(d)}),
    Slip("forward-unscaled", "slip.forward-unscaled", {"scale": lambda s, d: s}),
    Slip("unscaled-everywhere", "slip.unscaled-everywhere", {"scale": lambda s, d: s, **_UNSCALED}),
    *WIDTH_SLIPS,
    Slip("transposed-scores", "slip.transposed-scores", {"scores": lambda q, k: k @ _t(q)}),
    *SOFTMAX_SLIPS,
    Slip("transposed-grad", "slip.transposed-grad",
         {"query-gradient": lambda ds, q, k: _t(ds) @ k, "key-gradient": lambda ds, q, k: ds @ q}),
    Slip("query-grad-transposed", "slip.query-grad-transposed", {"query-gradient": lambda ds, q, k: _t(ds) @ k}),
    Slip("key-grad-transposed", "slip.key-grad-transposed", {"key-gradient": lambda ds, q, k: ds @ q}),
    Slip("transpose-batch-axes", "slip.transpose-batch-axes",
         {"value-gradient": lambda a, up: a.transpose(1, 0, 2) @ up,
                                  "key-gradient": lambda ds, q, k: ds.transpose(1, 0, 2) @ q}),
    Slip("grads-swapped", "slip.grads-swapped", {"result": lambda dq, dk, dv: (dk, dq, dv)}),
    Slip("returns-dv-second", "slip.returns-dv-second", {"result": lambda dq, dk, dv: (dq, dv, dk)}),
    Slip("negated", "slip.negated", {"result": lambda dq, dk, dv: (-dq, -dk, dv)}),
)


# --- the probes -------------------------------------------------------------------------------

def _drawn(seed: int, batch: int, tokens: int, key_width: int, value_width: int) -> tuple[np.ndarray, ...]:
    """Q, K, V and an upstream gradient, in tenths, for a probe of these sizes."""
    rng = np.random.default_rng(seed)
    sizes = (key_width, key_width, value_width, value_width)
    return tuple(np.round(rng.normal(size=(batch, tokens, width)), 1) for width in sizes)


OVERFLOWING = 1e4  # the first query of the large probe times this: its scores reach thousands, so exp overflows
READ_SIZES = (1, 3, 4, 5)  # B, T, d_k, d_v of the probe that reads the weights off the output
_sizes = {"general": (2, 3, 4, 5), "pair": (2, 2, 2, 2), "square": (1, 3, 3, 3), "batch-as-tokens": (3, 3, 2, 4),
          "single": (1, 1, 3, 2)}
_drawn_probes = {name: _drawn(27 + i, *sizes) for i, (name, sizes) in enumerate(_sizes.items())}
_large = tuple(a.copy() for a in _drawn_probes["general"])
_large[0][:, 0] *= OVERFLOWING
_read = _drawn(40, *READ_SIZES)
READ_VALUES = np.concatenate([np.eye(3), np.zeros((3, 2))], axis=1)[None]  # V = [I | 0]: the output is A itself
BACKWARD_PROBES = {**_drawn_probes, "large": _large, "read": (_read[0], _read[1], READ_VALUES, _read[3])}
HEAD_PROBES = {name: args[:3] for name, args in BACKWARD_PROBES.items()}

HEAD_SEARCH = Search(head, HEAD_STEPS, HEAD_SLIPS, HEAD_PROBES, outputs=1)
BACKWARD_SEARCH = Search(backward, BACKWARD_STEPS, BACKWARD_SLIPS, BACKWARD_PROBES, outputs=3)


# --- the first stage that differs --------------------------------------------------------------

def _close(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.abs(a - b).max() <= CODE_AGREES * max(float(np.abs(b).max()), 1.0))


def head_stage(fn, finding: Finding) -> tuple[str, dict] | None:
    """The first stage of the learner's head the read probe proves wrong (its string: the mixing, the softmax or the
    scores) with what it measured, or None when its weights and mixing are right there."""
    q, k, v = HEAD_PROBES["read"]
    other = _drawn_probes["square"][2]  # values of the same T = 3 rows
    given = run_probes(fn, {"read": (q, k, v), "other": (q, k, other)}, outputs=1).results
    read, mixed = given["read"], given["other"]
    tokens = q.shape[1]
    if not isinstance(read, tuple) or not isinstance(mixed, tuple) or read[0].shape != (1, tokens, v.shape[-1]):
        return None
    output = read[0]
    if not np.all(np.isfinite(output)):
        return None
    weights = output[..., :tokens]
    if not (_close(output[..., tokens:], np.zeros_like(output[..., tokens:])) and _close(mixed[0], weights @ other)):
        return "code-stage.mix", {}
    if _close(weights, attention_weights(q, k)):
        return None
    sums = weights.sum(axis=-1)[0]
    if not np.allclose(sums, 1.0, atol=1e-6):
        return "code-stage.normalise", {"sums": vector(sums, 3)}
    return "code-stage.scores", {"found": vector(weights[0, 0], 3), "right": vector(attention_weights(q, k)[0, 0], 3)}


def backward_stage(fn, finding: Finding) -> tuple[str, dict] | None:
    """The first stage of the backward that the outputs differing on a case (0 dq, 1 dk, 2 dv) point to."""
    if finding.problem != "differs":
        return None
    differing = finding.fields["outputs"]
    if 2 in differing:
        return "code-stage.value-gradient", {}
    if set(differing) == {0, 1}:
        return "code-stage.score-gradient", {}
    return ("code-stage.query-gradient", {}) if differing == (0,) else ("code-stage.key-gradient", {})
