"""Chapter 27's code exercises: the learner writes the head and its backward; and a bug hunt.

``write-head`` checks ``my_head(q, k, v) -> O`` against the engine's forward and
``write-backward`` checks ``my_backward(q, k, v, upstream) -> (dq, dk, dv)`` against its
autodiff, on the worked example, the second example and hidden cases (``book.code_check`` runs
them). Each mistake is told apart by evidence: the learner's result is compared with what the
closed form gives when it makes that mistake on the same case. The solutions ``reveal`` shows are
the engine's closed form. ``bug-hunt`` hands over ``buggy_head`` and asks which property of its
output betrays the bug.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

import numpy as np

from ..book import code_check
from ..book.answers import AnswerFormatError
from ..book.code_check import Case, Finding
from ..book.exercises import Exercise, Judgement, Option, choice_exercise, right, wrong
from ..book.formatting import shape, vector
from ..engine.closed_form import attention_weights, closed_form_backward, closed_form_head, softmax
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

# Problems of book.code_check that every code exercise names the same way:
# problem -> (misconception id, message key, message key when the line of the learner's code is known)
PROBLEMS = {
    "raised": ("raised", "code.raised", "code.raised_at"),
    "timeout": ("timeout", "code.timeout", "code.timeout_at"),
    "unreadable": ("wrong-shape", "code.unreadable", "code.unreadable"),
    "wrong-shape": ("wrong-shape", "code.wrong-shape", "code.wrong-shape"),
    "mutated": ("mutates-input", "code.mutated", "code.mutated"),
    "not-finite": ("not-finite", "code.not-finite", "code.not-finite"),
    "differs": (None, "code.differs", "code.differs"),
}
NOT_AN_ATTEMPT = {"stub": "code.stub", "not-callable": "code.not-callable"}


def buggy_head(q, k, v):
    s = q @ k.swapaxes(1, 2) / np.sqrt(q.shape[-1])
    a = np.exp(s - s.max(axis=1, keepdims=True))
    a /= a.sum(axis=1, keepdims=True)
    return a, a @ v


# --- the mistakes: the closed form, making one mistake ----------------------------------------

def _scores(q, k, scale, transposed=False) -> np.ndarray:
    return (k @ q.swapaxes(1, 2) if transposed else q @ k.swapaxes(1, 2)) * scale


def _unshifted_softmax(s: np.ndarray) -> np.ndarray:
    """The mistake of exponentiating scores as they are: exp overflows to inf, and inf / inf is nan."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.exp(s) / np.exp(s).sum(axis=-1, keepdims=True)


def _head_mistakes(q, k, v) -> tuple[tuple[str, tuple[np.ndarray, ...]], ...]:
    root = 1 / np.sqrt(q.shape[-1])
    return (
        ("returns-weights", (attention_weights(q, k),)),
        ("softmax-axis", (softmax(_scores(q, k, root), axis=1) @ v,)),
        ("missing-scale", (softmax(_scores(q, k, 1.0)) @ v,)),
        ("scale-by-dk", (softmax(_scores(q, k, 1 / q.shape[-1])) @ v,)),
        ("transposed-scores", (softmax(_scores(q, k, root, transposed=True)) @ v,)),
        ("no-max-shift", (_unshifted_softmax(_scores(q, k, root)) @ v,)),
    )


def _backward_with(q, k, v, upstream, weights, scale_q, scale_k, jacobian=True, transposed=False):
    grad_weights = upstream @ v.swapaxes(1, 2)
    with np.errstate(invalid="ignore"):
        rows = (weights * grad_weights).sum(axis=-1, keepdims=True) if jacobian else 0.0
        grad_scores = weights * (grad_weights - rows)
    for_q, for_k = (grad_scores.swapaxes(1, 2), grad_scores) if transposed else (grad_scores,
                                                                                  grad_scores.swapaxes(1, 2))
    return for_q @ k * scale_q, for_k @ q * scale_k, weights.swapaxes(1, 2) @ upstream


def _backward_mistakes(q, k, v, upstream) -> tuple[tuple[str, tuple[np.ndarray, ...]], ...]:
    root = 1 / np.sqrt(q.shape[-1])
    weights = attention_weights(q, k)
    unshifted = _unshifted_softmax(_scores(q, k, root))
    return (
        ("missing-scale", _backward_with(q, k, v, upstream, weights, 1.0, root)),
        ("missing-scale", _backward_with(q, k, v, upstream, weights, root, 1.0)),
        ("missing-scale", _backward_with(q, k, v, upstream, weights, 1.0, 1.0)),
        ("softmax-jacobian", _backward_with(q, k, v, upstream, weights, root, root, jacobian=False)),
        ("transposed-grad", _backward_with(q, k, v, upstream, weights, root, root, transposed=True)),
        ("no-max-shift", _backward_with(q, k, v, upstream, unshifted, root, root)),
    )


def _head_case(name: str, run: HeadRun) -> Case:
    args = (run.query, run.key, run.value)
    return Case(name, args, (run.output,), _head_mistakes(*args))


def _backward_case(name: str, run: HeadRun) -> Case:
    args = (run.query, run.key, run.value, run.upstream)
    return Case(name, args, (run.grad_query, run.grad_key, run.grad_value), _backward_mistakes(*args))


# --- the cases -------------------------------------------------------------------------------

