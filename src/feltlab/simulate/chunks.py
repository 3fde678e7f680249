"""A simulation's setup and results, and its work in chunks: what the local runner
(:mod:`feltlab.simulate.runner`) and the Ray cluster (:mod:`feltlab.simulate.cluster`)
share.

The run is cut into fixed chunks of :data:`~feltlab.simulate.CHUNK_ROUNDS` rounds,
chunk ``k`` drawing from stream ``k`` of the seed; their integer sums are added exactly,
so a seed gives the same result whatever runs the chunks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from feltlab.core.family import SimulationKernel, family_of
from feltlab.core.playout import Policy
from feltlab.core.rules import Rules
from feltlab.core.simkit import I64, S_SUM, S_WINS, Strategy, square_sum
from feltlab.simulate import TOTAL_UNIT
from feltlab.simulate.kernel import CHUNK_ROUNDS, Kernels, kernels_for
from feltlab.simulate.stats import WagerStats

Progress = Callable[[int, int], None]
"""Called as ``progress(rounds_done, rounds_total)`` between batches of chunks."""


@dataclass(frozen=True)
class Setup:
    """Everything the kernels need for one rule set, bet sizes and strategy."""

    rules: Rules
    seats: int
    bets: dict[str, int]
    strategy: Strategy
    params: I64
    wager_names: tuple[str, ...]
    stakes: tuple[int, ...]
    counter_names: tuple[str, ...]
    mistakes: float
    exact: dict[str, Fraction] = field(default_factory=dict)
    policy: Policy | None = None
    """The decisions of a run through the engine (:mod:`feltlab.simulate.engine_path`);
    ``None``: the compiled kernel's run, by the strategy's arrays."""

    @property
    def arrays(self) -> tuple[Any, ...]:
        s = self.strategy
        return (self.params, s.table, s.table2, s.table3, s.keys, s.values)

    @property
    def kernel(self) -> SimulationKernel[Any]:
        """The rule set's game's kernel (its family's)."""
        return family_of(self.rules).kernel

    @property
    def kernels(self) -> Kernels:
        """The compiled loops around the game's round."""
        return kernels_for(family_of(self.rules))

    @property
    def cards(self) -> int:
        """Cards a round deals."""
        return self.kernel.cards_per_round(self.seats)

    @property
    def most_at_risk(self) -> int:
        """The most one hand can cost: every wager lost with the largest raise."""
        return family_of(self.rules).engine.most_at_risk(self.rules, self.bets)


def wager_unit(name: str, stakes: Mapping[str, int]) -> str:
    """What a wager's house edge is per.

    >>> wager_unit("total", {"ante": 2, "flush": 1})
    'per unit of all the initial wagers (ante + flush = 3)'
    >>> wager_unit("ante", {"ante": 2})
    'per unit of ante'
    """
    if name != "total":
        return f"per unit of {name}"
    placed = " + ".join(stakes)
    return f"{TOTAL_UNIT} ({placed} = {sum(stakes.values())})"


@dataclass
class SimulationResult:
    setup: Setup
    seed: int
    rounds: int
    seconds: float
    wagers: list[WagerStats]
    counters: dict[str, int]
    interrupted: bool = False

    def wager(self, name: str) -> WagerStats:
        for wager in self.wagers:
            if wager.name == name:
                return wager
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        setup = self.setup
        return {
            **setup.rules.identity(),
            "strategy": setup.strategy.name,
            "path": "compiled" if setup.policy is None else "engine",
            "mistakes": setup.mistakes,
            "seats": setup.seats,
            "bets": setup.bets,
            "seed": self.seed,
            "hands": self.rounds,
            "seat_hands": self.rounds * setup.seats,
            "seconds": self.seconds,
            "rounds_per_second": self.rounds / self.seconds if self.seconds else None,
            "interrupted": self.interrupted,
            "wagers": [{**wager.to_json(), "unit": wager_unit(wager.name, setup.bets)}
                       for wager in self.wagers],
            "total_unit": TOTAL_UNIT,
            "counters": self.counters,
        }


def chunk_count(rounds: int) -> int:
    return -(-rounds // CHUNK_ROUNDS)


def run_chunks(setup: Setup, seed: int, first: int, count: int, rounds: int
               ) -> tuple[I64, I64]:
    """Chunks ``first .. first + count - 1`` of a ``rounds``-round run, summed over chunks."""
    stats, counters = setup.kernels.simulate_chunks(seed, first, count, rounds, setup.seats,
                                                    setup.cards, len(setup.wager_names),
                                                    *setup.arrays)
    # Python integers from here on: a sum over chunks may pass 64 bits.
    return stats.astype(object).sum(axis=0), counters.astype(object).sum(axis=0)


def rounds_in(first: int, count: int, rounds: int) -> int:
    return min(rounds, (first + count) * CHUNK_ROUNDS) - first * CHUNK_ROUNDS


def result_of(setup: Setup, seed: int, rounds: int, seconds: float, stats: list[list[int]],
            counters: list[int], interrupted: bool) -> SimulationResult:
    wagers = [WagerStats(name, stake, rounds, setup.seats, *_sums(stats[index]),
                         exact=setup.exact.get(name))
              for index, (name, stake) in enumerate(zip(setup.wager_names, setup.stakes,
                                                        strict=True)) if stake]
    named = dict(zip(setup.counter_names, counters, strict=False))
    return SimulationResult(setup, seed, rounds, seconds, wagers, named, interrupted)


def _sums(row: list[int]) -> tuple[int, int, int, int, int]:
    wins, pushes, losses = row[S_WINS:S_WINS + 3]
    return int(row[S_SUM]), square_sum(row), int(wins), int(pushes), int(losses)


