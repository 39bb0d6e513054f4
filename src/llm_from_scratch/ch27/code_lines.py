"""Where a learner's head or backward parts from the right computation: the line, read from its own values.

``read_wrong(fn, cases, outputs)`` traces the learner's function (``book.code_trace``) on the first case it gets
wrong, the hidden random ones first, and matches every array a line made with the values of the right computation
on that case (``values``): the stages of the head and its backward and the steps a learner takes on the way in numpy
(a row's maximum, q divided by √d_k: "passed", neither kept nor blamed), each as it stands, as one batch element or
one row of one, or (a buffer filled in place) in the entries the line wrote. An array that is a value transposed, or
no value at all, is where the numbers may part; it is healed when a later line made from it is a value again (a
transposed K multiplied into the scores, a buffer of ``np.empty`` filled). The first that no later line heals, among
those whose line read a value, is where the numbers part (``Departure``), with what the line read and, where one of
a few checked relations holds, what its numbers are instead. What the function returns is read too: an array that is
another value than the output in its place (``Misplaced``), a buffer that its lines filled only in part
(``Unfilled``); and which line changed an argument in place, and the buffer an exception was raised writing into.
Whether a slip of the search is what the departing line did is ``code_slips.agrees``.
"""

from __future__ import annotations

import ast
import linecache
import re
import time
from dataclasses import dataclass, field, replace

import numpy as np

from ..book.code_check import NOTEBOOK_CELL, Case, is_right
from ..book.code_trace import (
    RETURNED,
    TRACE_LIMIT,
    Made,
    Trace,
    changed_argument,
    enclosing_loop,
    line_pieces,
    nearest,
    raised_into,
    trace,
)
from . import code_pitfalls
from .evidence import run_head

# The values of the head and its backward, in the order they are computed, each with the values it is made from.
AFTER = {
    "query": (), "key": (), "values": (), "upstream": (),
    "raw-scores": ("query", "key"),
    "scaled-queries": ("query",), "scaled-keys": ("key",),
    "row-maxima": ("raw-scores",), "raw-shifted": ("raw-scores",),
    "scaled-scores": ("raw-scores", "scaled-queries", "scaled-keys"),
    "scaled-row-maxima": ("scaled-scores",),
    "shifted-scores": ("scaled-scores",),
    "unshifted-exponentials": ("scaled-scores",),
    "exponentials": ("shifted-scores",),
    "unshifted-row-sums": ("unshifted-exponentials",),
    "row-sums": ("exponentials",),
    "weights": ("unshifted-exponentials", "exponentials"),
    "output": ("weights", "values"),
    "value-gradient": ("weights", "upstream"),
    "weight-gradient": ("upstream", "values"),
    "weighted-gradient": ("weights", "weight-gradient"),
    "row-term": ("weights", "weight-gradient", "weighted-gradient"),
    "centred-gradient": ("weight-gradient", "row-term"),
    "score-gradient": ("weights", "weight-gradient", "row-term", "centred-gradient"),
    "scaled-score-gradient": ("score-gradient",),
    "unscaled-query-gradient": ("score-gradient", "key"),
    "query-gradient": ("score-gradient", "key", "scaled-score-gradient", "unscaled-query-gradient"),
    "unscaled-key-gradient": ("score-gradient", "query"),
    "key-gradient": ("score-gradient", "query", "scaled-score-gradient", "unscaled-key-gradient"),
}
ORDER = list(AFTER)
# Values on the way that are no stage of the chapter: a learner may make them, and a line that reads them still reads
# the head's numbers; they heal nothing (a line that divides q by √d_k has not yet made the scores).
PASSED = frozenset({"scaled-queries", "scaled-keys", "row-maxima", "raw-shifted", "scaled-row-maxima",
                    "weighted-gradient", "centred-gradient", "scaled-score-gradient", "unscaled-query-gradient",
                    "unscaled-key-gradient", "buffer"})