def _runs(ev: LearnerEvidence) -> list[tuple[str, HeadRun]]:
    """Every case's name and the engine's forward and backward on it, in the order they are tried."""
    rng = np.random.default_rng(SEED)

    def drawn(batch, tokens, key_width, value_width):
        q, k = rng.normal(size=(2, batch, tokens, key_width))
        return run_head(q, k, *rng.normal(size=(2, batch, tokens, value_width)))

    large = run_head(*(np.array([m]) for m in (LARGE_QUERY, LARGE_KEY, LARGE_VALUE)), rng.normal(size=(1, 3, 3)))
    return [
        (text("code.case.worked"), ev.worked),
        (text("code.case.second"), ev.hand),
        *((text("code.case.random", batch=b, tokens=t, key_width=dk, value_width=dv), drawn(b, t, dk, dv))
          for b, t, dk, dv in RANDOM_SHAPES),
        (text("code.case.single"), drawn(*SINGLE_TOKEN_SHAPE)),
        (text("code.case.large"), large),
    ]


# --- judging -------------------------------------------------------------------------------

def _code_exercise(exercise_id: str, *, title: str, explain: str, answer: str, expected_shapes: str,
                   mistakes: dict[str, str], case_of: Callable[[str, HeadRun], Case], arguments: tuple[str, ...],
                   outputs: tuple[str, ...], solution: tuple[Callable, ...]) -> Exercise:
    """A code exercise; ``mistakes`` maps each mistake the cases can show to its message's key."""
    def judge(fn: object, expected: object, ev: LearnerEvidence) -> Judgement:
        finding = code_check.run_cases(fn, [case_of(name, run) for name, run in _runs(ev)])
        if finding.problem in NOT_AN_ATTEMPT:
            raise AnswerFormatError(text(NOT_AN_ATTEMPT[finding.problem], **finding.fields))
        if finding.problem is None:
            return right("code.right", function=code_check.name_of(fn), **finding.fields)
        fields = {"function": code_check.name_of(fn), "case": finding.case.name}
        if finding.problem in mistakes:
            return wrong(finding.problem, mistakes[finding.problem], **fields)
        misconception, key, key_at_line = PROBLEMS[finding.problem]
        return wrong(misconception, key_at_line if "line" in finding.fields else key, **fields,
                     **_details(finding, arguments, outputs, expected_shapes))

    def facts(expected: object, ev: LearnerEvidence) -> dict[str, str]:
        return {"answer": text(answer), "solution": "\n\n".join(inspect.getsource(f).strip() for f in solution)}

    return Exercise(exercise_id, "code", title, explain, lambda ev: solution[-1], judge, facts,
                    read=lambda fn, form: fn)


def _details(finding: Finding, arguments: tuple[str, ...], outputs: tuple[str, ...],
             expected_shapes: str) -> dict[str, object]:
    """A generic problem's fields, in this exercise's words."""
    f, problem = finding.fields, finding.problem
    if problem in ("raised", "timeout", "not-finite"):
        return dict(f)
    if problem == "mutated":
        return {"arguments": ", ".join(arguments[i] for i in f["arguments"])}
    if problem == "differs":
        return {"outputs": ", ".join(outputs[i] for i in f["outputs"]), "difference": f"{f['difference']:.3g}"}
    expected = text(expected_shapes, shapes=", ".join(shape(e.shape) for e in finding.case.expected))
    if problem == "unreadable":
        returned = text("code.sized", kind=f["returned"], length=f["length"]) if "length" in f else f["returned"]
        return {"returned": returned, "expected": expected}
    return {"shapes": ", ".join(shape(s) for s in f["shapes"]), "expected": expected}


WRITE_HEAD = _code_exercise(
    "write-head", title="ex.write-head.title", explain="ex.write-head.explain", answer="ex.write-head.answer",
    expected_shapes="ex.write-head.expected", case_of=_head_case, arguments=("q", "k", "v"), outputs=("O",),
    solution=(softmax, attention_weights, closed_form_head), mistakes={
        "returns-weights": "ex.write-head.returns-weights", "softmax-axis": "ex.write-head.softmax-axis",
        "missing-scale": "ex.write-head.missing-scale", "scale-by-dk": "ex.write-head.scale-by-dk",
        "transposed-scores": "ex.write-head.transposed-scores", "no-max-shift": "ex.write-head.no-max-shift"})
WRITE_BACKWARD = _code_exercise(
    "write-backward", title="ex.write-backward.title", explain="ex.write-backward.explain",
    answer="ex.write-backward.answer", expected_shapes="ex.write-backward.expected", case_of=_backward_case,
    arguments=("q", "k", "v", "upstream"), outputs=("dq", "dk", "dv"), solution=(closed_form_backward,),
    mistakes={"missing-scale": "ex.write-backward.missing-scale",
              "softmax-jacobian": "ex.write-backward.softmax-jacobian",
              "transposed-grad": "ex.write-backward.transposed-grad",
              "no-max-shift": "ex.write-backward.no-max-shift"})
CODE_EXERCISES = (WRITE_HEAD, WRITE_BACKWARD)


def _bug_facts(ev: LearnerEvidence) -> dict[str, str]:
    run = ev.worked
    weights, output = buggy_head(run.query, run.key, run.value)
    return {"row_sums": vector(weights[0].sum(axis=1)), "column_sums": vector(weights[0].sum(axis=0)),
            "shape": shape(output.shape)}


BUG_HUNT = choice_exercise("bug-hunt", title="ex.bug-hunt.title", prompt="ex.bug-hunt.prompt",
                           explain="ex.bug-hunt.explain", correct="c", facts=_bug_facts, options={
                               "a": Option("ex.bug-hunt.a", "ex.bug-hunt.why_a", "shape-reveals-axis"),
                               "b": Option("ex.bug-hunt.b", "ex.bug-hunt.why_b", "negative-weights"),
                               "c": Option("ex.bug-hunt.c", "ex.bug-hunt.right"),
                               "d": Option("ex.bug-hunt.d", "ex.bug-hunt.why_d", "symmetry-hides-axis")})
