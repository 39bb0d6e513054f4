"""Present: what the learner reads, in their language: a verdict as ``Feedback``, an exercise's title, options and
status, a store's notices, a review session's lines and the forms it asks. It reads no store and judges nothing:
the values it says come in."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .declare import Exercise, say
from .feedback import Feedback
from .formatting import matrix
from .progress import StoreNotice
from .review import ReviewItem, Session
from .text import Catalogue
from .verdicts import Judgement, Own, Unread, as_array, own

# what a review form cannot ask, by kind: it needs its notebook's cells (a choice: a prediction a move on the plane
# follows)
GO_BACK = {"state": "review.go_back_state", "choice": "review.go_back_state", "code": "review.go_back_code",
           "numbers": "review.go_back_numbers"}
HOW_ASKED = {"variant": "review.as_variant", "itself": "review.as_itself"}


@dataclass(frozen=True)
class Line:
    """A line of a review session: ``strong`` in bold, then ``rest`` (None: nothing after it)."""

    strong: str
    rest: str | None = None


@dataclass(frozen=True)
class Asks:
    """A form a review session shows: the exercise on ``variant``; ``review_of`` the due one it stands in for."""

    exercise_id: str
    variant: int
    review_of: str = ""


class Presenter:
    """The chapter's words for its exercises (``strings``, its catalogue over the book's)."""

    def __init__(self, strings: Catalogue) -> None:
        self.strings = strings

    def said(self, exercise: Exercise, key: str | Own, fields: Mapping[str, object] | None = None,
             lang: str | None = None) -> str:
        """``declare.say`` in the chapter's catalogue."""
        return say(self.strings, exercise, key, fields, lang)

    def feedback(self, exercise: Exercise, verdict: Judgement | Unread, computed: bool = False,
                 notices: Sequence[StoreNotice] = (), confident_miss: bool = False) -> Feedback:
        """What the learner reads of ``verdict``: its message, the verdict's word, what they must know of the store
        and, after the day's first confident miss of the exercise, that it comes back."""
        wrong_word = self.strings.text("feedback.wrong")
        if isinstance(verdict, Unread):
            return Feedback(exercise.id, False, verdict.message, readable=False, verdict_word=wrong_word,
                            pending=verdict.pending)
        engine = self.strings.text("feedback.engine_code") if exercise.kind == "code" else self.strings.text(
            "feedback.computed")
        said = [engine] if computed else []
        said += [self.strings.text("feedback.confident_miss")] if confident_miss else []
        aside = [self.strings.text(verdict.aside.key, **verdict.aside.fields)] if verdict.aside else []
        note = " ".join([*aside, *said, *(self.notice(notice) for notice in notices)])
        return Feedback(exercise.id, verdict.correct, self.said(exercise, verdict.key, verdict.fields),
                        verdict.misconception, verdict_word=self.strings.text(
                            "feedback.correct") if verdict.correct else wrong_word, note=note)

    def notice(self, notice: StoreNotice) -> str:
        return self.strings.text(notice.key, **notice.fields)

    def title(self, exercise: Exercise) -> str:
        return self.strings.text(exercise.title)

    def options(self, exercise: Exercise) -> tuple[tuple[str, str], ...]:
        """A choice's options: each letter and what it says."""
        return tuple((letter, self.said(exercise, own(letter))) for letter in exercise.options)

    def status(self, exercise: Exercise, variant: int, records: Mapping[str, Mapping]) -> str:
        """What ``records`` say of the exercise on ``variant`` ("" if never tried): attempts, and whether one was
        right (attempts on the learner's own values are kept apart, as their feedback says). A form opens with it, so
        an answer given before a restart is not lost from view."""
        tried = [a for a in records.get(exercise.id, {}).get("attempts", [])
                 if a["variant"] == variant and not a.get("own")]
        if not tried:
            return ""
        key = "status.right" if any(a["correct"] for a in tried) else "status.tried"
        return self.strings.text(key, attempts=len(tried))

    @staticmethod
    def values(values: Mapping[str, object]) -> str:
        """Values an answer cell passes, written out (a batch axis of one dropped)."""
        arrays = {name: as_array(value) for name, value in values.items()}
        return "; ".join(f"{name} = {matrix(a[0] if a.ndim == 3 and len(a) == 1 else a)}" for name, a in arrays.items())

    def session(self, session: Session, exercises: Mapping[str, Exercise]) -> list[Line | Asks]:
        """A review session as the learner reads it, in order: what is due (or when something next is), each item
        with how it is asked and its form, then the practice for the skills not yet mastered."""
        return self._due(session, exercises) + self._practice(session, exercises)

    def _due(self, session: Session, exercises: Mapping[str, Exercise]) -> list[Line | Asks]:
        text = self.strings.text
        if not session.due:
            later = session.later
            next_day = (text("review.next", day=later[0].day.isoformat(),
                             count=sum(i.day == later[0].day for i in later)) if later
                        else text("review.none_scheduled"))
            return [Line(text("review.nothing_due"), next_day)]
        shown: list[Line | Asks] = [Line(text("review.due", count=len(session.due)))]
        for n, asked in enumerate(session.due, start=1):
            due = exercises[asked.due.exercise_id]
            head = text("review.item", n=n, count=len(session.due), skill=text(due.skills[0]), title=self.title(due))
            head += text("review.item_confident") if asked.due.confident else ""
            shown.append(Line(head, self._how_asked(asked, due, exercises)))
            if asked.way != "go_back":
                shown.append(Asks(asked.asks, asked.variant, due.id if asked.way == "sibling" else ""))
        return shown

    def _how_asked(self, asked: ReviewItem, due: Exercise, exercises: Mapping[str, Exercise]) -> str:
        if asked.way == "go_back":
            return self.strings.text(GO_BACK[due.kind], notebook=due.notebook[:2])
        if asked.way == "sibling":
            return self.strings.text("review.as_sibling", sibling=self.title(exercises[asked.asks]))
        return self.strings.text(HOW_ASKED[asked.way])

    def _practice(self, session: Session, exercises: Mapping[str, Exercise]) -> list[Line | Asks]:
        text = self.strings.text
        if not session.practice:
            return [Line(text("review.all_mastered"))] if session.all_mastered else []
        shown: list[Line | Asks] = [Line(text("review.practice"))]
        for practice in session.practice:
            m = practice.mastery
            skill = text("review.skill", skill=text(m.skill), first_right=m.first_right, required=m.required)
            if practice.above:
                shown.append(Line(skill, text("review.above", title=self.title(exercises[practice.asks]))))
            elif practice.asks is None:
                titles = ", ".join(text("review.title", title=self.title(e))
                                   for e in exercises.values() if m.skill in e.skills)
                shown.append(Line(skill, text("review.return_to", titles=titles)))
            else:
                shown += [Line(skill, text("review.fresh")), Asks(practice.asks, practice.variant)]
        return shown
