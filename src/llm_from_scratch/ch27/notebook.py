"""Everything a notebook of chapter 27 uses, in one place: each notebook opens with one import from here.

A notebook computes its numbers in its own cells, with the engine (``Tensor``,
``scaled_dot_product_self_attention``), or takes them from a widget. ``show`` and ``show_folded`` display
sections, figures, and tensors or arrays in a role; ``exercise``
shows an exercise's form (on a variant, too), ``challenge`` a task on the vector plane and
``review`` 10's practice (all four from ``exercises.LAB``); ``check``, ``check_code``, ``hint``, ``reveal``,
``variant``, ``mastery``, ``progress`` and ``reset_progress`` answer in code.
"""

from inspect import getsource

import numpy as np

from ..book import display
from ..book.blocks import Section
from ..book.figures import Figure
from ..book.text import set_language
from ..engine import SelfAttentionError, Tensor, scaled_dot_product_self_attention
from . import sections
from .appendix import BlockSizeExplorer, cost_table, doubling_table, measure_heads, measurement_figure
from .evidence import attention_history, evidence
from .examples import invalid_inputs
from .exercises import (
    EXERCISE_BOOK,
    challenge,
    check,
    check_code,
    exercise,
    hint,
    holds_answer,
    mastery,
    progress,
    reset_progress,
    reveal,
    review,
    variant,
)
from .exercises.shapes import buggy_head
from .figures import as_shown
from .given import fold_difference
from .plane import VectorPlane
from .sections import render_trace
from .widgets import HeadEditor, ScaleExplorer, WidthExplorer


def show(*parts) -> None:
    """Display sections, figures, and tensors or arrays as heatmaps, each followed by its role if it has one:
    ``show(A, "weights")``, ``show(Q.grad, "grad-query")`` (the roles: ``figures.ROLES``)."""
    display.show(*as_shown(parts))


def show_folded(*parts, answers: str = "", shape: tuple[int, ...] | None = None) -> None:
    """``show``, folded in a closed box until the learner opens it: an answer after its question; a figure to a box
    (one output holds one SVG), sections in the last. It draws what the cells computed; where a fold that
    ``answers`` an exercise does not hold the chapter's answer (``exercises.holds_answer``: a cell above changed),
    a line under it says so and names the difference, read back from its first tensor's graph; a fold whose
    answer is a ``shape`` says which shape the cell's tensors gave instead."""
    if shape is not None:
        display.show_folded(*as_shown(parts))
        if answers and not holds_answer(answers, [np.array(shape)]):
            exercise = EXERCISE_BOOK[answers]
            display.show_note(EXERCISE_BOOK.present.said(exercise, "fold.own_shape", {
                "title": EXERCISE_BOOK.title(answers), "shape": list(shape)}))
        return
    shown = as_shown(parts)
    figures = [part for part in shown if isinstance(part, Figure)]
    boxes = [[figure] for figure in figures] or [[]]
    boxes[-1] += [part for part in shown if not isinstance(part, Figure)]
    for box in boxes:
        display.show_folded(*box)
    values = [part for part in parts if not isinstance(part, (str, Section, Figure))]
    if answers and not holds_answer(answers, values):
        display.show_note(fold_note(parts, answers))


def fold_note(parts: tuple, answers: str) -> str:
    """What a fold of other numbers than the chapter's answer to ``answers`` says under it: that they are the
    cells', and how the first of its tensors that differs came about (``given.fold_difference``)."""
    shown = [(part, parts[i + 1] if i + 1 < len(parts) and isinstance(parts[i + 1], str) else "")
             for i, part in enumerate(parts) if not isinstance(part, (str, Section, Figure))]
    exercise = EXERCISE_BOOK[answers]
    difference = fold_difference(shown, exercise.example(evidence()))
    return EXERCISE_BOOK.present.said(exercise, "fold.own_values", {"title": EXERCISE_BOOK.title(answers),
                                                            "difference": difference})


def show_source(function) -> None:
    """Print a function's source, as the engine holds it."""
    print(getsource(function))


__all__ = ["BlockSizeExplorer", "attention_history", "HeadEditor", "ScaleExplorer", "SelfAttentionError", "Tensor",
           "VectorPlane", "WidthExplorer", "buggy_head", "challenge", "check", "check_code", "cost_table",
           "doubling_table", "exercise", "hint", "invalid_inputs", "mastery",
           "measure_heads", "measurement_figure", "progress", "render_trace", "reset_progress", "reveal", "review",
           "scaled_dot_product_self_attention", "sections", "set_language", "show", "show_folded",
           "show_source", "variant"]
