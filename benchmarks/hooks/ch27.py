"""Chapter 27's benchmark hooks: its explorers' controls and two exercise forms (see ``hooks``)."""

from __future__ import annotations

from collections.abc import Callable

import ipywidgets as w

from llm_from_scratch.book.formatting import trimmed
from llm_from_scratch.book.widgets import ExerciseForm
from llm_from_scratch.ch27.exercises import EXERCISE_BOOK
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
