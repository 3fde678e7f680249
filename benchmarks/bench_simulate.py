"""Simulator speed and accuracy.

Speed: High Card Flush, 1 seat, optimal strategy, every wager, against the speed of only
drawing the same cards with the same generator (the floor no simulator can beat), both
on all of this machine's cores. Accuracy: every rule set simulated with a fixed seed and
compared with the exact house edge of every wager and of the total (per unit of all
the initial wagers), in standard errors.

    .venv/bin/python benchmarks/bench_simulate.py [--rounds 20000000] [--skip-accuracy]
"""

from __future__ import annotations

import argparse
import os
import time

import numba as nb

from feltlab.core.rules import builtin_ids, load_rules
from feltlab.games.high_card_flush import kernel as flush
from feltlab.simulate.kernel import draw_floor
from feltlab.simulate.runner import chunk_count, prepare, simulate

TARGET = 10_000_000


def speed(rounds: int) -> None:
    setup = prepare(load_rules("high-card-flush"), seats=1)
    simulate(setup, 1_000, seed=1)  # compile / load the kernels
    draw_floor(1, 1, 1_000, flush.cards_per_round(1))
    best_sim = best_floor = 0.0
    for _ in range(3):
        result = simulate(setup, rounds, seed=1)
        best_sim = max(best_sim, rounds / result.seconds)
        start = time.perf_counter()
        draw_floor(1, chunk_count(rounds), rounds, flush.cards_per_round(1))
        best_floor = max(best_floor, rounds / (time.perf_counter() - start))
    verdict = "met" if best_sim >= TARGET else f"NOT met ({best_sim / TARGET:.0%} of it)"
    print(f"{os.cpu_count()} cores, threads {nb.get_num_threads()}, {rounds:,} rounds, "
          "best of 3 (kernel only; whole-command figures: bench_commands.py)")
    print(f"High Card Flush, 1 seat, optimal, all wagers: {best_sim:14,.0f} rounds/s")
    print(f"drawing the same 14 cards only (floor):       {best_floor:14,.0f} rounds/s")
    print(f"simulation / floor: {best_sim / best_floor:.0%}; target {TARGET:,}: {verdict}")


def accuracy(rounds: int) -> None:
    print(f"\naccuracy: {rounds:,} rounds per rule set, seed 20, 1 seat, optimal strategy")
    worst = 0.0
    for rules_id in builtin_ids():
        result = simulate(prepare(load_rules(rules_id)), rounds, seed=20)
        for wager in result.wagers:
            if wager.exact is None:
                continue
            z = wager.z_score or 0.0
            worst = max(worst, abs(z))
            print(f"  {rules_id:24} {wager.name:15} sim {float(wager.house_edge):9.5%} "
                  f"+- {wager.std_error:8.5%}  exact {float(wager.exact):9.5%}  z {z:+.2f}")
    print(f"largest |z|: {worst:.2f} ({'within' if worst < 4 else 'OUTSIDE'} 4 standard errors)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=20_000_000)
    parser.add_argument("--skip-accuracy", action="store_true")
    args = parser.parse_args()
    speed(args.rounds)
    if not args.skip_accuracy:
        accuracy(args.rounds)


if __name__ == "__main__":
    main()
