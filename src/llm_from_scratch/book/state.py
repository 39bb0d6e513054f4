"""What the book keeps for the life of a kernel, in one object: ``STATE``.

The language chosen (``text.set_language``), the progress stores this process has opened (``progress.store``),
the latest form that shows each exercise (``widgets.ExerciseForm``) and the compositions of slips already searched
on an instance (``mistakes.named``). Nothing else in the package keeps state between calls; ``STATE.clear()``
starts it all over, as a fresh kernel would (tests do, before each test).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class BookState:
    language: str = ""  # "" until set_language: the book's first language
    stores: dict[Any, Any] = field(default_factory=dict)  # path -> progress.Store
    forms: dict[tuple[str, str], Any] = field(default_factory=dict)  # (chapter, exercise id) -> its latest form
    named: dict[tuple, Any] = field(default_factory=dict)  # an instance's key -> mistakes.Named

    def clear(self) -> None:
        """Forget everything kept, in place (modules that hold ``STATE`` see the fresh state)."""
        fresh = BookState()
        self.language, self.stores, self.forms, self.named = fresh.language, fresh.stores, fresh.forms, fresh.named


STATE = BookState()
