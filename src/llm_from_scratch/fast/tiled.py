"""The head tile by tile, with the algorithm of FlashAttention: no T x T score matrix, forward or backward.

The algorithm is FlashAttention's (Dao et al. 2022, "FlashAttention: Fast and Memory-Efficient Exact
Attention with IO-Awareness"): an online softmax forward, and a backward that recomputes each tile of
the weights from one log-sum-exp per row. Its fused, IO-aware GPU kernel is not: here numpy runs
each step on a tile that fits the CPU's cache.

``tiled_self_attention`` computes the output and gradients of
``scaled_dot_product_self_attention`` but walks the scores in tiles of
``block_size`` queries by ``block_size`` keys. Beyond its inputs, output and
gradients it keeps one log-sum-exp per query row, and while it works a few
tiles per worker: O(B·T·d + B·block²) numbers, where the head keeps B·T².

Work is spread over the cores (``parallel.for_shares``) by batch
when every worker gets a batch element, so each writes only its own rows of
every result; with fewer batch elements than workers, by tiles (query tiles
forward, key tiles backward, where each extra worker sums its part of dQ in an
array of its own).
"""

from __future__ import annotations

import math
import operator

import numpy as np

from ..engine import Tensor
from ..engine.attention import STAGES, SelfAttentionError, validated_inputs
from . import parallel

Tiles = list[tuple[int, int]]


def tiled_self_attention(query: object, key: object, value: object, block_size: int = 256) -> Tensor:
    """One unmasked scaled dot-product self-attention head, tile by tile; returns the output O.

    Q and K: [B, T, d_k]; V: [B, T, d_v]; O: [B, T, d_v]. Inputs are accepted and
    refused exactly as by ``scaled_dot_product_self_attention``; ``block_size``
    must be a positive int. ``O.backward(dO)`` fills the inputs' gradients.
    The default block was measured (B = 8, d = 64, T = 1024 and 4096): 256 took
    about 5% less CPU than 128 or 512 and 20% less than 64, for B·256² numbers
    per tile (``fast.measure.measure_tiled`` gives the trade-off for any block).

    Why the online softmax gives the head's numbers: for one query row with
    scores s, after some key tiles it holds m = max s, l = Σ e^(s-m) and
    o = Σ e^(s-m) v. A new tile with maximum m' ≥ m turns each earlier term
    e^(s-m) into e^(s-m') = e^(s-m) · e^(m-m'), so scaling l and o by e^(m-m')
    and adding the tile's own terms keeps both exact; after the last tile
    o / l = Σ e^(s-m) v / Σ e^(s-m) = softmax(s) V, and m + log l is the row's
    log-sum-exp, from which backward recomputes P = e^(s - lse).
    """
    query, key, value = validated_inputs(query, key, value)
    block = _block_size(block_size)
    q, k, v = query.data, key.data, value.data
    scale = 1.0 / math.sqrt(q.shape[2])
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            out, log_sums = _forward(q, k, v, scale, block)
    except (ValueError, ArithmeticError, MemoryError) as error:
        raise SelfAttentionError("stage-failure", f"self-attention tiled forward failed: {error}",
                                 stage="tiled-forward") from error
    if not np.isfinite(out).all():
        out = _retry_non_finite(q, k, v, scale, block)
    needs = (query.requires_grad, key.requires_grad, value.requires_grad)

    def backward(grad: np.ndarray) -> tuple[np.ndarray | None, ...]:
        grads = _backward(q, k, v, out, log_sums, grad, scale, block)
        return tuple(g if need else None for g, need in zip(grads, needs))

    return Tensor.from_op(out, (query, key, value), backward, "tiled_self_attention")


def _block_size(block_size: object) -> int:
    message = f"block_size must be a positive int, got {block_size!r}"
    if isinstance(block_size, bool):
        raise TypeError(message)
    try:
        block = operator.index(block_size)
    except TypeError:
        raise TypeError(message) from None
    if block < 1:
        raise ValueError(message)
    return block


def _tiles(tokens: int, block: int) -> Tiles:
    return [(start, min(start + block, tokens)) for start in range(0, tokens, block)]


