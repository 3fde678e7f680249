"""Set up and run a table simulation: rule set, bets and strategy in; estimates out.

The run is cut into fixed chunks of :data:`~feltlab.simulate.kernel.CHUNK_ROUNDS` rounds,
chunk ``k`` drawing from stream ``k`` of the seed; chunks run on local threads (Numba) or
on a Ray cluster, and their integer sums are added exactly, so a seed gives the same
result whatever the number of workers.
"""

from __future__ import annotations

import json
import time
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Final

import numba as nb
from pydantic import ValidationError

import feltlab.cache as cache
from feltlab.analysis import read_strategy_text
from feltlab.jit import cached_kernels
from feltlab.rules import FlushRules, HoldemStudRules, NineCardRules, Rules
from feltlab.settle import check_wagers
from feltlab.simulate import TOTAL_UNIT, flush, holdem, kernel, nine
from feltlab.simulate.common import I64, S_SUM, S_WINS, STATS, Strategy, square_sum
from feltlab.simulate.limits import LONG_RUN_SECONDS, check_simulate, duration, threads_for
from feltlab.simulate.rng import probability_threshold
from feltlab.simulate.stats import WagerStats
from feltlab.status import COMPILING, compiled, notice, say, step

Progress = Callable[[int, int], None]
"""Called as ``progress(rounds_done, rounds_total)`` between batches of chunks."""


@dataclass(frozen=True)
class Setup:
    """Everything the kernels need for one rule set, bet sizes and strategy."""

    rules: Rules
    game: int
    seats: int
    bets: dict[str, int]
    strategy: Strategy
    params: I64
    wager_names: tuple[str, ...]
    stakes: tuple[int, ...]
    counter_names: tuple[str, ...]
    mistakes: float
    exact: dict[str, Fraction] = field(default_factory=dict)

    @property
    def arrays(self) -> tuple[Any, ...]:
        s = self.strategy
        return (self.params, s.table, s.table2, s.table3, s.keys, s.values)

    @property
    def most_at_risk(self) -> int:
        """The most one hand can cost: every wager lost with the largest raise."""
        bets = self.bets
        rules = self.rules
        if isinstance(rules, FlushRules):
            most = max(rules.max_raise_multiple(length) for length in range(8))
            return bets["ante"] * (1 + most) + bets.get("flush", 0) + bets.get(
                "straight_flush", 0)
        if isinstance(rules, NineCardRules):
            return 2 * bets["all9"] + sum(bets.get(n, 0) for n in ("bonus9", "player6", "first3"))
        assert isinstance(rules, HoldemStudRules)
        return bets["ante"] * (1 + rules.streets * rules.max_street_multiple) + bets.get(
            "bonus3", 0)


def default_bets(rules: Rules) -> dict[str, int]:
    """Every wager of the rule set at its smallest allowed amount (1 unit where allowed)."""
    return {name: limit.min for name, limit in rules.limits.items()}


def _game_module(rules: Rules) -> Any:
    if isinstance(rules, FlushRules):
        return flush
    if isinstance(rules, NineCardRules):
        return nine
    return holdem


def load_strategy(rules: Rules, name: str) -> Strategy:
    """``optimal``, ``simple`` (the analysis's strategy card) or a strategy file in the
    analysis's TOML format for the game: :mod:`feltlab.analysis.flush_strategy` (High Card
    Flush family), :mod:`feltlab.analysis.holdem_strategy` (Hold'em Stud),
    :class:`feltlab.analysis.nine.NineStrategy` (9 Card Flush).

    A bad file raises ``ValueError`` with a one-line message naming what is wrong."""
    if name == "optimal":
        return optimal_strategy(rules)
    if name == "simple":
        return _game_module(rules).simple_strategy(rules)  # type: ignore[no-any-return]
    path = Path(name)
    if not path.is_file():
        raise ValueError(f"--strategy: {name!r} is not optimal, simple or a strategy file")
    try:
        read_strategy_text(rules, path)  # made for this game and rule set
        if isinstance(rules, FlushRules):
            return flush.file_strategy(rules, path)
        if isinstance(rules, NineCardRules):
            return nine.file_strategy(path)
        assert isinstance(rules, HoldemStudRules)
        return holdem.file_strategy(rules, path)
    except (ValueError, OSError, UnicodeDecodeError) as error:
        raise ValueError(f"--strategy {path.name}: {one_line(error)}") from None


