"""Every tolerance the book judges or prints numbers with, in one place, each named for what it is."""

FLOAT_NOISE = 1e-12  # float64 rounding: a difference this small (absolute, or relative to the largest entry) is none
DIFFERENCES_NOISE = 1e-8  # central differences at step 1e-6 agree with the engine far better than gradcheck's 2e-6
SAME_ANSWER = 1e-9  # two answers a slip search makes this close are one answer
TYPED = 5e-4  # an answer typed from six printed decimals, or rounded to three or more, lands this close
ROUNDED = 0.005 + FLOAT_NOISE  # an answer rounded to two decimals lands this close (0.125 → 0.13: 0.005 and a hair)
BY_HAND = 0.01  # a hand computation to two decimals, with e ≈ 2.72, lands this close
CODE_AGREES = 1e-6  # a learner's function agrees with the engine (or two of its numbers with each other) this close,
#                     relative to the largest entry
