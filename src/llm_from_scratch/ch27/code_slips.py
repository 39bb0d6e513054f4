"""The slips a learner makes writing the head and its backward in numpy, the probes that tell them apart, and
whether a slip is what the line where a learner's numbers part did (``agrees``).

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

from ..book.code_check import RAISED, Finding, run_probes
from ..book.code_search import Search
from ..book.formatting import vector
from ..book.slips import Slip, recipe
from ..book.tolerances import CODE_AGREES
from ..engine.closed_form import array_softmax, attention_weights
from . import code_lines


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
         {"scores": lambda q, k: np.where(np.tril(np.ones(q.shape[1])) == 1, q @ _t(k), -np.inf)},
         covers=frozenset({"scaled-scores"})),
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
    Slip("key-scaled-twice", "slip.key-scaled-twice", {"key-scale": lambda g, d: g / d},
         covers=frozenset({"scaled-queries"})),
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
    """The first stage of the backward that the outputs differing on a case (0 dq, 1 dk, 2 dv) point to, said only
    once the weights it recomputes were read right through dv: with Ō = [I | 0], V̄ = AᵀŌ holds Aᵀ in its first T
    columns. Where they read wrong, that the weights or the way dv is made from them differ."""
    if finding.problem != "differs":
        return None
    q, k, _ = HEAD_PROBES["read"]
    tokens = q.shape[1]
    given = run_probes(fn, {"read": (q, k, _read[2], READ_VALUES)}, outputs=3).results["read"]
    if not isinstance(given, tuple) or given[2].shape != READ_VALUES.shape or not np.all(np.isfinite(given[2])):
        return None
    read, right = given[2][0, :, :tokens].T, attention_weights(q, k)[0]
    if not _close(read, right):
        return "code-stage.backward-weights", {"found": vector(read[0], 3), "right": vector(right[0], 3)}
    differing = finding.fields["outputs"]
    if 2 in differing:
        return "code-stage.value-gradient", {}
    if set(differing) == {0, 1}:
        return "code-stage.score-gradient", {}
    return ("code-stage.query-gradient", {}) if differing == (0,) else ("code-stage.key-gradient", {})


# --- whether a slip agrees with the lines ------------------------------------------------------------------------

# The value each step of ``code_slips``'s head and backward makes (the steps that make numbers of a stage).
STEP_VALUES = {"scores": "raw-scores", "scale": "scaled-scores", "shift": "shifted-scores", "exp": "exponentials",
               "normalise": "weights", "mix": "output", "value-gradient": "value-gradient",
               "weight-gradient": "weight-gradient", "row-term": "row-term", "score-gradient": "score-gradient",
               "query-gradient": "unscaled-query-gradient", "query-scale": "query-gradient",
               "key-gradient": "unscaled-key-gradient", "key-scale": "key-gradient"}


def _same_numbers(a: object, b: object) -> bool:
    if isinstance(a, tuple) or isinstance(b, tuple):
        return isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b) \
            and all(_same_numbers(x, y) for x, y in zip(a, b))
    if not isinstance(a, np.ndarray) or not isinstance(b, np.ndarray):
        return not isinstance(a, np.ndarray) and not isinstance(b, np.ndarray) and a == b
    a, b = a.astype(np.float64), b.astype(np.float64)
    if a.shape != b.shape or not np.array_equal(np.isfinite(a), np.isfinite(b)):
        return False
    finite = np.isfinite(a)
    return np.array_equal(a[~finite], b[~finite], equal_nan=True) \
        and code_lines.close(a[finite], b[finite], code_lines.NOISE)


def _shows(data: np.ndarray, written: np.ndarray | None, target: np.ndarray) -> bool:
    """Whether an array is ``target``, one batch element or row of it, or one of these transposed, where written."""
    for _, piece in code_lines.pieces(np.asarray(target, dtype=np.float64)):
        for turned in (piece, piece.swapaxes(-1, -2) if piece.ndim >= 2 else piece):
            if turned.shape == data.shape:
                mask = written if written is not None else np.ones(turned.shape, dtype=bool)
                if _same_numbers(data.astype(np.float64)[mask], turned[mask]):
                    return True
    return False


def _slipped(slips: tuple[Slip, ...], search: Search, args: tuple[np.ndarray, ...]):
    """The slips' steps on ``args`` and the index of the first that makes other numbers than the right one's (or
    a later one, where that step makes no stage: the width taken for d_k), None if none does."""
    right, slipped = search.steps_of({}, args), search.steps_of(recipe(slips), args)
    first = next((i for i, (a, b) in enumerate(zip(right, slipped)) if a[0] != b[0] or not _same_numbers(a[1], b[1])),
                 min(len(right), len(slipped)))
    return slipped, next((i for i in range(first, len(slipped)) if slipped[i][0] in STEP_VALUES), None)


def never_made(slips: tuple[Slip, ...], search: Search, args: tuple[np.ndarray, ...],
               reading: code_lines.Reading) -> tuple[str, str, int] | None:
    """Where no line made the value the slips change: that value, the one it is made from, and the line that made
    that one."""
    slipped, changed = _slipped(slips, search, args)
    if changed is None:
        return None
    value = STEP_VALUES[slipped[changed][0]]
    made = [name for name in code_lines.AFTER[value] if name in reading.made_lines]
    before = max(made, key=lambda name: (name not in code_lines.PASSED, code_lines.ORDER.index(name)), default=None)
    if value in reading.made_lines or before is None or before in code_lines.INPUTS:
        return None
    return value, before, reading.made_lines[before]


def agrees(slips: tuple[Slip, ...], search: Search, args: tuple[np.ndarray, ...], reading: code_lines.Reading) -> bool:
    """Whether the slips are what the traced line did. Where the numbers part: the line reads only stages of the head,
    values on the way the slips' words speak of, or arrays the slips' computation has too (so a line that divides
    the already scaled scores once more, or q and k each by √d_k, is not a scale divided by the wrong number), and
    no value the slips' first step that makes other numbers makes, or a later step (but one batch element's, which
    a slip may leave right, and values its words speak of: a mask put on the scaled scores rather than the raw ones);
    and that step, or a later one, makes the numbers the line made, or every other line that parts descends from
    this one (the slips' whole difference is the learner's one place). An output returned in
    another's place: the slips' step makes it. An exception: the slips' computation raises too. A slip of the
    returned tuple's order makes no numbers of its own, so it agrees with no line."""
    slipped, changed = _slipped(slips, search, args)
    raises = slipped[-1][0] == RAISED
    if changed is None:
        return reading.trace.raised is not None and raises
    arrays = [given for _, given in slipped if isinstance(given, np.ndarray)] + list(args)
    if reading.departure is not None:
        departure = reading.departure
        start = code_lines.ORDER.index(STEP_VALUES[slipped[changed][0]])
        partial = {name for name, _, _ in departure.partial}  # one batch element's: the slip may leave it right
        covered = set().union(*(slip.covers for slip in slips))
        if any(code_lines.ORDER.index(name) >= start and name not in code_lines.PASSED | partial | covered
               and name not in departure.given for name, _ in departure.read):
            return False
        for made in _arrays_read(reading, departure.made):
            seen = reading.seen.get(made.index)
            stage = seen is not None and seen.name is not None and seen.name not in code_lines.PASSED
            if not (stage or seen is not None and seen.name in covered
                    or any(_shows(made.value, None, given) for given in arrays)):
                return False
        return reading.alone or any(isinstance(given, np.ndarray) and _shows(
            departure.made.value, departure.made.written, given) for _, given in slipped[changed:])
    if reading.misplaced is not None:
        given = slipped[changed][1]
        return isinstance(given, np.ndarray) and _shows(reading.misplaced.made.value, None, given)
    return reading.trace.raised is not None and raises


def _arrays_read(reading: code_lines.Reading, made) -> list:
    """The arrays the line that made ``made`` read, each as the last line that changed it left it."""
    found = []
    for name in made.reads - {made.name} if made.into else made.reads:
        held = [m for m in reading.trace.made[:made.index] if m.frame == made.frame and m.name == name and m.value.ndim]
        found += held[-1:]
    return found
