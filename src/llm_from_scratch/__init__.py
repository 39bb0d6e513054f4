"""A small numpy autodiff engine that grows chapter by chapter; chapter 27 adds one attention head."""

from .attention import SelfAttentionError, SelfAttentionForward, scaled_dot_product_self_attention
from .tensor import Tensor
from .tiled import tiled_self_attention

__all__ = [
    "SelfAttentionError",
    "SelfAttentionForward",
    "Tensor",
    "scaled_dot_product_self_attention",
    "tiled_self_attention",
]
