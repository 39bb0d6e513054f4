"""The exercises of 04_scaling: their judges and facts; their strings are in
catalogues/<language>/04_scaling.toml."""

from __future__ import annotations

from ...book.declare import choice_exercise
from ...book.formatting import num, vector
from ..evidence import LearnerEvidence
from .judging import Example


def _divisor_facts(ev: LearnerEvidence) -> dict[str, str]:
    """√d_k against d_k: the [1, 0] example with and without the scale, and random scores divided both ways."""
    divisor, scale = ev.fixed.divisor, ev.fixed.scale
    return {"unscaled": vector(scale.unscaled), "scaled": vector(scale.scaled), "scale_width": str(scale.key_width),
            "key_width": str(divisor.key_width), "tokens": str(divisor.tokens),
            "variance_root": num(divisor.variance_root, 3), "variance_width": num(divisor.variance_width, 4),
            "max_root": num(divisor.max_weight_root, 3), "max_width": num(divisor.max_weight_width, 3),
            "uniform": num(1 / divisor.tokens, 4)}


EXERCISES = (
    choice_exercise(
        "why-root-dk",
        notebook="04_scaling", example=Example.divisor,
        skills=("skill.scaling",),
        correct="d",
        facts=_divisor_facts,
        misconceptions={"a": "scale-invariant", "b": "width-sharpens", "c": "cosine-normalization"},
    ),
)
