"""Game protection (``feltlab protect``): the lone seat reproduces the analysis's house
edge exactly for every rule set; fully-informed cases against plain enumeration; each
sampled state's value against brute force settled by :mod:`feltlab.core.settle`; Monte
Carlo against exact figures; seeds, workers and the command line."""

from __future__ import annotations

import itertools
import json
import math
import random
from fractions import Fraction
from pathlib import Path

import numba as nb
import numpy as np
import pytest
from typer.testing import CliRunner

from feltlab.analysis import analyze
from feltlab.cli import app
from feltlab.core.cards import Card, full_deck
from feltlab.core.rules import load_rules
from feltlab.games.high_card_flush import protect as protect_flush
from feltlab.games.high_card_flush.decisions import max_raise_by_length
from feltlab.games.high_card_flush.rules import FlushRules
from feltlab.games.high_card_flush.settle import settle_flush
from feltlab.games.holdem_stud import protect as protect_stud
from feltlab.games.holdem_stud.rules import HoldemStudRules
from feltlab.games.nine_card_flush import protect as protect_nine
from feltlab.games.nine_card_flush.rules import NineCardRules
from feltlab.protect import Case, check_case, default_cases, evaluate_case, protect
from shipped import own_ids

runner = CliRunner()


# The lone seat is the house edge, exactly ----------------------------------------------

@pytest.mark.parametrize("rules_id", own_ids())
def test_one_seat_reproduces_the_exact_house_edge(rules_id: str) -> None:
    rules = load_rules(rules_id)
    result = evaluate_case(rules, Case(), deals=1, seed=0)
    assert result.exact and result.std_error == 0
    assert result.player_edge == -analyze(rules).wagers[0].house_edge


def test_nine_card_colluders_gain_nothing() -> None:
    rules = load_rules("nine-card-flush")
    edges = {evaluate_case(rules, Case(k), 1, 0).player_edge for k in range(1, rules.seats + 1)}
    assert edges == {-analyze(rules).wagers[0].house_edge}
    assert "nothing" in protect_nine.NO_GAIN


# Fully informed cases against plain enumeration ----------------------------------------

def test_stud_with_the_whole_board_seen_equals_plain_enumeration() -> None:
    """Knowing all 3 community cards: bet the most on every street when the hand wins,
    play a push, fold a loser at once; every 5-card set is 60 ordered deals."""
    from feltlab.games.holdem_stud.analysis import net_multiples
    from feltlab.games.holdem_stud.solver import five_card_classes

    rules = load_rules("nh-holdem-stud")
    assert isinstance(rules, HoldemStudRules)
    top = 1 + rules.streets * rules.max_street_multiple
    per_class = [top * net if net > 0 else (0 if net == 0 else -1)
                 for net in net_multiples(rules)]
    counts = np.bincount(five_card_classes(), minlength=len(per_class))
    total = sum(int(count) * value for count, value in zip(counts, per_class, strict=True))
    plain = Fraction(60 * total, math.comb(52, 2) * 50 * 49 * 48)
    assert protect_stud.exact_single(rules, Case(1, 0, 3)).player_edge == plain


def test_nine_with_all_six_cards_seen_equals_plain_enumeration() -> None:
    from feltlab.games.nine_card_flush.deals import DEALS, all9_signs, all_deals

    rules = load_rules("nine-card-flush")
    assert isinstance(rules, NineCardRules)
    signs = all9_signs(rules)
    plain = Fraction(sum(deal.count * max(-1, 2 * signs[deal.nine]) for deal in all_deals()),
                     DEALS)
    assert protect_nine.own_cards_seen(rules, Case(1, 0, 6)).player_edge == plain
    assert protect_nine.own_cards_seen(rules, Case(1, 0, 0)).player_edge == \
        -analyze(rules).wagers[0].house_edge


# Each sampled state against brute force --------------------------------------------------

