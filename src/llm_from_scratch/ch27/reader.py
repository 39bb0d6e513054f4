"""The one reader of a learner's computation: what a value's recorded graph computes, written out whole, and which
stage of the head its numbers are, found by comparing numbers, never by the shape of the graph alone.

* ``formula(value, names)`` is the exact formula the cells computed, in the chapter's notation and with the
  learner's own names for the inputs (``(Q/√2)·Kᵀ``, ``QKᵀ/√2/0.5``, ``KQᵀ``, ``softmax(QKᵀ/√2, axis=0)``,
  ``QKᵀ/√2 + M``); None for numbers computed outside the engine (a plain array). Its numbers are what the cells
  divided or multiplied by: √2 where they computed a square root, 1.414 where they typed it.
* ``factor(value)`` is what a chain of divisions and products by plain numbers comes to in all.
* ``Inputs`` are the head's inputs a value is read against (the cells' Q, K, V, and Ō where known): ``stage`` and
  ``equals`` say which stage of the head on them a value's numbers are (within ``FLOAT_NOISE``), ``match`` which
  stage of the forward or the backward an array is, as it stands, transposed, one batch element or broadcast.
* ``read(value)`` finds those inputs (the ones its graph reads, by the cells' names; its own products X·Yᵀ; every
  set the cells named) and holds the formula beside them.
* ``cells_stages`` and ``stages_note``: the divisor and softmax axis a widget follows, found from the cells' A and
  checked on its numbers; ``chapter_loss``: the Ō of a loss that is ⟨O, Ō⟩ of the head, checked on numbers.

Every instrument that speaks of a learner's values (titles, fold notes, the editor, the plane, the trace, the
gradient check, the judge's notes on the learner's own values) reads them here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..book.formatting import num, trimmed
from ..book.tolerances import FLOAT_NOISE
from ..engine import Tensor
from .evidence import HeadRun, run_head
from .stages import Stages
from .strings import text

DECIMALS = 3  # a number in a formula: 1.414 typed, 0.5
SMALL = 0.01  # below it a number keeps three significant digits (0.000354), not three decimals
ROOTS_UP_TO = 10_000  # a number whose square is a whole number up to this is written as its root: √2, 1/√64
SUBSCRIPTS = "₀₁₂₃₄₅₆₇₈₉"
SUM, PRODUCT, ATOM = 1, 2, 3  # how tightly a piece of a formula binds


def names_of(namespace: Mapping[str, object]) -> dict[int, str]:
    """The learner's names for the tensors in ``namespace`` (a notebook's variables), by identity: the shortest
    name, then the first in alphabetical order, where one tensor has several."""
    found: dict[int, str] = {}
    for name in sorted(namespace, key=lambda n: (len(n), n)):
        value = namespace[name]
        if isinstance(value, Tensor) and name.isidentifier() and not name.startswith("_"):
            found.setdefault(id(value), name)
    return found


def notebook_namespace() -> Mapping[str, object]:
    """The running notebook's variables; none outside a notebook."""
    from IPython import get_ipython

    shell = get_ipython()
    return shell.user_ns if shell is not None else {}


def notebook_names() -> dict[int, str]:
    """The names the running notebook's cells gave their tensors."""
    return names_of(notebook_namespace())


@dataclass(frozen=True)
class _Piece:
    text: str
    binds: int
    symbol: bool = False  # one name, perhaps transposed: QKᵀ is written without a dot


def formula(value: object, names: Mapping[int, str] | None = None) -> str | None:
    """The formula ``value``'s graph records, down to its inputs (named by ``names``, id -> name; an input without a
    name is X₁, X₂, … in the order the formula reads them, or M if it holds an infinity, as a mask does; a plain
    number is written out); None for a value no step of the engine computed (an array, or a Tensor of numbers
    typed in)."""
    if not isinstance(value, Tensor) or value.op == "input":
        return None
    names = dict(notebook_names() if names is None else names)
    unnamed = [leaf for leaf in leaves(value) if id(leaf) not in names and leaf.ndim > 0]
    for i, leaf in enumerate(unnamed, start=1):
        names[id(leaf)] = "M" if np.isinf(leaf.data).any() else f"X{SUBSCRIPTS[i]}" if len(unnamed) > 1 else "X"
    return _written(value, names).text


