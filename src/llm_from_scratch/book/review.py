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

What a session asks (``ReviewPolicy.session``) is a pure function of the book's exercises and one snapshot of their
records: each due exercise on a fresh variant, as a sibling of its first skill that a form asks alone, as itself, or
pointed back to its notebook; then practice, a fresh variant for each skill not yet mastered and not reviewed today.
A chapter declares its exercises; the policy is the book's, the same for every chapter.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass
from datetime import date, timedelta

from .declare import Exercise
from .mastery import Served, SkillMastery, mastery
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


def attempted(records: Mapping[str, Mapping], exercise_id: str, variant: int | None = None) -> bool:
    """Whether the records hold an attempt at the exercise: on any variant, or on ``variant``."""
    tried = records.get(exercise_id, {}).get("attempts", [])
    return any(variant is None or a["variant"] == variant for a in tried)


@dataclass(frozen=True)
class ReviewItem:
    """A due exercise as a session asks it: the exercise its form asks (itself, or a sibling in its place) on
    ``variant`` (0 where it has none), and ``way``: "variant", "sibling", "itself", or "go_back" where no form
    can ask it (it needs its notebook's cells)."""

    due: Due
    asks: str
    variant: int
    way: str


@dataclass(frozen=True)
class Practice:
    """A skill to practise: its mastery, and the exercise with fresh variants that serves it (None: none does),
    on ``variant``; ``above`` when that exercise is asked above already, in this session."""

    mastery: SkillMastery
    asks: str | None
    variant: int
    above: bool


@dataclass(frozen=True)
class Session:
    """One review: what is due today, as asked, what is due later, and the practice after it."""

    due: tuple[ReviewItem, ...]
    later: tuple[Due, ...]
    practice: tuple[Practice, ...]
    all_mastered: bool


