"""The simulator's generic path: rounds played through the engine
(:mod:`feltlab.core.playout`), for a game without a compiled kernel (or on request, to
check a kernel against the engine). Slower (thousands of rounds a second, one core), with
the same statistics and the same result as the compiled path.

The strategy: ``optimal`` is the exact advisor's best option at each decision where the
game has exact math; without it the game is played by ``default``, the first decision
kind open at its smallest legal amount (:func:`~feltlab.core.playout.default_policy`).
Mistakes are not simulated on this path.
"""

from __future__ import annotations

import random
import time
from fractions import Fraction
from typing import Final

import numpy as np

from feltlab.analysis import capped_returns
from feltlab.analysis.estimate import advisor_policy
from feltlab.core.cards import full_deck
from feltlab.core.family import family_of, provides
from feltlab.core.playout import (
    DEFAULT_STRATEGY,
    Policy,
    Tally,
    default_policy,
    play_round,
    play_rounds,
)
from feltlab.core.rules import Rules
from feltlab.core.simkit import I64, S_SMALL, S_SUM, S_WINS, STATS, Strategy
from feltlab.core.status import step
from feltlab.simulate import kernel
from feltlab.simulate.chunks import Progress, Setup, SimulationResult, result_of

BATCH: Final = 1_000
"""Rounds between progress reports (and where Ctrl-C stops)."""


def engine_strategy(rules: Rules, name: str) -> tuple[Strategy, Policy]:
    """The strategy called ``name`` on the engine's path, and its policy."""
    if name == "optimal" and provides(rules, "math"):
        return Strategy("optimal", np.zeros(1, dtype=np.int8), optimal=True), advisor_policy
    if name in ("optimal", DEFAULT_STRATEGY):
        return Strategy(DEFAULT_STRATEGY, np.zeros(1, dtype=np.int8)), default_policy
    raise ValueError(f"--strategy {name}: a game simulated through the engine is played "
                     "by optimal (the advisor, with exact math) or default (the first "
                     "decision at its smallest amount)")


def engine_setup(rules: Rules, seats: int, stakes: dict[str, int], strategy: str,
                 mistakes: float, with_exact: bool) -> Setup:
    """A setup for :func:`simulate_engine`: the slots of the playout, the exact edges
    where the analysis has them (the optimal strategy of a game with exact math)."""
    if mistakes:
        raise ValueError("--mistakes: a game simulated through the engine is played "
                         "without mistakes")
    chosen, policy = engine_strategy(rules, strategy)
    names = (*stakes, "total")
    kinds = ("fold", *(kind.name for kind in family_of(rules).decisions))
    units = (*stakes.values(), sum(stakes.values()))
    exact: dict[str, Fraction] = {}
    if with_exact and chosen.optimal:
        exact = {name: edge for name, edge in capped_returns(rules, stakes).items()
                 if name in names}
    return Setup(rules, seats, stakes, chosen, np.zeros(0, dtype=np.int64), names, units,
                 kinds, mistakes, exact, policy=policy)


def simulate_engine(setup: Setup, rounds: int, seed: int, progress: Progress | None = None
                    ) -> SimulationResult:
    """Deal ``rounds`` rounds through the engine; Ctrl-C stops with what was done."""
    assert setup.policy is not None
    tally = Tally(setup.wager_names)
    interrupted = False
    start = time.perf_counter()
    with step("simulating", total=rounds) as simulating:
        try:
            for first in range(0, rounds, BATCH):
                count = min(BATCH, rounds - first)
                play_rounds(setup.rules, setup.bets, setup.seats, count, f"{seed}:{first}",
                            setup.policy, tally)
                simulating(tally.rounds, rounds)
                if progress is not None:
                    progress(tally.rounds, rounds)
        except KeyboardInterrupt:
            interrupted = True
    seconds = time.perf_counter() - start
    counters = [tally.choices.get(name, 0) for name in setup.counter_names]
    return result_of(setup, seed, tally.rounds, seconds, stats_rows(tally), counters,
                     interrupted)


def stats_rows(tally: Tally) -> list[list[int]]:
    """The tally in the compiled kernels' layout of sums (:data:`~feltlab.core.simkit.STATS`;
    Python integers hold any square sum in one part)."""
    rows = []
    for slot in range(len(tally.slots)):
        row = [0] * STATS
        row[S_SUM], row[S_SMALL] = tally.net_sums[slot], tally.square_sums[slot]
        row[S_WINS:S_WINS + 3] = tally.wins[slot], tally.pushes[slot], tally.losses[slot]
        rows.append(row)
    return rows


# The session kernel's books, run as Python: one account of a session on either path.
_OPEN, _BOOK, _CLOSE, _STEP = (kernel.open_books.py_func, kernel.book.py_func,
                               kernel.close_books.py_func, kernel.checkpoint_step.py_func)


def engine_sessions(setup: Setup, seed: int, first: int, count: int, hands: int,
                    bankroll: int, checkpoints: int, keep: int) -> tuple[I64, I64]:
    """Sessions ``first .. first + count - 1`` played through the engine, each from its
    own seeded shuffle, answered as the compiled session kernel answers them (see
    :func:`feltlab.simulate.kernel._sessions`): ``outcome[session]`` and, for the first
    ``keep``, the bankroll at every checkpoint."""
    assert setup.policy is not None
    need = setup.most_at_risk
    outcome = np.zeros((count, 5), dtype=np.int64)
    trajectory = np.zeros((min(keep, count), checkpoints + 1), dtype=np.int64)
    deck = list(full_deck())
    for offset in range(count):
        shuffler = random.Random(f"{seed}:session:{first + offset}")
        track = trajectory[offset] if offset < keep else np.zeros(checkpoints + 1, np.int64)
        books, every = _OPEN(bankroll, track), _STEP(hands, track)
        ruined = -1
        for hand in range(hands):
            if books[0] < need:  # the bankroll cannot cover this hand: ruin
                ruined = hand
                break
            shuffler.shuffle(deck)
            settled = play_round(setup.rules, setup.bets, 1, deck, setup.policy).seats[1]
            assert settled.settlement is not None
            books = _BOOK(books, settled.settlement.total, bankroll, every, track)
        _CLOSE(books, ruined, every, outcome[offset], track)
    return outcome, trajectory