def leaves(value: Tensor) -> list[Tensor]:
    """The inputs ``value``'s graph reads, each once, in the order its formula reads them."""
    found, seen, stack = [], set(), [value]
    while stack:
        tensor = stack.pop()
        if id(tensor) in seen:
            continue
        seen.add(id(tensor))
        if tensor.op == "input":
            found.append(tensor)
        else:
            stack.extend(reversed(tensor.inputs))
    return found


def _number(x: float) -> str:
    """A plain number as a formula writes it: whole, a square root (√2, 1/√2: what math.sqrt(d_k) gives), or to
    DECIMALS decimals (a typed 1.414 is 1.414, not √2)."""
    sign, x = ("−" if x < 0 else ""), abs(float(x))
    if x and not x.is_integer():
        for root, shown in ((x, "√{}"), (1 / x, "1/√{}")):
            square = round(root * root)
            if 2 <= square <= ROOTS_UP_TO and abs(root * root - square) <= FLOAT_NOISE * square and math.isqrt(
                    square) ** 2 != square:
                return sign + shown.format(square)
    return sign + (trimmed(x, DECIMALS) if x >= SMALL else f"{x:.3g}")


def _wrapped(piece: _Piece, binds: int) -> str:
    return piece.text if piece.binds >= binds else f"({piece.text})"


def _leaf(tensor: Tensor, names: Mapping[int, str]) -> _Piece:
    if id(tensor) in names:
        return _Piece(names[id(tensor)], ATOM, symbol=True)
    return _numeral(float(tensor.data))  # a plain number a step took


def _numeral(x: float) -> _Piece:
    """A plain number as a piece of a formula: −2 and 1/√2 are bracketed where they stand beside another."""
    shown = _number(x)
    return _Piece(shown, SUM if shown.startswith("−") else PRODUCT if "/" in shown else ATOM)


def _written(tensor: Tensor, names: Mapping[int, str]) -> _Piece:
    """``tensor``'s formula, as a piece that knows how tightly it binds."""
    if tensor.op == "input":
        return _leaf(tensor, names)
    parts = [_written(t, names) for t in tensor.inputs]
    op, params = tensor.op, tensor.params
    if op == "transpose":
        rank = tensor.ndim
        if sorted(axis % rank for axis in params["axes"]) == [rank - 2, rank - 1]:
            return _Piece(f"{_wrapped(parts[0], ATOM)}ᵀ", ATOM, symbol=parts[0].symbol)
        return _Piece(f"{_wrapped(parts[0], ATOM)}.transpose{tuple(params['axes'])}", ATOM)
    if op == "matmul":
        left, right = parts
        joined = "" if left.symbol and right.symbol else "·"
        return _Piece(f"{_wrapped(left, ATOM if joined else PRODUCT)}{joined}{_wrapped(right, ATOM)}", PRODUCT)
    if op == "div":
        right = _numeral(params["divisor"]) if "divisor" in params else parts[1]
        return _Piece(f"{_wrapped(parts[0], PRODUCT)}/{_wrapped(right, ATOM)}", PRODUCT)
    if op == "mul":
        return _product(tensor, parts)
    if op == "add":
        left, right = parts
        negated = tensor.inputs[1]
        if negated.op == "mul" and _scalar(negated.inputs[1]) == -1.0:
            return _Piece(f"{left.text} − {_wrapped(_written(negated.inputs[0], names), PRODUCT)}", SUM)
        return _Piece(f"{left.text} + {_wrapped(right, PRODUCT)}", SUM)
    if op == "exp" and tensor.inputs[0].op == "log_softmax":  # the engine's softmax: exp of log_softmax
        inner = tensor.inputs[0]
        axis = inner.params["axis"] % inner.ndim
        shown = "" if axis == inner.ndim - 1 else f", axis={axis}"
        return _Piece(f"softmax({_written(inner.inputs[0], names).text}{shown})", ATOM)
    if op in ("softmax", "log_softmax"):
        axis = params["axis"] % tensor.ndim
        shown = "" if op == "softmax" and axis == tensor.ndim - 1 else f", axis={axis}"
        return _Piece(f"{op}({parts[0].text}{shown})", ATOM)
    if op == "exp":
        return _Piece(f"exp({parts[0].text})", ATOM)
    if op == "sum":
        axis = params["axis"]
        return _Piece(f"sum({parts[0].text}{'' if axis is None else f', axis={axis}'})", ATOM)
    if op == "pow":
        return _Piece(f"{_wrapped(parts[0], ATOM)}^{_number(params['exponent'])}", ATOM)
    return _Piece(f"{_wrapped(parts[0], ATOM)}[…]", ATOM)  # an index


