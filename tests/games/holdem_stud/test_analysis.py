"""Hold'em Stud exact analysis: published figures, brute force, and internal consistency."""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from feltlab.core.cards import Card, CardError, full_deck, parse_cards
from feltlab.core.evaluators import PokerHand, poker_hand, three_card_hand
from feltlab.core.model import ParSheet
from feltlab.core.rules import load_rules
from feltlab.core.settle import WagerError
from feltlab.games.holdem_stud import analysis as holdem
from feltlab.games.holdem_stud.rules import HoldemStudRules
from feltlab.games.holdem_stud.strategy import (
    StrategyError,
    StudStrategy,
    parse_strategy,
    strategy_toml,
)
from shipped import strategy_file

DATA = Path(__file__).parents[2] / "data"
ORDERED_DEALS = math.comb(52, 2) * 50 * 49 * 48


def _rules(name: str) -> HoldemStudRules:
    rules = load_rules(name)
    assert isinstance(rules, HoldemStudRules)
    return rules


@pytest.fixture(scope="module")
def nh() -> HoldemStudRules:
    return _rules("nh-holdem-stud")


@pytest.fixture(scope="module")
def mississippi() -> HoldemStudRules:
    return _rules(str(DATA / "mississippi-stud.toml"))


@pytest.fixture(scope="module")
def nh_sheet(nh: HoldemStudRules) -> ParSheet:
    return holdem.analyze(nh)


@pytest.fixture(scope="module")
def mississippi_sheet(mississippi: HoldemStudRules) -> ParSheet:
    return holdem.analyze(mississippi)


# Published figures --------------------------------------------------------------------

def test_mississippi_stud_published_figures(mississippi_sheet: ParSheet) -> None:
    main = mississippi_sheet.wager("ante")
    assert round(float(main.house_edge) * 100, 2) == 4.91
    assert round(float(main.average_total_wager), 2) == 3.59
    assert round(float(main.element_of_risk) * 100, 2) == 1.37
    assert [wager.name for wager in mississippi_sheet.wagers] == ["ante"]  # no bonus offered


def test_bonus3_published_edge_and_counts(nh_sheet: ParSheet) -> None:
    bonus = nh_sheet.wager("bonus3")
    assert round(float(bonus.house_edge) * 100, 2) == 7.28
    published = json.loads(Path(DATA, "three_card_counts.json").read_text())["counts"]
    assert {line.key: line.count for line in bonus.lines} == published
    assert bonus.total == 22100


def test_bonus3_counts_by_reference_evaluator(nh: HoldemStudRules) -> None:
    counts: dict[str, int] = {}
    for cards in itertools.combinations(full_deck(), 3):
        name = three_card_hand(cards).name.lower()
        counts[name] = counts.get(name, 0) + 1
    assert {line.key: line.count for line in holdem.bonus3_wager(nh).lines} == counts


# The main game's counts -------------------------------------------------------------

def test_main_counts_and_rates(nh_sheet: ParSheet) -> None:
    main = nh_sheet.wager("ante")
    assert main.total == ORDERED_DEALS
    assert main.decisions
    folded = sum(value for name, value in main.rates.items() if name.startswith("folded"))
    assert folded + main.rates["played to the end"] == 1
    finals = sum(value for name, value in main.rates.items() if name.startswith("final hand"))
    assert finals == main.rates["played to the end"]
    bets = sum(value for name, value in main.rates.items() if name.startswith("average bet"))
    assert 1 + bets == main.average_total_wager
    assert main.lines[-3].label == "Fold at 3rd street"


def test_forward_counts_match_solved_values(nh: HoldemStudRules, nh_sheet: ParSheet) -> None:
    """The PAR sheet counts the optimal strategy's deals forward; the solver's values come
    backward: both give the same exact house edge."""
    assert nh_sheet.wager("ante").house_edge == holdem.analyze_main_edge(nh)


def test_advice_at_the_start_adds_up_to_the_house_edge(nh: HoldemStudRules) -> None:
    total = Fraction(0)
    for cards, weight in zip(*holdem.starting_classes(), strict=True):
        player = [Card(int(card)) for card in cards]
        advice = holdem.advise(nh, player, (), ())
        total += weight * max(option.ev for option in advice.options)
    assert -total / 1326 == holdem.analyze_main_edge(nh)


@pytest.mark.parametrize("most", [1, 2, 5])
def test_other_street_bet_sizes_add_up_and_match_brute_force(nh: HoldemStudRules,
                                                              most: int) -> None:
    rules = HoldemStudRules.model_validate({**nh.model_dump(), "max_street_multiple": most})
    total = Fraction(0)
    for cards, weight in zip(*holdem.starting_classes(), strict=True):
        player = [Card(int(card)) for card in cards]
        advice = holdem.advise(rules, player, (), ())
        assert len(advice.options) == most + 1
        total += weight * max(option.ev for option in advice.options)
    assert -total / 1326 == holdem.analyze(rules).wager("ante").house_edge
    _assert_advice(rules, "Ah Kh", "Qh 2c", [most, 1])