def one_line(error: BaseException) -> str:
    """An error as one line; a pydantic validation error as ``field: problem`` pairs.

    >>> one_line(ValueError("bad   value"))
    'bad value'
    """
    cause = error.__cause__
    if isinstance(cause, ValidationError):
        return "; ".join(f"field {'.'.join(str(part) for part in item['loc']) or 'file'}: "
                         f"{item['msg']}" for item in cause.errors())
    if isinstance(cause, tomllib.TOMLDecodeError):
        return f"not valid TOML: {cause}"
    return " ".join(str(error).split())


def check_strategy(rules: Rules, strategy: Strategy) -> None:
    """Refuse arrays of the wrong size or with a decision the rules do not allow (the
    kernels read them without bounds checks)."""
    try:
        if isinstance(rules, FlushRules):
            flush.check_strategy(rules, strategy)
        elif isinstance(rules, NineCardRules):
            nine.check_strategy(strategy)
        else:
            assert isinstance(rules, HoldemStudRules)
            holdem.check_strategy(rules, strategy)
    except ValueError as error:
        raise ValueError(f"--strategy: {error}") from None


_OPTIMAL: dict[str, Strategy] = {}
STRATEGY_ARRAYS: Final = ("table", "table2", "table3", "keys", "values")


def optimal_strategy(rules: Rules) -> Strategy:
    """The analysis's optimal strategy as arrays: derived once per rule set (fingerprint)
    and kept in the derived-data cache (:mod:`feltlab.cache`)."""
    key = rules.fingerprint
    if key not in _OPTIMAL:
        def build() -> dict[str, Any]:
            with step("preparing the optimal strategy", note=cache.kept()):
                strategy = _game_module(rules).optimal_strategy(rules)
            return {name: getattr(strategy, name) for name in STRATEGY_ARRAYS}

        arrays = cache.load_or_build("optimal-strategy", key, build, notice)
        _OPTIMAL[key] = Strategy("optimal", **{name: arrays[name] for name in STRATEGY_ARRAYS},
                                 optimal=True)
    return _OPTIMAL[key]


def exact_edges(rules: Rules, strategy: Strategy, mistake_threshold: int,
                stakes: Mapping[str, int]) -> dict[str, Fraction]:
    """:func:`derive_exact_edges`, kept in the derived-data cache for the optimal strategy
    and the strategy card (a strategy file is derived again each run)."""
    if not strategy.optimal and strategy.name != "simple":
        return derive_exact_edges(rules, strategy, mistake_threshold, stakes)
    key = json.dumps([rules.fingerprint, strategy.name, strategy.optimal, mistake_threshold,
                      sorted(stakes.items())])

    def build() -> dict[str, Any]:
        with step("computing the exact house edges", note=cache.kept()):
            edges = derive_exact_edges(rules, strategy, mistake_threshold, stakes)
        return {"edges": cache.fractions_array(edges)}

    return cache.fractions_of(cache.load_or_build("exact-edges", key, build, notice)["edges"])


def derive_exact_edges(rules: Rules, strategy: Strategy, mistake_threshold: int,
                       stakes: Mapping[str, int]) -> dict[str, Fraction]:
    """Every exact house edge the analysis gives for this rule set, strategy, mistake rate
    and these bets, ``total`` included (see :data:`TOTAL_UNIT`).

    ``total`` is exact for the optimal strategy without mistakes (the analysis's capped
    returns), and otherwise only when every wager is exact and no cap applies (then it is
    the stake-weighted mean of the wagers' edges).
    """
    mistake = Fraction(mistake_threshold, 1 << 32)
    module = _game_module(rules)
    edges: dict[str, Fraction] = {name: edge for name, edge in
                                  module.exact_edges(rules, strategy, mistake).items()
                                  if name in stakes}
    if strategy.optimal and mistake == 0:
        edges["total"] = module.capped_total(rules, dict(stakes))
    elif set(edges) == set(stakes) and rules.max_aggregate_payout is None:
        edges["total"] = sum((stake * edges[name] for name, stake in stakes.items()),
                             Fraction(0)) / sum(stakes.values())
    return edges




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


