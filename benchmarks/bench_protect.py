"""Time the advisor with dead and seen cards (per hand) and each ``feltlab protect`` case.

    python benchmarks/bench_protect.py [--deals N] [--quick]

Kernels are compiled (or loaded from Numba's cache) before anything is timed. Each case
prints its players' edge, standard error and states beside its time; ``--quick`` times
one case per leak instead of every default case.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

import numpy as np

from feltlab.analysis import advise
from feltlab.core.cards import Card
from feltlab.core.rules import Rules, builtin_ids, load_rules
from feltlab.protect import Case, default_cases, default_deals, evaluate_case

HANDS = 200


def _deals(count: int, size: int, seed: int) -> list[list[Card]]:
    generator = np.random.default_rng(seed)
    return [[Card(int(i)) for i in generator.permutation(52)[:size]] for _ in range(count)]


def _per_hand(label: str, calls: Sequence[tuple[tuple[object, ...], dict[str, object]]],
              rules: Rules) -> None:
    advise(rules, *calls[0][0], **calls[0][1])  # type: ignore[arg-type]
    start = time.perf_counter()
    for args, kwargs in calls:
        advise(rules, *args, **kwargs)  # type: ignore[arg-type]
    seconds = (time.perf_counter() - start) / len(calls)
    print(f"advise {rules.id:<24} {label:<34} {1000 * seconds:9.3f} ms a hand")


def bench_advice() -> None:
    flush = load_rules("high-card-flush")
    for dead, seen in ((0, 0), (7, 0), (35, 0), (0, 1), (35, 2)):
        deals = _deals(HANDS, 7 + dead + seen, dead * 10 + seen)
        calls = [((cards[:7],), {"dead": cards[7:7 + dead], "seen": cards[7 + dead:]})
                 for cards in deals]
        _per_hand(f"{dead} dead, {seen} dealer cards seen", calls, flush)
    stud = load_rules("nh-holdem-stud")
    for dead, seen, turned in ((0, 0, 0), (12, 0, 0), (12, 1, 0), (12, 0, 1), (2, 2, 0)):
        deals = _deals(HANDS // 4, 2 + turned + seen + dead, 100 + dead + seen + turned)
        calls = [((cards[:2], cards[2:2 + turned]),
                  {"bets": [1] * turned, "seen": cards[2 + turned:2 + turned + seen],
                   "dead": cards[2 + turned + seen:]}) for cards in deals]
        _per_hand(f"{dead} dead, {seen} seen, {turned} turned", calls, stud)
    nine = load_rules("nine-card-flush")
    deals = _deals(HANDS, 3 + 2 + 40, 7)
    calls = [(((), cards[:3], "red"), {"seen": cards[3:5], "dead": cards[5:]})
             for cards in deals]
    _per_hand("40 dead, 2 own cards seen", calls, nine)


def bench_cases(deals: int | None, quick: bool) -> None:
    from feltlab.games.high_card_flush import protect as protect_flush

    for rules_id in builtin_ids():
        rules = load_rules(rules_id)
        count = deals or default_deals(rules)
        cases = default_cases(rules)
        if quick:
            cases = [case for case in cases if case in (Case(), Case(rules.seats), Case(1, 1),
                                                          Case(1, 0, 1))]
        evaluate_case(rules, Case(), count, 0)  # compile, and the exact baseline
        for case in cases:
            if case == Case():
                protect_flush.forget_baselines()  # time the enumeration, not the cache
            start = time.perf_counter()
            result = evaluate_case(rules, case, count, 0)
            seconds = time.perf_counter() - start
            error = "exact" if result.exact else f"±{100 * result.std_error:.4f}%"
            print(f"protect {rules_id:<24} K={case.colluders} dealer={case.dealer_seen} "
                  f"next={case.next_seen}: {100 * result.edge:+8.4f}% {error:>10} "
                  f"{result.states:>16,} states {seconds:8.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=None)
    parser.add_argument("--quick", action="store_true")
    arguments = parser.parse_args()
    bench_advice()
    bench_cases(arguments.deals, arguments.quick)


if __name__ == "__main__":
    main()
