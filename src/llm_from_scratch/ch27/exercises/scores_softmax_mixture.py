"""The exercises of 02_scores_softmax_mixture: their judges and facts (their strings:
catalogues/<language>/02_scores_softmax_mixture.toml): the first row of weights, and the challenges on the
vector plane.

Each challenge on the plane is two exercises: a choice that predicts what the move needs or does, and the move
itself, an exercise of kind "state" whose answer is the plane (``check("plane-equal", plane)``, or the form's
button under it). The move is judged only after its prediction was answered, on the engine's numbers for the plane
as it stands, counted from the vectors its moves started from (the cells' own, or the worked example's); a state
that misses says what is missing, in numbers. A task that cannot work on those vectors, a move of other vectors
and a plane replaced since are refused in one line, and nothing is stored.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ...book.answers import AnswerFormatError
from ...book.declare import Exercise, choice_exercise
from ...book.formatting import num, trimmed, vector
from ...book.verdicts import Judgement, Phrase, own, right, wrong
from ...engine.closed_form import array_softmax
from ..evidence import LearnerEvidence
from ..given import given
from ..mistakes import (
    Asked,
)
from ..plane import (
    LIMIT,
    NAMES,
    PlaneState,
    VectorPlane,
    coordinates,
    default_vectors,
    divided_by,
    plane_state,
    same_vectors,
    subscripted,
)
from ..strings import text
from .judging import Example, HeadJudge, worked_facts, worked_prompt_fields

EQUAL_WEIGHTS = 0.025  # each weight this close to 1/2 (scaled scores 0.1 apart): the 0.5 grid lands exactly
NEAR_SCORES = 1.0  # scores closer than this: a near miss, told as one (not as a misconception)
STRONG_WEIGHT = 0.9  # what q₁ must give k₁
POSITION = 0.05  # a tip this close to a named point is on it (Shift moves by 0.1)
PARALLEL_DEGREES = 8.0  # an arrow this close in angle to another points along it


def read_plane(answer: object, form: str) -> PlaneState:
    """The plane's state: a VectorPlane (not one a later plane replaced), its ``state``, or the six vectors by
    name (moved from the worked example)."""
    if isinstance(answer, VectorPlane):
        if answer.replaced:
            raise AnswerFormatError(text("challenge.replaced"))
        return answer.state
    if isinstance(answer, PlaneState):
        return answer
    if isinstance(answer, dict) and set(answer) == set(NAMES):
        try:
            return plane_state({n: (float(answer[n][0]), float(answer[n][1])) for n in NAMES})
        except (TypeError, ValueError, IndexError):
            pass
    raise AnswerFormatError(text("challenge.form", form=form))


def _moved(state: PlaneState) -> list[str]:
    """The vectors away from where the plane's moves started (by more than a tip one can see move)."""
    return [n for n in NAMES if not np.allclose(state.vectors[n], state.started[n], atol=POSITION, rtol=0)]


def _origin(state: PlaneState) -> PlaneState:
    """The plane as its moves started, computed with the same stages."""
    return plane_state(state.started, state.stages, state.started)


def _back(state: PlaneState) -> str:
    """The button that takes the plane back to where its moves started."""
    return text("plane.reset" if same_vectors(state.started, default_vectors()) else "plane.reset_given")


def _across(origin: PlaneState) -> Phrase | None:
    """Every task asks for a row of weights: a plane whose softmax (the cells') runs along another axis has none."""
    if origin.stages.axis == 2:
        return None
    along = {1: "stages.along_columns", 0: "stages.along_batch"}.get(origin.stages.axis, "stages.along_other")
    return Phrase("challenge.unfit.axis", {"along": text(along)})


def _unfit(origin: PlaneState, unfit: Callable[[PlaneState], Phrase | None]) -> Phrase | None:
    """Why a task cannot work on a plane that starts at ``origin``: its softmax's axis, or the task's own reason."""
    return _across(origin) or unfit(origin)


