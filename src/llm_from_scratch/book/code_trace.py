"""Read a learner's function line by line: run it once with every array each of its lines makes kept.

``trace(fn, args)`` runs ``fn`` on copies of ``args`` under a time limit of its own, with a line tracer on the
learner's own code (the file or notebook cell ``fn`` was written in, helpers defined there included). After each
line it keeps, in order, every local array or number that line made or changed (``Made``; a number as an array of
no axes): its name, a copy of its numbers, and, for an array changed in place (a buffer filled in a loop), which
entries the line wrote. An array appended to a list is kept as ``name[]``; a helper's arguments are kept at the
line that called it; what a call returns, as RETURNED. It keeps what each line reads (the names its statement loads,
from the code's syntax tree) and where the function raised.

Readings of the code help a chapter say where a line went wrong: ``line_pieces`` evaluates the pieces of one line
again on what its names held, ``enclosing_loop`` finds the loop a line stands in, ``changed_argument`` the line that
changed an argument in place, ``raised_into`` the buffer a line raised writing into.
"""

from __future__ import annotations

import ast
import linecache
import sys
import textwrap
from dataclasses import dataclass, field

import numpy as np

from .code_check import NOTEBOOK_CELL, TimeLimitExceeded, _limited

TRACE_LIMIT = 2.0  # seconds for one traced run (tracing slows the learner's code several times)
RETURNED = "return"  # the name a returned array is kept under


@dataclass(frozen=True)
class Made:
    """An array a line of the learner's code made or changed."""

    index: int  # its place among everything the run made
    lineno: int
    line: str  # the line's text, stripped
    name: str  # the local it is in (RETURNED, with its position, for a returned array)
    value: np.ndarray
    written: np.ndarray | None  # for an array changed in place, the entries this line changed
    reads: frozenset[str]  # the names the line's statement loads
    frame: int  # which call of the learner's code made it (0: the function itself)
    identity: int  # id() of the object, to follow it into a call
    held: str | None = None  # for a returned array, the local that held it (None: made on the return line)
    into: bool = False  # its line wrote into a part of it (``out[b] = …``), and read the rest of it not at all
    argument: bool = False  # an argument of a helper's call, kept at the calling line (``reads`` are that line's,
    #                         named in the caller's call)


@dataclass
class Trace:
    made: list[Made] = field(default_factory=list)
    returned: object = None
    raised: BaseException | None = None
    raised_at: tuple[int, str] | None = None  # the line of the learner's code where the exception left it
    returned_at: tuple[int, str] | None = None  # the line the function returned from
    calls: dict[int, tuple[int, int]] = field(default_factory=dict)  # a helper's call -> (the caller's, its line)
    finished: bool = False  # False when the time ran out or tracing failed
    source: dict[int, str] = field(default_factory=dict)  # lineno -> each line of the learner's file


def _is_number(value: object) -> bool:
    """A width, a scale, a counter: a real number that is no array."""
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


def _is_array(value: object) -> bool:
    return isinstance(value, np.ndarray) and value.ndim >= 1 and value.dtype.kind in "fiu" and value.size > 0


def _reads(filename: str) -> tuple[dict[int, frozenset[str]], dict[int, frozenset[str]]]:
    """For the learner's source file: lineno -> the names the statement that starts there loads, and lineno -> the
    names of the arrays it writes into a part of (``out[b] = …``)."""
    text = "".join(linecache.getlines(filename))
    try:
        tree = ast.parse(textwrap.dedent(text))
    except SyntaxError:
        return {}, {}
    reads: dict[int, set[str]] = {}
    parts: dict[int, set[str]] = {}
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        parts.setdefault(getattr(node, "lineno", 0), set()).update(
            t.value.id for t in targets if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name))
        if isinstance(node, ast.stmt) and not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            compound = isinstance(node, (ast.For, ast.If, ast.While, ast.With, ast.Try))
            heads = [node.iter] if isinstance(node, ast.For) else [node.test] if isinstance(node, (ast.If, ast.While)) \
                else [] if compound else [node]
            names = {n.id for head in heads for n in ast.walk(head)
                     if isinstance(n, ast.Name) and (isinstance(n.ctx, ast.Load) or isinstance(node, ast.AugAssign))}
            last = node.lineno if compound else (node.end_lineno or node.lineno)
            for line in range(node.lineno, last + 1):  # a statement over several lines reads on each
                reads.setdefault(line, set()).update(names)
    return ({line: frozenset(names) for line, names in reads.items()},
            {line: frozenset(names) for line, names in parts.items() if names})


def _returned_reads(line: str, count: int) -> list[frozenset[str]] | None:
    """For ``return a, b, …`` written on one line: the names each returned piece loads (None for another line)."""
    try:
        statement = ast.parse(line).body[0]
    except (SyntaxError, IndexError):
        return None
    if not isinstance(statement, ast.Return) or not isinstance(statement.value, ast.Tuple) \
            or len(statement.value.elts) != count:
        return None
    return [frozenset(n.id for n in ast.walk(piece) if isinstance(n, ast.Name)) for piece in statement.value.elts]