def test_colluders_state_value_equals_brute_force_settlement() -> None:
    """Six seats' 42 cards: each seat's best EV over the C(10, 7) = 120 dealer hands,
    every hand settled, then less the seat's lone value (the control variate)."""
    rules = load_rules("high-card-flush")
    assert isinstance(rules, FlushRules)
    most = max_raise_by_length(rules)
    from feltlab.analysis import advise
    from feltlab.core.evaluators import best_flush

    for seed in range(2):
        deck = list(full_deck())
        random.Random(seed).shuffle(deck)
        array = np.array([card.index for card in deck], dtype=np.uint8)
        got = protect_flush.deal_value(array, 6, 0, rules.qualifier.threshold, most,
                                       protect_flush.fk.BINOM)
        unseen = deck[42:]
        expected = Fraction(0)
        for seat in range(6):
            hand = deck[7 * seat:7 * seat + 7]
            raises = range(1, rules.max_raise_multiple(best_flush(hand).length) + 1)
            options = [Fraction(-1)] + [
                Fraction(sum(settle_flush(rules, {"ante": 1}, hand, list(dealer), size).total
                             for dealer in itertools.combinations(unseen, 7)), 120)
                for size in raises]
            alone = max(option.ev for option in advise(rules, hand).options)
            expected += max(options) - alone
        assert got == pytest.approx(float(expected / 6), abs=1e-12)


def test_stud_colluder_state_value_equals_the_checked_advisor() -> None:
    """A colluding seat's value with no look-ahead is the best option of the advisor with
    the other seats' cards dead (the advisor is checked against brute force)."""
    from feltlab.analysis import advise
    from feltlab.games.holdem_stud.known import lookahead_schedule

    rules = load_rules("nh-holdem-stud")
    assert isinstance(rules, HoldemStudRules)
    arguments = protect_stud._kernel_arguments(rules)
    for seed in range(3):
        deck = list(full_deck())
        random.Random(10 + seed).shuffle(deck)
        own, dead = deck[:2], deck[2:2 + 4 + 2 * seed]
        value = protect_stud.seat_value(
            np.array([card.index for card in own], dtype=np.int64),
            np.array([card.index for card in dead], dtype=np.int64),
            lookahead_schedule(0), *arguments)
        scale = math.perm(50 - len(dead), 3)
        best = max(option.ev for option in advise(rules, own, dead=dead).options)
        assert Fraction(int(value), scale) == best


# Monte Carlo against exact ---------------------------------------------------------------

def test_flush_monte_carlo_agrees_with_the_exact_dealer_known_case() -> None:
    rules = load_rules("high-card-flush")
    assert isinstance(rules, FlushRules)
    exact = protect_flush.dealer_known(rules, Case(1, 7))
    sampled = protect_flush.sample(rules, Case(1, 7), 100_000, 3)
    assert not sampled.exact and sampled.states == 100_000
    assert abs(sampled.edge - exact.edge) < 4 * sampled.std_error
    assert sampled.std_error < 0.01


def test_stud_monte_carlo_agrees_with_the_exact_lookahead_case() -> None:
    rules = load_rules("nh-holdem-stud")
    assert isinstance(rules, HoldemStudRules)
    exact = protect_stud.exact_single(rules, Case(1, 0, 1))
    sampled = protect_stud.sample(rules, Case(1, 0, 1), 300, 5)
    assert abs(sampled.edge - exact.edge) < 4 * sampled.std_error


def test_a_seed_gives_the_same_estimate_on_any_number_of_workers() -> None:
    rules = load_rules("high-card-flush")
    assert isinstance(rules, FlushRules)
    threads = nb.get_num_threads()
    try:
        nb.set_num_threads(1)
        one = protect_flush.sample(rules, Case(3), 50_000, 9)
        nb.set_num_threads(max(1, int(nb.config.NUMBA_NUM_THREADS)))  # type: ignore[attr-defined]
        many = protect_flush.sample(rules, Case(3), 50_000, 9)
    finally:
        nb.set_num_threads(threads)
    assert one.player_edge == pytest.approx(many.player_edge, abs=1e-12)
    assert one.std_error == pytest.approx(many.std_error, rel=1e-9)


def test_colluders_gain_and_more_seats_gain_more() -> None:
    rules = load_rules("high-card-flush")
    two = evaluate_case(rules, Case(2), 50_000, 1)
    six = evaluate_case(rules, Case(6), 50_000, 1)
    lone = evaluate_case(rules, Case(), 1, 1)
    assert lone.edge < two.edge < six.edge
    # Wizard of Odds publishes about +7.3% for six colluders (Monte Carlo): a sanity check
    assert 0.065 < six.edge < 0.080


# Cases and the command line --------------------------------------------------------------

