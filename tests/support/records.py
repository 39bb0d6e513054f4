"""Attempts written into a store directly, as a check records them, for tests that need a history; and read back."""

from llm_from_scratch.book.progress import Store, add_attempt


def record(store: Store, chapter: str, exercise_id: str, correct: bool, variant: int = 0) -> None:
    """Record one attempt made today: one locked read-modify-write of ``store``, as a check does."""
    store.transact(lambda data: add_attempt(data, chapter, exercise_id, correct, variant))


def results(store: Store, chapter: str, own: bool = False) -> dict[str, list[bool]]:
    """Whether each attempt at each exercise of ``chapter`` was right: those on the exercise's values, or
    (``own``) those on the learner's own."""
    return {i: [a["correct"] for a in record["attempts"] if a.get("own", False) == own]
            for i, record in store.records(chapter).items()}
