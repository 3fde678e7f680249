"""Scale-out on a Ray cluster: the same seeded chunks as a local run, merged exactly.

Install the extra (``pip install feltlab[cluster]``) and pass ``--cluster ADDRESS``
(``auto`` for the cluster this machine belongs to, ``local`` to start a local Ray, or
``ray://host:10001``). Every task runs a fixed range of chunks, so the result is the one
a local run with the same seed gives.
"""

from __future__ import annotations

import time
from typing import Any

from feltlab.core.simkit import STATS
from feltlab.simulate.chunks import (
    Progress,
    Setup,
    SimulationResult,
    chunk_count,
    result_of,
    rounds_in,
    run_chunks,
)

CHUNKS_PER_TASK = 16


def _task(setup: Setup, seed: int, first: int, count: int, rounds: int
          ) -> tuple[list[list[int]], list[int]]:
    stats, counters = run_chunks(setup, seed, first, count, rounds)
    return stats.tolist(), counters.tolist()


def simulate_on_ray(setup: Setup, rounds: int, seed: int, address: str,
                    progress: Progress | None = None) -> SimulationResult:
    try:
        import ray  # type: ignore[import-not-found]
    except ImportError as error:
        raise RuntimeError("--cluster needs Ray: pip install 'feltlab[cluster]'") from error
    if not ray.is_initialized():
        ray.init(address=None if address == "local" else address, ignore_reinit_error=True,
                 log_to_driver=False)
    task = ray.remote(_task)
    shared = ray.put(setup)
    chunks = chunk_count(rounds)
    pending: dict[Any, tuple[int, int]] = {}
    for first in range(0, chunks, CHUNKS_PER_TASK):
        count = min(CHUNKS_PER_TASK, chunks - first)
        pending[task.remote(shared, seed, first, count, rounds)] = (first, count)
    stats = [[0] * STATS for _ in setup.wager_names]
    counters = [0] * len(setup.counter_names)
    done_rounds = 0
    interrupted = False
    start = time.perf_counter()
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            first, count = pending.pop(ready[0])
            part, tally = ray.get(ready[0])
            stats = [[a + b for a, b in zip(row, new, strict=True)]
                     for row, new in zip(stats, part, strict=True)]
            counters = [a + b for a, b in zip(counters, tally, strict=False)]
            done_rounds += rounds_in(first, count, rounds)
            if progress is not None:
                progress(done_rounds, rounds)
    except KeyboardInterrupt:
        interrupted = True
        for ref in pending:
            ray.cancel(ref)
    seconds = time.perf_counter() - start
    return result_of(setup, seed, done_rounds, seconds, stats, counters, interrupted)