def _mover(vector: str, unfit: Callable[[PlaneState], Phrase | None]):
    """How a move's answer is read: the plane's state, if this task fits the vectors its moves started from
    (``unfit`` says why not) and only ``vector`` moved; otherwise one line saying what to do, and nothing judged
    or stored."""

    def read(answer: object, form: str) -> PlaneState:
        state = read_plane(answer, form)
        why = _unfit(_origin(state), unfit)
        if why:
            worked = plane_state(default_vectors(), state.stages)  # what the plane's other button gives
            helps = not same_vectors(state.started, worked.vectors) and _unfit(worked, unfit) is None
            raise AnswerFormatError(text("challenge.unfit", why=text(why.key, **why.fields),
                                         then=text("challenge.unfit.then", button=text("plane.reset")) if helps
                                         else ""))
        others = [n for n in _moved(state) if n != vector]
        if others:
            moved_to = ", ".join(f"{subscripted(n)} = {coordinates(state.vectors[n])}" for n in others)
            raise AnswerFormatError(text("challenge.others", moved=moved_to, name=subscripted(vector),
                                         reset=_back(state)))
        if vector not in _moved(state):
            raise AnswerFormatError(text("challenge.unmoved", name=subscripted(vector),
                                         at=coordinates(state.vectors[vector])))
        return state

    return read


def _angle(a, b) -> float:
    """Degrees between two arrows (180 when one has no length)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    lengths = np.hypot(*a) * np.hypot(*b)
    return 180.0 if lengths == 0 else math.degrees(math.acos(float(np.clip(a @ b / lengths, -1, 1))))


def _row(state: PlaneState, i: int) -> dict[str, str]:
    return {"s0": num(state.scores[i, 0], 2), "s1": num(state.scores[i, 1], 2),
            "w0": num(state.weights[i, 0], 3), "w1": num(state.weights[i, 1], 3)}


def _start() -> PlaneState:
    return plane_state(default_vectors())


# --- 1: equal weights ----------------------------------------------------------------------

def _equal_unfit(origin: PlaneState) -> Phrase | None:
    """Equal weights need a q₀ with a length, and weights that are not equal already."""
    if not np.any(origin.vectors["q0"]):
        return Phrase("challenge.unfit.zero_query", {"name": "q₀"})
    if abs(origin.weights[0, 0] - 0.5) <= EQUAL_WEIGHTS:
        return Phrase("challenge.unfit.equal_already", _row(origin, 0))
    return None


def _equal(state: PlaneState, expected, ev) -> Judgement:
    fields = {**_row(state, 0), "k1": coordinates(state.vectors["k1"])}
    if abs(state.weights[0, 0] - 0.5) <= EQUAL_WEIGHTS:
        return right(own("right"), **fields)
    if abs(state.scores[0, 1] - state.scores[0, 0]) < NEAR_SCORES:
        return wrong(None, own("near"), **fields)
    k0, k1 = (np.hypot(*state.vectors[k]) for k in ("k0", "k1"))
    if abs(k1 - k0) <= POSITION:
        return wrong("equal-length", own("length"), length=trimmed(k0), **fields)
    return wrong(None, own("missing"), **fields)


def _equal_facts(expected, ev) -> dict[str, str]:
    start = _start()
    return {"answer": own("answer", k0=coordinates(start.vectors["k0"]),
                           q0=coordinates(start.vectors["q0"]), s0=num(start.scores[0, 0], 2))}


# --- 2: a strong weight --------------------------------------------------------------------

def _gap(state: PlaneState) -> float:
    """q₁'s scaled score for k₁ minus that for k₀: a row of two weights depends on this alone."""
    return float(state.scaled[1, 1] - state.scaled[1, 0])