def trace(fn, args: tuple[np.ndarray, ...], seconds: float = TRACE_LIMIT) -> Trace:
    """Run ``fn(*copies of args)`` once with its lines read (see the module's docstring)."""
    filename = fn.__code__.co_filename
    reads, parts = _reads(filename)
    result = Trace(source={i: line.rstrip() for i, line in enumerate(linecache.getlines(filename), start=1)})
    kept: dict[tuple[int, str], tuple[int, np.ndarray]] = {}  # (frame, name) -> (id, copy) at the last look
    frames: dict[int, int] = {}  # id(frame object) -> its call's number, in the order of the calls
    calls = [0]
    pending: dict[int, int] = {}  # frame number -> the line that is running in it

    def ours(frame) -> bool:
        name = frame.f_code.co_filename
        return name == filename or bool(NOTEBOOK_CELL.search(name))

    def line_text(lineno: int) -> str:
        return result.source.get(lineno, "").strip()

    def add(number: int, lineno: int, name: str, value: np.ndarray, written, reading, identity: int,
            held: str | None = None, into: bool = False, argument: bool = False) -> None:
        result.made.append(Made(len(result.made), lineno, line_text(lineno), name, value, written, reading, number,
                                identity, held, into, argument))

    def record(number: int, lineno: int, frame) -> None:
        reading = reads.get(lineno, frozenset())
        for name, value in list(frame.f_locals.items()):
            before = kept.get((number, name))
            if _is_number(value):
                if before is None or not _is_number(before[1]) or before[1] != value:
                    kept[(number, name)] = (id(value), value)
                    add(number, lineno, name, np.array(float(value)), None, reading, id(value))
                continue
            if isinstance(value, list):  # arrays appended to a list, one by one
                length = before[1] if before is not None and before[0] == id(value) else 0
                kept[(number, name)] = (id(value), len(value))
                for item in value[length:]:
                    if _is_array(item):
                        add(number, lineno, f"{name}[]", np.array(item, copy=True), None, reading, id(item))
                continue
            if not _is_array(value):
                continue
            same = before is not None and before[0] == id(value) and isinstance(before[1], np.ndarray) \
                and before[1].shape == value.shape
            if same and np.array_equal(before[1], value, equal_nan=True):
                continue
            written = ~((before[1] == value) | (np.isnan(before[1]) & np.isnan(value))) if same else None
            copy = np.array(value, copy=True)
            kept[(number, name)] = (id(value), copy)
            add(number, lineno, name, copy, written, reading, id(value), into=name in parts.get(lineno, ()))

    def local(frame, event, arg):
        number = frames[id(frame)]
        if number in pending:
            record(number, pending.pop(number), frame)
        if event == "line":
            pending[number] = frame.f_lineno
        if event == "return" and number == 0 and result.raised is None:
            result.returned_at = (frame.f_lineno, line_text(frame.f_lineno))
        if event == "return" and arg is not None:
            parts = arg if isinstance(arg, (tuple, list)) else (arg,)
            each = _returned_reads(line_text(frame.f_lineno), len(parts)) or \
                [reads.get(frame.f_lineno, frozenset())] * len(parts)
            for i, part in enumerate(parts):
                if _is_array(part):
                    name = f"{RETURNED} {i}" if number == 0 else RETURNED
                    held = next((local for local, value in frame.f_locals.items() if value is part), None)
                    add(number, frame.f_lineno, name, np.array(part, copy=True), None,
                        frozenset({held}) if held else each[i], id(part), held)
        elif event == "exception" and result.raised_at is None:
            result.raised_at = (frame.f_lineno, line_text(frame.f_lineno))
        return local

    def called(frame, event, arg):
        if event != "call" or not ours(frame):
            return None
        number = frames[id(frame)] = calls[0]
        calls[0] += 1
        caller = frame.f_back.f_lineno if number and frame.f_back is not None else frame.f_code.co_firstlineno
        if number and frame.f_back is not None and id(frame.f_back) in frames:
            result.calls[number] = (frames[id(frame.f_back)], caller)
        for name, value in frame.f_locals.items():  # a call's arguments, kept where the call was made
            if _is_array(value):
                kept[(number, name)] = (id(value), np.array(value, copy=True))
                if number:
                    add(number, caller, name, kept[(number, name)][1], None, reads.get(caller, frozenset()),
                        id(value), argument=True)
        return local

    def work() -> None:
        previous = sys.gettrace()
        sys.settrace(called)
        try:
            with np.errstate(all="ignore"):
                result.returned = fn(*(np.array(a, copy=True) for a in args))
        except (KeyboardInterrupt, TimeLimitExceeded):
            raise
        except BaseException as error:  # what the learner's code raises is part of the reading
            result.raised = error
        finally:
            sys.settrace(previous)

    try:
        _limited(work, seconds)
    except TimeLimitExceeded:
        return result
    result.finished = True
    return result