def prepare(rules: Rules, *, seats: int = 1, bets: Mapping[str, int] | None = None,
            strategy: str | Strategy = "optimal", mistakes: float = 0.0,
            with_exact: bool = True) -> Setup:
    """Check the bets against the rule set and turn everything into kernel arrays."""
    if not 1 <= seats <= rules.seats:
        raise ValueError(f"--seats: {rules.id} seats 1 to {rules.seats}, not {seats}")
    stakes = check_wagers(rules, dict(default_bets(rules) if bets is None else bets))
    chosen = strategy if isinstance(strategy, Strategy) else load_strategy(rules, strategy)
    check_strategy(rules, chosen)
    threshold = probability_threshold(mistakes)
    module = _game_module(rules)
    game = {flush: kernel.FLUSH, nine: kernel.NINE, holdem: kernel.HOLDEM}[module]
    params = module.params(rules, stakes, threshold)
    names: tuple[str, ...] = module.WAGERS
    units = tuple(sum(stakes.values()) if name == "total" else stakes.get(name, 0)
                  for name in names)
    exact = exact_edges(rules, chosen, threshold, stakes) if with_exact else {}
    return Setup(rules, game, seats, stakes, chosen, params, names, units,
                 module.COUNTER_NAMES, mistakes, exact)


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
    return -(-rounds // kernel.CHUNK_ROUNDS)


def run_chunks(setup: Setup, seed: int, first: int, count: int, rounds: int
               ) -> tuple[I64, I64]:
    """Chunks ``first .. first + count - 1`` of a ``rounds``-round run, summed over chunks."""
    stats, counters = kernel.simulate_chunks(setup.game, seed, first, count, rounds,
                                             setup.seats, len(setup.wager_names),
                                             *setup.arrays)
    # Python integers from here on: a sum over chunks may pass 64 bits.
    return stats.astype(object).sum(axis=0), counters.astype(object).sum(axis=0)


def _rounds_in(first: int, count: int, rounds: int) -> int:
    return min(rounds, (first + count) * kernel.CHUNK_ROUNDS) - first * kernel.CHUNK_ROUNDS


def _result(setup: Setup, seed: int, rounds: int, seconds: float, stats: list[list[int]],
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


def available_threads(workers: int | None) -> int:
    """Threads to use: ``workers`` (refused outside 1 to the cores), default all cores."""
    return threads_for(workers)


def load_kernels(setup: Setup, seed: int) -> None:
    """Load the compiled simulator, compiling it if this code has never run here (its
    time is reported apart from the simulation's)."""
    with step("loading the compiled simulator", note=COMPILING) as loading, cached_kernels():
        run_chunks(setup, seed, 0, 1, 1)
        compiled(loading, kernel.simulate_chunks, "compiling the simulator")


def warn_if_long(done: int, total: int, seconds: float, what: str) -> None:
    """After the first batch: say so when the whole run will take long."""
    if done and seconds * total / done > LONG_RUN_SECONDS:
        say(f"{total:,} {what} will take about {duration(seconds * total / done)} "
            "(Ctrl-C stops early and reports what was done)")


def simulate(setup: Setup, rounds: int, seed: int = 0, workers: int | None = None,
             progress: Progress | None = None, cluster: str | None = None
             ) -> SimulationResult:
    """Deal ``rounds`` rounds; Ctrl-C stops after the current batch with what was done."""
    check_simulate(rounds, seed, workers)
    if cluster is not None:
        from feltlab.simulate.cluster import simulate_on_ray

        return simulate_on_ray(setup, rounds, seed, cluster, progress)
    threads = available_threads(workers)
    nb.set_num_threads(threads)
    load_kernels(setup, seed)
    chunks = chunk_count(rounds)
    batch = max(1, 4 * threads)
    stats = [[0] * STATS for _ in setup.wager_names]
    counters = [0] * len(setup.counter_names)
    done_rounds = 0
    interrupted = False
    start = time.perf_counter()
    with step("simulating", total=rounds) as simulating:
        try:
            for first in range(0, chunks, batch):
                count = min(batch, chunks - first)
                part, tally = run_chunks(setup, seed, first, count, rounds)
                stats = [[a + int(b) for a, b in zip(row, new, strict=True)]
                         for row, new in zip(stats, part.tolist(), strict=True)]
                counters = [a + int(b) for a, b in zip(counters, tally, strict=False)]
                done_rounds += _rounds_in(first, count, rounds)
                if first == 0:
                    warn_if_long(done_rounds, rounds, time.perf_counter() - start, "rounds")
                simulating(done_rounds, rounds)
                if progress is not None:
                    progress(done_rounds, rounds)
        except KeyboardInterrupt:
            interrupted = True
    seconds = time.perf_counter() - start
    return _result(setup, seed, done_rounds, seconds, stats, counters, interrupted)