# The stage each value on the way leads to: what the head computes next from it.
LEADS = {"scaled-queries": ("scaled-scores",), "scaled-keys": ("scaled-scores",), "row-maxima": ("shifted-scores",),
         "raw-shifted": ("shifted-scores",), "scaled-row-maxima": ("shifted-scores",),
         "weighted-gradient": ("row-term",), "centred-gradient": ("score-gradient",),
         "scaled-score-gradient": ("query-gradient", "key-gradient"),
         "unscaled-query-gradient": ("query-gradient",), "unscaled-key-gradient": ("key-gradient",)}
INPUTS = ("query", "key", "values", "upstream")
BUFFER = re.compile(r"\b(zeros|empty)(_like)?\s*\(")  # a line that makes an array to be filled
OUTPUTS = {1: ("output",), 3: ("query-gradient", "key-gradient", "value-gradient")}
NOISE = 1e-9  # how far, relative to a value's largest entry, a float64 line may be from it
NARROW_NOISE = 1e-3  # the same for a line in a narrower float format
TINY = 1e-12  # a part of a value whose entries are all smaller is as good as zeros
READ_LIMIT = 3.0  # seconds for tracing a wrong function on all the cases it is traced on, together
TRACED_FIRST = ("random", "single", "large")  # the cases traced first: their inputs have no symmetry to hide a slip


def values(q, k, v, upstream) -> list[tuple[str, np.ndarray]]:
    """Every value of the right computation on these inputs, as (name, array), finite ones only (a name may have
    several arrays: a row's sums kept as a column or not)."""
    run = run_head(q, k, v, upstream)
    head = run.head
    raw, scaled, weights = head.raw_scores.data, head.scaled_scores.data, head.weights.data
    grad_weights, grad_scores = head.weights.grad, head.scaled_scores.grad
    root = np.sqrt(q.shape[-1])
    with np.errstate(all="ignore"):
        shifted, exponentials, unshifted = _exponentials(scaled)
        row_term = (weights * grad_weights).sum(axis=-1, keepdims=True)
        rows = {"row-maxima": raw.max(axis=-1, keepdims=True), "scaled-row-maxima": scaled.max(axis=-1, keepdims=True),
                "row-sums": exponentials.sum(axis=-1, keepdims=True),
                "unshifted-row-sums": unshifted.sum(axis=-1, keepdims=True), "row-term": row_term}
        found = [("scaled-queries", q / root),
                 ("scaled-keys", k / root), ("raw-scores", raw), ("raw-shifted", raw - rows["row-maxima"]),
                 ("scaled-scores", scaled), ("shifted-scores", shifted), ("unshifted-exponentials", unshifted),
                 ("exponentials", exponentials), ("weights", weights), ("output", head.output.data),
                 ("value-gradient", run.grad_value), ("weight-gradient", grad_weights),
                 ("weighted-gradient", weights * grad_weights), ("centred-gradient", grad_weights - row_term),
                 ("score-gradient", grad_scores), ("scaled-score-gradient", grad_scores / root),
                 ("unscaled-query-gradient", grad_scores @ k), ("query-gradient", run.grad_query),
                 ("unscaled-key-gradient", grad_scores.swapaxes(-1, -2) @ q), ("key-gradient", run.grad_key),
                 *((name, column) for name, column in rows.items()),
                 *((name, column[..., 0]) for name, column in rows.items()),
                 ("query", q), ("key", k), ("values", v), ("upstream", upstream)]  # last: an output row that is a
    #                                                                           value row is the output's
    return [(name, x) for name, x in found if np.all(np.isfinite(x))]


