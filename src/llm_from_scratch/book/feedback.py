"""What the learner reads after ``check``, ``reveal`` and ``hint``: each a text and its HTML, in the chosen
language."""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape

from .text import language

CODE = re.compile(r"`([^`\n]+)`")  # a piece of the learner's code a message quotes


@dataclass(frozen=True)
class Feedback:
    exercise_id: str
    correct: bool
    message: str
    misconception: str | None = None
    readable: bool = True  # False: the answer could not be read at all
    verdict_word: str = ""
    note: str = ""  # what the learner must know about the progress store, if anything
    pending: bool = False  # no answer given yet (a cell still holding its ...): a prompt, not a verdict

    def __repr__(self) -> str:
        said = self.message if self.pending else f"{self.verdict_word} {self.message}"
        return said + (f"\n{self.note}" if self.note else "")

    def _repr_html_(self) -> str:
        mark = "" if self.pending else f"<strong>{'✔' if self.correct else '✘'} {escape(self.verdict_word)}</strong> "
        line = "dotted" if self.pending else "solid" if self.correct else "dashed"
        note = f"<p><em>{escape(self.note)}</em></p>" if self.note else ""
        return (f'<div role="status" lang="{language()}" style="border-left:4px {line} #000;padding:4px 8px;'
                f'white-space:pre-line">{mark}{_with_code(self.message)}{note}</div>')


def _with_code(message: str) -> str:
    """The message escaped, its line breaks kept (the box's white-space), a `quoted` piece of code set as code."""
    return CODE.sub(r"<code>\1</code>", escape(message))


@dataclass(frozen=True)
class Solution:
    exercise_id: str
    shown: bool
    message: str

    def __repr__(self) -> str:
        return self.message

    def _repr_html_(self) -> str:
        return (f'<div role="status" lang="{language()}" style="border-left:4px double #000;padding:4px 8px;'
                f'white-space:pre-wrap">'
                f"{escape(self.message)}</div>")


@dataclass(frozen=True)
class Hint:
    exercise_id: str
    step: int  # 0 while hints are locked
    steps: int
    message: str

    def __repr__(self) -> str:
        return self.message

    def _repr_html_(self) -> str:
        return (f'<div role="status" lang="{language()}" style="border-left:4px dotted #000;padding:4px 8px">'
                f"{escape(self.message)}</div>")
