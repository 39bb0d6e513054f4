"""Record: an answer's verdict kept in the store, with one read and one write, and the verdict judged once.

``recorded`` reads a snapshot of the store (under its lock), has the answer judged on what the verdict reads of it
(``judge.StoreRead``) with no lock held, then records the attempt in one locked read-modify-write if what the
verdict read is still so; if another kernel changed it meanwhile, the answer is judged again on the store as it is
then. An answer that could not be read (``Unread``) is no attempt and writes nothing.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass

from .clock import today
from .progress import Store, add_attempt, attempts_of
from .review import SURE
from .verdicts import Judgement, Unread


@dataclass(frozen=True)
class Entry:
    """An attempt's entry in the store, its verdict aside: the exercise, the variant, and what the attempt says
    (computed by the engine, how sure the learner said they were, in place of which exercise it was asked in
    review)."""

    chapter: str
    exercise_id: str
    variant: int
    computed: bool = False
    sure: int | None = None
    review_of: str = ""


def recorded(lasting: Store, entry: Entry, read_of: Callable[[dict], object],
             judged: Callable[[object], Judgement | Unread]) -> tuple[Judgement | Unread, dict]:
    """The verdict on the answer of ``entry`` (``judged(read)``, where ``read_of(store data)`` is what it reads of
    the store), recorded, and the snapshot of the store it was judged on."""
    snapshot = lasting.snapshot()
    while True:
        read = read_of(snapshot)
        verdict = judged(read)
        if not isinstance(verdict, Judgement):
            return verdict, snapshot
        changed = lasting.transact(_recording(entry, verdict, read, snapshot, read_of))
        if changed is None:
            return verdict, snapshot
        snapshot = changed


def _recording(entry: Entry, verdict: Judgement, read: object, snapshot: dict,
               read_of: Callable[[dict], object]) -> Callable[[dict], dict | None]:
    """The change that records ``verdict`` in the store as it is under the lock: None once recorded; the store as it
    is, unchanged, when what the verdict read has changed meanwhile."""
    def record(data: dict) -> dict | None:
        if data["learner"] is None:
            data["learner"] = snapshot["learner"]  # the learner the verdict was made for (if it needed one)
        if read_of(data) != read:
            return copy.deepcopy(data)
        add_attempt(data, entry.chapter, entry.exercise_id, verdict.correct, entry.variant, entry.computed,
                    verdict.own, entry.sure, entry.review_of)
        return None

    return record


def missed_sure_today(records: dict, exercise_id: str) -> bool:
    """Whether ``records`` (the store before this attempt) hold a confident miss of the exercise made today."""
    record = records.get(exercise_id, {"attempts": [], "hints": {}})
    return any(a.sure == SURE and not a.correct and not a.own and a.day == today() for a in attempts_of(record))
