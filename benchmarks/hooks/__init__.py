"""What each chapter offers the benchmarks, one module per chapter package (``ch27.py``): ``controls(moves)``,
its explorers' controls for bench_widgets.py, and ``enter_forms()``, the forms whose one Enter bench_enter.py
counts. They live here, not in the package a learner installs."""

from __future__ import annotations

import importlib
import pathlib
from types import ModuleType

from llm_from_scratch.book.chapters import Chapter


def hooks_of(chapter: Chapter) -> ModuleType | None:
    """The chapter's benchmark hooks, or None where it has none."""
    name = chapter.package.rsplit(".", 1)[1]
    if not (pathlib.Path(__file__).with_name(f"{name}.py")).exists():
        return None
    return importlib.import_module(f"{__name__}.{name}")
