"""What exists for speed, beside the engine and measured against it.

tiled.py     the head tile by tile (FlashAttention's algorithm): no T×T matrix, on every core
parallel.py  the thread pool (started when first used) and BLAS held to one thread inside it
measure.py   time and peak memory as a plain process sees them
cost.py      a head's multiply-adds and bytes as exact functions of B, T, d_k, d_v

It imports the engine; the engine never imports it.
"""

from .tiled import tiled_self_attention

__all__ = ["tiled_self_attention"]