def test_always_bet_once_matches_five_card_frequencies(nh: HoldemStudRules) -> None:
    always = parse_strategy("street3 = [{bet = 1}]\nstreet4 = [{bet = 1}]\n"
                            "street5 = [{bet = 1}]\n")
    counts = json.loads(Path(DATA, "poker5_counts.json").read_text())["counts"]
    mean = sum(Fraction(nh.net_multiple(PokerHand[name.upper()]) * count, 2598960)
               for name, count in counts.items())
    wager = holdem.evaluate_strategy(nh, always)
    assert wager.expected_return == 4 * mean
    assert wager.average_total_wager == 4


# Brute force on the actual cards (no symmetry, reference evaluator) ------------------

def _brute_fifth(rules: HoldemStudRules, player: Sequence[Card], community: list[Card],
                 at_risk: int) -> dict[str, Fraction]:
    deck = [card for card in full_deck() if card not in (*player, *community)]
    mean = Fraction(sum(rules.net_multiple(poker_hand([*player, *community, card]))
                        for card in deck), len(deck))
    options = {"fold": Fraction(-at_risk)}
    for bet in range(1, rules.max_street_multiple + 1):
        options[f"{bet}x"] = mean * (at_risk + bet)
    return options


def _brute_street(rules: HoldemStudRules, player: Sequence[Card], community: list[Card],
                  at_risk: int) -> dict[str, Fraction]:
    """Every option's EV by plain recursion over the actual next cards."""
    if len(community) == rules.streets - 1:
        return _brute_fifth(rules, player, community, at_risk)
    deck = [card for card in full_deck() if card not in (*player, *community)]
    means: dict[Card, Callable[[int], Fraction]] = {}
    options = {"fold": Fraction(-at_risk)}
    for bet in range(1, rules.max_street_multiple + 1):
        total = Fraction(0)
        for card in deck:
            if card not in means:
                means[card] = _brute_memo(rules, player, [*community, card])
            total += means[card](at_risk + bet)
        options[f"{bet}x"] = total / len(deck)
    return options


def _brute_memo(rules: HoldemStudRules, player: Sequence[Card], community: list[Card]
                ) -> Callable[[int], Fraction]:
    """The value at the next street as a function of the antes at risk."""
    deck = [card for card in full_deck() if card not in (*player, *community)]
    if len(community) == rules.streets - 1:
        mean = Fraction(sum(rules.net_multiple(poker_hand([*player, *community, card]))
                            for card in deck), len(deck))
        most = rules.max_street_multiple
        return lambda at_risk: max(Fraction(-at_risk),
                                   *(mean * (at_risk + bet) for bet in range(1, most + 1)))
    later = [_brute_memo(rules, player, [*community, card]) for card in deck]
    most = rules.max_street_multiple

    def value(at_risk: int) -> Fraction:
        bets = [sum((f(at_risk + bet) for f in later), Fraction(0)) / len(deck)
                for bet in range(1, most + 1)]
        return max(Fraction(-at_risk), *bets)

    return value


def _assert_advice(rules: HoldemStudRules, player: str, community: str,
                   bets: Sequence[int]) -> None:
    cards, turned = parse_cards(player), list(parse_cards(community))
    advice = holdem.advise(rules, cards, turned, bets)
    expected = _brute_street(rules, cards, turned, 1 + sum(bets))
    assert {option.option: option.ev for option in advice.options} == expected
    best = max(option.ev for option in advice.options)
    assert advice.best == [name for name, ev in expected.items() if ev == best][-1]


@pytest.mark.parametrize(("player", "community", "bets"), [
    ("Jh Ts", "9h 2c", [1, 1]), ("4c 4d", "Kd 8s", [3, 1]), ("7s 2h", "Ac 5d", [1, 3])])
def test_fifth_street_by_brute_force(nh: HoldemStudRules, player: str, community: str,
                                     bets: list[int]) -> None:
    _assert_advice(nh, player, community, bets)


def test_fourth_street_by_brute_force(mississippi: HoldemStudRules) -> None:
    _assert_advice(mississippi, "Qh Th", "9h", [1])


def test_third_street_by_brute_force(nh: HoldemStudRules) -> None:
    _assert_advice(nh, "Ks 9s", "", [])


@pytest.mark.slow
@pytest.mark.parametrize("player", ["Ah Ad", "7c 2d", "5h 6h", "Jc Td"])
def test_third_street_by_brute_force_more(mississippi: HoldemStudRules, player: str) -> None:
    _assert_advice(mississippi, player, "", [])


def test_one_street_variant_by_direct_enumeration() -> None:
    """With one decision street, the value of a start is max(-1, (1 + k) E[m]) over the
    C(50,3) community sets: enumerate them with the reference evaluator."""
    rules = _rules("nh-holdem-stud").model_copy(update={"streets": 1})
    player = parse_cards("Qs Jd")
    deck = [card for card in full_deck() if card not in player]
    mean = Fraction(sum(rules.net_multiple(poker_hand([*player, *three]))
                        for three in itertools.combinations(deck, 3)), math.comb(50, 3))
    advice = holdem.advise(rules, player, (), ())
    assert {o.option: o.ev for o in advice.options} == {
        "fold": -1, "1x": 2 * mean, "2x": 3 * mean, "3x": 4 * mean}
    sheet = holdem.analyze(rules)
    assert sheet.wager("ante").total == ORDERED_DEALS


