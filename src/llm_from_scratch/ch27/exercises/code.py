"""How chapter 27 judges a function the learner writes: the head (06) and its backward (07), declared there.

``write-head`` checks ``my_head(q, k, v) -> O`` against the engine's forward and
``write-backward`` checks ``my_backward(q, k, v, upstream) -> (dq, dk, dv)`` against its
autodiff, on the worked example, the second example and hidden cases (``book.code_check`` runs
them); float32 and other precisions are right, with a note. Where the function is wrong, a search
(``code_slips``) names the slip, or the two, that turn the right computation into exactly what the function gave
on every probe, and only when nothing else fits; otherwise the first stage that differs. The solutions
``reveal`` shows are the engine's closed form.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

import numpy as np

from ...book import code_check
from ...book.answers import AnswerFormatError
from ...book.code_check import Case, Finding
from ...book.code_search import Search
from ...book.declare import Exercise
from ...book.formatting import shape, vector
from ...book.slips import Slip
from ...book.tolerances import FLOAT_NOISE
from ...book.verdicts import Judgement, Phrase, own, right, wrong
from ..evidence import HeadRun, LearnerEvidence, run_head
from ..strings import text

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


def head_case(name: str, run: HeadRun) -> Case:
    return Case(name, (run.query, run.key, run.value), (run.output,))


def backward_case(name: str, run: HeadRun) -> Case:
    return Case(name, (run.query, run.key, run.value, run.upstream), (run.grad_query, run.grad_key, run.grad_value))


# --- the cases -------------------------------------------------------------------------------

def _runs(ev: LearnerEvidence) -> list[tuple[str, HeadRun]]:
    """Every case's name and the engine's forward and backward on it, in the order they are tried."""
    rng = np.random.default_rng(SEED if ev.draw.case_seed is None else ev.draw.case_seed)

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

def _read_function(fn: object, form: str) -> object:
    """A function is its own answer: nothing to read."""
    return fn


def code_exercise(exercise_id: str, *, notebook: str, example: Callable[[LearnerEvidence], HeadRun],
                  skills: tuple[str, ...],
                  case_of: Callable[[str, HeadRun], Case], search: Search,
                  stage: Callable[[Callable, Finding], tuple[str, dict] | None],
                  arguments: tuple[str, ...], outputs: tuple[str, ...], solution: tuple[Callable, ...]) -> Exercise:
    """A code exercise: the cases say whether the learner's function is right; where it is not, ``search`` names
    the slips the probes prove (each said in its words with ``hint.<id>``), else ``stage`` the first stage
    that differs (its string's key and fields). Its strings name the shapes it returns ("expected") and what its
    answer is ("answer")."""
    def judge(fn: object, expected: object, ev: LearnerEvidence) -> Judgement:
        finding = code_check.run_cases(fn, [case_of(name, run) for name, run in _runs(ev)])
        if finding.problem in NOT_AN_ATTEMPT:
            raise AnswerFormatError(text(NOT_AN_ATTEMPT[finding.problem], **finding.fields),
                                    pending=finding.problem == "stub")
        function = code_check.name_of(fn)
        if finding.problem is None:
            if finding.fields["precision"] > FLOAT_NOISE:
                return right("code.right_precision", function=function, count=finding.fields["count"],
                             error=f"{finding.fields['precision']:.0e}")
            return right("code.right", function=function, count=finding.fields["count"])
        fields = {"function": function, "case": finding.case.name}
        if finding.problem in ("raised", "wrong-shape", "not-finite", "differs"):
            slips = search.named(fn)
            if slips:
                return _named(slips, fields)
            found = stage(fn, finding)
            if found:
                key, measured = found
                return wrong(key.replace("code-stage.", "stage-"), "code.first_stage", **fields,
                             stage=Phrase(key, measured))
        misconception, key, key_at_line = PROBLEMS[finding.problem]
        return wrong(misconception, key_at_line if "line" in finding.fields else key, **fields,
                     **_details(finding, arguments, outputs))

    def reference(ev: LearnerEvidence) -> Callable:
        """The expected answer: the solution's last function, the one the learner writes."""
        return solution[-1]

    def facts(expected: object, ev: LearnerEvidence) -> dict[str, str]:
        first = case_of("", ev.worked).expected[0][0, 0]  # the first row of the first output on the worked example
        return {"answer": own("answer"), "solution": "\n\n".join(inspect.getsource(f).strip() for f in solution),
                "first": vector(first)}

    return Exercise(exercise_id, "code", notebook, example, reference, judge, facts, read=_read_function,
                    skills=skills, varies="code")


def _named(slips: tuple[Slip, ...], fields: dict[str, object]) -> Judgement:
    """The slip the search proved, or the two, each with where to look."""
    said = [{"slip": Phrase(slip.message), "hint": Phrase(f"hint.{slip.id}")} for slip in slips]
    if len(said) == 1:
        return wrong(slips[0].id, "code.named", **fields, **said[0])
    return wrong("+".join(slip.id for slip in slips), "code.named_two", **fields, first=said[0]["slip"],
                 second=said[1]["slip"], first_hint=said[0]["hint"], second_hint=said[1]["hint"])


def _details(finding: Finding, arguments: tuple[str, ...], outputs: tuple[str, ...]) -> dict[str, object]:
    """A generic problem's fields, in this exercise's words."""
    f, problem = finding.fields, finding.problem
    if problem in ("raised", "timeout", "not-finite"):
        return dict(f)
    if problem == "mutated":
        return {"arguments": ", ".join(arguments[i] for i in f["arguments"])}
    if problem == "differs":
        return {"outputs": ", ".join(outputs[i] for i in f["outputs"]), "difference": f"{f['difference']:.3g}"}
    expected = own("expected", shapes=", ".join(shape(e.shape) for e in finding.case.expected))
    if problem == "unreadable":
        returned = text("code.sized", kind=f["returned"], length=f["length"]) if "length" in f else f["returned"]
        return {"returned": returned, "expected": expected}
    return {"shapes": ", ".join(shape(s) for s in f["shapes"]), "expected": expected}