def test_cases_the_rule_sets_allow() -> None:
    flush = load_rules("high-card-flush")
    assert [case.colluders for case in default_cases(flush)][:6] == [1, 2, 3, 4, 5, 6]
    assert Case(1, 7) in default_cases(flush)
    for rules_id, case, option in (("high-card-flush", Case(7), "--colluders"),
                                   ("nh-holdem-stud", Case(1, 1), "--dealer-seen"),
                                   ("high-card-flush", Case(1, 0, 1), "--next-seen"),
                                   ("nh-holdem-stud", Case(1, 0, 4), "--next-seen")):
        with pytest.raises(ValueError, match=option):
            check_case(load_rules(rules_id), case)


@pytest.mark.parametrize(("args", "message"), [
    (["high-card-flush", "--colluders", "7"], "--colluders"),
    (["high-card-flush", "--colluders", "0"], "--colluders"),
    (["nh-holdem-stud", "--dealer-seen", "1"], "no dealer hand"),
    (["high-card-flush", "--next-seen", "1"], "--next-seen"),
    (["high-card-flush", "--colluders", "2", "--deals", "0"], "--deals"),
    (["high-card-flush", "--colluders", "2", "--colluders", "3"], "more than once"),
    (["high-card-flush", "--colluders", "two"], "--colluders"),
    (["no-such-rules"], "no-such-rules"),
])
def test_protect_refuses_bad_input_in_one_line(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["protect", *args])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]


def test_protect_json_contract(tmp_path: Path) -> None:
    page = tmp_path / "protect.html"
    result = runner.invoke(app, ["protect", "nine-card-flush", "--next-seen", "2", "--json",
                                 "--html", str(page)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    rules = load_rules("nine-card-flush")
    assert {"rules", "fingerprint", "modified", "cases"} <= set(data)
    assert (data["rules"], data["fingerprint"], data["modified"]) == (
        rules.id, rules.fingerprint, False)
    [case] = data["cases"]
    assert {"colluders", "dealer_seen", "next_seen", "player_edge", "std_error", "exact",
            "states"} <= set(case)
    assert (case["colluders"], case["dealer_seen"], case["next_seen"]) == (1, 0, 2)
    assert case["exact"] is True and case["std_error"] == 0
    assert case["player_edge"] > 0  # two of your own six cards seen: the players win
    assert "<svg" not in page.read_text() or "Game protection" in page.read_text()


def test_protect_full_report_in_the_terminal_and_html(tmp_path: Path) -> None:
    page = tmp_path / "nine.html"
    result = runner.invoke(app, ["protect", "nine-card-flush", "--html", str(page)],
                           env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    assert "cannot matter" in result.stdout and "colluders gain exactly nothing" in \
        result.stdout.replace("\n", " ")
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>") and "<svg" in text


def test_report_api_lists_every_default_case() -> None:
    rules = load_rules("nine-card-flush")
    report = protect(rules, extras=False)
    assert [result.case for result in report.cases] == default_cases(rules)
    assert all(result.exact for result in report.cases)
    assert report.to_json()["house_edge_exact"] == str(analyze(rules).wagers[0].house_edge)


def _cards(text: str) -> list[Card]:
    from feltlab.core.cards import parse_cards

    return list(parse_cards(text))


def test_suit_count_signals_sit_between_the_lone_player_and_full_information() -> None:
    from feltlab.games.high_card_flush.signals import SUIT_COUNTS, decision_table, signal_edge

    rules = load_rules("high-card-flush")
    assert isinstance(rules, FlushRules)
    lone = float(protect_flush.baseline_edge(rules))
    gain = signal_edge(rules, SUIT_COUNTS, rules.seats, 40_000, 2)
    full = evaluate_case(rules, Case(rules.seats), 40_000, 2)
    assert 0 < gain.mean < full.edge - lone
    table = decision_table(np.zeros((2, 3, 3)))
    assert (table == -1).all()


@pytest.mark.slow
def test_dealing_order_changes_nothing_for_colluders() -> None:
    from feltlab.protect.advice import countermeasures_for

    rules = load_rules("high-card-flush")
    results = [evaluate_case(rules, case, 20_000, 1) for case in (Case(), Case(6))]
    measures = countermeasures_for(rules, results, 20_000, 1)
    order = next(item for item in measures if "dealer's hand first" in item.change)
    assert order.before == order.after and "exactly the same" in order.note