def _product(tensor: Tensor, parts: list[_Piece]) -> _Piece:
    """a·b; by −1, −a."""
    for i, number in enumerate(tensor.inputs):
        if _scalar(number) == -1.0:
            return _Piece(f"−{_wrapped(parts[1 - i], ATOM)}", PRODUCT)
    left, right = parts
    return _Piece(f"{_wrapped(left, PRODUCT)}·{_wrapped(right, ATOM)}", PRODUCT)


def _scalar(tensor: Tensor) -> float | None:
    """The plain number a step took (a rank-0 input), else None."""
    return float(tensor.data) if tensor.op == "input" and tensor.ndim == 0 else None


def factor(value: object) -> tuple[float, Tensor | None]:
    """What a chain of divisions and products by plain numbers at the end of ``value``'s graph multiplies by in all,
    and what it multiplies (1 and ``value`` itself where there is none; None for no Tensor)."""
    if not isinstance(value, Tensor):
        return 1.0, None
    total, tensor = 1.0, value
    while True:
        if tensor.op == "div" and "divisor" in tensor.params:
            total, tensor = total / tensor.params["divisor"], tensor.inputs[0]
            continue
        numbers = [_scalar(t) for t in tensor.inputs]
        if tensor.op == "mul" and numbers.count(None) == 1:
            i = numbers.index(None)
            total, tensor = total * numbers[1 - i], tensor.inputs[i]
            continue
        return total, tensor


# --- which stage a value's numbers are ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Match:
    """An array found to be a stage of the head (``ch27.stages``'s name), maybe transposed (its last two axes
    swapped), maybe one batch element (``batch``, else None), maybe broadcast."""

    stage: str
    transposed: bool = False
    batch: int | None = None
    broadcast: bool = False  # a smaller array that, repeated along the missing or single axes, is the stage


