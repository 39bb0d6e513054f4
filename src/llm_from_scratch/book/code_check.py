"""Run a learner's function on cases and find what is wrong with it, never raising.

``run_cases(fn, cases)`` calls ``fn`` on copies of every case's arguments, all cases under one
time limit, and returns a ``Finding``: right on every case, or the first problem and the case
that exposed it. Problems, in the order they are looked for on each case: a result that cannot
be read as numbers, a changed argument (when the result is right), a wrong shape, nan or inf,
other numbers; an exception (with the line of the learner's own code) or the time limit stop the
run at the case where they happened. Before any of that, a stub (``...`` itself, or a function
that returns ``...``) and a non-callable are told apart, since neither is an attempt. A result is
right when it is within CODE_AGREES of the expected one, relative to its largest entry; a result
returned in a narrower format than float64 (float32, float16) is judged by half of its digits,
since a softmax of large scores loses several of them. The Finding then says how close it came
(``precision``).

``run_probes(fn, probes)`` calls ``fn`` on inputs a chapter designs to tell its slips apart and returns
what it gave on each (``code_search`` compares that with every slip's).
"""

from __future__ import annotations

import ctypes
import re
import signal
import threading
import time
import traceback
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .tolerances import CODE_AGREES, FLOAT_NOISE

FLOAT64_EPSILON = float(np.finfo(np.float64).eps)
ROUNDINGS = 64  # how many units of a float format's last place a right computation's rounding may add up to

TIME_LIMIT = 3.0  # seconds for all cases together
STOP_GRACE = 0.5  # seconds a thread is given to stop once told to
MESSAGE_LIMIT = 200  # characters of an exception's message that are quoted
RAISED = "raised"  # what run_probes gives for a probe on which the function raised
NOTEBOOK_CELL = re.compile(r"^<ipython-input-|[/\\]ipykernel_\d+[/\\]")


class TimeLimitExceeded(BaseException):
    """Raised inside the learner's code when its time is up (``except Exception`` does not catch it)."""


@dataclass(frozen=True)
class Case:
    """Arguments for the learner's function and the right result."""

    name: str  # how messages name the case
    args: tuple[np.ndarray, ...]
    expected: tuple[np.ndarray, ...]  # one array per output
    kind: str = ""  # which of a chapter's cases it is, for code that reads them


@dataclass(frozen=True)
class Finding:
    """``problem`` is None when the function was right on every case."""

    problem: str | None  # "stub", "not-callable", "raised", "timeout", "unreadable", "mutated",
    #                      "wrong-shape", "not-finite" or "differs"
    case: Case | None = None
    fields: dict[str, object] = field(default_factory=dict)  # what a message about it may cite


@dataclass(frozen=True)
class _Call:
    returned: str  # what the function returned, named: "None", "...", or a type name
    length: int | None  # the length of a returned tuple or list
    result: tuple[np.ndarray, ...] | None  # None when it could not be read as arrays of numbers
    tolerance: float  # how far from the expected result, relative to its largest entry, is still right
    mutated: tuple[int, ...]  # positions of the arguments it changed


def run_cases(fn: object, cases: Sequence[Case], seconds: float = TIME_LIMIT) -> Finding:
    """Run ``fn`` on every case and say what is wrong, naming the first case that shows it."""
    if fn is Ellipsis:
        return Finding("stub")
    if not callable(fn):
        return Finding("not-callable", fields={"returned": _describe(fn)})
    calls: list[_Call] = []
    try:
        _limited(lambda: _call_all(fn, cases, calls), seconds)
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # whatever the learner's code raises is a finding
        stop = error
    else:
        stop = None
    if calls and calls[0].returned == "...":
        return Finding("stub")
    for call, case in zip(calls, cases):
        finding = _diagnose(call, case)
        if finding:
            return finding
    if stop is None:
        worst = max((relative_error(call.result, case.expected) for call, case in zip(calls, cases)), default=0.0)
        return Finding(None, fields={"count": len(cases), "precision": worst})
    where = _learner_line(stop, _source_file(fn))
    case = cases[len(calls)]
    if isinstance(stop, TimeLimitExceeded):
        return Finding("timeout", case, {"seconds": f"{seconds:g}", **where})
    return Finding("raised", case, {"error": error_text(stop), **where})


@dataclass(frozen=True)
class Probed:
    """What a function gave on each probe, and how close to a hypothesis its number format lets it come."""

    results: dict[str, tuple[np.ndarray, ...] | str | None]  # the arrays, RAISED, or None: unreadable or no time
    tolerance: float


