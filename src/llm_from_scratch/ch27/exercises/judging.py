"""What the chapter's exercises share: the examples they are asked on (``Example``), the head-stage judge, the
review's judge, and the facts and fields several notebooks' exercises name."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...book.answers import AnswerFormatError
from ...book.formatting import labels, matrix, num, trimmed, vector
from ...book.mistakes import diagnose
from ...book.tolerances import BY_HAND, ROUNDED
from ...book.verdicts import Judgement, own, partial, wrong
from ..evidence import (
    DivisorExample,
    HeadRun,
    HeadSplit,
    HistoryEvidence,
    LearnerEvidence,
    PermutationEvidence,
    RowShift,
    ShapeCase,
    TemperatureExample,
)
from ..mistakes import (
    HEAD_MISTAKES,
    Asked,
)


class Example:
    """The examples an exercise is asked on (``Exercise.example``), each a function of the evidence: a judge, the
    values an answer cell gives and a fold reach the exercise's example through it, typed, with no lookup by a
    name."""

    @staticmethod
    def divisor(ev: LearnerEvidence) -> DivisorExample:
        return ev.fixed.divisor

    @staticmethod
    def hand(ev: LearnerEvidence) -> HeadRun:
        return ev.hand

    @staticmethod
    def hand_first_output(ev: LearnerEvidence) -> HeadRun:
        """The second example run backward with L = o_00, as 07's cells run it (Ō is 1 at (0, 0))."""
        return ev.hand_first_output

    @staticmethod
    def head_split(ev: LearnerEvidence) -> HeadSplit:
        return ev.head_split

    @staticmethod
    def history(ev: LearnerEvidence) -> HistoryEvidence:
        return ev.fixed.history

    @staticmethod
    def identical_keys(ev: LearnerEvidence) -> HeadRun:
        return ev.identical_keys

    @staticmethod
    def no_match(ev: LearnerEvidence) -> HeadRun:
        return ev.fixed.no_match

    @staticmethod
    def output_shape(ev: LearnerEvidence) -> ShapeCase:
        return ev.output_shape

    @staticmethod
    def permutation(ev: LearnerEvidence) -> PermutationEvidence:
        return ev.fixed.permutation

    @staticmethod
    def row_shift(ev: LearnerEvidence) -> RowShift:
        return ev.row_shift

    @staticmethod
    def saturated(ev: LearnerEvidence) -> HeadRun:
        return ev.fixed.saturated

    @staticmethod
    def single_token(ev: LearnerEvidence) -> HeadRun:
        return ev.single_token

    @staticmethod
    def temperature(ev: LearnerEvidence) -> TemperatureExample:
        return ev.fixed.temperature

    @staticmethod
    def width_one(ev: LearnerEvidence) -> HeadRun:
        return ev.fixed.width_one

    @staticmethod
    def worked(ev: LearnerEvidence) -> HeadRun:
        return ev.worked


def matrix_size(expected: np.ndarray) -> str:
    """A matrix's size as the prompts write it: 3×3."""
    return "×".join(str(n) for n in np.shape(expected))


def layout(rows: int, columns: int) -> str:
    """How to write a rows × columns answer: [[a, b], [c, d]]; one row: [a, b]."""
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    written = ["[" + ", ".join(next(letters) for _ in range(columns)) + "]" for _ in range(rows)]
    return written[0] if rows == 1 else "[" + ", ".join(written) + "]"


def exact(expected: np.ndarray) -> str:
    return matrix(expected) if np.ndim(expected) == 2 else vector(expected)


def row_sums_off(answer: np.ndarray, tolerance: float) -> bool:
    return bool(np.any(np.abs(answer.sum(axis=-1) - 1.0) > tolerance * answer.shape[-1]))


def row_sum_mistake(answer: np.ndarray, decimals: int) -> Judgement:
    """The rows of ``answer`` do not sum to 1: say what they sum to (one number for one row)."""
    sums = answer.sum(axis=-1)
    if sums.ndim:
        return wrong("not-normalized", "mis.row-sums", total=vector(sums, decimals))
    return wrong("not-normalized", "mis.row-sum", total=num(sums, decimals))


def what_is_left(a, expected, prefix: str, tolerance: float, rows_sum_to_one: bool) -> Judgement:
    """What to say when no mistake of the library explains the answer: the row sums, or the rows that are right
    (none: the exercise's "wrong")."""
    if rows_sum_to_one and row_sums_off(np.atleast_2d(a), max(tolerance, ROUNDED)):
        return row_sum_mistake(a, 2 if tolerance >= BY_HAND else 4)
    if a.ndim == 1:
        return wrong(None, own("wrong"))
    return partial(own("wrong"), a, expected, labels(prefix, len(expected)), max(tolerance, ROUNDED))


