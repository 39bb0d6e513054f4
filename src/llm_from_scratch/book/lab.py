"""What a chapter's notebooks call for its exercises, bound to its book in one place: the chapter declares its
exercises (``book.declare``) and lists them in an ``ExerciseBook``; ``Lab(book)`` serves them.

``check`` judges an answer given in a code cell and ``check_code`` a function the learner wrote (both show the
feedback in the exercise's form too, and never raise for any answer); ``exercise`` shows a form, ``challenge`` a
task on a widget (its prediction's form, then its move's); ``review`` is the practice of spaced review
(``book.review``); ``hint``, ``reveal``, ``variant``, ``mastery``, ``progress`` and ``reset_progress`` answer in
code. The tests call the very functions the notebooks do.
"""

from __future__ import annotations

from html import escape

from IPython.display import HTML, display

from .clock import today
from .exercises import ExerciseBook
from .feedback import Feedback, Hint, Solution
from .mastery import SkillMastery
from .progress import store
from .review import Session
from .summary import Progress
from .widgets import ExerciseForm, NotDrawn, lang_div, shown_in_form

# what a review form cannot ask, by kind: it needs its notebook's cells (a choice: a prediction a move on the plane
# follows)
GO_BACK = {"state": "review.go_back_state", "choice": "review.go_back_state", "code": "review.go_back_code",
           "numbers": "review.go_back_numbers"}
HOW_ASKED = {"variant": "review.as_variant", "itself": "review.as_itself"}


def _said(*parts: str) -> None:
    display(HTML(lang_div(f"<p>{' '.join(parts)}</p>")))


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
        self._show_due(session, snapshot)
        self._show_practice(session, snapshot)

    def _show_due(self, session: Session, snapshot: dict) -> None:
        book, text = self.book, self.book.strings.text
        if not session.due:
            later = session.later
            next_day = (text("review.next", day=later[0].day.isoformat(),
                             count=sum(i.day == later[0].day for i in later)) if later
                        else text("review.none_scheduled"))
            _said(f"<strong>{escape(text('review.nothing_due'))}</strong>", escape(next_day))
            return
        _said(f"<strong>{escape(text('review.due', count=len(session.due)))}</strong>")
        for n, asked in enumerate(session.due, start=1):
            due = book[asked.due.exercise_id]
            head = text("review.item", n=n, count=len(session.due), skill=text(due.skills[0]), title=book.title(due.id))
            head += text("review.item_confident") if asked.due.confident else ""
            if asked.way == "go_back":
                how = text(GO_BACK[due.kind], notebook=due.notebook[:2])
            elif asked.way == "sibling":
                how = text("review.as_sibling", sibling=book.title(asked.asks))
            else:
                how = text(HOW_ASKED[asked.way])
            _said(f"<strong>{escape(head)}</strong>", escape(how))
            if asked.way != "go_back":
                review_of = due.id if asked.way == "sibling" else ""
                ExerciseForm(book, asked.asks, asked.variant, review_of=review_of, snapshot=snapshot).show(snapshot)

    def _show_practice(self, session: Session, snapshot: dict) -> None:
        book, text = self.book, self.book.strings.text
        if not session.practice:
            if session.all_mastered:
                _said(f"<strong>{escape(text('review.all_mastered'))}</strong>")
            return
        _said(f"<strong>{escape(text('review.practice'))}</strong>")
        for practice in session.practice:
            m = practice.mastery
            skill = text("review.skill", skill=text(m.skill), first_right=m.first_right, required=m.required)
            said = f"<strong>{escape(skill)}</strong>"
            if practice.above:
                _said(said, escape(text("review.above", title=book.title(practice.asks))))
            elif practice.asks is None:
                titles = ", ".join(text("review.title", title=book.title(e.id))
                                   for e in book.exercises.values() if m.skill in e.skills)
                _said(said, escape(text("review.return_to", titles=titles)))
            else:
                _said(said, escape(text("review.fresh")))
                ExerciseForm(book, practice.asks, practice.variant, snapshot=snapshot).show(snapshot)  # no cell below

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
