"""The simulator's hardening: every flag outside its documented bound is refused in one
line, the standard error is right when pays are huge, and no 64-bit accumulator of the
compiled kernels can overflow under the rule-set bounds."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

from conftest import assert_refused, run_cli
from feltlab.core.rules import MAX_HAND_NET, load_rules
from feltlab.core.simkit import S_WINS, SMALL_NET, STATS, add_square, square_sum
from feltlab.simulate import kernel
from feltlab.simulate.limits import (
    MAX_BANKROLL,
    MAX_ROUNDS,
    MAX_SEED,
    MAX_SESSION_HANDS,
    MAX_SESSIONS,
    most_workers,
)
from feltlab.simulate.runner import prepare, simulate
from feltlab.simulate.session import run_sessions

INT64 = 2**63 - 1
HCF = ["simulate", "high-card-flush"]
SESSION = ["session", "high-card-flush"]


@pytest.mark.parametrize(("args", "fragment"), [
    ([*HCF, "--hands", "0"], "--hands must be 1 to 1,000,000,000,000, not 0"),
    ([*HCF, "--hands", str(MAX_ROUNDS + 1)], "--hands"),
    ([*HCF, "--hands", "9223372036854775808"], "--hands"),
    ([*HCF, "--hands", "-5"], "--hands"),
    ([*HCF, "--seed", "-1"], "--seed must be 0 to"),
    ([*HCF, "--seed", "18446744073709551616"], "--seed"),
    ([*HCF, "--workers", "0"], "--workers must be 1 to"),
    ([*HCF, "--workers", "-1"], "--workers"),
    ([*HCF, "--workers", "1000"], "--workers"),
    ([*SESSION, "--bankroll", str(10 ** 30)], "--bankroll must be 1 to"),
    ([*SESSION, "--bankroll", "0"], "--bankroll"),
    ([*SESSION, "--sessions", "0"], "--sessions"),
    ([*SESSION, "--sessions", str(MAX_SESSIONS + 1)], "--sessions"),
    ([*SESSION, "--hands", str(MAX_SESSION_HANDS + 1)], "--hands must be 1 to 1,000,000"),
    ([*SESSION, "--seed", str(MAX_SEED + 1)], "--seed"),
    ([*SESSION, "--workers", str(most_workers() + 1)], "--workers"),
    ([*SESSION, "--hands-per-hour", "0"], "--hands-per-hour"),
])
def test_out_of_range_flags_are_refused_in_one_line(args: list[str], fragment: str) -> None:
    outcome = run_cli(args)
    assert_refused(outcome, fragment)
    assert len(outcome.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("threads", [None, "1", "not a number"])
def test_the_cores_are_counted_as_numba_counts_them_before_it_loads(threads: str | None
                                                                     ) -> None:
    """``--workers`` is checked without importing Numba, against the count Numba takes
    once loaded (``NUMBA_NUM_THREADS`` when it is a whole number, else the cores)."""
    import subprocess
    import sys

    script = ("import sys, warnings; warnings.simplefilter('ignore'); "
              "from feltlab.simulate.limits import most_workers; "
              "before = most_workers(), 'numba' in sys.modules; import numba; "
              "print(*before, most_workers(), numba.config.NUMBA_NUM_THREADS)")
    env = {key: value for key, value in os.environ.items() if key != "NUMBA_NUM_THREADS"}
    if threads is not None:
        env["NUMBA_NUM_THREADS"] = threads
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, check=True)
    counted, loaded, after, numba_count = done.stdout.split()
    assert loaded == "False" and counted == after == numba_count, done.stdout


def test_the_largest_seed_and_bankroll_are_accepted() -> None:
    outcome = run_cli([*HCF, "--hands", "1000", "--seed", str(MAX_SEED), "--json"])
    assert outcome.exit_code == 0, outcome.stderr
    outcome = run_cli([*SESSION, "--hands", "10", "--sessions", "3", "--bankroll",
                       str(MAX_BANKROLL), "--json"])
    assert outcome.exit_code == 0, outcome.stderr
    assert outcome.json()["ruin_probability"] == 0


def test_json_carries_the_rule_set_identity() -> None:
    rules = load_rules("high-card-flush")
    for args in ([*HCF, "--hands", "1000"], [*SESSION, "--hands", "5", "--sessions", "3"]):
        data = run_cli([*args, "--json"]).json()
        assert {key: data[key] for key in ("rules", "fingerprint", "modified")} == \
            rules.identity()


def test_text_output_names_wagers_and_decisions_readably() -> None:
    out = run_cli(["simulate", "nh-holdem-stud", "--hands", "20000"]).stdout
    assert "3 Card Bonus" in out and "bonus3" not in out
    assert "fold at the 1st bet" in out and "showdown" in out
    out = run_cli(["simulate", "nine-card-flush", "--hands", "20000"]).stdout
    assert "All 9" in out and "all9" not in out.split("total:")[0]
    out = run_cli([*HCF, "--hands", "20000"]).stdout
    assert "fold " in out and "raise 1x " in out and "raise_1x=" not in out


def test_session_says_the_bets_the_default_bankroll_and_one_win_per_hour() -> None:
    out = run_cli([*SESSION, "--hands", "20", "--sessions", "50"]).stdout
    assert "Ante 1, Flush bonus 1, Straight Flush bonus 1" in out
    assert "300 (the default" in out  # 50 hands at 6 units, the most one hand can cost
    assert "loss" not in out.lower().replace("the player loses", "")
    assert out.count("casino's win an hour") == 2


# Standard error with huge pays -------------------------------------------------------------

def test_square_sums_are_exact_for_huge_nets() -> None:
    rng = np.random.default_rng(5)
    nets = [int(n) for n in rng.integers(-(2**46), 2**46, 2000)] + [SMALL_NET, -SMALL_NET + 1]
    row = [0] * STATS
    for net in nets:
        add_square(row, net)
    assert square_sum(row) == sum(net * net for net in nets)


def test_standard_error_is_right_when_a_straight_flush_pays_forty_million() -> None:
    """3-card straight flush paying 4e7 (beyond MAX_PAY: built with model_construct, as a
    rule set at the bounds would be): the kernel's exact sums of squares give the same
    standard error as a brute-force sample variance of the same rounds' nets."""
    base = load_rules("nh-flush-poker")
    pays = {line: 40_000_000 for line in base.straight_flush_pays}
    rules = base.model_copy(update={"straight_flush_pays": pays})
    stake = 10
    setup = prepare(rules, bets={"ante": 1, "straight_flush": stake},
                    with_exact=False)
    rounds = 200_000
    result = simulate(setup, rounds, seed=11)
    wager = result.wager("straight_flush")
    assert wager.wins > 100  # hit often: the sum of squares passes 64 bits
    nets = _brute_force_nets(setup, rounds, 11)[:, setup.wager_names.index("straight_flush")]
    assert int(nets.sum()) == wager.net_sum
    assert sum(int(n) * int(n) for n in nets) == wager.net_square_sum > INT64
    expected = float(np.std(nets.astype(np.float64), ddof=1)) / math.sqrt(rounds) / stake
    assert wager.std_error == pytest.approx(expected, rel=1e-9)


