"""The chapter's examples, their inputs only: what the notebooks write out in their cells, and what the
evidence, the judges and the tests compute from. A test checks that each notebook's inputs cell agrees."""

from __future__ import annotations

import math

import numpy as np

# The worked example's inputs: the projections that chapter 26 produced.
WORKED_QUERY = ((0.0, 3.0), (2.0, -1.0))
WORKED_KEY = ((3.0, 0.0), (-1.0, 2.0))
WORKED_VALUE = ((3.0, -3.0), (1.0, 3.0))

# The second example, for the learner's own hands: d_k = 4, so 1/sqrt(d_k) = 1/2, and the scaled
# scores are 0 and ±1, so every weight needs only e; QK^T is not symmetric.
HAND_QUERY = ((1.0, 1.0, 0.0, 0.0), (0.0, 0.0, 1.0, 1.0), (-1.0, 1.0, 0.0, 0.0))
HAND_KEY = ((1.0, 1.0, 0.0, 0.0), (1.0, -1.0, 1.0, 1.0), (0.0, 0.0, 1.0, 1.0))
HAND_VALUE = ((1.0, 0.0), (0.0, 1.0), (1.0, 1.0))

SCALE_EXAMPLE_SCORES = (1.0, 0.0)
SCALE_EXAMPLE_KEY_WIDTH = 2
# Random q, k with independent components of mean 0 and variance 1 (the assumptions of Vaswani et al.'s
# footnote): the d_k explorer's draws, and the width at which dividing by sqrt(d_k) meets dividing by d_k.
RANDOM_BATCH, RANDOM_TOKENS, RANDOM_SEED = 64, 16, 27
DIVISOR_KEY_WIDTH = 64
SINGLE_TOKEN_VALUE = (5.0, -2.0)

# The review's inputs.
TEMPERATURE_SCORES = (1.0, 3.0, 0.0)
TEMPERATURE_LIMITS = (1e-6, 1e6)  # tau close to 0 and very large
ROW_SHIFT = 10.0
SATURATING_FACTOR = 4.0  # the worked example's Q times 4 makes every row of A one-hot to six decimals
MODEL_WIDTH, HEADS = 512, 8
OUTPUT_SHAPE_INPUTS = ((4, 7, 3), (4, 7, 3), (4, 7, 5))  # the shapes of Q, K and V in the shape question

# Two questions on what one head can do. A head of width d_k = 1 on three tokens whose query is their key:
# q_i k_j is largest at the largest k_j for every q_i > 0, so no such head gives every token its own key's
# largest weight. At d_k = 2, three directions 120° apart (queries equal to keys) do.
WIDTH_ONE_QUERY = ((1.0,), (2.0,), (3.0,))
WIDTH_TWO_QUERY = ((1.0, 0.0), (-0.5, math.sqrt(3) / 2), (-0.5, -math.sqrt(3) / 2))
# A query no key matches: every score of the first query is negative, and its weights still sum to 1.
NO_MATCH_QUERY = ((-2.0, -2.0), (1.0, 0.0), (0.0, 1.0))
NO_MATCH_KEY = ((1.0, 0.0), (0.0, 1.0), (1.0, 1.0))
NO_MATCH_VALUE = ((3.0, -3.0), (1.0, 3.0), (0.0, 2.0))


def worked_arrays() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Q, K, V of the worked example as [1, 2, 2] arrays (fresh copies)."""
    return tuple(np.array([m], dtype=np.float64) for m in (WORKED_QUERY, WORKED_KEY, WORKED_VALUE))


def hand_arrays() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Q, K, V of the second example as [1, 3, 4], [1, 3, 4] and [1, 3, 2] arrays (fresh copies)."""
    return tuple(np.array([m], dtype=np.float64) for m in (HAND_QUERY, HAND_KEY, HAND_VALUE))


# (label, query shape, key shape, value shape): the source's five, then three more; the last
# has finite inputs (1e200) whose dot products overflow, so a forward stage fails and is named.
REJECTION_CASES = (
    ("query-rank-2", (2, 2), (1, 2, 2), (1, 2, 2)),
    ("batch-1-2-1", (1, 2, 2), (2, 2, 2), (1, 2, 2)),
    ("tokens-2-3-2", (1, 2, 2), (1, 3, 2), (1, 2, 2)),
    ("tokens-0", (1, 0, 2), (1, 0, 2), (1, 0, 2)),
    ("widths-2-3", (1, 2, 2), (1, 2, 3), (1, 2, 2)),
    ("value-width-0", (1, 2, 2), (1, 2, 2), (1, 2, 0)),
    ("query-nan", (1, 2, 2), (1, 2, 2), (1, 2, 2)),
    ("overflow-1e200", (1, 2, 2), (1, 2, 2), (1, 2, 2)),
)
OVERFLOWING_INPUT = 1e200


def invalid_inputs() -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Q, K, V of each case the head must refuse, in REJECTION_CASES's order."""
    cases = []
    for label, *shapes in REJECTION_CASES:
        inputs = [np.full(shape, OVERFLOWING_INPUT if label == "overflow-1e200" else 1.0) for shape in shapes]
        if label == "query-nan":
            inputs[0][0, 1, 0] = np.nan
        cases.append(tuple(inputs))
    return cases