# Decision tables, strategies, the card ------------------------------------------------

def test_decision_tables_agree_with_advice(nh: HoldemStudRules) -> None:
    tables = holdem.decision_tables(nh)
    generator = np.random.default_rng(5)
    for _ in range(30):
        cards = [Card(int(index)) for index in generator.permutation(52)[:4]]
        level = int(generator.integers(0, 3))
        bets = [int(bet) for bet in generator.integers(1, 4, size=level)]
        advice = holdem.advise(nh, cards[:2], cards[2:2 + level], bets)
        row = holdem.decision_row(cards[:2 + level])
        bet = int(tables[level][row, sum(bets) - level])
        assert advice.best == ("fold" if bet == 0 else f"{bet}x")


def test_strategy_card_is_played_exactly(nh: HoldemStudRules, nh_sheet: ParSheet) -> None:
    card = nh_sheet.strategy_card
    assert card is not None
    assert card.optimal_house_edge == nh_sheet.wager("ante").house_edge
    assert 0 < card.cost < Fraction(1, 100)
    assert card.lines[1].startswith("3rd street: bet 3x with any pair")


def test_strategy_round_trip_and_errors(nh: HoldemStudRules) -> None:
    strategy = parse_strategy("street3 = [{bet = 3, when = {made = 1}}, "
                              "{bet = 1, when = {points = 2}}]\n"
                              "street4 = [{bet = 1, when = {bets = 1}}]\n"
                              "street5 = [{bet = 1}]\n")
    assert parse_strategy(strategy_toml(strategy)) == strategy
    with pytest.raises(StrategyError):
        parse_strategy("street3 = [{bet = 3, when = {colour = 1}}]")
    with pytest.raises(StrategyError, match="maximum"):
        holdem.evaluate_strategy(nh, StudStrategy.model_validate(
            {"street3": [{"bet": 4}]}))


def test_strategy_map_covers_the_starting_hands(nh_sheet: ParSheet) -> None:
    starts = [row for row in nh_sheet.strategy_map if row[0].startswith("3rd street")]
    assert len(starts) == 169
    assert sum(share for _, _, share in starts) == 1
    assert ("3rd street: AA", "3x", Fraction(6, 1326)) in starts


def test_advise_refuses_bad_input(nh: HoldemStudRules) -> None:
    with pytest.raises(WagerError):
        holdem.advise(nh, parse_cards("Ah Kh"), parse_cards("2c"), [])
    with pytest.raises(WagerError):
        holdem.advise(nh, parse_cards("Ah Kh"), parse_cards("2c"), [4])
    with pytest.raises(CardError):
        holdem.advise(nh, parse_cards("Ah Kh"), parse_cards("2c 3c 4c"), [1, 1, 1])
    with pytest.raises(CardError):
        holdem.advise(nh, parse_cards("Ah Kh 2c"), (), [])


# Capped returns -------------------------------------------------------------------------

def test_capped_returns_without_cap(nh: HoldemStudRules, nh_sheet: ParSheet) -> None:
    edges = holdem.capped_returns(nh, {"ante": 5, "bonus3": 2})
    assert edges["ante"] == nh_sheet.wager("ante").house_edge
    assert edges["bonus3"] == nh_sheet.wager("bonus3").house_edge
    assert edges["total"] == (5 * edges["ante"] + 2 * edges["bonus3"]) / 7


def test_capped_returns_with_cap_from_the_par_sheet_lines(nh: HoldemStudRules,
                                                          nh_sheet: ParSheet) -> None:
    capped = nh.model_copy(update={"max_aggregate_payout": 200})
    edges = holdem.capped_returns(capped, {"ante": 10})
    main = nh_sheet.wager("ante")
    expected = sum((Fraction(min(10 * line.net, 200) * line.count) for line in main.lines),
                   Fraction(0)) / (10 * main.total)
    assert edges["ante"] == -expected
    assert edges["ante"] > main.house_edge


def test_shipped_strategy_card_matches_derived() -> None:
    from feltlab.games.holdem_stud.strategy import parse_strategy

    path = strategy_file("nh-holdem-stud")
    shipped = parse_strategy(path.read_text("utf-8"))
    assert shipped == holdem.card_strategy(load_rules("nh-holdem-stud"))


def test_every_strategy_map_row_is_named_by_the_hands_it_holds(nh_sheet: ParSheet) -> None:
    labels = [row[0] for row in nh_sheet.strategy_map]
    assert len(labels) == len(set(labels))
    nothing = [row for row in nh_sheet.strategy_map if row[0].startswith("4th street: nothing")]
    assert {row[1] for row in nothing} == {"fold", "1x", "3x"}
    assert "4th street: nothing, most hands" in labels
    assert "4th street: nothing, when the other cards (draws, high cards) favour fold" in labels