def same(a: object, b: object) -> bool:
    """Two arrays of one shape whose numbers agree within FLOAT_NOISE (relative to the larger entries), infinities
    and nans in the same places."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return False
    finite = np.isfinite(a) & np.isfinite(b)
    if not np.array_equal(np.isfinite(a), np.isfinite(b)) or not np.array_equal(a[~finite], b[~finite]):
        return not a.size
    if not finite.any():
        return True
    scale = max(1.0, float(np.abs(b[finite]).max()))
    return bool(np.abs(a[finite] - b[finite]).max() <= FLOAT_NOISE * scale)


@dataclass(frozen=True, eq=False)
class Inputs:
    """The head's inputs a learner's values are read against: Q, K ([B, T, d_k] arrays), V and Ō where known."""

    query: np.ndarray
    key: np.ndarray
    value: np.ndarray | None = None
    upstream: np.ndarray | None = None
    called: Mapping[str, str] = field(default_factory=dict)  # Q, K, V -> the cells' name for it, where known

    @cached_property
    def run(self) -> HeadRun | None:
        """The chapter's head on these inputs, forward and backward (on zero values where V is not known); None
        where the head refuses them."""
        value = np.zeros((*self.query.shape[:2], 1)) if self.value is None else self.value
        upstream = None if self.upstream is None or self.value is None else self.upstream
        try:
            with np.errstate(all="ignore"):
                return run_head(self.query, self.key, value, upstream)
        except (ValueError, TypeError):
            return None

    def stages(self) -> Iterator[tuple[str, np.ndarray]]:
        """Each stage of the head on these inputs, forward then backward (the output where V is known, the
        backward's where Ō is too)."""
        run = self.run
        if run is None:
            return
        head = run.head
        yield from (("raw-scores", head.raw_scores.data), ("scaled-scores", head.scaled_scores.data),
                    ("probabilities", head.weights.data))
        if self.value is None:
            return
        yield "value-mixture", head.output.data
        if self.upstream is not None:
            yield from (("value-gradient", run.grad_value), ("weight-gradient", head.weights.grad),
                        ("score-gradient", head.scaled_scores.grad), ("query-gradient", run.grad_query),
                        ("key-gradient", run.grad_key))

    def stage(self, value: object) -> str | None:
        """The first stage of the head on these inputs whose numbers ``value``'s are (the whole stage, as it
        stands); None if none."""
        data = numbers(value)
        return next((name for name, stage in self.stages() if same(data, stage)), None)

    def equals(self, value: object, stage: str) -> bool:
        """``value``'s numbers are the stage ``stage`` of the head on these inputs (at d_k = 1 the raw and the
        scaled scores are one and the same, so a value can be two stages)."""
        data = numbers(value)
        return any(name == stage and same(data, found) for name, found in self.stages())

    def match(self, value: object) -> Match | None:
        """The stage ``value``'s numbers are: as it stands, then with its last two axes swapped, then as one batch
        element, then broadcast to the stage's shape (each way of a rank that allows it); None where they are no
        stage."""
        data = numbers(value)
        for name, stage in self.stages():
            if same(data, stage):
                return Match(name)
        for name, stage in self.stages():
            if data.ndim >= 2 and same(np.swapaxes(data, -1, -2), stage):
                return Match(name, transposed=True)
        for name, stage in self.stages():
            for b in range(len(stage)):
                if same(data, stage[b]):
                    return Match(name, batch=b)
                if data.ndim == 2 and same(data.T, stage[b]):
                    return Match(name, transposed=True, batch=b)
        for name, stage in self.stages():
            try:
                spread = np.broadcast_to(data, stage.shape)
            except ValueError:
                continue
            if data.shape != stage.shape and same(spread, stage):
                return Match(name, broadcast=True)
        return None


def numbers(value: object) -> np.ndarray:
    return np.asarray(getattr(value, "data", value), dtype=np.float64)


# --- a learner's value read --------------------------------------------------------------------------------------

INPUT_NAME = re.compile(r"([QKVqkv])(\d*|_\w+)")  # the cells' names for the inputs: Q, K, V; Q2, K_same…; q, k, v


def inputs_in(namespace: Mapping[str, object], suffix: str = "") -> Inputs | None:
    """The head's inputs the cells named Q, K, V and Ō (O_bar; with ``suffix``, Q2, K2, V2 and O2_bar or O_bar2),
    where Q and K are there."""
    found, called = {}, {}
    for role, names in (("Q", ("Q",)), ("K", ("K",)), ("V", ("V",)), ("O_bar", ("O_bar", f"O{suffix}_bar"))):
        name = next((n for n in (f"{names[0]}{suffix}", *names[1:]) if n in namespace), None)
        value = namespace.get(name) if name else None
        if isinstance(value, (Tensor, np.ndarray)) and np.ndim(numbers(value)) == 3:
            found[role], called[role] = numbers(value).copy(), name
    if "Q" not in found or "K" not in found:
        return None
    return Inputs(found["Q"], found["K"], found.get("V"), found.get("O_bar"), called)


def suffixes_in(namespace: Mapping[str, object]) -> list[str]:
    """The sets of inputs the cells named: "" for Q, K, V; "2" for Q2, K2, V2…"""
    return sorted({m.group(2) for name in namespace if (m := INPUT_NAME.fullmatch(name)) and m.group(1) == "Q"})


@dataclass(frozen=True, eq=False)
class Reading:
    """A learner's value read: the formula its graph records (None: computed outside the engine), what a chain of
    plain numbers at its end multiplies by in all, and the inputs its numbers are compared with: ``own`` when they
    are the inputs its graph reads, else every set of inputs the cells named (a stage is named where the numbers are
    that stage on one of them; that they are no stage is said only of its own inputs)."""

    value: object
    formula: str | None
    factor: float
    inputs: tuple[Inputs, ...]
    own: bool
    names: Mapping[int, str]

    def written(self, part: Tensor) -> str | None:
        """The formula of a part of the value's graph, with the same names."""
        return formula(part, self.names)

    def equals(self, stage: str) -> bool:
        return any(inputs.equals(self.value, stage) for inputs in self.inputs)

    def match(self) -> Match | None:
        return next((found for inputs in self.inputs if (found := inputs.match(self.value))), None)

    @property
    def comparable(self) -> bool:
        """That its numbers are no stage of the head can be said: they were compared with its own inputs."""
        return self.own and any(inputs.run is not None for inputs in self.inputs)


def read(value: object, inputs: Inputs | None = None, namespace: Mapping[str, object] | None = None,
         known: Mapping[str, np.ndarray] | None = None) -> Reading:
    """``value`` read against ``inputs``, or against the inputs its graph reads as the cells named them (Q, K, V, Ō,
    or Q2, K2…; an input the cells did not name is named by ``known``: the one whose numbers it has, else the next
    of them not taken, in order); where it reads none by those names, against every set of inputs the cells named.
    The inputs its own products read (``structural``) are compared with too."""
    namespace = notebook_namespace() if namespace is None else namespace
    names = names_of(namespace)
    if isinstance(value, Tensor) and known:
        names.update(_named_by_value(value, names, known))
    if inputs is not None:
        found, own = (inputs,), True
    else:
        ours = _own_inputs(value, names, namespace)
        found = (ours,) if ours else tuple(i for suffix in suffixes_in(namespace)
                                           if (i := inputs_in(namespace, suffix)) is not None)
        found += tuple(structural(value, names))
        own = ours is not None
    return Reading(value, formula(value, names), factor(value)[0], found, own, names)


def _named_by_value(value: Tensor, names: Mapping[int, str], known: Mapping[str, np.ndarray]) -> dict[int, str]:
    """Names for the inputs of ``value``'s graph that have none: the known input whose numbers each has, else the
    known names not taken, in order."""
    unnamed = [leaf for leaf in leaves(value) if id(leaf) not in names and leaf.ndim > 0]
    given: dict[int, str] = {}
    for leaf in unnamed:
        name = next((n for n, array in known.items() if n not in given.values() and same(leaf.data, array)), None)
        if name:
            given[id(leaf)] = name
    free = [n for n in known if n not in given.values() and n not in names.values()]
    for leaf in unnamed:
        if id(leaf) not in given and free and not np.isinf(leaf.data).any():
            given[id(leaf)] = free.pop(0)
    return given


def _own_inputs(value: object, names: Mapping[int, str], namespace: Mapping[str, object]) -> Inputs | None:
    """The inputs ``value``'s graph reads, by the names they have (Q, K, V with one suffix), with the Ō the cells
    named beside them; None where its graph reads no Q and K of one set."""
    if not isinstance(value, Tensor):
        return None
    found: dict[str, dict[str, np.ndarray]] = {}
    called: dict[str, dict[str, str]] = {}
    for leaf in leaves(value):
        name = names.get(id(leaf), "")
        matched = INPUT_NAME.fullmatch(name)
        if matched and leaf.ndim == 3:
            found.setdefault(matched.group(2), {})[matched.group(1).upper()] = leaf.data
            called.setdefault(matched.group(2), {})[matched.group(1).upper()] = name
    if len(found) != 1:
        return None
    [(suffix, arrays)] = found.items()
    if "Q" not in arrays or "K" not in arrays:
        return None
    upstream = next((namespace[n] for n in (f"O_bar{suffix}", f"O{suffix}_bar") if n in namespace), None)
    if upstream is not None and np.ndim(numbers(upstream)) != 3:
        upstream = None
    return Inputs(arrays["Q"], arrays["K"], arrays.get("V"), None if upstream is None else numbers(upstream),
                  called[suffix])


def structural(value: object, names: Mapping[int, str]) -> Iterator[Inputs]:
    """The inputs ``value``'s graph would be the head on, read from its products: for each X·Yᵀ in it, X (without
    a chain of plain numbers at its end) as Q and Y as K, and as V what weights multiply (a product whose left
    side is a softmax), each an input or a tensor the cells named (a K made inline, K * 2, is no key of theirs);
    never a tensor the cells named K or V as Q, nor one named V as K, nor Q as K where they named keys beside it
    (K·Qᵀ is no QKᵀ; Q·Qᵀ is the queries matched with themselves, unless the cells have no keys: 10's Q2·Q2ᵀ). Only
    ever compared with: a stage is named where its numbers are the head's on them."""
    if not isinstance(value, Tensor):
        return
    def given(tensor: Tensor) -> bool:  # an input, or a tensor the cells named (K_same = K[…]); not K * 2 inline
        return tensor.op == "input" or id(tensor) in names

    mixed = [t.inputs[1].data for t in _nodes(value)
             if t.op == "matmul" and _is_softmax(t.inputs[0]) and given(t.inputs[1])]
    for node in _nodes(value):
        if node.op != "matmul" or node.inputs[1].op != "transpose" or node.ndim != 3:
            continue
        axes = sorted(axis % node.ndim for axis in node.inputs[1].params["axes"])
        query, key = factor(node.inputs[0])[1], node.inputs[1].inputs[0]
        if axes != [1, 2] or not (given(query) and given(key)) or _named_as(query, names) in ("K", "V") or (
                _named_as(key, names) == "V") or _named_as(key, names) == "Q" and _has_keys(key, names):
            continue
        yield Inputs(query.data, key.data, next((v for v in mixed if v.shape[:2] == key.shape[:2]), None))


def _has_keys(query: Tensor, names: Mapping[int, str]) -> bool:
    """The cells named keys beside ``query`` (K2 beside Q2): then Q·Qᵀ matches queries with queries, a slip."""
    found = INPUT_NAME.fullmatch(names.get(id(query), ""))
    return bool(found) and any(name == ("K" if found.group(1) == "Q" else "k") + found.group(2)
                               for name in names.values())


def _named_as(tensor: Tensor, names: Mapping[int, str]) -> str | None:
    """Q, K or V where the cells named ``tensor`` so (with any suffix), else None."""
    found = INPUT_NAME.fullmatch(names.get(id(tensor), ""))
    return found.group(1).upper() if found else None


def _nodes(value: Tensor) -> list[Tensor]:
    """Every tensor of ``value``'s graph, each once."""
    found, seen, stack = [], set(), [value]
    while stack:
        tensor = stack.pop()
        if id(tensor) not in seen:
            seen.add(id(tensor))
            found.append(tensor)
            stack.extend(tensor.inputs)
    return found


def _is_softmax(tensor: Tensor) -> bool:
    return softmax_step(tensor) is not None


def softmax_step(value: object) -> tuple[int, Tensor] | None:
    """A softmax at the end of ``value``'s graph (``x.softmax(axis)``, or the engine's exp of log_softmax): its
    axis, counted from the first, and what it normalizes; None for anything else."""
    if not isinstance(value, Tensor):
        return None
    step = value if value.op == "softmax" else value.inputs[0] if value.op == "exp" else None
    if step is None or step.op not in ("softmax", "log_softmax"):
        return None
    return step.params["axis"] % value.ndim, step.inputs[0]


def parts(value: Tensor) -> list[Tensor]:
    """The steps inside ``value``'s graph (neither it nor an input), nearest to it first."""
    found, seen, queue = [], {id(value)}, list(value.inputs)
    while queue:
        tensor = queue.pop(0)
        if id(tensor) in seen or tensor.op == "input":
            continue
        seen.add(id(tensor))
        found.append(tensor)
        queue.extend(tensor.inputs)
    return found


# --- how the cells computed their weights, for a widget that follows them -------------------------------------------

def cells_stages(weights: object, query: object, key: object, value: object = None) -> Stages | None:
    """The two choices of the head by which the cells made ``weights`` from ``query`` and ``key``: the number their
    scores were divided by in all (however the division was written: on Q, on the scores, a chain) and the
    softmax's axis. Found from the numbers and checked: the head with them on these inputs gives ``weights``'s
    numbers. The chapter's own where the weights are the head's (an array too); None where no such choice does."""
    q, k = numbers(query), numbers(key)
    v = np.zeros((*q.shape[:2], 1)) if value is None else numbers(value)
    found = numbers(weights)
    chapter = Stages(float(np.sqrt(q.shape[-1])))
    candidates = [chapter]
    softmax = softmax_step(weights)
    if softmax is not None:
        axis, argument = softmax
        raw = q @ np.swapaxes(k, -1, -2)
        largest = np.unravel_index(np.argmax(np.abs(raw)), raw.shape)
        if raw[largest] != 0 and argument.shape == raw.shape:
            ratio = float(argument.data[largest] / raw[largest])
            if ratio != 0 and math.isfinite(ratio) and same(argument.data, ratio * raw):  # not a masked score
                candidates.insert(0, Stages(1 / ratio, axis))
    for stages in candidates:
        try:
            with np.errstate(all="ignore"):
                made = run_head(q, k, v, stages=stages).weights
        except (ValueError, TypeError):
            continue
        if same(found, made):
            return stages
    return None


AXES = {0: "stages.along_batch", 1: "stages.along_columns", 2: "stages.along_rows"}


def stages_note(widget: str, stages: Stages | None, weights: object, first_row: np.ndarray, key_width: int) -> str:
    """What a widget given the cells' A says beside them (``widget``: the key of its name): that it computes as
    they do, where that is not the chapter's head at ``key_width`` (``cells_stages`` checked it); or that it cannot
    follow them and keeps the chapter's, its first row of weights (``first_row``) beside theirs. Nothing where it
    was given no A or the cells computed as the head does."""
    if weights is None:
        return ""
    name = text(widget)
    if stages is None:
        cells = numbers(weights)
        cells = cells[0] if cells.ndim == 3 else cells
        return text("stages.keeps", widget=name, chapter=_row(first_row),
                    cells=_row(cells[0]) if cells.ndim == 2 else list(cells.shape))
    if stages.are_the_chapters(key_width):
        return ""
    divided = f"÷ {_number(stages.divisor)}"
    along = text(AXES.get(stages.axis, "stages.along_other"))
    return text("stages.follows", widget=name[:1].upper() + name[1:], divided=divided, along=along)


def _row(weights: np.ndarray) -> str:
    return "[" + ", ".join(num(w, 3) for w in weights) + "]"


# --- the chapter's loss, for the gradient check ----------------------------------------------------------------------

def chapter_loss(loss: object, query: object, key: object, value: object) -> Tensor | None:
    """Ō, where ``loss`` is L = ⟨O, Ō⟩ = sum(O * Ō) of a product of some O with a plain Ō, and O's numbers are the
    chapter's head's on ``query``, ``key`` and ``value`` (and L's are ⟨O, Ō⟩'s): checked on numbers; else None."""
    if not isinstance(loss, Tensor) or loss.op != "sum" or loss.params["axis"] is not None:
        return None
    product = loss.inputs[0]
    if product.op != "mul":
        return None
    for output, upstream in (product.inputs, product.inputs[::-1]):
        if upstream.op != "input" or upstream.shape != output.shape:
            continue
        inputs = Inputs(numbers(query), numbers(key), numbers(value), upstream.data)
        if inputs.equals(output, "value-mixture") and same(loss.data, np.sum(output.data * upstream.data)):
            return upstream
    return None
