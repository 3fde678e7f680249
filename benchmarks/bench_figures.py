"""CPU of the pit's figures of settled rounds, in process (no server, no database).

Plays ROUNDS High Card Flush rounds of four seats (every wager at its minimum; each seat
folds, raises the least or raises the most, at random), then times
:func:`feltlab.server.services.figures.settled_rows` over them (what a worker's
:class:`~feltlab.server.services.figures.Recorder` computes for every settled round)
with ``time.process_time``, REPEATS times, and prints the median CPU per settled seat.
The first pass warms the memos (the PAR sheet's edges, the compiled kernels).

    .venv/bin/python benchmarks/bench_figures.py [ROUNDS] [REPEATS]
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta

from feltlab.core.cards import full_deck
from feltlab.core.engine import Deal, HandState, Phase, PlaceWager, Reveal, Settle
from feltlab.core.rules import Rules, load_rules
from feltlab.server.models import Round, RoundSeat, detached
from feltlab.server.services.figures import settled_rows

SEATS = 4


def play(rules: Rules, rng: random.Random) -> HandState:
    """One round of SEATS seats played to the end, each decision at random."""
    state = HandState(rules, rng.sample(full_deck(), 52))
    stakes = rules.matched_stakes({name: limit.min for name, limit in rules.limits.items()})
    for seat in range(1, SEATS + 1):
        for name, amount in stakes.items():
            state.apply(PlaceWager(seat, name, amount))
    state.apply(Deal())
    while state.phase is not Phase.COMPLETE:
        if state.phase is Phase.DECISIONS:
            acting = state.to_act
            assert acting is not None
            legal = list(state.legal_amounts(acting))
            amount = rng.choice([0, legal[0], legal[-1]]) if legal else 0
            state.apply(state.decision_action(acting, amount))
        else:
            state.apply(Reveal() if state.phase is Phase.REVEAL else Settle())
    return state


def rounds(count: int, seed: int = 1) -> list[tuple[HandState, list[RoundSeat], Round]]:
    rules = load_rules("high-card-flush")
    rng = random.Random(seed)
    start = datetime(2024, 5, 1, tzinfo=UTC)
    made = []
    for index in range(count):
        state = play(rules, rng)
        moment = start + timedelta(seconds=7 * index)
        record = detached(Round, {"id": index + 1, "table_id": 1 + index % 8,
                                  "rules_id": rules.id, "currency": "CHIP",
                                  "created_at": moment, "completed_at": moment})
        seats = [detached(RoundSeat, {"id": SEATS * index + seat, "round_id": index + 1,
                                      "seat": seat, "user_id": 100 + seat})
                 for seat in state.seats]
        made.append((state, seats, record))
    return made


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    played = rounds(count)
    seats = sum(len(each[1]) for each in played)
    for state, round_seats, record in played[:50]:  # warm
        settled_rows(state, round_seats, record)
    times = []
    for _ in range(repeats):
        start = time.process_time()
        for state, round_seats, record in played:
            settled_rows(state, round_seats, record)
        times.append(time.process_time() - start)
    median = statistics.median(times)
    print(f"{count} rounds, {seats} settled seats, {repeats} repeats: "
          f"median {median:.3f} s CPU, {median / seats * 1e6:.1f} us a settled seat "
          f"(min {min(times) / seats * 1e6:.1f}, max {max(times) / seats * 1e6:.1f})")


if __name__ == "__main__":
    main()
