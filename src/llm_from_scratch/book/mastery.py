"""Skills and their mastery, from the attempts a progress store keeps.

Each exercise serves one or more named skills. An instance of an exercise counts for its
skills when its first attempt was right and no hint on it came before: the only instance of
an exercise that has no variants, a fresh variant (n ≥ 1) of one that has them (variant 0's
answer sits in the notebook's fold), and a code exercise once, whichever variant. A skill is
mastered by two such instances (two questions, or two variants of one); a skill served by a
single question without variants, or by a single code exercise, by that one. An attempt judged on the
learner's own values (a cell above changed) counts for nothing here: it is kept, and told apart.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .progress import attempts_of

REQUIRED = 2  # instances right at the first attempt, without hints, that master a skill


@dataclass(frozen=True)
class Served:
    """What mastery needs to know of an exercise."""

    id: str
    skills: tuple[str, ...]
    varied: bool  # it has fresh variants
    code: bool


@dataclass(frozen=True)
class SkillMastery:
    skill: str
    attempts: int  # on the exercises' values
    own: int  # on the learner's own values, a cell above changed
    first_right: int  # instances that count: right at the first attempt, without hints
    hints: int
    required: int
    mastered: bool


def _counting(exercise: Served, record: Mapping) -> int:
    """How many of the exercise's instances count for its skills."""
    first: dict[int, bool] = {}
    for attempt in attempts_of(record):
        if attempt.own:  # on the learner's own values: never the first attempt at the exercise's
            continue
        first.setdefault(attempt.variant, attempt.correct and not attempt.hinted and not attempt.computed)
    counted = [variant for variant, good in first.items() if good and (exercise.code or not exercise.varied
                                                                       or variant >= 1)]
    return min(len(counted), 1) if exercise.code or not exercise.varied else len(counted)


def _required(serving: list[Served]) -> int:
    single = len(serving) == 1 and (serving[0].code or not serving[0].varied)
    return 1 if single else REQUIRED


def mastery(exercises: Iterable[Served], records: Mapping[str, Mapping]) -> dict[str, SkillMastery]:
    """Each skill (in the order the exercises first name it): attempts, instances that count, hints, mastered."""
    by_skill: dict[str, list[Served]] = {}
    for exercise in exercises:
        for skill in exercise.skills:
            by_skill.setdefault(skill, []).append(exercise)
    result = {}
    for skill, serving in by_skill.items():
        held = [(e, records[e.id]) for e in serving if e.id in records]
        tried = [attempt for _, r in held for attempt in attempts_of(r)]
        attempts, own = sum(not a.own for a in tried), sum(a.own for a in tried)
        hints = sum(sum(r["hints"].values()) for _, r in held)
        counted = sum(_counting(e, r) for e, r in held)
        required = _required(serving)
        result[skill] = SkillMastery(skill, attempts, own, counted, hints, required, counted >= required)
    return result