def _by_batch(batch: int) -> bool:
    """Split work by batch when every worker gets at least one batch element."""
    return batch >= parallel.WORKERS


# ---- forward: per query tile, an online softmax over the key tiles -----------------------------

def _forward(q: np.ndarray, k: np.ndarray, v: np.ndarray, scale: float, block: int
             ) -> tuple[np.ndarray, np.ndarray]:
    batch, tokens, _ = q.shape
    out = np.empty((batch, tokens, v.shape[2]))
    log_sums = np.empty((batch, tokens, 1))
    if batch == 0:
        return out, log_sums
    tiles = _tiles(tokens, block)
    work = batch * tokens * tokens * (q.shape[2] + v.shape[2])
    if _by_batch(batch):
        def task(lo: int, hi: int) -> None:
            b = slice(lo, hi)
            _forward_rows(q[b], k[b], v[b], scale, tiles, tiles, block, out[b], log_sums[b])

        parallel.for_shares(task, batch, work)
    else:
        def task(lo: int, hi: int) -> None:
            _forward_rows(q, k, v, scale, tiles[lo:hi], tiles, block, out, log_sums)

        parallel.for_shares(task, len(tiles), work)
    return out, log_sums


def _forward_rows(q, k, v, scale: float, row_tiles: Tiles, key_tiles: Tiles, block: int,
                  out: np.ndarray, log_sums: np.ndarray) -> None:
    """Each query tile in ``row_tiles`` against every key tile, one batch element at a time (a tile of
    block x block numbers stays in the core's cache); writes its rows of O and of the log-sum-exp.

    V gets a column of ones, so the product that mixes the values also sums the row: o and l in one.
    """
    side = min(block, q.shape[1])
    scores_buffer = np.empty((side, side))
    for b in range(q.shape[0]):
        values_and_ones = np.concatenate([v[b], np.ones((v.shape[1], 1))], axis=1)
        for lo, hi in row_tiles:
            q_tile = q[b, lo:hi] * scale
            peak = np.full((hi - lo, 1), -np.inf)  # m
            mix = np.zeros((hi - lo, v.shape[2] + 1))  # o, not yet divided by l, and l in the last column
            for start, stop in key_tiles:
                scores = np.matmul(q_tile, k[b, start:stop].T, out=scores_buffer[: hi - lo, : stop - start])
                new_peak = np.maximum(peak, scores.max(axis=1, keepdims=True))  # finite: the scores are
                np.exp(np.subtract(scores, new_peak, out=scores), out=scores)
                mix *= np.exp(peak - new_peak)  # e^(m - m'): 0 at the first tile, where m = -inf
                mix += scores @ values_and_ones[start:stop]
                peak = new_peak
            np.divide(mix[:, :-1], mix[:, -1:], out=out[b, lo:hi])
            np.add(peak, np.log(mix[:, -1:]), out=log_sums[b, lo:hi])


# ---- backward: per key tile, recompute P tile by tile from the log-sum-exp ----------------------