def _strong_unfit(origin: PlaneState) -> Phrase | None:
    """A weight of 0.9 for k₁ must not hold already, and some q₁ on the plane must give it: the largest gap a q₁
    inside the plane's square makes is LIMIT·(|Δx| + |Δy|) of k₁ − k₀, over the divisor."""
    if origin.weights[1, 1] >= STRONG_WEIGHT:
        return Phrase("challenge.unfit.strong_already", {**_row(origin, 1), "goal": num(STRONG_WEIGHT, 1)})
    apart = np.abs(np.subtract(origin.vectors["k1"], origin.vectors["k0"])).sum()
    if LIMIT * apart / origin.stages.divisor < math.log(STRONG_WEIGHT / (1 - STRONG_WEIGHT)):
        return Phrase("challenge.unfit.strong_reach", {"goal": num(STRONG_WEIGHT, 1), "limit": trimmed(LIMIT)})
    return None


def _strong(state: PlaneState, expected, ev) -> Judgement:
    q1 = state.vectors["q1"]
    fields = {**_row(state, 1), "q1": coordinates(q1), "o1": coordinates(state.outputs[1]),
              "scale": divided_by(state.stages).removeprefix("÷ "),
              "v1": coordinates(state.vectors["v1"]), "gap": num(_gap(state), 2), "length": trimmed(np.hypot(*q1)),
              "need": num(math.log(STRONG_WEIGHT / (1 - STRONG_WEIGHT)), 2), "goal": num(STRONG_WEIGHT, 1)}
    if state.weights[1, 1] >= STRONG_WEIGHT:
        return right(own("right"), **fields)
    if _angle(q1, state.vectors["v1"]) <= PARALLEL_DEGREES:
        return wrong("aims-at-value", own("value"), **fields)
    if _angle(q1, state.vectors["k1"]) <= PARALLEL_DEGREES:
        return wrong("length-irrelevant", own("short"), **fields)
    return wrong(None, own("missing"), **fields)


def _strong_facts(expected, ev) -> dict[str, str]:
    start = _start()
    aimed = plane_state({**start.vectors, "q1": start.vectors["k1"]})  # q₁ pointed at k₁, as long as k₁
    need = math.log(STRONG_WEIGHT / (1 - STRONG_WEIGHT))  # the scaled gap a weight of 0.9 needs, which hints name
    return {"need": num(need, 1),
            "answer": own("answer", need=num(need, 2),
                           k1=coordinates(start.vectors["k1"]), w1=num(aimed.weights[1, 1], 3),
                           goal=num(STRONG_WEIGHT, 1))}


# --- 3: a query twice as long -------------------------------------------------------------

def _long_unfit(origin: PlaneState) -> Phrase | None:
    """Doubling needs a q₀ with a length, and 2·q₀ inside the plane."""
    q0 = np.array(origin.vectors["q0"])
    if not q0.any():
        return Phrase("challenge.unfit.zero_long", {})
    if (np.abs(2 * q0) > LIMIT).any():
        return Phrase("challenge.unfit.long_reach", {"target": coordinates(2 * q0), "limit": trimmed(LIMIT)})
    return None


def _long(state: PlaneState, expected, ev) -> Judgement:
    start, q0 = _origin(state), np.array(state.vectors["q0"])
    original = np.hypot(*start.vectors["q0"])
    along = np.array(start.vectors["q0"]) / original  # the original direction, length 1
    fields = {**_row(state, 0), "q0": coordinates(q0), "start": coordinates(start.vectors["q0"]),
              "before": vector(start.weights[0], 3), "after": vector(state.weights[0], 4),
              "b0": num(start.scores[0, 0], 2), "b1": num(start.scores[0, 1], 2), "length": trimmed(np.hypot(*q0)),
              "original": trimmed(original), "target": trimmed(2 * original)}
    if np.allclose(q0, 2 * np.array(start.vectors["q0"]), atol=POSITION, rtol=0):
        return right(own("right"), **fields)
    if not q0.any():
        return wrong(None, own("zero"), **fields)
    if np.hypot(*(q0 - (q0 @ along) * along)) > POSITION:  # off the original line
        return wrong(None, own("turned"), **fields)
    if q0 @ along < 0:
        return wrong(None, own("reversed"), **fields)
    return wrong(None, own("length"), **fields)