class ReviewPolicy:
    """What review asks of a chapter's exercises, from one snapshot of their records (``records``: each
    exercise's attempts and hints); ``notebook`` is the stem of the notebook whose practice review is: a question
    of its own is offered only once attempted, before that its prompt would stand above the prose that
    introduces it."""

    def __init__(self, exercises: Sequence[Exercise], notebook: str) -> None:
        self.exercises = {e.id: e for e in exercises}
        self.notebook = notebook
        self.served = tuple(Served(e.id, e.skills, bool(e.varies), e.kind == "code") for e in exercises)

    def queue(self, records: Mapping[str, Mapping], now: date) -> tuple[list[Due], list[Due]]:
        """What is due ``now`` (or earlier), interleaved for one session, and what is due later, by day."""
        items = queue(self.served, records)
        first_skill = {e.id: (*e.skills, "")[0] for e in self.exercises.values()}
        return (interleaved([i for i in items if i.day <= now], first_skill),
                sorted((i for i in items if i.day > now), key=lambda i: i.day))

    def next_variant(self, exercise_id: str, records: Mapping[str, Mapping]) -> int:
        """The variant (n ≥ 1) to practise on next: the family's newest one while this exercise has not been tried
        on it (so the second example's three steps follow one example), else a variant no exercise has seen."""
        family = self.exercises[exercise_id].varies
        tried = [a["variant"] for e in self.exercises.values() if family and e.varies == family
                 for a in records.get(e.id, {}).get("attempts", [])]
        newest = max(tried, default=0)
        return newest if newest and not attempted(records, exercise_id, newest) else newest + 1

    def _may_ask(self, exercise: Exercise, records: Mapping[str, Mapping]) -> bool:
        """Whether review may ask ``exercise``: not one of the review's own notebook before it was attempted."""
        return exercise.notebook != self.notebook or attempted(records, exercise.id)

    def asked_alone(self, exercise: Exercise) -> bool:
        """Whether a review form can ask ``exercise`` as it is: it has fresh variants, whose inputs its prompt shows,
        or it is a choice no move on the plane follows; a numbers question without variants reads its notebook's
        cells."""
        followed = any(e.after == exercise.id for e in self.exercises.values())
        return ((bool(exercise.varies) and exercise.kind in ("numbers", "choice"))
                or (exercise.kind == "choice" and not followed))

    def stand_in(self, exercise_id: str, records: Mapping[str, Mapping], taken: Set[str] = frozenset()) -> str:
        """What review asks for a due exercise: itself where it has fresh variants (or cannot be asked here at
        all); else a sibling of its first skill that a form asks alone and that is not ``taken`` (asked on the page
        already), one with fresh variants first, then a choice not yet attempted; else itself."""
        due = self.exercises[exercise_id]
        if due.varies or due.kind in ("state", "code"):
            return exercise_id
        siblings = [e for e in self.exercises.values() if e.id != exercise_id and due.skills[:1] == e.skills[:1]
                    and e.id not in taken and self.asked_alone(e) and self._may_ask(e, records)]
        fresh = [e for e in siblings if e.varies] or [e for e in siblings if not attempted(records, e.id)]
        return fresh[0].id if fresh else exercise_id

    def practice_for(self, skills: Sequence[str], records: Mapping[str, Mapping],
                     taken: set[str] = frozenset()) -> dict[str, str | None]:
        """For each skill, an exercise with fresh variants that serves it (a numbers one, each offered once where
        it can be, none of ``taken`` while another serves), or None when it has none."""
        offered: dict[str, str | None] = {}
        for skill in skills:
            serving = [e.id for e in self.exercises.values()
                       if skill in e.skills and e.varies and e.kind == "numbers" and self._may_ask(e, records)]
            fresh = [i for i in serving if i not in offered.values() and i not in taken]
            offered[skill] = (fresh or serving or [None])[0]
        return offered

    def _fresh(self, exercise_id: str, records: Mapping[str, Mapping], drawn: dict[str, set[int]]) -> int:
        """The variant a page asks ``exercise_id`` on: its next one, or the first after it that no other form on the
        page shows (``drawn``: each family's variants on the page), so no item's prompt holds another's answer."""
        family = self.exercises[exercise_id].varies
        variant = self.next_variant(exercise_id, records)
        while variant in drawn.setdefault(family, set()):
            variant += 1
        drawn[family].add(variant)
        return variant

    def session(self, records: Mapping[str, Mapping], now: date) -> Session:
        """Today's review: each due exercise as it is asked, every question once and every form on an example of
        its own, then a fresh variant for each skill not yet mastered and not reviewed today, none of the
        exercises asked above while another serves."""
        due_now, later = self.queue(records, now)
        asked = {item.exercise_id for item in due_now if self.exercises[item.exercise_id].varies}  # as themselves
        drawn: dict[str, set[int]] = {}
        items = []
        for item in due_now:
            due = self.exercises[item.exercise_id]
            instead = self.stand_in(due.id, records, asked - {due.id})
            if instead == due.id and not self.asked_alone(due):
                items.append(ReviewItem(item, due.id, 0, "go_back"))
                continue
            asked.add(instead)
            variant = self._fresh(instead, records, drawn) if self.exercises[instead].varies else 0
            way = "sibling" if instead != due.id else "variant" if due.varies else "itself"
            items.append(ReviewItem(item, instead, variant, way))
        skills = mastery(self.served, records).values()
        reviewed = {self.exercises[item.exercise_id].skills[0] for item in due_now}
        waiting = [m for m in skills if not m.mastered and m.skill not in reviewed]
        practice = []
        for m, exercise_id in zip(waiting, self.practice_for([m.skill for m in waiting], records, asked).values()):
            fresh = exercise_id is not None and exercise_id not in asked
            practice.append(Practice(m, exercise_id, self._fresh(exercise_id, records, drawn) if fresh else 0,
                                     exercise_id in asked))
            asked |= {exercise_id} if fresh else set()
        return Session(tuple(items), tuple(later), tuple(practice), all(m.mastered for m in skills))
