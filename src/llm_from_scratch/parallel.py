"""The engine's large array work, spread over the machine's cores by one thread pool.

numpy runs each call on one core and lets go of the interpreter lock while it
computes, so threads calling numpy on different rows of an array run at once.
Row-wise work goes through ``for_row_blocks``: the rows are split between the
workers, and each worker walks its share in blocks small enough to stay in its
core's cache while several numpy calls pass over them. Matrix products are
split by batch (or by rows of the result), with BLAS held to one thread: its own helper
threads keep spinning for a while after each product and would take the cores
from the next step (measured: log-softmax after a product ran 1.4x slower).
Small arrays run in the calling thread: there threads cost more than they save.
"""

from __future__ import annotations

import contextvars
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from threadpoolctl import ThreadpoolController

WORKERS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
PARALLEL_MIN_ELEMENTS = 1 << 16  # below this, one thread is faster
BLOCK_ELEMENTS = 1 << 17  # 1 MiB of float64: a block and its scratch copy fit in a 2 MiB L2 cache

_pool = ThreadPoolExecutor(WORKERS - 1, thread_name_prefix="engine") if WORKERS > 1 else None
_blas = ThreadpoolController().select(user_api="blas")


def _split(rows: int, work: int) -> list[int]:
    """Row bounds giving each worker a share, or one share when ``work`` elements are few."""
    parts = max(1, min(WORKERS, work // PARALLEL_MIN_ELEMENTS, rows))
    return [rows * i // parts for i in range(parts + 1)]


def _run(task: Callable[[int, int], object], bounds: list[int]) -> None:
    """Run ``task`` on each share: the first in the calling thread, the rest on the pool.

    Each pool task runs in a copy of the caller's context, so numpy's error
    state (``np.errstate``) holds in the workers as it does in the caller.
    """
    shares = list(zip(bounds, bounds[1:]))
    if _pool is None:
        for share in shares:
            task(*share)
        return
    futures = [_pool.submit(contextvars.copy_context().run, task, *share) for share in shares[1:]]
    task(*shares[0])
    for future in futures:
        future.result()


def for_row_blocks(work: Callable[..., None], *matrices: np.ndarray) -> None:
    """Call ``work(*blocks)`` on consecutive row blocks of 2-D arrays with one row count.

    ``work`` must touch only its own rows (it may write into them); blocks may
    be processed at the same time on different threads.
    """
    rows, width = matrices[0].shape
    block = max(1, BLOCK_ELEMENTS // max(width, 1))

    def task(first: int, stop: int) -> None:
        for start in range(first, stop, block):
            end = min(start + block, stop)
            work(*(m[start:end] for m in matrices))

    _run(task, _split(rows, rows * width))


def for_shares(task: Callable[[int, int], object], count: int, work: int) -> None:
    """Call ``task(lo, hi)`` on contiguous shares of ``range(count)``, one share per worker.

    ``work`` (roughly the elements the whole job touches) decides whether it is
    worth splitting at all. BLAS is held to one thread, as in ``matmul``.
    """
    with _blas.limit(limits=1):
        _run(task, _split(count, work))


def elementwise(ufunc: np.ufunc, *operands: np.ndarray | float, out: np.ndarray) -> np.ndarray:
    """``ufunc(*operands, out=out)``, one call per worker on its share of the rows.

    Every array operand must have ``out``'s shape; other operands are single
    numbers. ``out`` may be one of the operands (the operation is then in place).
    No blocks here: a single pass gains nothing from the cache, and each extra
    call costs the threads a hand-over of the interpreter lock.
    """
    if out.size == 0 or out.ndim == 0 or not out.flags.c_contiguous:
        return ufunc(*operands, out=out)
    width = out.shape[-1]
    flat = [np.reshape(x, (-1, width)) if np.ndim(x) else x for x in (*operands, out)]

    def task(lo: int, hi: int) -> None:
        args = [x[lo:hi] if np.ndim(x) else x for x in flat]
        ufunc(*args[:-1], out=args[-1])

    _run(task, _split(flat[-1].shape[0], out.size))
    return out


def matmul(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x @ y`` split over the workers, BLAS on one thread each.

    Split by batch when there are enough matrices, so each worker reads only its
    own operands; otherwise by rows of the result.
    """
    batch = np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    out = np.empty(batch + (x.shape[-2], y.shape[-1]))
    work = out.size * max(x.shape[-1], 1)
    if len(batch) == 1 and batch[0] >= WORKERS:
        xs, ys = np.broadcast_to(x, batch + x.shape[-2:]), np.broadcast_to(y, batch + y.shape[-2:])

        def task(lo: int, hi: int) -> None:
            np.matmul(xs[lo:hi], ys[lo:hi], out=out[lo:hi])

        bounds = _split(batch[0], work)
    else:
        def task(lo: int, hi: int) -> None:
            np.matmul(x[..., lo:hi, :], y, out=out[..., lo:hi, :])

        bounds = _split(x.shape[-2], work)
    with _blas.limit(limits=1):
        _run(task, bounds)
    return out
