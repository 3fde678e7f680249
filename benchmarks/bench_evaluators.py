"""Batch evaluation speed of the Numba kernels (a script, not a test).

Run: ``.venv/bin/python benchmarks/bench_evaluators.py [--hands 20000000] [--repeat 3]``

Hands are random 7-card (or 5-card) hands, each drawn without replacement from a full
deck, generated with numpy before the clock starts. Each kernel is called once on a few
hands first so that compilation (or loading from Numba's cache) is not timed; then the
best of ``--repeat`` runs is reported, on one thread and on all threads.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numba
import numpy as np
import numpy.typing as npt

from feltlab.core import kernels

Kernel = Callable[[npt.NDArray[np.uint8]], npt.NDArray[np.integer]]
TARGET_FLUSH_PER_SECOND_ONE_CORE = 50e6


def random_hands(count: int, size: int, seed: int) -> npt.NDArray[np.uint8]:
    """``count`` hands of ``size`` distinct cards: draw with replacement, redraw repeats.

    >>> hands = random_hands(1000, 7, 1)
    >>> bool((np.diff(np.sort(hands, axis=1), axis=1) > 0).all())
    True
    """
    rng = np.random.default_rng(seed)
    hands = rng.integers(0, 52, size=(count, size), dtype=np.uint8)
    bad = np.flatnonzero(_has_repeat(hands))
    while bad.size:
        hands[bad] = rng.integers(0, 52, size=(bad.size, size), dtype=np.uint8)
        bad = bad[_has_repeat(hands[bad])]
    return hands


def _has_repeat(hands: npt.NDArray[np.uint8]) -> npt.NDArray[np.bool_]:
    """Whether each hand holds a card twice: fewer distinct bits than cards."""
    masks = np.zeros(len(hands), dtype=np.uint64)
    for column in hands.T:
        masks |= np.left_shift(np.uint64(1), column.astype(np.uint64))
    repeated: npt.NDArray[np.bool_] = np.bitwise_count(masks) < hands.shape[1]
    return repeated


def best_rate(kernel: Kernel, hands: npt.NDArray[np.uint8], repeat: int) -> float:
    """Evaluations per second, best of ``repeat`` timed runs."""
    kernel(hands[:1000])  # compile or load from cache; not timed
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        kernel(hands)
        best = min(best, time.perf_counter() - start)
    return len(hands) / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()

    start = time.perf_counter()
    seven = random_hands(args.hands, 7, args.seed)
    five = random_hands(args.hands, 5, args.seed + 1)
    print(f"generated {args.hands:,} 7-card and 5-card hands in "
          f"{time.perf_counter() - start:.1f} s (not timed below)")

    benches: list[tuple[str, Kernel, npt.NDArray[np.uint8]]] = [
        ("7-card flush value", kernels.flush_values, seven),
        ("7-card straight-flush length", kernels.straight_flush_lengths, seven),
        ("7-card red flush count", lambda h: kernels.colour_flush_counts(h, "red"), seven),
        ("5-card poker class", kernels.poker_hands, five),
    ]
    all_threads = numba.get_num_threads()
    print(f"{'kernel':<30} {'1 thread':>16} {f'{all_threads} threads':>16}   (evaluations/s)")
    one_core_flush = 0.0
    for name, kernel, hands in benches:
        numba.set_num_threads(1)
        one = best_rate(kernel, hands, args.repeat)
        numba.set_num_threads(all_threads)
        many = best_rate(kernel, hands, args.repeat)
        print(f"{name:<30} {one:>16,.0f} {many:>16,.0f}")
        if kernel is kernels.flush_values:
            one_core_flush = one
    verdict = "meets" if one_core_flush >= TARGET_FLUSH_PER_SECOND_ONE_CORE else "MISSES"
    print(f"7-card flush on one core: {one_core_flush / 1e6:.1f} M/s, {verdict} the target of "
          f"{TARGET_FLUSH_PER_SECOND_ONE_CORE / 1e6:.0f} M/s")


if __name__ == "__main__":
    main()
