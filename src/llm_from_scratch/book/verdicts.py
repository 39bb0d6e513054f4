"""What a judge works with and returns: an exercise's own strings (``own``), a phrase said inside another,
the ``Judgement`` (``right``, ``wrong``, ``partial``), an answer that could not be read (``Unread``), the values an
answer cell passes (``Given``), and the comparisons every chapter's judges use."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..engine import Tensor
from .tolerances import ROUNDED, TYPED


@dataclass(frozen=True)
class Own:
    """A string of the exercise being judged, by its field: ``own("wrong")`` is ``ex.<id>.wrong`` of whichever
    exercise the judge judges, so no judge writes a key out; ``fields`` fill it in (a field's value may be an
    ``Own`` too)."""

    field: str
    fields: Mapping[str, object] = field(default_factory=dict)


def own(name: str, **fields: object) -> Own:
    return Own(name, fields)


@dataclass(frozen=True)
class Phrase:
    """A catalogue string said inside another one (a field's value): each slip of a composition, say."""

    key: str
    fields: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Judgement:
    """A judge's verdict: the message is the catalogue string ``key`` (or the exercise's ``Own`` string) filled
    with ``fields``."""

    correct: bool
    key: str | Own
    misconception: str | None = None
    fields: Mapping[str, object] = field(default_factory=dict)
    own: bool = False  # judged on the learner's own values (``Given``), not on the exercise's
    aside: Phrase | None = None  # said after the message: that it is about the example, not the cells' changed values


def right(key: str | Own = "feedback.right", **fields: object) -> Judgement:
    return Judgement(True, key, None, fields)


def wrong(misconception: str | None, key: str | Own, **fields: object) -> Judgement:
    return Judgement(False, key, misconception, fields)


@dataclass(frozen=True)
class Unread:
    """An answer that could not be read (or may not be judged yet): what to tell the learner, in their language."""

    message: str
    pending: bool = False  # no answer given yet: a prompt, not a verdict


@dataclass(frozen=True)
class Given:
    """The values an answer cell passes to ``check`` by keyword, by the names the cell uses (``S=S``): what the
    answer is computed from. ``chapter(example)`` gives them on the exercise's own example (the evidence's
    attribute its ``example`` names), ``answer(values)`` the right answer for any values (arrays), right within
    ``tolerance``, and ``differs(values, evidence, example)`` names, as a ``Phrase``, how values that are not the
    exercise's came about (which stage of the learner's cells differs), reading their graph."""

    names: tuple[str, ...]
    chapter: Callable[[Any], Mapping[str, np.ndarray]]
    answer: Callable[[Mapping[str, np.ndarray]], np.ndarray]
    differs: Callable[[Mapping[str, object], Any, Any], Phrase]
    tolerance: float = ROUNDED


def as_array(value: object) -> np.ndarray:
    """A given value's numbers (a Tensor's data)."""
    return np.asarray(value.data if isinstance(value, Tensor) else value, dtype=np.float64)


def same(a: np.ndarray, b: np.ndarray, tolerance: float | np.ndarray = TYPED) -> bool:
    return a.shape == b.shape and bool(np.allclose(a, b, atol=tolerance, rtol=0))


def rows_swapped(answer: np.ndarray, expected: np.ndarray) -> bool:
    return len(expected) > 1 and not same(expected, expected[::-1]) and same(answer, expected[::-1])


def partial(wrong_key: str, answer: np.ndarray, expected: np.ndarray, labels: tuple[str, ...],
            tolerance: float | np.ndarray = TYPED) -> Judgement:
    """Name the rows (``labels``) that are right and those that are not; none right: the message ``wrong_key``."""
    correct = [i for i in range(len(expected)) if same(answer[i], expected[i], tolerance)]
    if correct:
        return wrong(None, "feedback.partial", right=", ".join(labels[i] for i in correct),
                     wrong=", ".join(labels[i] for i in range(len(expected)) if i not in correct))
    return wrong(None, wrong_key)
