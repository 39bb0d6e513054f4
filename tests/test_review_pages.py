"""A review page asks each question once, each form on an example of its own, and no prompt on it holds another
item's answer: rendered for many learners, each with a history of its own over many days."""

import datetime
import itertools
import re

import numpy as np
import pytest
from support import tiered

from llm_from_scratch.book.clock import PINNED
from llm_from_scratch.book.progress import Learner
from llm_from_scratch.book.text import set_language
from llm_from_scratch.ch27.exercises import EXERCISE_BOOK
from llm_from_scratch.ch27.variants import VARIANTS

DAY0 = datetime.date.fromisoformat(PINNED)
DAYS = 40
ASKED_IN_FORMS = [e.id for e in EXERCISE_BOOK.exercises.values() if e.kind in ("numbers", "choice")]
NUMBER = re.compile(r"[−-]?\d+(?:\.\d+)?")
PRECISION = 2  # what a numbers question asks: two decimals (``book.tolerances.BY_HAND``), the finest of them


def history(learner: int) -> list[tuple[datetime.date, str, bool, int]]:
    """A learner's attempts, day by day: a few exercises a day, right or wrong at random, on the notebook's example
    or on one of the first variants."""
    rng = np.random.default_rng(learner)
    made = []
    for day in range(DAYS):
        for exercise_id in rng.choice(ASKED_IN_FORMS, size=int(rng.integers(0, 6)), replace=False):
            varies = EXERCISE_BOOK[str(exercise_id)].varies
            made.append((DAY0 + datetime.timedelta(day), str(exercise_id), bool(rng.random() < 0.5),
                         int(rng.integers(0, 4)) if varies else 0))
    return made


def records_until(made, day: datetime.date) -> dict[str, dict]:
    records: dict[str, dict] = {}
    for on, exercise_id, correct, variant in made:
        if on <= day:
            record = records.setdefault(exercise_id, {"attempts": [], "hints": {}})
            record["attempts"].append({"variant": variant, "correct": correct, "hinted": False,
                                       "day": on.isoformat()})
    return records


def page(records, day):
    """The forms a review page shows on ``day``: (exercise, variant) in order."""
    session = EXERCISE_BOOK.review.session(records, day)
    return ([(item.asks, item.variant) for item in session.due if item.way != "go_back"]
            + [(p.asks, p.variant) for p in session.practice if p.asks is not None and not p.above])


def printed(text: str) -> list[np.ndarray]:
    """The arrays a prompt prints, each bracketed matrix and each of its rows, to PRECISION."""
    groups = re.findall(r"\[\[.*?\]\]|\[[^\[\]]*\]", text)
    arrays = []
    for group in groups:
        rows = [[float(n.replace("−", "-")) for n in NUMBER.findall(row)] for row in re.findall(r"\[[^\[\]]*\]", group)]
        if rows and all(len(row) == len(rows[0]) > 0 for row in rows):
            arrays += [np.round(np.array(rows), PRECISION), *np.round(np.array(rows), PRECISION)]
    return arrays


def holds(shown: list[np.ndarray], answer: np.ndarray) -> bool:
    """Whether a printed array is the answer to PRECISION: a row in any order (a pair swapped is the same answer),
    a matrix as it stands."""
    answer = np.round(answer, PRECISION)
    if answer.ndim == 1:
        return any(a.ndim == 1 and np.array_equal(np.sort(a), np.sort(answer)) for a in shown)
    return any(np.array_equal(a, answer) for a in shown)


def inputs_of(exercise_id: str, variant: int, snapshot) -> tuple:
    ev = EXERCISE_BOOK.drawn(exercise_id, variant, snapshot)
    given = VARIANTS.inputs(EXERCISE_BOOK[exercise_id].varies, ev) if variant else {"notebook": exercise_id}
    return tuple(sorted((k, np.asarray(v).tobytes(), np.shape(v)) for k, v in given.items()))


@pytest.mark.parametrize("learner", tiered(list(range(40)), {0, 1, 2}))
def test_no_review_page_asks_a_question_twice_or_shows_one_items_answer_in_anothers_prompt(learner):
    set_language("en")
    made = history(learner)
    snapshot_of = {"learner": Learner(f"page-learner-{learner}"), "chapters": {}}
    pages = 0
    for day in sorted({on for on, *_ in made})[::3]:
        records = records_until(made, day)
        snapshot = {**snapshot_of, "chapters": {"ch27": records}}
        forms = page(records, day)
        asked = [exercise_id for exercise_id, _ in forms]
        assert len(asked) == len(set(asked)), f"{day}: a question twice on one page: {asked}"
        examples = [inputs_of(*form, snapshot) for form in forms if form[1]]
        assert len(examples) == len(set(examples)), f"{day}: two forms on one example: {forms}"
        prompts = {form: printed(EXERCISE_BOOK.prompt(*form, snapshot)) for form in forms}
        for (shows, shown), (answered, own) in itertools.permutations(prompts.items(), 2):
            exercise = EXERCISE_BOOK[answered[0]]
            if exercise.kind != "numbers":
                continue
            answer = np.asarray(exercise.expected(EXERCISE_BOOK.drawn(*answered, snapshot)), dtype=np.float64)
            # whole numbers occur everywhere and say nothing; an answer its own prompt prints (Ā = Vᵀ) neither
            if not np.allclose(answer, np.round(answer)) and not holds(own, answer):
                assert not holds(shown, answer), f"{day}: {shows}'s prompt holds the answer of {answered}"
        pages += len(forms) > 1
    assert pages, "the history made pages of more than one form"
