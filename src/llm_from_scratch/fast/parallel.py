"""Work shared among the cores: one thread pool, started when first used, with BLAS held to one thread.

numpy lets go of the interpreter lock while it computes, so threads that call
numpy on different parts of an array run at once. While the pool's workers run
matrix products, BLAS is held to one thread each: its own helper threads keep
spinning for a while after each product and would take the cores from the next
step (measured: a log-softmax after a product ran 1.4x slower).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

WORKERS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
PARALLEL_MIN_ELEMENTS = 1 << 16  # below this much work, one thread is faster than several


@functools.cache
def _pool() -> ThreadPoolExecutor:
    """The workers beside the calling thread, started on first use (importing the package starts none)."""
    return ThreadPoolExecutor(WORKERS - 1, thread_name_prefix="fast")


@functools.cache
def _blas():
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController().select(user_api="blas")


def _split(count: int, work: int) -> list[int]:
    """Bounds giving each worker a share of ``range(count)``, or one share when ``work`` elements are few."""
    parts = max(1, min(WORKERS, work // PARALLEL_MIN_ELEMENTS, count))
    return [count * i // parts for i in range(parts + 1)]


def for_shares(task: Callable[[int, int], object], count: int, work: int) -> None:
    """Call ``task(lo, hi)`` on contiguous shares of ``range(count)``, one share per worker, and wait for all.

    ``work`` (roughly the elements the whole job touches) decides whether splitting is worth it.
    The first share runs in the calling thread; every worker runs its share under the caller's numpy
    error state (``np.errstate``: thread-local before numpy 2, a context variable since).
    """
    bounds = _split(count, work)
    shares = list(zip(bounds, bounds[1:]))
    if len(shares) == 1:
        task(*shares[0])
        return
    errors = np.geterr()

    def share_task(lo: int, hi: int) -> None:
        with np.errstate(**errors):
            task(lo, hi)

    with _blas().limit(limits=1):
        futures = [_pool().submit(share_task, *share) for share in shares[1:]]
        task(*shares[0])
        for future in futures:
            future.result()
