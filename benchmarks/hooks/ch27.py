"""Chapter 27's benchmark hooks: its explorers' controls, two exercise forms and three flows (see ``hooks``)."""

from __future__ import annotations

import contextlib
import datetime
import io
import os
from collections.abc import Callable

import ipywidgets as w
import numpy as np

from llm_from_scratch.book.clock import PINNED, TODAY_ENV
from llm_from_scratch.book.formatting import trimmed
from llm_from_scratch.book.widgets import ExerciseForm
from llm_from_scratch.ch27.evidence import evidence
from llm_from_scratch.ch27.exercises import EXERCISE_BOOK
from llm_from_scratch.ch27.notebook import check, check_code, review
from llm_from_scratch.ch27.variants import VARIANTS
from llm_from_scratch.ch27.widgets import KEY_WIDTHS, HeadEditor, ScaleExplorer, WidthExplorer


def controls(moves: int) -> dict[str, tuple[w.DOMWidget, list, float]]:
    """Each explorer's control, ``moves`` values to give it, and its latency target in ms (for the benchmark)."""
    scale, width, editor = ScaleExplorer(), WidthExplorer(), HeadEditor()
    return {
        "scale": (scale.slider, [round(0.1 * (i % 20) + 0.05, 2) for i in range(moves)], 100),
        "d_k": (width.slider, [KEY_WIDTHS[i % len(KEY_WIDTHS)] for i in range(1, moves + 1)], 100),
        "Q/K/V": (editor.fields[("Q", 0, 0)], [trimmed(0.25 * i) for i in range(1, moves + 1)], 100),
    }


def enter_forms() -> list[tuple[str, Callable[[], ExerciseForm], str]]:
    """Forms whose one Enter the benchmark counts: an exercise, how to make its form, and an answer to submit."""
    return [("scores", lambda: ExerciseForm(EXERCISE_BOOK, "scores"), "[[3, 3], [-1, 4]]"),
            ("permutation", lambda: ExerciseForm(EXERCISE_BOOK, "permutation"), "b")]


def head_divided_by_dk(q, k, v):
    """A learner's head that divides the scores by d_k, not by its root."""
    scores = q @ k.swapaxes(1, 2) / q.shape[-1]
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True) @ v


def quietly(run: Callable[..., object], *args: object) -> Callable[[], None]:
    """``run(*args)`` with what it displays (printed, outside a kernel) thrown away."""
    def silenced() -> None:
        with contextlib.redirect_stdout(io.StringIO()):
            run(*args)
    return silenced


def _typed_in_a_form() -> Callable[[], None]:
    form = ExerciseForm(EXERCISE_BOOK, "scores")
    form.answer.submit("[[3, 3], [-1, 4]]")  # a warm kernel: the store is made, the example computed
    return lambda: form.answer.submit("[[3, 3], [-1, 4]]")


def _code_checked() -> Callable[[], None]:
    quietly(check_code, "write-head", head_divided_by_dk)()
    return quietly(check_code, "write-head", head_divided_by_dk)


def _review_of_four() -> Callable[[], None]:
    """Four misses of two skills on the pinned day, then review the next day, from cleared caches."""
    os.environ[TODAY_ENV] = PINNED
    for exercise_id, answer in (("row-normalization", "a"), ("bug-hunt", "a"), ("why-root-dk", "b"),
                                ("head-width", [1, 1])):
        quietly(check, exercise_id, answer)()
    os.environ[TODAY_ENV] = (datetime.date.fromisoformat(PINNED) + datetime.timedelta(1)).isoformat()
    evidence.cache_clear()
    VARIANTS.clear()
    return quietly(review)


def flows() -> list[tuple[str, Callable[[], Callable[[], None]]]]:
    """The flows bench_paths.py follows: a name, and what prepares one (it returns the run to follow)."""
    return [("an answer typed in a form", _typed_in_a_form), ("check_code of write-head", _code_checked),
            ("review() with four items due", _review_of_four)]
