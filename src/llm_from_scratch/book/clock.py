"""The day, as spaced review counts days: a calendar date in the kernel's local time, read through ``today``.

``LLM_FROM_SCRATCH_TODAY`` (an ISO date, 2026-01-05) pins it: the test plugin and ``make notebooks`` set it, so
the stored notebooks' outputs do not change with the date they are run on.
"""

from __future__ import annotations

import os
from datetime import date

TODAY_ENV = "LLM_FROM_SCRATCH_TODAY"
PINNED = "2026-01-05"  # the day of the stored notebooks and of the tests that set no day of their own


def today() -> date:
    """Today in the kernel's local time, or the day ``$LLM_FROM_SCRATCH_TODAY`` pins."""
    pinned = os.environ.get(TODAY_ENV)
    return date.fromisoformat(pinned) if pinned else date.today()
