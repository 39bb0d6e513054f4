"""Present: what the learner reads, in their language: a verdict as ``Feedback``, an exercise's title, options and
status, a store's notices. It reads no store and judges nothing: the values it says come in."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .declare import Exercise, say
from .feedback import Feedback
from .formatting import matrix
from .progress import StoreNotice
from .text import Catalogue
from .verdicts import Judgement, Own, Unread, as_array, own


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
        said = [self.strings.text("feedback.computed")] if computed else []
        said += [self.strings.text("feedback.confident_miss")] if confident_miss else []
        note = " ".join([*said, *(self.notice(notice) for notice in notices)])
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
        right. A form opens with it, so an answer given before a restart is not lost from view."""
        tried = [a for a in records.get(exercise.id, {}).get("attempts", []) if a["variant"] == variant]
        if not tried:
            return ""
        key = "status.right" if any(a["correct"] for a in tried) else "status.tried"
        return self.strings.text(key, attempts=len(tried))

    @staticmethod
    def values(values: Mapping[str, object]) -> str:
        """Values an answer cell passes, written out (a batch axis of one dropped)."""
        arrays = {name: as_array(value) for name, value in values.items()}
        return "; ".join(f"{name} = {matrix(a[0] if a.ndim == 3 and len(a) == 1 else a)}" for name, a in arrays.items())