# --- reading one line's code again ----------------------------------------------------------------------------

PIECES_LIMIT = 0.5  # seconds for evaluating the pieces of one line again


def line_pieces(made: Made, traced: Trace, names: dict) -> tuple[ast.AST, dict[ast.AST, np.ndarray]] | None:
    """The expression of ``made``'s line (an assignment's value, ``x op= y`` as ``x op y``, a return's value) and the
    array each of its pieces gives (a number it computes as an array of no axes), innermost first, evaluated again
    under a time limit on what the line's names held
    when it ran (``names`` adds the function's globals and arguments); a piece that cannot be evaluated alone is
    passed over. None for a line of another kind, or out of time."""
    try:
        statement = ast.parse(made.line).body[0]
    except (SyntaxError, IndexError):
        return None
    if isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name):
        expression = ast.BinOp(ast.Name(statement.target.id, ast.Load()), statement.op, statement.value)
    elif isinstance(statement, (ast.Assign, ast.Return, ast.Expr)) and statement.value is not None:
        expression = statement.value
    else:
        return None
    scope = {**names, **_held_before(traced, made)}
    arrays: dict[ast.AST, np.ndarray] = {}

    def evaluate() -> None:
        for node in _innermost_first(expression):
            try:
                with np.errstate(all="ignore"):
                    value = eval(compile(ast.fix_missing_locations(ast.Expression(node)), "<piece>", "eval"), scope)
            except Exception:  # the learner's piece may need what only its whole line has
                continue
            if _is_array(value):
                arrays[node] = value
            elif _is_number(value) and not isinstance(node, ast.Name):
                arrays[node] = np.array(float(value))  # a number the line computes (a row's mean, say)
    try:
        _limited(evaluate, PIECES_LIMIT)
    except TimeLimitExceeded:
        return None
    return expression, arrays


def _innermost_first(expression: ast.AST) -> list[ast.AST]:
    """The pieces of an expression that make numbers, each after the pieces inside it."""
    found: list[ast.AST] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            visit(child)
        if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Call, ast.Subscript, ast.Attribute, ast.Name)):
            found.append(node)
    visit(expression)
    return found


def nearest(node: ast.AST, arrays: dict) -> list[ast.AST]:
    """The pieces inside ``node`` that are arrays and stand in no other such piece inside it."""
    found = []
    for child in ast.iter_child_nodes(node):
        found += [child] if child in arrays else nearest(child, arrays)
    return found


def _held_before(traced: Trace, made: Made) -> dict[str, object]:
    """What the names of ``made``'s call held when its line ran: each its last array or number before it."""
    held: dict[str, object] = {}
    for earlier in traced.made[:made.index] if made.index >= 0 else traced.made:
        if earlier.frame == made.frame and not earlier.name.startswith(RETURNED) and earlier.name.isidentifier():
            held[earlier.name] = earlier.value.copy() if earlier.value.ndim else earlier.value.item()
    return held


def enclosing_loop(traced: Trace, lineno: int) -> tuple[int, str] | None:
    """The innermost ``for`` loop of the learner's code that holds the line (its header line and text)."""
    text = "\n".join(traced.source.get(i, "") for i in range(1, max(traced.source, default=0) + 1))
    try:
        tree = ast.parse(textwrap.dedent(text))
    except SyntaxError:
        return None
    loops = [node for node in ast.walk(tree) if isinstance(node, ast.For)
             and node.body[0].lineno <= lineno <= (node.end_lineno or node.lineno)]
    if not loops:
        return None
    inner = max(loops, key=lambda node: node.lineno)
    return inner.lineno, traced.source.get(inner.lineno, "").strip()


def changed_argument(traced: Trace, code) -> tuple[str, int, str] | None:
    """The first argument of the function that one of its lines changed in place: its name, the line and its text."""
    given = set(code.co_varnames[:code.co_argcount])
    return next(((m.name, m.lineno, m.line) for m in traced.made
                 if m.frame == 0 and m.name in given and m.written is not None), None)


def raised_into(traced: Trace, args: tuple[np.ndarray, ...]) -> tuple[str, int, str, int | None] | None:
    """Where the function raised writing into a buffer (``name[…] = …``): the buffer, the line that made it, its
    shape, and the position of the argument shaped like it."""
    if traced.raised is None or traced.raised_at is None:
        return None
    try:
        statement = ast.parse(traced.raised_at[1]).body[0]
    except (SyntaxError, IndexError):
        return None
    targets = statement.targets if isinstance(statement, ast.Assign) else \
        [statement.target] if isinstance(statement, ast.AugAssign) else []
    names = [t.value.id for t in targets if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)]
    made = next((m for m in traced.made if names and m.name == names[0] and m.written is None), None)
    if made is None:
        return None
    alike = next((i for i, given in enumerate(args) if given.shape == made.value.shape), None)
    return made.name, made.lineno, "[" + ", ".join(map(str, made.value.shape)) + "]", alike