def _exponentials(scaled: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The scaled scores less each row's maximum, their exponentials, and the exponentials of the scaled scores."""
    shifted = scaled - scaled.max(axis=-1, keepdims=True)
    return shifted, np.exp(shifted), np.exp(scaled)


@dataclass(frozen=True)
class Seen:
    """What a made array was found to be: a value's name, maybe transposed, maybe one batch element's part
    (``element``); None: no value."""

    name: str | None
    transposed: bool = False
    element: int | None = None


def close(a: np.ndarray, b: np.ndarray, noise: float) -> bool:
    return a.shape == b.shape and bool(np.abs(a - b).max(initial=0.0) <= noise * max(1.0, np.abs(b).max(initial=0.0)))


def pieces(target: np.ndarray):
    """(batch element or None, piece): the target as it stands, then each batch element, then each of its rows;
    a part of nothing but zeros (or numbers too small to tell from them) tells nothing and is left out."""
    yield None, target
    if target.ndim >= 3:
        for b, element in enumerate(target):
            if np.abs(element).max(initial=0.0) > TINY:
                yield b, element
        for b, element in enumerate(target):
            yield from ((b, row) for row in element if np.abs(row).max(initial=0.0) > TINY)


def _noise(made: Made) -> float:
    return NOISE if made.value.dtype.itemsize >= 8 or made.value.dtype.kind != "f" else NARROW_NOISE


def see(made: Made, found: list[tuple[str, np.ndarray]]) -> Seen:
    """The value a made array is, as it stands or in the entries its line wrote, else a value transposed."""
    data = made.value.astype(np.float64)
    if not np.all(np.isfinite(data)):
        return Seen(None)
    mask = made.written
    for transposed in (False, True):
        for name, target in found:
            for element, piece in pieces(target):
                if transposed:
                    if piece.ndim < 2:
                        continue
                    piece = piece.swapaxes(-1, -2)
                if piece.shape != data.shape:
                    continue
                if mask is None and close(data, piece, _noise(made)) or \
                        mask is not None and close(data[mask], piece[mask], _noise(made)):
                    return Seen(name, transposed and name not in INPUTS, element)
    if mask is None and not data.any():
        return Seen("buffer")  # zeros, to be filled
    return Seen(None)


@dataclass(frozen=True)
class Departure:
    """Where the learner's numbers part from the right computation's."""

    made: Made  # the array the line made
    read: tuple[tuple[str, int], ...]  # the values its line read, with the line that made each, in the order of AFTER
    given: tuple[str, ...]  # those of them a helper the line called returned
    numbers: tuple[tuple[str, float, int], ...]  # the numbers (no arrays) its line read, their values and lines
    others: tuple[tuple[str, int], ...]  # arrays its line read that are no value, and their lines
    turned: tuple[tuple[str, str, int], ...]  # arrays its line read that are a value transposed: name, value, line
    partial: tuple[tuple[str, int, int], ...]  # values read as one batch element's: (name, element, line made)
    seen: Seen  # what its numbers are (a value transposed) or Seen(None)
    multiple: tuple[str, float] | None  # a value its numbers are a constant multiple of, and the constant
    normalised: str | None  # a value whose rows, divided by their sums, its numbers are
    integer: tuple[str, int | None] | None  # the integer buffer it wrote into or returned, and the line that made it
    pitfalls: tuple[tuple[str, dict[str, object]], ...]  # what the line's code does that numbers alone cannot say:
    #                                                       each a catalogue key and its fields
    part: tuple[str, tuple[str, ...]] | None = None  # the piece of the line where the numbers part, and the values
    #                                                  it is made of
    returned_as: int | None = None  # a value on the way that the function returns as its output in this place


@dataclass(frozen=True)
class Misplaced:
    """A returned array that is another value than the output in its place: which, and the lines."""

    made: Made  # the returned array
    position: int  # its place in what the function returned
    value: str  # the value it is
    maker: Made  # where it was made


@dataclass(frozen=True)
class Unfilled:
    """A returned buffer whose lines wrote the right numbers into only part of it."""

    position: int
    made_at: int  # the line that made the buffer
    written_at: Made  # the last line that wrote into it
    loop: tuple[int, str] | None  # the loop that line stands in, its line and text
    elements: tuple[int, ...]  # the batch elements written
    batch: int
    returned_in_loop: tuple[int, str] | None  # the return line, where it stands in that loop and it ran once


@dataclass(frozen=True)
class Reading:
    trace: Trace
    departure: Departure | None = None
    also: tuple[tuple[int, Departure], ...] = ()  # other returned outputs that part elsewhere: place, where made
    misplaced: Misplaced | None = None
    unfilled: Unfilled | None = None
    changed: tuple[str, int, str] | None = None  # an argument changed in place: its name, the line and its text
    buffer: tuple[str, int, str, int | None] | None = None  # the buffer an exception was raised writing into: its
    #                                          name, the line that made it, its shape, the argument shaped alike
    made_lines: dict[str, int] = field(default_factory=dict)  # each value some line made, and the first such line
    raised_pitfalls: tuple[tuple[str, dict[str, object]], ...] = ()  # what the line that raised does, from its code
    alone: bool = False  # every other place the numbers part at descends from the departure
    seen: dict[int, Seen] = field(default_factory=dict)  # what each array made (by its index) was found to be
    makers: dict[str, Made] = field(default_factory=dict)  # each value some line made, and the first array that was


def read_wrong(fn, cases: list[Case], outputs: int) -> tuple[Case, Reading] | None:
    """The first case (the hidden random ones first) on which the traced function is wrong, and its reading (None
    for a function that has no Python code to read, or whose reading ran out of time)."""
    if not hasattr(fn, "__code__") or not readable(fn.__code__.co_filename):
        return None  # no code to read: a builtin, or code run from a string
    ordered = sorted(cases, key=lambda case: next((i for i, kind in enumerate(TRACED_FIRST) if kind in case.kind),
                                                  len(TRACED_FIRST)))
    ends = time.monotonic() + READ_LIMIT
    for case in ordered:
        left = ends - time.monotonic()
        if left <= 0:
            return None
        reading = read_lines(fn, case.args, outputs, seconds=min(TRACE_LIMIT, left))
        if not reading.trace.finished:
            return None
        if reading.trace.raised is not None or not is_right(reading.trace.returned, case.expected) \
                or reading.changed:
            return case, reading
    return None


def readable(filename: str) -> bool:
    """Whether a function's lines can be read: a notebook cell's, or a file's; not code run from a string (whose
    ``<string>`` may hold another piece of code's lines in linecache)."""
    return bool(NOTEBOOK_CELL.search(filename) or not filename.startswith("<")) and bool(linecache.getlines(filename))


@dataclass
class _Flow:
    """What the lines made so far carry, per (call, local): the unhealed places it is made from, the value it is
    and the line that made it, its numbers."""

    found: list[tuple[str, np.ndarray]]
    taints: dict[tuple[int, str], set[int]] = field(default_factory=dict)
    by_identity: dict[int, set[int]] = field(default_factory=dict)
    value_of: dict[tuple[int, str], tuple[str, int | None, int]] = field(default_factory=dict)
    made_at: dict[tuple[int, str], int] = field(default_factory=dict)
    numbers: dict[tuple[int, str], tuple[float, int]] = field(default_factory=dict)
    number_lines: dict[tuple[int, str], Made] = field(default_factory=dict)  # the line that set each number
    current: dict[tuple[int, str], np.ndarray] = field(default_factory=dict)
    healed: set[int] = field(default_factory=set)
    origins: dict[int, Made] = field(default_factory=dict)
    seen: dict[int, Seen] = field(default_factory=dict)
    departures: dict[int, Departure] = field(default_factory=dict)
    called: dict[tuple[int, int], set[int]] = field(default_factory=dict)  # (call, line) -> what helpers returned
    #                                                                          carries
    caller_of: dict[int, int] = field(default_factory=dict)  # a helper's call -> the call that made it
    turned: dict[tuple[int, str], tuple[str, int]] = field(default_factory=dict)  # a value transposed, and its line
    returned: dict[tuple[int, int], set[tuple[str, None, int]]] = field(default_factory=dict)  # (call, line) -> the
    #                                                             values helpers returned there, and their lines


def read_lines(fn, args: tuple[np.ndarray, ...], outputs: int, seconds: float = TRACE_LIMIT) -> Reading:
    """Trace ``fn`` on ``args`` (q, k, v[, upstream]) and find where its numbers part from the right ones."""
    q, k, v = args[:3]
    upstream = args[3] if len(args) > 3 else np.ones((*q.shape[:2], v.shape[-1]))
    flow = _Flow(values(q, k, v, upstream))
    traced = trace(fn, args, seconds)
    code = fn.__code__
    for name, value, given in zip(code.co_varnames[:code.co_argcount], INPUTS, args):
        flow.value_of[(0, name)] = (value, None, code.co_firstlineno)
        flow.current[(0, name)] = np.asarray(given)
    flow.caller_of.update({call: caller for call, (caller, _) in traced.calls.items()})
    for made in traced.made:
        _follow(made, flow, traced.calls)
    wrong = _wrong_returns(traced, flow, outputs)
    unfilled = next((found for found in (_unfilled(traced, flow, made, position, outputs)
                                         for made, _, position, _ in wrong) if found), None)
    skipped = {made.index for made, _, _, _ in wrong} if unfilled else set()
    unhealed = [index for index in flow.origins if index not in flow.healed and index not in skipped]
    # a returned array that is a value on the way (S̄K for Q̄) is said where it was made, as returned in that place
    returned_as = {maker.index: position for made, seen, position, maker in wrong
                   if seen.name in PASSED and maker.index in flow.seen}
    unhealed += list(returned_as)
    reading = [flow.departures[i] for i in sorted(set(unhealed)) if flow.departures[i].read] or \
        [flow.departures[i] for i in sorted(set(unhealed))]
    departure = reading[0] if reading and not unfilled else None
    if departure is not None and departure.made.index in returned_as:
        departure = replace(departure, returned_as=returned_as[departure.made.index])
    if departure is not None and departure.seen.name is None:
        given = dict(zip(code.co_varnames[:code.co_argcount], args)) if departure.made.frame == 0 else {}
        departure = replace(departure, part=_part(departure.made, traced, flow.found, {**fn.__globals__, **given}))
    also = tuple((position, flow.departures[maker.index]) for made, seen, position, maker in wrong
                 if departure is not None and maker.lineno != departure.made.lineno and maker.index in flow.departures
                 and (seen.name is None or seen.name in PASSED) and maker.index not in _descendants(departure, flow)
                 and not _suspects(flow.departures[maker.index]) & _suspects(departure))
    alone = departure is not None and set(unhealed) <= _descendants(departure, flow) | {departure.made.index}
    misplaced = None
    if departure is None and unfilled is None:
        misplaced = next((Misplaced(made, position, seen.name, maker) for made, seen, position, maker in wrong
                          if seen.name is not None and seen.name not in PASSED), None)
    made_lines: dict[str, int] = {}
    makers: dict[str, Made] = {}
    for made in traced.made:
        seen = flow.seen.get(made.index)
        if seen is not None and seen.name is not None and not seen.transposed:
            made_lines.setdefault(seen.name, made.lineno)
            makers.setdefault(seen.name, made)
    raised = ()
    if traced.raised is not None and traced.raised_at is not None:
        lineno, line = traced.raised_at
        raised = _pitfalls(Made(-1, lineno, line, "", np.zeros(1), None, frozenset(), 0, 0), flow)
    return Reading(traced, departure, also, misplaced, unfilled, changed_argument(traced, code),
                   raised_into(traced, args), made_lines, raised, alone, flow.seen, makers)


def _follow(made: Made, flow: _Flow, calls: dict[int, tuple[int, int]]) -> None:
    """Carry the line's inputs' unhealed places into what it made, heal them where it made a value; what a helper
    returns is an input of the line that called it."""
    key = (made.frame, made.name)
    if made.value.ndim == 0:
        flow.numbers[key] = (float(made.value), made.lineno)
        flow.number_lines[key] = made
        return
    seen = see(made, flow.found)
    if seen.name == "buffer" and not BUFFER.search(made.line):
        seen = Seen(None)  # zeros a line computed (an exponential that underflowed) are no buffer
    flow.seen[made.index] = seen
    # A helper's argument is an object the caller made (alive, so its id is its own): it carries what that array
    # carries. A returned array carries what the local that held it carries (its reads are that local), or what its
    # return line read.
    # A line that writes into part of an array reads that array only to write into it: the rest of it keeps what
    # it carried, whatever the new part is. A helper's argument carries what the object the caller handed over
    # carries (alive, so its id is its own), else what the calling line read.
    kept = flow.taints.get(key, set()) if made.into else set()
    reads = made.reads - {made.name} if made.into else made.reads
    frame = calls[made.frame][0] if made.argument and made.frame in calls else made.frame
    inputs = set().union(*(flow.taints.get((frame, name), set()) for name in reads))
    if made.argument and made.identity in flow.by_identity:
        inputs = flow.by_identity[made.identity]
    inputs |= flow.called.get((made.frame, made.lineno), set())
    if seen.name is not None and not seen.transposed:
        if seen.name not in PASSED:
            flow.healed |= inputs
        flow.taints[key] = kept | (inputs if seen.name in PASSED else set())
    else:
        flow.origins[made.index] = made
        flow.taints[key] = kept | inputs | {made.index}
    flow.departures[made.index] = _departure(made, seen, flow)
    flow.turned.pop(key, None)
    if seen.name is not None and not seen.transposed and seen.name != "buffer":
        flow.value_of[key] = (seen.name, seen.element if made.written is None else None, made.lineno)
    else:
        flow.value_of.pop(key, None)
        if seen.transposed:
            flow.turned[key] = (seen.name, made.lineno)
    if made.written is None:
        flow.made_at[key] = made.lineno
    else:
        flow.made_at.setdefault(key, made.lineno)
    flow.current[key] = made.value
    flow.by_identity[made.identity] = flow.taints[key]
    if made.name == RETURNED and made.frame in calls:
        flow.called.setdefault(calls[made.frame], set()).update(flow.taints[key])
        if seen.name is not None and seen.name not in PASSED and not seen.transposed:
            flow.returned.setdefault(calls[made.frame], set()).add((seen.name, None, made.lineno))
    if made.name.endswith("[]"):  # an array appended to a list: the list carries it
        listed = (made.frame, made.name[:-2])
        flow.taints[listed] = flow.taints.get(listed, set()) | flow.taints[key]


def _suspects(departure: Departure) -> set[tuple[str, int]]:
    """What a departing line read that is no stage (a value on the way, an array that is none, a number), with the
    lines that made them: two lines that read the same one may part for the same reason."""
    return {(name, line) for name, line in departure.read if name in PASSED} | set(departure.others) \
        | {(name, line) for name, _, line in departure.numbers}


def _descendants(departure: Departure, flow: _Flow) -> set[int]:
    """The made arrays whose unhealed places include the departure's."""
    return {index for index, _ in flow.departures.items()
            if departure.made.index in flow.taints.get((flow.departures[index].made.frame,
                                                        flow.departures[index].made.name), set())}


def _departure(made: Made, seen: Seen, flow: _Flow) -> Departure:
    """What a line read and what the array it made is, in the relations that hold."""
    data = made.value.astype(np.float64)
    frame = flow.caller_of.get(made.frame, made.frame) if made.argument else made.frame
    reads = made.reads - {made.name} if made.into else made.reads  # not the array it writes into
    read = [(flow.value_of[(frame, r)], r) for r in reads if (frame, r) in flow.value_of] \
        + [(value, "") for value in flow.returned.get((frame, made.lineno), ())]  # what a helper called here gave
    ordered = sorted(read, key=lambda found: ORDER.index(found[0][0]))
    whole = made.written is None and data.ndim >= 3 and data.shape[0] > 1
    partial = tuple((name, element, line) for (name, element, line), _ in ordered if element is not None and whole)
    numbers = tuple((r, *flow.numbers[(frame, r)]) for r in sorted(reads) if (frame, r) in flow.numbers)
    others = tuple((r, flow.made_at[(frame, r)]) for r in sorted(reads) if (frame, r) in flow.made_at
                   and (frame, r) not in flow.value_of and (frame, r) not in flow.turned and r != made.name)
    turned = tuple((r, *flow.turned[(frame, r)]) for r in sorted(reads) if (frame, r) in flow.turned)
    multiple = normalised = None
    if seen.name is None and np.all(np.isfinite(data)):
        multiple, normalised = _multiple(data, flow.found), _normalised(data, flow.found)
    written_into = made.written is not None or made.name.startswith(RETURNED) and made.held
    integer = (made.held or made.name, flow.made_at.get((frame, made.held or made.name))) \
        if written_into and made.value.dtype.kind in "iu" else None
    given = tuple(name for name, _, _ in flow.returned.get((frame, made.lineno), ()))
    return Departure(made, tuple(dict.fromkeys((name, line) for (name, _, line), _ in ordered)), given, numbers, others,
                     turned, partial, seen, multiple, normalised, integer,
                     _pitfalls(made, flow) + tuple(found for r in sorted(reads) if (frame, r) in flow.number_lines
                                                   for found in _pitfalls(flow.number_lines[(frame, r)], flow)
                                                   if multiple))


def _part(made: Made, traced: Trace, found, names: dict) -> tuple[str, tuple[str, ...]] | None:
    """The piece of a departing line where its numbers part: of its pieces evaluated again, innermost first
    (``code_trace.line_pieces``), the first whose array is none of the head's values while the arrays it is made of
    are values; its text and those values. None where the whole line is that piece, or it cannot be evaluated."""
    found_pieces = line_pieces(made, traced, names)
    if found_pieces is None:
        return None
    expression, arrays = found_pieces
    for node, value in arrays.items():
        if node is expression:
            break
        children = nearest(node, arrays)
        parts = [arrays[child] for child in children if arrays[child].ndim]
        from_arrays = [child for child in children if not arrays[child].ndim
                       and any(arrays[inner].ndim for inner in nearest(child, arrays))]
        if not value.ndim or from_arrays or not parts or see(_held(made, value), found).name is not None:
            continue  # a number computed from arrays (a row's mean for ⟨a, ā⟩) is none the head's values vouch for
        seen_parts = [see(_held(made, x), found) for x in parts]
        if all(p.name is not None and p.name not in PASSED and not p.transposed for p in seen_parts):
            return ast.unparse(node), tuple(dict.fromkeys(p.name for p in seen_parts))
    return None


def _held(made: Made, value: np.ndarray) -> Made:
    """An array a piece of ``made``'s line gave, to be read as ``see`` reads a made one."""
    return Made(-1, made.lineno, made.line, "", value, None, frozenset(), made.frame, 0)


def _pitfalls(made: Made, flow: _Flow) -> tuple[tuple[str, dict[str, object]], ...]:
    """The pitfalls of a line's code (``code_pitfalls``), on the arrays its names held and the values they were."""
    return code_pitfalls.pitfalls(made.line, lambda name: flow.current.get((made.frame, name)),
                                  lambda name: (flow.value_of.get((made.frame, name)) or (None,))[0])


def _multiple(data: np.ndarray, found) -> tuple[str, float] | None:
    """A value whose numbers, times one constant other than 1, are ``data``'s, with the constant."""
    for name, target in sorted(found, key=lambda value: value[0] in PASSED):  # the stages first
        for _, piece in pieces(target):
            if piece.shape != data.shape or not np.abs(piece).max(initial=0) > 0:
                continue
            large = np.abs(piece) > 1e-6 * np.abs(piece).max()
            ratio = float(np.median(data[large] / piece[large]))
            if abs(ratio - 1) > 1e-6 and ratio != 0 and close(data, ratio * piece, NOISE):
                return name, ratio
    return None


def _normalised(data: np.ndarray, found) -> str | None:
    """A value before the exponential whose rows divided by their own sums are ``data``."""
    for name, target in found:
        if name not in ("raw-scores", "scaled-scores", "shifted-scores"):
            continue
        for _, piece in pieces(target):
            if piece.ndim >= 2 and piece.shape == data.shape:
                with np.errstate(all="ignore"):
                    rows = piece / piece.sum(axis=-1, keepdims=True)
                if np.all(np.isfinite(rows)) and close(data, rows, NOISE):
                    return name
    return None


def _wrong_returns(traced: Trace, flow: _Flow, outputs: int) -> list[tuple[Made, Seen, int, Made]]:
    """Each returned array that is not the output in its place: it, what it is, its place and the line of the
    function that made it (the return line itself when it was made there)."""
    wanted, found = OUTPUTS[outputs], []
    for made in traced.made:
        if made.frame != 0 or not made.name.startswith(RETURNED):
            continue
        position, seen = int(made.name.split()[1]), flow.seen[made.index]
        if position < len(wanted) and (seen.transposed or seen.name != wanted[position]):
            # made by a line of the function, or returned by a helper the return line called (the same live object)
            makers = [m for m in traced.made[:made.index] if m.frame == 0 and m.name == made.held] if made.held else \
                [m for m in traced.made[:made.index] if m.name == RETURNED and m.identity == made.identity
                 and m.value.shape == made.value.shape and np.array_equal(m.value, made.value, equal_nan=True)]
            found.append((made, seen, position, makers[-1] if makers else made))
    return found


def _unfilled(traced: Trace, flow: _Flow, made: Made, position: int, outputs: int) -> Unfilled | None:
    """A returned buffer whose written entries are the output's, and whose unwritten ones are not."""
    history = [m for m in traced.made[:made.index] if m.frame == 0 and m.name == made.held]
    start = max((i for i, m in enumerate(history) if m.written is None), default=None)
    if start is None or made.value.ndim < 3:
        return None
    writes = history[start + 1:]
    if not writes:
        return None
    written = np.logical_or.reduce([m.written for m in writes])
    target = next((x for name, x in flow.found if name == OUTPUTS[outputs][position] and x.shape == made.value.shape),
                  None)
    if target is None or written.all() or not close(made.value[written], target[written], _noise(made)):
        return None
    elements = tuple(int(b) for b in np.flatnonzero(written.reshape(len(written), -1).any(axis=1)))
    made_at = history[start].lineno
    loop = enclosing_loop(traced, writes[-1].lineno)
    inside = loop is not None and elements == (0,) and enclosing_loop(traced, made.lineno) == loop
    return Unfilled(position, made_at, writes[-1], loop, elements, len(written),
                    (made.lineno, made.line) if inside else None)


def gap(expected: tuple[str, ...], reading: Reading) -> tuple[str, str, Made, tuple[tuple[str, float, int], ...]]:
    """A stage the expected values are made from that no array of the lines is, though the stage before it is: that
    stage, the one before, the array that was it, and the numbers that array's line read (a scale set to 1, say)."""
    for value in expected:
        for missing in (name for name in AFTER[value] if name not in PASSED and name not in INPUTS):
            if missing in reading.made_lines:
                continue
            before = [name for name in AFTER[missing] if name not in PASSED and name in reading.makers]
            if before:
                maker = reading.makers[max(before, key=ORDER.index)]
                return missing, max(before, key=ORDER.index), maker, _numbers_read(reading.trace, maker)
    return None


def _numbers_read(traced: Trace, made: Made) -> tuple[tuple[str, float, int], ...]:
    """The numbers (no arrays) ``made``'s line read, with their values and the lines that set them."""
    numbers: dict[str, tuple[float, int]] = {}
    for earlier in traced.made[:made.index]:
        if earlier.frame == made.frame and earlier.value.ndim == 0:
            numbers[earlier.name] = (float(earlier.value), earlier.lineno)
    return tuple((name, *numbers[name]) for name in sorted(made.reads) if name in numbers)


def following(read: tuple[str, ...], outputs: int) -> tuple[str, ...]:
    """The values the right computation makes next from values ``read``: what the last of them leads to, where it
    is a value on the way; else stages after it, made from one at least of those read, whose other stages come no
    later (the first stage, where nothing was read)."""
    order = [name for name in ORDER if AFTER[name] and name not in PASSED]
    if outputs == 1:
        order = order[:order.index("output") + 1]
    if not read:
        return order[:1]
    latest = max(read, key=ORDER.index)
    if latest in LEADS:
        return tuple(name for name in LEADS[latest] if name in order)
    last = ORDER.index(latest)
    return tuple(name for name in order if ORDER.index(name) > last and set(AFTER[name]) & set(read)
                 and all(ORDER.index(given) <= last for given in AFTER[name] if given not in PASSED))
