"""Simulation against the exact house edges, and reproducibility from the seed."""

from __future__ import annotations

import pytest

from feltlab.core.rules import load_rules
from feltlab.simulate.limits import most_workers
from feltlab.simulate.runner import prepare, simulate
from shipped import own_ids

ROUNDS = 1_000_000
LONG_ROUNDS = 20_000_000

# Compiling a round loop that takes a game's round as a function value warns.
pytestmark = pytest.mark.filterwarnings(
    "ignore::numba.core.errors.NumbaExperimentalFeatureWarning")


def _agrees(rules_id: str, rounds: int, seed: int, seats: int = 1,
            strategy: str = "optimal") -> None:
    setup = prepare(load_rules(rules_id), seats=seats, strategy=strategy)
    result = simulate(setup, rounds, seed=seed)
    assert result.rounds == rounds and not result.interrupted
    checked = [w for w in result.wagers if w.exact is not None]
    assert checked
    for wager in checked:
        assert wager.z_score is not None
        assert abs(wager.z_score) < 4, (wager.name, float(wager.house_edge),
                                        float(wager.exact), wager.std_error)


def test_every_wager_has_an_exact_value() -> None:
    """The optimal strategy and the strategy card: every wager and the total (the
    analysis gives each, see test_simulate_exact)."""
    for rules_id in own_ids():
        rules = load_rules(rules_id)
        assert set(prepare(rules).exact) == {*prepare(rules).bets, "total"}, rules_id
        simple = prepare(rules, strategy="simple")
        expected = set(simple.bets) | ({"total"} if rules.max_aggregate_payout is None else
                                       set())
        assert set(simple.exact) == expected, rules_id


@pytest.mark.parametrize("rules_id", own_ids())
def test_simulation_agrees_with_exact_values(rules_id: str) -> None:
    _agrees(rules_id, ROUNDS, seed=2026)


@pytest.mark.parametrize("rules_id", own_ids())
def test_strategy_card_agrees_with_its_exact_values(rules_id: str) -> None:
    _agrees(rules_id, ROUNDS // 2, seed=11, strategy="simple")


def test_full_table_agrees() -> None:
    """Seats share the dealer: the standard error accounts for it."""
    _agrees("high-card-flush", ROUNDS // 4, seed=7, seats=6)


@pytest.mark.slow
@pytest.mark.parametrize("rules_id", own_ids())
def test_twenty_million_rounds_agree(rules_id: str) -> None:
    _agrees(rules_id, LONG_ROUNDS, seed=20)


@pytest.mark.skipif(most_workers() < 2, reason="one core: the simulator takes one worker")
def test_seed_reproduces_the_run_whatever_the_workers() -> None:
    setup = prepare(load_rules("nine-card-flush"), seats=3)
    one = simulate(setup, 300_000, seed=99, workers=1)
    two = simulate(setup, 300_000, seed=99, workers=2)
    other = simulate(setup, 300_000, seed=100, workers=2)
    assert [w.net_sum for w in one.wagers] == [w.net_sum for w in two.wagers]
    assert [w.net_square_sum for w in one.wagers] == [w.net_square_sum for w in two.wagers]
    assert one.counters == two.counters
    assert [w.net_sum for w in one.wagers] != [w.net_sum for w in other.wagers]


def test_chunks_merge_exactly() -> None:
    """A run equals the sum of its halves run as separate chunk ranges."""
    from feltlab.core.simkit import S_WINS
    from feltlab.simulate.kernel import CHUNK_ROUNDS
    from feltlab.simulate.runner import run_chunks

    setup = prepare(load_rules("high-card-flush"), strategy="simple", with_exact=False)
    rounds = 3 * CHUNK_ROUNDS + 5
    whole, _ = run_chunks(setup, 4, 0, 4, rounds)
    first, _ = run_chunks(setup, 4, 0, 1, rounds)
    rest, _ = run_chunks(setup, 4, 1, 3, rounds)
    assert (whole == first + rest).all()
    assert int(whole[0, S_WINS:].sum()) == rounds


def test_ctrl_c_stops_cleanly_with_what_was_done() -> None:
    setup = prepare(load_rules("nine-card-flush"), strategy="simple", with_exact=False)
    calls = []

    def progress(done: int, total: int) -> None:
        calls.append(done)
        if len(calls) == 2:
            raise KeyboardInterrupt

    result = simulate(setup, 5_000_000, seed=1, workers=1, progress=progress)
    assert result.interrupted
    assert result.rounds == calls[-1] < 5_000_000
    main = result.wagers[0]
    assert main.wins + main.pushes + main.losses == result.rounds


def test_mistakes_cost_the_player() -> None:
    rules = load_rules("nine-card-flush")
    clean = prepare(rules)
    sloppy = prepare(rules, mistakes=0.25)
    assert sloppy.exact["all9"] > clean.exact["all9"]
    result = simulate(sloppy, 500_000, seed=3)
    wager = result.wager("all9")
    assert wager.z_score is not None and abs(wager.z_score) < 4
    flush_result = simulate(prepare(load_rules("high-card-flush"), mistakes=0.2,
                                    with_exact=False), 500_000, seed=3)
    clean_flush = simulate(prepare(load_rules("high-card-flush"), with_exact=False), 500_000,
                           seed=3)
    assert flush_result.wager("ante").house_edge > clean_flush.wager("ante").house_edge
