"""LLM from scratch: a small numpy autodiff engine that grows chapter by chapter.

engine/  the engine a learner reads (chapter 27 adds one attention head)
fast/    the speed beside it: the tiled head, threads, measurement
book/    the learner's tools every chapter shares: strings, exercises, progress, figures, widgets
ch27/    chapter 27's content
"""

from .engine import SelfAttentionError, SelfAttentionForward, Tensor, scaled_dot_product_self_attention
from .fast import tiled_self_attention

__all__ = [
    "SelfAttentionError",
    "SelfAttentionForward",
    "Tensor",
    "scaled_dot_product_self_attention",
    "tiled_self_attention",
]