def _backward(q, k, v, out, log_sums, grad, scale: float, block: int
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """dQ, dK, dV for upstream dO = ``grad``.

    D = rowsum(dO ⊙ O) equals rowsum(P ⊙ dP), since dP = dO Vᵀ and O = P V;
    so dS = P ⊙ (dP - D) needs no row of P beyond the tile at hand.
    """
    batch, tokens, _ = q.shape
    grad_q, grad_k, grad_v = np.zeros(q.shape), np.empty(k.shape), np.empty(v.shape)
    if batch == 0:
        return grad_q, grad_k, grad_v
    deltas = np.einsum("btd,btd->bt", grad, out)[..., None]  # D, one per query row
    tiles = _tiles(tokens, block)
    work = batch * tokens * tokens * (2 * q.shape[2] + v.shape[2])
    parts: list[np.ndarray] = []
    if _by_batch(batch):
        def task(lo: int, hi: int) -> None:
            b = slice(lo, hi)
            _backward_keys(q[b], k[b], v[b], grad[b], log_sums[b], deltas[b], scale, tiles, tiles, block,
                           grad_q[b], grad_k[b], grad_v[b])

        parallel.for_shares(task, batch, work)
    else:
        def task(lo: int, hi: int) -> None:
            own = grad_q if lo == 0 else _append(parts, np.zeros(q.shape))  # dQ gathers from every key tile
            _backward_keys(q, k, v, grad, log_sums, deltas, scale, tiles[lo:hi], tiles, block,
                           own, grad_k, grad_v)

        parallel.for_shares(task, len(tiles), work)
    for part in parts:
        grad_q += part
    return grad_q, grad_k, grad_v


def _append(parts: list[np.ndarray], part: np.ndarray) -> np.ndarray:
    parts.append(part)
    return part


def _backward_keys(q, k, v, grad, log_sums, deltas, scale: float, key_tiles: Tiles, row_tiles: Tiles,
                   block: int, grad_q: np.ndarray, grad_k: np.ndarray, grad_v: np.ndarray) -> None:
    """Each key tile in ``key_tiles``: its rows of dK and dV, and its part of every row of dQ (added),
    one batch element at a time.

    Two subtractions ride in the products, each operand given one more column: [Q | -lse] times
    [K·scale | 1]ᵀ is S - lse, and [dO | -D] times [V | 1]ᵀ is dP - D.
    """
    side = min(block, q.shape[1])
    probs_buffer, dscores_buffer = np.empty((side, side)), np.empty((side, side))
    ones = np.ones((q.shape[1], 1))
    for b in range(q.shape[0]):
        queries_lse = np.concatenate([q[b], -log_sums[b]], axis=1)
        grads_deltas = np.concatenate([grad[b], -deltas[b]], axis=1)
        keys_ones = np.concatenate([k[b] * scale, ones], axis=1)
        values_ones = np.concatenate([v[b], ones], axis=1)
        for lo, hi in key_tiles:
            k_tile, v_tile = keys_ones[lo:hi], values_ones[lo:hi]
            dk = np.zeros((hi - lo, q.shape[2]))
            dv = np.zeros((hi - lo, v.shape[2]))
            for start, stop in row_tiles:
                n, w = stop - start, hi - lo
                probs = np.matmul(queries_lse[start:stop], k_tile.T, out=probs_buffer[:n, :w])  # S - lse
                np.exp(probs, out=probs)  # P = e^(S - lse)
                dv += probs.T @ grad[b, start:stop]  # dV += Pᵀ dO
                dscores = np.matmul(grads_deltas[start:stop], v_tile.T, out=dscores_buffer[:n, :w])  # dP - D
                dscores *= probs  # dS = P ⊙ (dP - D)
                dk += dscores.T @ q[b, start:stop]  # dK += dSᵀ Q (x scale below)
                grad_q[b, start:stop] += dscores @ k_tile[:, :-1]  # dQ += dS K·scale
            np.multiply(dk, scale, out=grad_k[b, lo:hi])
            grad_v[b, lo:hi] = dv


def _retry_non_finite(q: np.ndarray, k: np.ndarray, v: np.ndarray, scale: float, block: int) -> np.ndarray:
    """The output the head gives where float64 overflowed only here, or the head's error.

    Finite inputs give a non-finite output when a raw score q·k overflows (the
    head fails there too) or when the mixture does. The head mixes normalised
    weights, this head sums e^(s-m) v (up to T times a value) before dividing by
    l: so it mixes V / 2^e, 2^e ≥ T, and multiplies back. Powers of two change
    no digit, so where the head's output is finite, this equals it.
    Looks at one tile of raw scores at a time.
    """
    tiles = _tiles(q.shape[1], block)
    stage = "raw-scores"
    with np.errstate(over="ignore", invalid="ignore"):
        if all(np.isfinite(np.matmul(q[:, lo:hi], np.swapaxes(k[:, start:stop], 1, 2))).all()
               for lo, hi in tiles for start, stop in tiles):
            stage = "value-mixture"
            power = 2.0 ** math.ceil(math.log2(q.shape[1]))
            out = _forward(q, k, v / power, scale, block)[0] * power
            if np.isfinite(out).all():
                return out
    raise SelfAttentionError(
        "stage-failure",
        f"self-attention {STAGES[stage]} produced non-finite numbers "
        "(the inputs are finite, but too large for float64 arithmetic)",
        stage=stage,
    )
