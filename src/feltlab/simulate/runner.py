"""Set up and run a table simulation: rule set, bets and strategy in; estimates out.

The chunks of a run (:mod:`feltlab.simulate.chunks`) run on local threads (Numba) or on a
Ray cluster (:mod:`feltlab.simulate.cluster`); a seed gives the same result whatever the
number of workers.
"""

from __future__ import annotations

import json
import time
import tomllib
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any, Final

import numba as nb
from pydantic import ValidationError

import feltlab.core.cache as cache
from feltlab.analysis import read_strategy_text
from feltlab.core.family import family_of, provides
from feltlab.core.jit import cached_kernels
from feltlab.core.rng import probability_threshold
from feltlab.core.rules import Rules
from feltlab.core.simkit import STATS, Strategy
from feltlab.core.status import COMPILING, compiled, notice, say, step
from feltlab.simulate.chunks import (
    Progress,
    Setup,
    SimulationResult,
    chunk_count,
    result_of,
    rounds_in,
    run_chunks,
)
from feltlab.simulate.limits import (
    LONG_RUN_SECONDS,
    check_simulate,
    check_strategy_name,
    check_table,
    duration,
    threads_for,
)


def load_strategy(rules: Rules, name: str) -> Strategy:
    """``optimal``, ``simple`` (the analysis's strategy card) or a strategy file in the
    analysis's TOML format for the rule set's game (its family's kernel reads it).

    A bad file raises ``ValueError`` with a one-line message naming what is wrong."""
    if name == "optimal":
        return optimal_strategy(rules)
    if name == "simple":
        return family_of(rules).kernel.simple_strategy(rules)
    check_strategy_name(name)
    path = Path(name)
    try:
        read_strategy_text(rules, path)  # made for this game and rule set
        return family_of(rules).kernel.file_strategy(rules, path)
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
        family_of(rules).kernel.check_strategy(rules, strategy)
    except ValueError as error:
        raise ValueError(f"--strategy: {error}") from None


_OPTIMAL: dict[str, Strategy] = {}
STRATEGY_ARRAYS: Final = ("table", "table2", "table3", "keys", "values")


def optimal_strategy(rules: Rules) -> Strategy:
    """The analysis's optimal strategy as arrays: derived once per rule set (fingerprint)
    and kept in the derived-data cache (:mod:`feltlab.core.cache`)."""
    key = f"{rules.fingerprint}-{cache.family_version(family_of(rules))}"
    if key not in _OPTIMAL:
        def build() -> dict[str, Any]:
            with step("preparing the optimal strategy", note=cache.kept()):
                strategy = family_of(rules).kernel.optimal_strategy(rules)
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
    key = json.dumps([rules.fingerprint, cache.family_version(family_of(rules)), strategy.name,
                      strategy.optimal, mistake_threshold,
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
    game = family_of(rules).kernel
    edges: dict[str, Fraction] = {name: edge for name, edge in
                                  game.exact_edges(rules, strategy, mistake).items()
                                  if name in stakes}
    if strategy.optimal and mistake == 0:
        edges["total"] = game.capped_total(rules, dict(stakes))
    elif set(edges) == set(stakes) and rules.max_aggregate_payout is None:
        edges["total"] = sum((stake * edges[name] for name, stake in stakes.items()),
                             Fraction(0)) / sum(stakes.values())
    return edges




def prepare(rules: Rules, *, seats: int = 1, bets: Mapping[str, int] | None = None,
            strategy: str | Strategy = "optimal", mistakes: float = 0.0,
            with_exact: bool = True, engine: bool = False) -> Setup:
    """Check the bets against the rule set and turn everything into kernel arrays; for a
    game without a compiled kernel (or with ``engine``), a run through the engine
    (:mod:`feltlab.simulate.engine_path`)."""
    stakes = check_table(rules, seats, bets)
    if engine or strategy == "default" or not provides(rules, "kernel"):
        from feltlab.simulate.engine_path import engine_setup

        name = strategy if isinstance(strategy, str) else strategy.name
        return engine_setup(rules, seats, stakes, name, mistakes, with_exact)
    threshold = probability_threshold(mistakes)  # before the strategy: it may take seconds
    chosen = strategy if isinstance(strategy, Strategy) else load_strategy(rules, strategy)
    check_strategy(rules, chosen)
    game = family_of(rules).kernel
    params = game.params(rules, stakes, threshold)
    names = game.WAGERS
    units = tuple(sum(stakes.values()) if name == "total" else stakes.get(name, 0)
                  for name in names)
    exact = exact_edges(rules, chosen, threshold, stakes) if with_exact else {}
    return Setup(rules, seats, stakes, chosen, params, names, units, game.COUNTER_NAMES,
                 mistakes, exact)


def available_threads(workers: int | None) -> int:
    """Threads to use: ``workers`` (refused outside 1 to the cores), default all cores."""
    return threads_for(workers)


def load_kernels(setup: Setup, seed: int) -> None:
    """Load the compiled simulator, compiling it if this code has never run here (its
    time is reported apart from the simulation's)."""
    with step("loading the compiled simulator", note=COMPILING) as loading, cached_kernels():
        run_chunks(setup, seed, 0, 1, 1)
        compiled(loading, setup.kernels.simulate_chunks, "compiling the simulator")


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
    if setup.policy is not None:
        if cluster is not None:
            raise ValueError("--cluster: a game without a compiled kernel runs on this "
                             "machine only")
        from feltlab.simulate.engine_path import simulate_engine

        return simulate_engine(setup, rounds, seed, progress)
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
                done_rounds += rounds_in(first, count, rounds)
                if first == 0:
                    warn_if_long(done_rounds, rounds, time.perf_counter() - start, "rounds")
                simulating(done_rounds, rounds)
                if progress is not None:
                    progress(done_rounds, rounds)
        except KeyboardInterrupt:
            interrupted = True
    seconds = time.perf_counter() - start
    return result_of(setup, seed, done_rounds, seconds, stats, counters, interrupted)
