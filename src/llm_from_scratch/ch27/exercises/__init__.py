"""Chapter 27's predict-then-check exercises, each declared once; the machinery is ``book.exercises``.

The functions the notebooks call are ``LAB``'s (``book.lab``), bound here once: ``check(exercise_id, answer)``
returns Feedback (``.correct``, ``.message``, ``.misconception``) and never raises for any answer;
``check_code(exercise_id, fn)`` judges a function the learner wrote; ``exercise``, ``challenge`` and ``review``
show forms; ``hint(exercise_id)`` gives the next, smaller step after an attempt; ``reveal(exercise_id)`` shows
the answer, computed now, only after an attempt; ``progress()`` says what was checked in any notebook or kernel,
and ``reset_progress()`` starts the chapter over.

Each notebook's exercises are declared in the module named for it (``predict`` for 01_predict …, ``review`` for
10_exercises), in the order the notebook asks them; the second example's, ``*-by-hand``, are worked with a pencil
at the end of 03. Each is one block: its id and kind, the notebook that asks it, the example it is asked on, its
expected answer (a function of the evidence), its judge with the misconceptions it names, and its facts. Its
strings are data, in ``catalogues/<language>/<notebook>.toml`` (keys derived from the id; a judge names its
exercise's own strings with ``own``). ``judging`` holds what several notebooks' judges share, ``code`` how a
function the learner writes is judged.
"""

from __future__ import annotations

import numpy as np

from ...book.exercises import ExerciseBook
from ...book.lab import Lab
from ..evidence import evidence
from ..given import answer_source, cells_differ
from ..strings import STRINGS
from ..variants import VARIANTS
from . import (
    gradients,
    head_from_primitives,
    history,
    next_steps,
    predict,
    review,
    scaling,
    scores_softmax_mixture,
    shapes,
)

IN_READING_ORDER = (predict, scores_softmax_mixture, shapes, scaling, history, head_from_primitives, gradients,
                    next_steps, review)
# in reading order, the code exercises last (the review lists what it offers in this order)
DECLARED = sorted((e for module in IN_READING_ORDER for e in module.EXERCISES), key=lambda e: e.kind == "code")
EXERCISE_BOOK = ExerciseBook("ch27", tuple(DECLARED), STRINGS, evidence, VARIANTS, review_notebook="10_exercises",
                             read_from=answer_source, cells_differ=cells_differ)
EXERCISES = EXERCISE_BOOK.exercises  # by id, each with its strings' names from the catalogue
NOTEBOOKS = EXERCISE_BOOK.notebooks  # which notebook asks which exercise (tests/test_exercises.py reads the notebooks)
LAB = Lab(EXERCISE_BOOK)
check = LAB.check
check_code = LAB.check_code
exercise = LAB.exercise
challenge = LAB.challenge
review = LAB.review
hint = LAB.hint
reveal = LAB.reveal
variant = LAB.variant
mastery = LAB.mastery
progress = LAB.progress
reset_progress = LAB.reset_progress


def holds_answer(exercise_id: str, values: list[object]) -> bool:
    """Whether ``values`` (the Tensors or arrays a fold is about to show) hold the judge's answer on the chapter's
    inputs: the first of them, or its first row where the question asks for one row (a batch axis of one
    dropped), or the first few read in order where the answer joins several (a weight and an output)."""
    expected = np.asarray(EXERCISE_BOOK[exercise_id].expected(evidence()), dtype=np.float64)
    arrays = [np.asarray(getattr(value, "data", value), dtype=np.float64) for value in values]
    first = arrays[0]
    while first.ndim > expected.ndim:
        first = first[0]
    joined, size = [], 0
    for array in arrays:  # the first arrays that together hold as many numbers as the answer
        if size < expected.size:
            joined.append(array.ravel())
            size += array.size
    candidates = [first] + ([np.concatenate(joined).reshape(expected.shape)] if size == expected.size else [])
    return any(found.shape == expected.shape and bool(np.allclose(found, expected, rtol=0.0, atol=1e-12))
               for found in candidates)
