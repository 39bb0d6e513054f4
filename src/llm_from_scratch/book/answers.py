"""Reading a learner's answer: parsed, never evaluated.

Numbers may come as a number, a (nested) list or tuple, a numpy array, or text
such as "[4, 7, 5]", "4 7 5" or "(0; -1)". Anything else raises AnswerFormatError
with a Russian sentence saying what form is expected.
"""

from __future__ import annotations

import json
import re

import numpy as np

from .text import text

LARGEST_PLAUSIBLE = 1e6
_SPACE_BETWEEN_NUMBERS = re.compile(r"(?<=[\d.])\s+(?=[-+\d.])")
_ALLOWED_TEXT = re.compile(r"^[\s\d.,;eE+\-\[\]()]*$")


class AnswerFormatError(ValueError):
    """The answer could not be read as the expected form; the message says why."""


def _from_text(answer: str, form: str) -> object:
    cleaned = answer.strip().replace("−", "-").replace("–", "-")
    if not cleaned:
        raise AnswerFormatError(text("answer.blank", form=form))
    if not _ALLOWED_TEXT.match(cleaned):
        raise AnswerFormatError(text("answer.words", form=form))
    cleaned = cleaned.replace("(", "[").replace(")", "]").replace(";", ",")
    cleaned = _SPACE_BETWEEN_NUMBERS.sub(",", cleaned)
    if not cleaned.startswith("["):
        cleaned = f"[{cleaned}]"
    try:
        return json.loads(cleaned)
    except json.JSONDecodeError:
        raise AnswerFormatError(text("answer.malformed", form=form)) from None


def _flat(value: object) -> list[object]:
    if isinstance(value, (list, tuple, np.ndarray)):
        return [item for part in value for item in _flat(part)]
    return [value]


def read_numbers(answer: object, form: str, flatten: bool = False) -> np.ndarray:
    """The answer as a float array, or AnswerFormatError naming the expected ``form``.

    With ``flatten`` nested parts of different lengths, such as [1, [5, -2]], are read in order.
    """
    if answer is None or answer is Ellipsis:
        raise AnswerFormatError(text("answer.missing", form=form))
    if isinstance(answer, str):
        answer = _from_text(answer, form)
    if flatten:
        answer = _flat(answer)
    if isinstance(answer, (bool, np.bool_, dict)) or (isinstance(answer, list) and any(
            isinstance(x, (bool, np.bool_)) for x in _flat(answer))):
        raise AnswerFormatError(text("answer.not_numbers", form=form))
    try:
        array = np.array(answer, dtype=np.float64)
    except (ValueError, TypeError):
        raise AnswerFormatError(text("answer.not_numbers", form=form)) from None
    if array.size == 0:
        raise AnswerFormatError(text("answer.blank", form=form))
    if not np.isfinite(array).all():
        raise AnswerFormatError(text("answer.non_finite", form=form))
    if np.abs(array).max() > LARGEST_PLAUSIBLE:
        raise AnswerFormatError(text("answer.too_large", form=form))
    return array


def read_choice(answer: object, options: tuple[str, ...]) -> str:
    """One option letter (Latin a-d, or Cyrillic а-г and the look-alike с, any case), or AnswerFormatError."""
    letters = ", ".join(options)
    if answer is None or answer is Ellipsis:
        raise AnswerFormatError(text("answer.choice_missing", letters=letters))
    if not isinstance(answer, str):
        raise AnswerFormatError(text("answer.choice_form", letters=letters))
    letter = answer.strip().lower().strip(").").translate(str.maketrans("абвгс", "abcdc"))
    if not letter:
        raise AnswerFormatError(text("answer.choice_missing", letters=letters))
    if letter not in options:
        raise AnswerFormatError(text("answer.choice_form", letters=letters))
    return letter
