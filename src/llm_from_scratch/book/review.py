"""Spaced, interleaved review, and calibration, from the attempts a progress store keeps.

Days are calendar dates (``book.clock``). An exercise missed on a day, even if answered right later that day, is
due the next day; answered right when due, it is due again seven days later (day 1, then day 8); answered right
then, it leaves the queue; missed at a review, it starts again from the next day. A right answer the engine
computed (a tensor, not numbers worked out) moves nothing; one after a hint does (a hint on a question without
variants stays with it for good, and would otherwise keep it due for ever). Answers given in review in place of the
exercise (a sibling, ``Attempt.stands_for``) count for it; attempts on the learner's own values are not scheduled.
An attempt of a store older than days is taken as made before any dated one, so its misses are due at once.

A review session mixes skills: no two items of one skill (an exercise counts under its first) follow each other
while another skill has something due, and within a skill confident misses come first.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta

from .mastery import Served
from .progress import SURE_LEVELS, Attempt, attempts_of

INTERVALS = (1, 7)  # days from a miss to its first review, then from that review to the second
SURE = SURE_LEVELS[-1]  # the level at which a miss is a confident one
SAID = {1: "sure.1", 2: "sure.2", 3: "sure.3"}  # each level's catalogue key: how the learner reads it
UNDATED = date.min  # the day of an attempt of a store older than days: before every dated one


@dataclass(frozen=True)
class Due:
    """An exercise in the review queue: the day it is due, which review that is (1 or 2), and whether the miss
    that put it there was a confident one."""

    exercise_id: str
    day: date
    review: int
    confident: bool


def due(exercise_id: str, attempts: Iterable[Attempt]) -> Due | None:
    """When the exercise is due, from its attempts (and those made in its place) in the order they were made;
    None when it is not in the queue."""
    scheduled: Due | None = None
    kept = [a for a in attempts if not a.own]
    for day, on_day in itertools.groupby(kept, key=lambda a: a.day or UNDATED):
        answers = list(on_day)
        missed = [a for a in answers if not a.correct]
        if missed:
            scheduled = Due(exercise_id, day + timedelta(INTERVALS[0]), 1, any(a.sure == SURE for a in missed))
        elif scheduled and day >= scheduled.day and any(a.correct and not a.computed for a in answers):
            later = scheduled.review < len(INTERVALS)
            scheduled = Due(exercise_id, day + timedelta(INTERVALS[1]), 2, False) if later else None
    return scheduled


def scheduled_attempts(exercise_id: str, records: Mapping[str, Mapping]) -> list[Attempt]:
    """The attempts that schedule an exercise: its own and those made in its place, in the order they were made
    (by day; on one day, its own first)."""
    own = attempts_of(records[exercise_id]) if exercise_id in records else []
    instead = [a for record in records.values() for a in attempts_of(record) if a.stands_for == exercise_id]
    return sorted([*own, *instead], key=lambda a: a.day or UNDATED)


def queue(exercises: Iterable[Served], records: Mapping[str, Mapping]) -> list[Due]:
    """Every exercise in the review queue, in the book's order."""
    found = (due(e.id, scheduled_attempts(e.id, records)) for e in exercises)
    return [item for item in found if item is not None]


def interleaved(items: list[Due], first_skill: Mapping[str, str]) -> list[Due]:
    """``items`` ordered for one session: each time, the skill with the most left of those not just served
    (ties: the one met first), its confident misses first, then the earliest due."""
    by_skill: dict[str, list[Due]] = {}
    for item in items:
        by_skill.setdefault(first_skill[item.exercise_id], []).append(item)
    for waiting in by_skill.values():
        waiting.sort(key=lambda item: (not item.confident, item.day))
    order, last = [], None
    while any(by_skill.values()):
        open_skills = [s for s, waiting in by_skill.items() if waiting and s != last] or [last]
        last = max(open_skills, key=lambda s: len(by_skill[s]))
        order.append(by_skill[last].pop(0))
    return order


@dataclass(frozen=True)
class Calibration:
    """For each confidence level: how many answers said it, and how many of those were right."""

    said: dict[int, int]
    right: dict[int, int]

    def share(self, level: int) -> float | None:
        return self.right[level] / self.said[level] if self.said[level] else None


def calibration(attempts: Iterable[Attempt]) -> Calibration:
    """How often the learner was right at each confidence they said (attempts on their own values left out)."""
    rated = [a for a in attempts if a.sure is not None and not a.own]
    return Calibration({level: sum(a.sure == level for a in rated) for level in SURE_LEVELS},
                       {level: sum(a.sure == level and a.correct for a in rated) for level in SURE_LEVELS})