def _brute_force_nets(setup, rounds: int, seed: int) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Every round's nets, dealt from the same streams as the simulator's chunks."""
    from feltlab.core.rng import draw_cards, new_deck, stream_state

    out = []
    cards = setup.cards
    for chunk in range(-(-rounds // kernel.CHUNK_ROUNDS)):
        state = stream_state(seed, chunk)
        deck = new_deck()
        count = min(kernel.CHUNK_ROUNDS, rounds - chunk * kernel.CHUNK_ROUNDS)
        decks = np.empty((count, 52), dtype=np.uint8)
        for i in range(count):
            draw_cards(state, deck, cards)
            decks[i] = deck
        nets = setup.kernels.replay_decks(decks, setup.seats, len(setup.wager_names),
                                          *setup.arrays)
        out.append(nets.sum(axis=1))
    return np.concatenate(out)


# The 64-bit accumulators cannot overflow ----------------------------------------------------

def test_the_simulator_accumulators_fit_64_bits_under_the_rule_set_bounds() -> None:
    """Every kernel accumulator, at its worst, under rules.MAX_HAND_NET."""
    most_seats = 24  # Hold'em Stud: 2 x 24 + 3 community cards = 51 cards
    round_net = most_seats * MAX_HAND_NET  # one round's net, all seats together
    assert round_net < 2**47
    chunk = kernel.CHUNK_ROUNDS
    # the sum of the round nets of a chunk
    assert chunk * round_net < INT64
    # squares: small nets straight into one slot; large ones in 16-bit digit products
    assert chunk * (SMALL_NET - 1) ** 2 < INT64
    a, b, c = round_net >> 32, 2**16 - 1, 2**16 - 1
    assert chunk * max(c * c, 2 * b * c, 2 * a * c + b * b, 2 * a * b, a * a) < INT64
    # wins, pushes, losses and counters: one per seat-hand of a chunk
    assert chunk * most_seats < INT64 and S_WINS + 3 == STATS
    # a session's bankroll: the largest bankroll plus every hand won at the bound
    assert MAX_BANKROLL + MAX_SESSION_HANDS * MAX_HAND_NET < INT64
    assert 2 * MAX_BANKROLL < INT64  # the doubling test
    # sums over chunks and sessions are Python integers (no bound needed)


def test_a_session_at_the_bounds_keeps_exact_bankrolls() -> None:
    setup = prepare(load_rules("high-card-flush"),
                    bets={"ante": 1000, "flush": 100, "straight_flush": 100}, with_exact=False)
    result = run_sessions(setup, MAX_BANKROLL, 200, 50, seed=2)
    assert (result.final > MAX_BANKROLL - 200 * setup.most_at_risk).all()
    assert result.stats.ruined == 0


@pytest.mark.skipif(os.environ.get("CI") == "true" and (os.cpu_count() or 1) < 2,
                    reason="needs two cores")
def test_workers_are_used_as_given() -> None:
    setup = prepare(load_rules("nine-card-flush"), with_exact=False)
    one = simulate(setup, 100_000, seed=4, workers=1)
    every = simulate(setup, 100_000, seed=4, workers=most_workers())
    assert [w.net_sum for w in one.wagers] == [w.net_sum for w in every.wagers]


def test_a_long_run_says_so_before_it_goes_on(monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    from feltlab.simulate import runner

    monkeypatch.setattr(runner, "LONG_RUN_SECONDS", 0.0)
    setup = prepare(load_rules("nine-card-flush"), with_exact=False)
    simulate(setup, 300_000, seed=1)
    assert "300,000 rounds will take about" in capsys.readouterr().err


def test_a_step_over_a_second_shows_itself_on_stderr(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    import time

    from feltlab.core import status

    monkeypatch.setattr(status, "DELAY", 0.05)
    status.reset()
    with status.step("waiting", note="once") as waiting:
        time.sleep(0.2)
        waiting(1, 2)
    err = capsys.readouterr().err
    assert "feltlab: waiting (once)..." in err and "feltlab: waiting: done in" in err
    assert status.timings()[0][0] == "waiting" and status.one_time("waiting")


def test_session_histograms_stay_bounded_and_exact_while_they_can(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from feltlab.simulate import histogram

    exact = histogram.Histogram()
    values = np.random.default_rng(3).integers(-500, 500, 20_000)
    for part in np.array_split(values, 7):
        exact.add(part)
    assert exact.width == 1 and exact.count == values.size
    assert exact.percentiles() == {f"p{p}": float(v) for p, v in zip(
        histogram.PERCENTILES, np.percentile(values, histogram.PERCENTILES), strict=True)}
    monkeypatch.setattr(histogram, "MAX_DISTINCT", 64)
    coarse = histogram.Histogram()
    for part in np.array_split(values, 7):
        coarse.add(part)
    assert coarse.values.size <= 64 and coarse.count == values.size
    assert coarse.width in (16, 32)
    for point, value in coarse.percentiles().items():
        assert abs(value - float(np.percentile(values, int(point[1:])))) <= coarse.width
