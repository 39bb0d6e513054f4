"""Reading a learner's answer: parsed, never evaluated, and never failing but with AnswerFormatError.

Numbers may come as a number, a (nested) list or tuple, a numpy array, or text
such as "[4, 7, 5]", "4 7 5", "(0; -1)" or "[0,5; 0,5]". Length, count and nesting
are bounded before anything is parsed, so any value is read (or refused) at once.
A refusal is an AnswerFormatError whose sentence, in the learner's language, says
what form is expected.

A decimal comma is read where it cannot be a separator: in a lone number ("0,5"
is 0.5) and where the numbers are already set apart by ";" or spaces ("0,5 0,5",
"[0,014, 0,986]"). Otherwise a comma separates numbers ("[0,5]" is [0, 5]).
"""

from __future__ import annotations

import numbers
import re

import numpy as np

from .text import text

LARGEST_PLAUSIBLE = 1e6
MAX_TEXT = 10_000  # characters of a typed answer (a 4,301-digit number still gets its own message)
MAX_NUMBERS = 1_000  # numbers in one answer
MAX_DEPTH = 4  # levels of brackets or nested lists

_ALLOWED_TEXT = re.compile(r"[\s\d.,;eE+\-\[\]()]*")
_LONE_DECIMAL = re.compile(r"[-+]?\d+,\d+")
_SET_APART = re.compile(r";|(?<=[\d.]),?\s+(?=[-+\d.])")  # a semicolon, or numbers apart by spaces
_DECIMAL_COMMA = re.compile(r"(?<=\d),(?=\d)")
_TOKEN = re.compile(r"\s*(?:(?P<number>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)|(?P<open>[\[(])|(?P<close>[\])])"
                    r"|(?P<separator>[,;]))\s*")


class AnswerFormatError(ValueError):
    """The answer could not be read as the expected form; the message says why."""


def _refuse(key: str, form: str, **fields: object) -> AnswerFormatError:
    return AnswerFormatError(text(key, form=form, **fields))


def _number_token(token: str, form: str) -> float:
    value = float(token)  # a decimal string too large for float64 becomes inf
    if value in (float("inf"), float("-inf")):
        raise _refuse("answer.beyond_float64", form)
    return value


def _from_text(answer: str, form: str) -> list:
    """The numbers of a typed answer (a plain str) as nested lists (the outer list holds what was typed)."""
    if len(answer) > MAX_TEXT:
        raise _refuse("answer.too_long", form, limit=MAX_TEXT)
    cleaned = str.strip(answer).replace("−", "-").replace("–", "-")
    if not cleaned:
        raise _refuse("answer.blank", form)
    if not _ALLOWED_TEXT.fullmatch(cleaned):
        raise _refuse("answer.words", form)
    if _LONE_DECIMAL.fullmatch(cleaned) or _SET_APART.search(cleaned):
        cleaned = _DECIMAL_COMMA.sub(".", cleaned)
    stack: list[list] = [[]]
    previous, position, count = "open", 0, 0
    while position < len(cleaned):
        match = _TOKEN.match(cleaned, position)
        kind = match.lastgroup if match else None
        if kind is None or (kind == "separator" and previous in ("open", "separator")) or (
                kind == "close" and (previous == "separator" or len(stack) == 1)):
            raise _refuse("answer.malformed", form)
        if kind == "open":
            if len(stack) > MAX_DEPTH:
                raise _refuse("answer.too_deep", form, limit=MAX_DEPTH)
            stack[-1].append([])
            stack.append(stack[-1][-1])
        elif kind == "close":
            stack.pop()
        elif kind == "number":
            count += 1
            if count > MAX_NUMBERS:
                raise _refuse("answer.too_many", form, limit=MAX_NUMBERS)
            stack[-1].append(_number_token(match.group("number"), form))
        previous, position = kind, match.end()
    if len(stack) > 1 or previous == "separator":
        raise _refuse("answer.malformed", form)
    typed = stack[0]
    return typed[0] if len(typed) == 1 and isinstance(typed[0], list) else typed


def _from_value(answer: object, form: str) -> object:
    """A Python value as nested lists of floats, walked within the bounds."""
    count = 0

    def walk(value: object, depth: int) -> object:
        nonlocal count
        if isinstance(value, np.ndarray):
            if value.ndim + depth > MAX_DEPTH:
                raise _refuse("answer.too_deep", form, limit=MAX_DEPTH)
            if value.size + count > MAX_NUMBERS:
                raise _refuse("answer.too_many", form, limit=MAX_NUMBERS)
            if value.dtype.kind not in "iufO":
                raise _refuse("answer.not_numbers", form)
            value = value.tolist()
        if isinstance(value, (list, tuple)):
            if depth == MAX_DEPTH:
                raise _refuse("answer.too_deep", form, limit=MAX_DEPTH)
            count += len(value)
            if count > MAX_NUMBERS:
                raise _refuse("answer.too_many", form, limit=MAX_NUMBERS)
            return [walk(item, depth + 1) for item in value]
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise _refuse("answer.not_numbers", form)
        try:
            return float(value)
        except OverflowError:
            raise _refuse("answer.beyond_float64", form) from None

    return walk(answer, 0)


def _flat(value: object) -> list[object]:
    if isinstance(value, list):
        return [item for part in value for item in _flat(part)]
    return [value]


def read_numbers(answer: object, form: str, flatten: bool = False) -> np.ndarray:
    """The answer as a float array, or AnswerFormatError naming the expected ``form``.

    With ``flatten`` nested parts of different lengths, such as [1, [5, -2]], are read in order.
    """
    if answer is None or answer is Ellipsis:
        raise _refuse("answer.missing", form)
    try:
        nested = _from_text(str.__str__(answer), form) if isinstance(answer, str) else _from_value(answer, form)
        array = np.array(_flat(nested) if flatten else nested, dtype=np.float64)
    except AnswerFormatError:
        raise
    except Exception:  # ragged lists, or a value whose own methods fail: not numbers either way
        raise _refuse("answer.not_numbers", form) from None
    if array.size == 0:
        raise _refuse("answer.blank", form)
    if not np.isfinite(array).all():
        raise _refuse("answer.non_finite", form)
    if np.abs(array).max() > LARGEST_PLAUSIBLE:
        raise _refuse("answer.too_large", form)
    return array


def read_choice(answer: object, options: tuple[str, ...]) -> str:
    """One option letter (Latin a-d, or Cyrillic а-г and the look-alike с, any case), or AnswerFormatError."""
    letters = ", ".join(options)
    if answer is None or answer is Ellipsis:
        raise AnswerFormatError(text("answer.choice_missing", letters=letters))
    try:
        typed = str.__str__(answer) if isinstance(answer, str) else None
    except Exception:  # a value whose own methods fail is not a letter either
        typed = None
    if typed is None or len(typed) > 20:
        raise AnswerFormatError(text("answer.choice_form", letters=letters))
    letter = typed.strip().lower().strip(").").translate(str.maketrans("абвгс", "abcdc"))
    if not letter:
        raise AnswerFormatError(text("answer.choice_missing", letters=letters))
    if letter not in options:
        raise AnswerFormatError(text("answer.choice_form", letters=letters))
    return letter
