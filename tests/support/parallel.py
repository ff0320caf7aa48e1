"""The seed checks' independent trainings, spread over the machine's cores.

``./dev test`` runs one test at a time, so while a CPU-bound check trains 200
seeds the other cores wait; the checks in ``tests/seeds`` hand their trainings
to this pool instead. Workers are spawned, not forked: the pytest process
already holds the browser tests' threads and sockets, which a fork would copy.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

_pool: ProcessPoolExecutor | None = None


def parallel_map(fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
    """``[fn(x) for x in items]``, computed in worker processes (``fn`` must be importable)."""
    global _pool
    items = list(items)
    workers = min(os.cpu_count() or 1, len(items))
    if workers <= 1:
        return [fn(x) for x in items]
    if _pool is None:  # one pool for the session; the executor shuts it down at exit
        _pool = ProcessPoolExecutor(
            max_workers=os.cpu_count(), mp_context=multiprocessing.get_context("spawn")
        )
    return list(_pool.map(fn, items, chunksize=max(1, len(items) // (4 * workers))))
