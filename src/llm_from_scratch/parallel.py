"""The engine's large array work: its cores and its memory. Every speed device is listed here.

1. One thread pool owns the cores. numpy runs each call on one core and lets go
   of the interpreter lock while it computes, so threads calling numpy on
   different rows of an array run at once. Small arrays run in the calling
   thread: there threads cost more than they save (``PARALLEL_MIN_ELEMENTS``).
2. Row-wise work (``for_row_blocks``) walks each worker's rows in blocks small
   enough to stay in the core's cache while several numpy calls pass over them.
   A single pass (``elementwise``) is one call per worker: blocks would gain
   nothing from the cache and cost a hand-over of the interpreter lock each.
3. Matrix products are split by batch (or by rows of the result), with BLAS held
   to one thread: its own helper threads keep spinning for a while after each
   product and would take the cores from the next step (measured: log-softmax
   after a product ran 1.4x slower). A tall, thin product such as
   [T, T] @ [T, 64] is computed as it stands: computing it transposed, as
   ([64, T] @ [T, T])ᵀ, cost 30% more CPU at T = 512 with OpenBLAS 0.3.31.
4. Big results reuse memory (``empty``). A fresh array's pages are mapped and
   zeroed by the kernel at first touch, and glibc gives big blocks back at free,
   so every fresh [B, T, T] array paid again: at B = 8, T = 2048 a 256 MiB
   array took 30 ms to allocate and fill against 12 ms into a reused one, and
   after PyTorch had run in the same process (fragmenting memory, so the kernel
   compacts it for numpy's huge pages) the head's forward+backward spent up to
   1.2 s in the kernel. The engine keeps its big buffers and hands one out again
   once nothing refers to it: kernel time per forward+backward fell from 121 ms
   to under 20 ms at T = 2048 (30 to 3 ms at T = 512). The price: the last
   pass's buffers stay mapped (about 1 GiB at B = 8, T = 2048) until
   buffers of other sizes take their places or ``release_buffers()`` is called.
5. Fewer arrays and passes, in ``functions``: backward rules write into the
   gradient they receive, and log_softmax keeps one log-sum-exp per row and
   recomputes softmax in backward instead of storing a second [B, T, T] array.
"""

from __future__ import annotations

import contextvars
import math
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from threadpoolctl import ThreadpoolController

WORKERS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
PARALLEL_MIN_ELEMENTS = 1 << 16  # below this, one thread is faster
BLOCK_ELEMENTS = 1 << 17  # 1 MiB of float64: a block and its scratch copy fit in a 2 MiB L2 cache

BUFFER_MIN_BYTES = 1 << 20  # smaller arrays come from numpy as usual
BUFFER_COUNT = 16  # big buffers kept at most: a head's forward+backward uses 8

_pool = ThreadPoolExecutor(WORKERS - 1, thread_name_prefix="engine") if WORKERS > 1 else None
_blas = ThreadpoolController().select(user_api="blas")
_buffers: list[np.ndarray] = []  # flat float64 arrays, the engine's big results are views of them
_buffers_lock = threading.Lock()


def _references(buffers: list[np.ndarray], i: int) -> int:
    return sys.getrefcount(buffers[i])


_UNUSED = _references([np.empty(1)], 0)  # the count of a buffer that only the list refers to
_KEEP_BUFFERS = getattr(sys, "_is_gil_enabled", lambda: True)()  # free-threaded Python counts differently


def empty(shape: tuple[int, ...]) -> np.ndarray:
    """An uninitialised float64 array; a big one reuses a kept buffer that nothing refers to any more.

    Every view of a buffer refers to it, so a buffer that only the list refers to
    is unused, and its memory, already mapped, can be handed out again. When no
    unused buffer has the size asked for, a new one is kept, and past
    ``BUFFER_COUNT`` the unused buffer handed out longest ago is let go.
    """
    size = math.prod(shape)
    if size * 8 < BUFFER_MIN_BYTES or not _KEEP_BUFFERS:
        return np.empty(shape)
    with _buffers_lock:
        unused = [i for i in range(len(_buffers)) if _references(_buffers, i) == _UNUSED]
        match = next((i for i in unused if _buffers[i].size == size), None)
        if match is not None:
            buffer = _buffers.pop(match)
        else:
            if len(_buffers) >= BUFFER_COUNT:
                if not unused:
                    return np.empty(shape)  # every kept buffer is in use: this one is not kept
                del _buffers[unused[0]]
            buffer = np.empty(size)
        _buffers.append(buffer)  # the list runs from longest ago to most recently handed out
        return buffer.reshape(shape)


def release_buffers() -> None:
    """Let go of every kept buffer: those in use stay with their arrays, the rest are freed."""
    with _buffers_lock:
        _buffers.clear()


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
    out = empty(batch + (x.shape[-2], y.shape[-1]))
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
