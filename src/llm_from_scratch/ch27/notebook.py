"""Everything a notebook of chapter 27 uses, in one place: each notebook opens with one import from here.

``ev`` is the kernel's evidence (``evidence.evidence()``): each fact is computed when a cell
first asks for it. ``show`` and ``show_folded`` display sections and figures; ``exercise``
shows an exercise's form (on a variant, too), ``challenge`` a task on the vector plane and
``review`` 10's practice; ``check``, ``check_code``, ``hint``, ``reveal``, ``variant`` and
``mastery`` answer in code.
"""

from inspect import getsource

from ..book import display
from ..book.text import set_language
from ..engine import SelfAttentionError, scaled_dot_product_self_attention
from . import sections
from .appendix import BlockSizeExplorer, cost_table, doubling_table, measure_heads, measurement_figure
from .code_exercises import buggy_head
from .evidence import evidence
from .exercises import check, check_code, hint, mastery, progress, reveal, variant
from .figures import as_shown, head_figure
from .plane import VectorPlane
from .sections import render_trace
from .widgets import HeadEditor, ScaleExplorer, WidthExplorer, challenge, exercise, review

ev = evidence()


def show(*parts) -> None:
    """Display sections, figures, and tensors or arrays as heatmaps, each followed by its role if it has one:
    ``show(A, "weights")``, ``show(Q.grad, "grad-query")`` (the roles: ``figures.ROLES``)."""
    display.show(*as_shown(parts))


def show_folded(*parts) -> None:
    """``show``, folded in a closed box until the learner opens it: an answer after its question."""
    display.show_folded(*as_shown(parts))


def show_source(function) -> None:
    """Print a function's source, as the engine holds it."""
    print(getsource(function))


__all__ = ["BlockSizeExplorer", "HeadEditor", "ScaleExplorer", "SelfAttentionError", "VectorPlane", "WidthExplorer",
           "buggy_head",
           "challenge", "check", "check_code", "cost_table", "doubling_table", "ev", "exercise", "head_figure", "hint",
           "mastery", "measure_heads", "measurement_figure", "progress", "render_trace", "reveal", "review",
           "scaled_dot_product_self_attention", "sections", "set_language", "show", "show_folded", "show_source",
           "variant"]
