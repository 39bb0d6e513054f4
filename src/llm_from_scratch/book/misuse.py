"""What is wrong with a call from a notebook, said in the learner's language instead of a traceback: no such
exercise (the nearest id named), a variant that is no whole number ≥ 0 or of an exercise without variants, a
confidence that is no level, values given by keyword that the exercise does not read or that are no numbers."""

from __future__ import annotations

import difflib
from collections.abc import Mapping

import numpy as np

from .declare import Exercise
from .draw import Examples
from .progress import SURE_LEVELS
from .text import Catalogue
from .verdicts import as_array


class Misuse:
    """The checks of a call to a chapter's exercises (``exercises`` by id)."""

    def __init__(self, exercises: Mapping[str, Exercise], examples: Examples, strings: Catalogue) -> None:
        self.exercises = exercises
        self.examples = examples
        self.strings = strings

    def unknown(self, exercise_id: object) -> str:
        """That there is no such exercise, with the nearest id if one is near."""
        known = ", ".join(self.exercises)
        near = difflib.get_close_matches(str(exercise_id), list(self.exercises), n=1)
        if near:
            return self.strings.text("exercise.unknown_near", id=exercise_id, near=near[0], known=known)
        return self.strings.text("exercise.unknown", id=exercise_id, known=known)

    def of(self, exercise_id: object, variant: object = 0) -> str:
        """What is wrong with asking for ``exercise_id`` on ``variant``; "" when nothing is."""
        if not isinstance(exercise_id, str) or exercise_id not in self.exercises:
            return self.unknown(exercise_id)
        return self.examples.refusal(self.exercises[exercise_id], variant)

    def of_check(self, exercise_id: object, variant: object, sure: object, review_of: object,
                 values: Mapping[str, object]) -> str:
        """What is wrong with a check's call: the exercise and its variant, the values given, the confidence, and
        the exercise it is asked in place of; "" when nothing is."""
        return (self.of(exercise_id, variant) or self.given(self.exercises[exercise_id], variant, values)
                or self.sure(sure) or (self.of(review_of) if review_of else ""))

    def sure(self, sure: object) -> str:
        """What is wrong with a confidence that is not one of SURE_LEVELS (nor None)."""
        if sure is None or (isinstance(sure, (int, np.integer)) and not isinstance(sure, bool)
                            and int(sure) in SURE_LEVELS):
            return ""
        return self.strings.text("sure.invalid", sure=repr(sure))

    def given(self, exercise: Exercise, variant: object, values: Mapping[str, object]) -> str:
        """What is wrong with the values given by keyword (names the exercise does not read, values on a variant,
        which has inputs of its own, or values that are not numbers); "" if nothing."""
        if not values:
            return ""
        names = exercise.given.names if exercise.given else ()
        given = ", ".join(sorted(values))
        if set(values) != set(names):
            key = "given.names" if names else "given.none"
            return self.strings.text(key, id=exercise.id, names=", ".join(names), given=given)
        if variant:
            return self.strings.text("given.variant", id=exercise.id, variant=variant)
        ours = exercise.given.chapter(exercise.example(self.examples.evidence()))
        for name, value in values.items():
            try:
                numbers = as_array(value)
                if np.isnan(numbers).any() or (numbers == np.inf).any():  # −∞ is a masked score: a value like others
                    raise ValueError
            except (TypeError, ValueError):
                return self.strings.text("given.not_numbers", name=name)
            if as_array(value).ndim != ours[name].ndim:
                return self.strings.text("given.rank", name=name, rank=ours[name].ndim)
        return ""