def _long_facts(expected, ev) -> dict[str, str]:
    start = _start()
    doubled = plane_state({**start.vectors, "q0": tuple(2 * c for c in start.vectors["q0"])})
    return {"answer": own("answer", target=coordinates(doubled.vectors["q0"]),
                           before=vector(start.weights[0], 3), after=vector(doubled.weights[0], 4))}


def _nothing_expected(ev: LearnerEvidence) -> None:
    """A move has no expected answer: its judge reads the plane as it stands."""
    return None


def _move(exercise_id: str, vector: str, unfit: Callable[[PlaneState], Phrase | None], **declared) -> Exercise:
    """A move of ``vector`` on the plane: its answer is the plane, judged once its prediction was answered, where
    the task fits the vectors the moves started from."""
    return Exercise(exercise_id, "state", expected=_nothing_expected, read=_mover(vector, unfit),
                    after=f"{exercise_id}-prediction", **declared)


# --- the first row of weights --------------------------------------------------------------

def _weights_expected(ev: LearnerEvidence) -> np.ndarray:
    return ev.worked.weights[0, 0]


def _weights_asked(ev: LearnerEvidence) -> Asked:
    return Asked(ev.worked, ev.hand, "probabilities", (0,))


def _weights_fields(expected: np.ndarray) -> dict:
    return {"count": expected.size}


def _weights_given_answer(values: dict[str, np.ndarray]) -> np.ndarray:
    return array_softmax(values["S"][0, 0])


def _weights_facts(expected, ev):
    return {**worked_facts(ev), "answer": vector(expected)}


EXERCISES = (
    Exercise(
        "weights", "numbers",
        notebook="02_scores_softmax_mixture", example=Example.worked,
        skills=("skill.row-softmax",),
        varies="worked",
        inputs=worked_prompt_fields,
        expected=_weights_expected,
        judge=HeadJudge(_weights_asked, _weights_fields, "q", rows_sum_to_one=True),
        given=given("S", answer=_weights_given_answer),
        facts=_weights_facts,
    ),
    # the vector plane: three predictions, each before its move
    choice_exercise(
        "plane-equal-prediction",
        notebook="02_scores_softmax_mixture", example=Example.worked,
        skills=("skill.dot-products",),
        correct="c",
        misconceptions={"a": "equal-needs-identical", "b": "equal-length", "d": "perpendicular-zero-weight"},
    ),
    _move(
        "plane-equal", "k1", _equal_unfit,
        notebook="02_scores_softmax_mixture", example=Example.worked,
        skills=("skill.dot-products",),
        judge=_equal,
        facts=_equal_facts,
    ),
    choice_exercise(
        "plane-long-prediction",
        notebook="02_scores_softmax_mixture", example=Example.worked,
        skills=("skill.scaling",),
        correct="c",
        misconceptions={"a": "length-cancels", "b": "weights-scale", "d": "longer-divides-more"},
    ),
    _move(
        "plane-long", "q0", _long_unfit,
        notebook="02_scores_softmax_mixture", example=Example.worked,
        skills=("skill.scaling",),
        judge=_long,
        facts=_long_facts,
    ),
    choice_exercise(
        "plane-strong-prediction",
        notebook="02_scores_softmax_mixture", example=Example.worked,
        skills=("skill.row-softmax",),
        correct="b",
        misconceptions={"a": "aims-at-value", "c": "length-irrelevant", "d": "keys-only"},
    ),
    _move(
        "plane-strong", "q1", _strong_unfit,
        notebook="02_scores_softmax_mixture", example=Example.worked,
        skills=("skill.row-softmax",),
        judge=_strong,
        facts=_strong_facts,
    ),
)
