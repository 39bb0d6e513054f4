"""One catalogue of learner-facing strings per language, all with the same keys."""
