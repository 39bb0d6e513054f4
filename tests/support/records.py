"""Attempts written into a store directly, as a check records them, for tests that need a history."""

from llm_from_scratch.book.progress import Store, add_attempt


def record(store: Store, chapter: str, exercise_id: str, correct: bool, variant: int = 0) -> None:
    """Record one attempt made today: one locked read-modify-write of ``store``, as a check does."""
    store.transact(lambda data: add_attempt(data, chapter, exercise_id, correct, variant))