def no_tolerance(ev: LearnerEvidence) -> float:
    """A head judge's tolerance unless it names one: exactly right."""
    return 0.0


@dataclass(frozen=True)
class HeadJudge:
    """A judge of a stage of a head run: the mistake library first (it knows answers of other shapes too),
    then the shape (a wrong one is refused with the exercise's "form_hint", filled by ``form_hint(expected)``),
    then what is left. ``asked(ev)`` says what is asked of which run; ``tolerance(ev)`` how far off is still right."""

    asked: Callable[[LearnerEvidence], Asked]
    form_hint: Callable[[np.ndarray], dict]
    prefix: str
    tolerance: Callable[[LearnerEvidence], float] = no_tolerance
    rows_sum_to_one: bool = False

    def instance(self, ev: LearnerEvidence) -> Asked:
        """What the library's slips are made on: the asked run, with the runs of the variants the learner has seen."""
        return dataclasses.replace(self.asked(ev), seen=tuple(self.asked(seen).run for seen in ev.seen))

    def __call__(self, a, expected, ev):
        found = diagnose(a, expected, HEAD_MISTAKES, self.instance(ev), self.tolerance(ev), exact)
        if found:
            return found
        if a.shape != expected.shape:
            raise AnswerFormatError(own("form_hint", **self.form_hint(expected)))
        return what_is_left(a, expected, self.prefix, self.tolerance(ev), self.rows_sum_to_one)


def review_judge(mistakes, labels_of, tolerance: float = BY_HAND, rows_sum_to_one: bool = True) -> Callable:
    """A judge of a review exercise: its own mistakes first, then the shape (its "form_hint"), then the row sums
    and rows."""
    def judge(a, expected, ev):
        found = diagnose(a, expected, mistakes, ev, tolerance, exact)
        if found:
            return found
        if a.shape != expected.shape:
            raise AnswerFormatError(own("form_hint", size=matrix_size(expected)))
        if rows_sum_to_one and row_sums_off(a, tolerance):
            return row_sum_mistake(a, 2)
        return partial(own("wrong"), a, expected, labels_of(expected), tolerance)
    return judge


def query_rows(expected: np.ndarray) -> tuple[str, ...]:
    """The answer's rows named by their queries: q_0, q_1, …"""
    return labels("q", len(expected))


def query_key_scores(values: dict[str, np.ndarray]) -> np.ndarray:
    """The raw scores QKᵀ, from the Q and K an answer cell passes."""
    return values["Q"][0] @ values["K"][0].T


def written_out(q: np.ndarray, k: np.ndarray) -> str:
    """A dot product term by term, left for the learner to add up: 0·(−1) + 3·2, 0.5·(−1.5) + 1·2 (halves with one
    decimal)."""
    def signed(x: float) -> str:
        text = trimmed(abs(x), 1)
        return f"(−{text})" if x < 0 else text
    return " + ".join(f"{signed(a)}·{signed(b)}" for a, b in zip(q, k))


def worked_facts(ev: LearnerEvidence) -> dict[str, str]:
    head, weights = ev.worked.head, ev.worked.weights
    q, k = ev.worked.query[0], ev.worked.key[0]
    return {"scaled_row": vector(head.scaled_scores.data[0, 0]), "row_sum": num(weights[0, 0].sum()),
            "q0k0": written_out(q[0], k[0]), "q0k1": written_out(q[0], k[1]),
            "row_sums": vector(weights[0].sum(axis=1)), "column_sums": vector(weights[0].sum(axis=0)),
            "column_total": num(weights[0].sum()),
            "future_weight": num(weights[0, 0, 1])}


def worked_prompt_fields(ev: LearnerEvidence) -> dict[str, str]:
    """Q, K, V and A (to three decimals) of the worked example, or of a fresh variant of it, for the prompt of a
    variant."""
    run = ev.worked
    return {"query": matrix(run.query[0], 1), "key": matrix(run.key[0], 1), "value": matrix(run.value[0], 1),
            "weights": matrix(run.weights[0], 3), "key_width": str(run.head.key_width)}


def hand_fields(ev: LearnerEvidence) -> dict[str, str]:
    hand = ev.hand
    tokens, value_width = hand.value.shape[1:]
    return {"hand_query": matrix(hand.query[0], 0), "hand_key": matrix(hand.key[0], 0),
            "hand_value": matrix(hand.value[0], 0), "key_width": str(hand.head.key_width),
            "root": num(np.sqrt(hand.head.key_width), 0), "size": f"{tokens}×{tokens}",
            "layout": layout(tokens, tokens), "value_size": f"{tokens}×{value_width}",
            "value_layout": layout(tokens, value_width)}