def run_probes(fn: Callable, probes: dict[str, tuple[np.ndarray, ...]], outputs: int,
               seconds: float = TIME_LIMIT) -> Probed:
    """What ``fn`` returns on each probe's arguments, read as ``outputs`` float arrays: RAISED where it raised,
    None where it returned something else or the time limit, shared by all the probes, ran out."""
    given: dict[str, tuple[np.ndarray, ...] | str | None] = dict.fromkeys(probes)
    tolerances = [CODE_AGREES]

    def work() -> None:
        for name, args in probes.items():
            try:
                with np.errstate(all="ignore"):
                    returned = fn(*(a.copy() for a in args))
            except (KeyboardInterrupt, TimeLimitExceeded):
                raise
            except BaseException:  # whatever the learner's code raises, SystemExit too, is a finding
                given[name] = RAISED
                continue
            try:
                given[name] = read_arrays(returned, outputs)
                tolerances.append(_tolerance(returned))
            except Exception:
                given[name] = None

    try:
        _limited(work, seconds)
    except TimeLimitExceeded:
        pass
    return Probed(given, max(tolerances))


def _describe(value: object) -> str:
    """A value named for a message: ``None``, ``...`` or its type's name."""
    if value is None:
        return "None"
    return "..." if value is Ellipsis else type(value).__name__


def name_of(fn: object) -> str:
    """A function's own name, for messages (a type's name when it has none)."""
    try:
        return str(fn.__name__)
    except Exception:
        return _describe(fn)


def read_arrays(returned: object, count: int) -> tuple[np.ndarray, ...]:
    """``count`` float arrays from a returned value (one array, or a tuple or list of ``count``)."""
    parts = (returned,) if count == 1 else returned
    if count > 1 and not (isinstance(returned, (tuple, list)) and len(returned) == count):
        raise TypeError(f"expected {count} arrays")
    if any(part is None for part in parts):
        raise TypeError("None is not an array")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. complex numbers silently losing their imaginary part
        return tuple(np.asarray(part, dtype=np.float64) for part in parts)


def _call_all(fn: Callable, cases: Sequence[Case], calls: list[_Call]) -> None:
    """Call ``fn`` on each case in turn, appending what it did (stops at a stub's ``...``)."""
    for case in cases:
        args = tuple(a.copy() for a in case.args)
        with np.errstate(all="ignore"):
            returned = fn(*args)
        try:
            result = None if returned is Ellipsis else read_arrays(returned, len(case.expected))
        except Exception:
            result = None
        mutated = tuple(i for i, (a, b) in enumerate(zip(args, case.args)) if not np.array_equal(a, b))
        length = len(returned) if isinstance(returned, (tuple, list)) else None
        calls.append(_Call(_describe(returned), length, result, _tolerance(returned), mutated))
        if returned is Ellipsis:
            return


def _diagnose(call: _Call, case: Case) -> Finding | None:
    if call.result is None:
        sized = {} if call.length is None else {"length": call.length}
        return Finding("unreadable", case, {"returned": call.returned, **sized})
    if _same(call.result, case.expected, call.tolerance):
        return Finding("mutated", case, {"arguments": call.mutated}) if call.mutated else None
    shapes = tuple(r.shape for r in call.result)
    if shapes != tuple(e.shape for e in case.expected):
        return Finding("wrong-shape", case, {"shapes": shapes})
    if not all(np.isfinite(r).all() for r in call.result):
        return Finding("not-finite", case)
    differing = tuple(i for i, (r, e) in enumerate(zip(call.result, case.expected))
                      if not _same((r,), (e,), call.tolerance))
    difference = max(float(np.max(np.abs(call.result[i] - case.expected[i]))) for i in differing)
    return Finding("differs", case, {"outputs": differing, "difference": difference})


def relative_error(result: tuple[np.ndarray, ...], target: tuple[np.ndarray, ...],
                   epsilon: float = FLOAT64_EPSILON) -> float:
    """The largest difference of each output from its target, relative to the target's largest entry
    (inf where shapes differ or nan and inf do not stand in the same places). A difference within the rounding
    of the result's float format (``epsilon``, its spacing at 1) at the computation's magnitude (the largest target
    entry of all outputs, at least 1) is none, so a target of exact zeros (a one-token head's Q̄) is met by a right
    function's rounding."""
    magnitude = max([1.0, *(float(np.abs(t[np.isfinite(t)]).max()) for t in target if np.isfinite(t).any())])
    worst = 0.0
    for r, t in zip(result, target):
        finite = np.isfinite(t)
        if r.shape != t.shape or not np.array_equal(np.isfinite(r), finite):
            return float("inf")
        if finite.any():
            scale = max(float(np.abs(t[finite]).max()), FLOAT_NOISE)
            difference = float(np.abs(r[finite] - t[finite]).max())
            rounding = max(FLOAT_NOISE, ROUNDINGS * epsilon * magnitude)
            worst = max(worst, difference / scale if difference > rounding else 0.0)
    return worst if len(result) == len(target) else float("inf")


def is_right(returned: object, expected: tuple[np.ndarray, ...]) -> bool:
    """Whether what a function returned is the expected result, as ``run_cases`` judges it."""
    try:
        result = read_arrays(returned, len(expected))
    except Exception:
        return False
    return _same(result, expected, _tolerance(returned))


