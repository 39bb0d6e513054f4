"""Chapter 27's code exercises: the learner writes the head and its backward; and a bug hunt.

``write-head`` checks ``my_head(q, k, v) -> O`` against the engine's forward and
``write-backward`` checks ``my_backward(q, k, v, upstream) -> (dq, dk, dv)`` against its
autodiff, on the worked example, the second example and hidden cases (``book.code_check`` runs
them). Each mistake is told apart by evidence: the learner's result is compared with what a
small variant of the reference that makes that mistake returns on the same case. ``bug-hunt``
hands over ``buggy_head`` and asks which property of its output betrays the bug.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

import numpy as np

from ..book import code_check
from ..book.answers import AnswerFormatError
from ..book.code_check import Case, Finding
from ..book.exercises import Exercise, Judgement, choice_exercise, right, wrong
from ..book.formatting import shape, vector
from .evidence import HeadRun, LearnerEvidence, run_head
from .strings import text

SEED = 27
RANDOM_SHAPES = ((2, 3, 4, 5), (3, 4, 3, 2))  # B, T, d_k, d_v of the hidden random cases
SINGLE_TOKEN_SHAPE = (2, 1, 3, 4)
# Scaled scores reach about 850 in the first query's row, so exp overflows unless the row's
# maximum is subtracted, and stay near 4 in the second, so subtracting the maximum of the whole
# matrix instead of each row's makes that row underflow to 0/0.
LARGE_QUERY = ((40.0, 10.0), (0.1, 0.2), (-30.0, 30.0))
LARGE_KEY = ((30.0, 0.0), (0.0, 30.0), (20.0, -20.0))
LARGE_VALUE = ((1.0, -2.0, 0.5), (3.0, 0.0, -1.0), (-1.0, 2.0, 2.0))

# Problems of book.code_check that every code exercise names the same way: misconception ids.
GENERIC = {"raised": "raised", "timeout": "timeout", "unreadable": "wrong-shape", "wrong-shape": "wrong-shape",
           "mutated": "mutates-input", "not-finite": "not-finite", "differs": None}


# --- the reference solutions (what reveal shows) and the buggy head ------------------------

def reference_head(q, k, v):
    s = q @ k.swapaxes(1, 2) / np.sqrt(q.shape[-1])
    a = np.exp(s - s.max(axis=-1, keepdims=True))
    a /= a.sum(axis=-1, keepdims=True)
    return a @ v


def reference_backward(q, k, v, upstream):
    scale = 1 / np.sqrt(q.shape[-1])
    s = q @ k.swapaxes(1, 2) * scale
    a = np.exp(s - s.max(axis=-1, keepdims=True))
    a /= a.sum(axis=-1, keepdims=True)
    da = upstream @ v.swapaxes(1, 2)
    ds = a * (da - (a * da).sum(axis=-1, keepdims=True))
    return ds @ k * scale, ds.swapaxes(1, 2) @ q * scale, a.swapaxes(1, 2) @ upstream


def buggy_head(q, k, v):
    s = q @ k.swapaxes(1, 2) / np.sqrt(q.shape[-1])
    a = np.exp(s - s.max(axis=1, keepdims=True))
    a /= a.sum(axis=1, keepdims=True)
    return a, a @ v


# --- the mistakes, as variants of the reference ------------------------------------------

def _weights(q, k, scale, axis=-1, shift=True, transposed=False) -> np.ndarray:
    s = (k @ q.swapaxes(1, 2) if transposed else q @ k.swapaxes(1, 2)) * scale
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(s - s.max(axis=axis, keepdims=True) if shift else s)
        return e / e.sum(axis=axis, keepdims=True)


def _grads(q, k, v, upstream, scale_q, scale_k, jacobian=True, transposed=False, shift=True):
    a = _weights(q, k, 1 / np.sqrt(q.shape[-1]), shift=shift)
    da = upstream @ v.swapaxes(1, 2)
    with np.errstate(invalid="ignore"):
        ds = a * (da - (a * da).sum(axis=-1, keepdims=True)) if jacobian else a * da
    for_q, for_k = (ds.swapaxes(1, 2), ds) if transposed else (ds, ds.swapaxes(1, 2))
    return for_q @ k * scale_q, for_k @ q * scale_k, a.swapaxes(1, 2) @ upstream


def _head_case(name: str, run: HeadRun) -> Case:
    q, k, v = run.query, run.key, run.value
    root = 1 / np.sqrt(q.shape[-1])
    mistakes = (
        ("returns-weights", run.weights),
        ("softmax-axis", _weights(q, k, root, axis=1) @ v),
        ("missing-scale", _weights(q, k, 1.0) @ v),
        ("scale-by-dk", _weights(q, k, 1 / q.shape[-1]) @ v),
        ("transposed-scores", _weights(q, k, root, transposed=True) @ v),
        ("no-max-shift", _weights(q, k, root, shift=False) @ v),
    )
    return Case(name, (q, k, v), (run.output,), tuple((i, (r,)) for i, r in mistakes))


def _backward_case(name: str, run: HeadRun) -> Case:
    args = (run.query, run.key, run.value, run.upstream)
    root = 1 / np.sqrt(run.query.shape[-1])
    mistakes = (
        ("missing-scale", _grads(*args, 1.0, root)),
        ("missing-scale", _grads(*args, root, 1.0)),
        ("missing-scale", _grads(*args, 1.0, 1.0)),
        ("softmax-jacobian", _grads(*args, root, root, jacobian=False)),
        ("transposed-grad", _grads(*args, root, root, transposed=True)),
        ("no-max-shift", _grads(*args, root, root, shift=False)),
    )
    return Case(name, args, (run.grad_query, run.grad_key, run.grad_value), mistakes)


# --- the cases -------------------------------------------------------------------------------

def _runs(ev: LearnerEvidence) -> list[tuple[str, HeadRun]]:
    """Every case's name and the engine's forward and backward on it, in the order they are tried."""
    rng = np.random.default_rng(SEED)

    def drawn(batch, tokens, key_width, value_width):
        q, k = rng.normal(size=(2, batch, tokens, key_width))
        return run_head(q, k, *rng.normal(size=(2, batch, tokens, value_width)))

    large = run_head(*(np.array([m]) for m in (LARGE_QUERY, LARGE_KEY, LARGE_VALUE)), rng.normal(size=(1, 3, 3)))
    return [
        (text("code.case.worked"), ev.worked.run),
        (text("code.case.second"), ev.hand),
        *((text("code.case.random", batch=b, tokens=t, key_width=dk, value_width=dv), drawn(b, t, dk, dv))
          for b, t, dk, dv in RANDOM_SHAPES),
        (text("code.case.single"), drawn(*SINGLE_TOKEN_SHAPE)),
        (text("code.case.large"), large),
    ]


# --- judging -------------------------------------------------------------------------------

def _code_exercise(exercise_id: str, case_of: Callable[[str, HeadRun], Case], arguments: tuple[str, ...],
                   outputs: tuple[str, ...], reference: Callable) -> Exercise:
    def judge(fn: object, ev: LearnerEvidence) -> Judgement:
        finding = code_check.check(fn, [case_of(name, run) for name, run in _runs(ev)])
        if finding.problem in ("stub", "not-callable"):  # not an attempt, like an unreadable answer
            raise AnswerFormatError(text(f"code.{finding.problem}", **finding.fields))
        if finding.problem is None:
            return right("code.right", function=code_check.name_of(fn), **finding.fields)
        fields = {"function": code_check.name_of(fn), "case": finding.case.name}
        if finding.problem not in GENERIC:
            return wrong(finding.problem, f"ex.{exercise_id}.{finding.problem}", **fields)
        key = f"code.{finding.problem}" + ("_at" if "line" in finding.fields else "")
        return wrong(GENERIC[finding.problem], key, **fields, **_details(exercise_id, finding, arguments, outputs))

    def facts(ev: LearnerEvidence) -> dict[str, str]:
        return {"answer": text(f"ex.{exercise_id}.answer"), "solution": inspect.getsource(reference).strip()}

    return Exercise(exercise_id, "code", judge, facts)


def _details(exercise_id: str, finding: Finding, arguments: tuple[str, ...],
             outputs: tuple[str, ...]) -> dict[str, object]:
    """A generic problem's fields, in this exercise's words."""
    f, problem = finding.fields, finding.problem
    if problem in ("raised", "timeout", "not-finite"):
        return dict(f)
    if problem == "mutated":
        return {"arguments": ", ".join(arguments[i] for i in f["arguments"])}
    if problem == "differs":
        return {"outputs": ", ".join(outputs[i] for i in f["outputs"]), "difference": f"{f['difference']:.3g}"}
    expected = text(f"ex.{exercise_id}.expected", shapes=", ".join(shape(e.shape) for e in finding.case.expected))
    if problem == "unreadable":
        returned = text("code.sized", kind=f["returned"], length=f["length"]) if "length" in f else f["returned"]
        return {"returned": returned, "expected": expected}
    return {"shapes": ", ".join(shape(s) for s in f["shapes"]), "expected": expected}


# Each exercise with the names its messages give the function's arguments and outputs.
WRITE_HEAD = _code_exercise("write-head", _head_case, ("q", "k", "v"), ("O",), reference_head)
WRITE_BACKWARD = _code_exercise("write-backward", _backward_case, ("q", "k", "v", "upstream"), ("dq", "dk", "dv"),
                                reference_backward)
CODE_EXERCISES = (WRITE_HEAD, WRITE_BACKWARD)


def _bug_facts(ev: LearnerEvidence) -> dict[str, str]:
    run = ev.worked.run
    weights, output = buggy_head(run.query, run.key, run.value)
    return {"row_sums": vector(weights[0].sum(axis=1)), "column_sums": vector(weights[0].sum(axis=0)),
            "shape": shape(output.shape)}


BUG_HUNT = choice_exercise("bug-hunt", "c", {"a": "shape-reveals-axis", "b": "negative-weights",
                                             "d": "symmetry-hides-axis"}, _bug_facts)
