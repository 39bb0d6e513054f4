"""What a chapter's notebooks call for its exercises, bound to its book in one place: the chapter declares its
exercises (``book.declare``) and lists them in an ``ExerciseBook``; ``Lab(book)`` serves them.

``check`` judges an answer given in a code cell and ``check_code`` a function the learner wrote (both show the
feedback in the exercise's form too, and never raise for any answer); ``exercise`` shows a form, ``challenge`` a
task on a widget (its prediction's form, then its move's); ``review`` is the practice of spaced review
(``book.review``); ``hint``, ``reveal``, ``variant``, ``mastery``, ``progress`` and ``reset_progress`` answer in
code. The tests call the very functions the notebooks do.
"""

from __future__ import annotations

from .clock import today
from .exercises import ExerciseBook
from .feedback import Feedback, Hint, Solution
from .mastery import SkillMastery
from .progress import store
from .summary import Progress
from .widgets import ExerciseForm, NotDrawn, ReviewPage, shown_in_form


class Lab:
    """A chapter's exercises as its notebooks use them."""

    def __init__(self, book: ExerciseBook) -> None:
        self.book = book

    def check(self, exercise_id: str, answer: object, variant: int = 0, sure: int | None = None,
              **values: object) -> Feedback:
        """Judge an answer given in a code cell (said with how ``sure``, 1 to 3, if at all), on the ``values`` it
        was computed from, passed by keyword; the exercise's form shows the feedback too."""
        return shown_in_form(self.book.chapter, self.book.check(exercise_id, answer, variant, sure, **values), variant)

    def check_code(self, exercise_id: str, function: object, variant: int = 0, sure: int | None = None) -> Feedback:
        """Judge the learner's function for a code exercise; the exercise's form shows the feedback too."""
        return shown_in_form(self.book.chapter, self.book.check_code(exercise_id, function, variant, sure), variant)

    def exercise(self, exercise_id: str, variant: int = 0, **values: object) -> None:
        """Show the exercise's prompt (static) and its answer form (live), on ``variant``; the form judges on
        ``values``, as its answer cell below it does (the prompt says that cell takes an answer too)."""
        ExerciseForm(self.book, exercise_id, variant, values=values, answer_cell_below=True).show()

    def challenge(self, name: str, source: object) -> None:
        """A challenge on a widget: its prediction's form, then its move's, which judges ``source`` as it stands
        (the move's check waits for the prediction). A widget that could not be drawn says so instead."""
        if isinstance(source, NotDrawn):
            source.show()
            return
        ExerciseForm(self.book, f"{name}-prediction").show()
        ExerciseForm(self.book, name, source=source).show()

    def review(self) -> None:
        """A review session (``ReviewPolicy.session``) from one read of the store: the exercises due today, each asked
        on a fresh variant, as a sibling of its skill, or as itself (one that needs its notebook is pointed back to
        it); or that nothing is due, and when something next is. Then practice for the skills not yet mastered."""
        snapshot = store().snapshot()
        if snapshot["learner"] is None:  # a fresh store: the learner whose variants the forms show is made now
            snapshot["learner"] = store().learner()
        session = self.book.review.session(self.book.records(snapshot), today())
        ReviewPage(self.book, self.book.present.session(session, self.book.exercises), snapshot).show()

    def hint(self, exercise_id: str, variant: int = 0) -> Hint:
        """The next, smaller step towards the answer, after an attempt."""
        return self.book.hint(exercise_id, variant)

    def reveal(self, exercise_id: str, variant: int = 0) -> Solution:
        """The answer, computed now, with its explanation, after an attempt."""
        return self.book.reveal(exercise_id, variant)

    def variant(self, exercise_id: str, n: int) -> dict[str, object]:
        """The inputs of variant ``n`` of an exercise."""
        return self.book.variant(exercise_id, n)

    def mastery(self) -> dict[str, SkillMastery]:
        """Each skill of the chapter and whether it is mastered."""
        return self.book.mastery()

    def progress(self) -> Progress:
        """What was checked in any notebook or kernel, and which skills are mastered."""
        return self.book.progress()

    def reset_progress(self) -> Progress:
        """Start the chapter over: forget every recorded attempt at its exercises, in every kernel."""
        return self.book.reset_progress()