def _same(result: tuple[np.ndarray, ...], target: tuple[np.ndarray, ...], tolerance: float) -> bool:
    """Same shapes, nan or inf in the same places, and within ``tolerance`` of the target everywhere else (a
    tolerance above CODE_AGREES is half the digits of the format returned, ``_tolerance``: its square is that
    format's spacing, the rounding it makes)."""
    epsilon = tolerance ** 2 if tolerance > CODE_AGREES else FLOAT64_EPSILON
    return relative_error(result, target, epsilon) <= tolerance


def _tolerance(returned: object) -> float:
    """CODE_AGREES, or half the digits of the narrowest float format among the returned arrays."""
    parts = returned if isinstance(returned, (tuple, list)) else (returned,)
    formats = [part.dtype for part in parts if isinstance(part, np.ndarray) and part.dtype.kind == "f"]
    return max([CODE_AGREES] + [float(np.sqrt(np.finfo(dtype).eps)) for dtype in formats])


ENGINE_MODULES = ("llm_from_scratch.engine", "llm_from_scratch.fast")


def calls_the_engine(function: object) -> bool:
    """Whether a learner's function hands the work to the engine: a name its code (or a function of the learner's
    it calls by name) uses stands, in its module or its closure, for something the engine or its fast path
    defines."""
    if not callable(function) or not hasattr(function, "__code__"):
        return False
    seen, waiting = set(), [function]
    while waiting:
        current = waiting.pop()
        if current in seen or not hasattr(current, "__code__"):
            continue
        seen.add(current)
        codes = [current.__code__]
        names = set()
        while codes:
            code = codes.pop()
            names |= set(code.co_names)
            codes += [c for c in code.co_consts if hasattr(c, "co_names")]
        closure = [_contents(cell) for cell in current.__closure__ or ()]
        for found in [current.__globals__.get(name) for name in names] + closure:
            module = getattr(found, "__module__", None) or ""
            if module.startswith(ENGINE_MODULES):
                return True
            if hasattr(found, "__code__") and not module.startswith("llm_from_scratch"):
                waiting.append(found)  # a helper of the learner's own
    return False


def _contents(cell) -> object:
    """What a closure's cell holds (None while it is empty)."""
    try:
        return cell.cell_contents
    except ValueError:
        return None


# --- stopping a function that runs too long ----------------------------------------------

def _limited(work: Callable[[], None], seconds: float) -> None:
    """Run ``work``; raise TimeLimitExceeded inside it after ``seconds``.

    On the main thread (a Jupyter kernel's cells run there) a timer signal interrupts even a
    pure-Python infinite loop; elsewhere ``work`` runs in a thread that is told to stop.
    """
    if hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
        _with_timer(work, seconds)
    else:
        _in_thread(work, seconds)


def _with_timer(work: Callable[[], None], seconds: float) -> None:
    armed = True

    def stop(signum, frame):
        if armed:
            raise TimeLimitExceeded

    previous = signal.signal(signal.SIGALRM, stop)
    pending, interval = signal.setitimer(signal.ITIMER_REAL, seconds)  # someone else's timer, if any
    started = time.monotonic()
    try:
        work()
    finally:
        armed = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if pending:
            signal.setitimer(signal.ITIMER_REAL, max(pending - (time.monotonic() - started), 1e-3), interval)


def _in_thread(work: Callable[[], None], seconds: float) -> None:
    errors: list[BaseException] = []

    def run():
        try:
            work()
        except BaseException as error:  # handed to the waiting thread
            errors.append(error)

    thread = threading.Thread(target=run, name="learner-code", daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():  # raise TimeLimitExceeded in it at its next Python instruction
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident),
                                                   ctypes.py_object(TimeLimitExceeded))
        thread.join(STOP_GRACE)
        raise errors[0] if errors and isinstance(errors[0], TimeLimitExceeded) else TimeLimitExceeded()
    if errors:
        raise errors[0]


# --- where in the learner's code -----------------------------------------------------------

def _source_file(fn: object) -> str | None:
    try:
        return fn.__code__.co_filename
    except Exception:
        return None


def _learner_line(error: BaseException, filename: str | None) -> dict[str, object]:
    """The innermost traceback line in the learner's own code (its function's file or a notebook cell)."""
    frames = [f for f in traceback.extract_tb(error.__traceback__)
              if f.filename == filename or NOTEBOOK_CELL.search(f.filename)]
    if not frames or not frames[-1].line:
        return {}
    return {"lineno": frames[-1].lineno, "line": frames[-1].line.strip()}


def error_text(error: BaseException) -> str:
    """``Type: message``, the message on one line and shortened."""
    try:
        message = " ".join(str(error).split())
    except Exception:
        message = ""
    if len(message) > MESSAGE_LIMIT:
        message = message[:MESSAGE_LIMIT] + "…"
    return f"{type(error).__name__}: {message}" if message else type(error).__name__
