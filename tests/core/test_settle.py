"""Settlement properties (Hypothesis) and the pieces settle.py is built from."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from feltlab.core.cards import Card
from feltlab.core.evaluators import best_flush, three_card_hand
from feltlab.core.rules import load_rules
from feltlab.core.settle import WagerError, bonus_result, capped_total, check_wagers
from feltlab.games.high_card_flush.rules import FlushRules
from feltlab.games.high_card_flush.settle import settle_flush
from feltlab.games.holdem_stud.rules import HoldemStudRules
from feltlab.games.holdem_stud.settle import settle_holdem
from feltlab.games.nine_card_flush.rules import NineCardRules
from feltlab.games.nine_card_flush.settle import settle_nine_card

FLUSH_IDS = ["high-card-flush", "high-card-flush-toledo", "nh-flush-poker"]
shuffled = st.permutations([Card(index) for index in range(52)])


def flush_rules(rules_id: str) -> FlushRules:
    rules = load_rules(rules_id)
    assert isinstance(rules, FlushRules)
    return rules


@st.composite
def flush_wagers(draw: st.DrawFn, rules: FlushRules) -> dict[str, int]:
    limits = rules.limits
    wagers = {"ante": draw(st.integers(limits["ante"].min, limits["ante"].max))}
    for name in ("flush", "straight_flush"):
        if draw(st.booleans()):
            wagers[name] = draw(st.integers(limits[name].min, limits[name].max))
    if rules.equal_bonuses and "flush" in wagers and "straight_flush" in wagers:
        wagers["straight_flush"] = wagers["flush"]
    return wagers


def largest_raise(rules: FlushRules, player: Sequence[Card], ante: int) -> int:
    return rules.max_raise_multiple(best_flush(player).length) * ante


@given(st.sampled_from(FLUSH_IDS), shuffled, st.data())
def test_better_flush_never_loses(rules_id: str, deck: list[Card], data: st.DataObject) -> None:
    rules = flush_rules(rules_id)
    player, dealer = deck[:7], deck[7:14]
    wagers = data.draw(flush_wagers(rules))
    most = largest_raise(rules, player, wagers["ante"])
    assume(most > 0 and best_flush(player).value > best_flush(dealer).value)
    raise_ = data.draw(st.integers(wagers["ante"], most))
    if rules.raise_in_whole_antes:
        raise_ -= raise_ % wagers["ante"]
    results = settle_flush(rules, wagers, player, dealer, raise_).results
    assert results["ante"] == wagers["ante"]
    assert results["raise"] in (0, raise_)


@given(shuffled, st.integers(1, 1000))
def test_swapping_hands_flips_the_result(deck: list[Card], ante: int) -> None:
    rules = flush_rules("high-card-flush")
    first, second = deck[:7], deck[7:14]
    qualifier = rules.qualifier.threshold
    assume(best_flush(first).value >= qualifier and best_flush(second).value >= qualifier)
    one = settle_flush(rules, {"ante": ante}, first, second, ante).results
    other = settle_flush(rules, {"ante": ante}, second, first, ante).results
    assert one["ante"] == -other["ante"] and one["raise"] == -other["raise"]
    assert (one["ante"] == 0) == (best_flush(first).value == best_flush(second).value)


@given(st.sampled_from(FLUSH_IDS), shuffled, st.data())
def test_total_is_the_capped_sum(rules_id: str, deck: list[Card], data: st.DataObject) -> None:
    rules = flush_rules(rules_id)
    player, dealer = deck[:7], deck[7:14]
    wagers = data.draw(flush_wagers(rules))
    most = largest_raise(rules, player, wagers["ante"])
    raise_ = data.draw(st.sampled_from([0, most] if most else [0]))
    settlement = settle_flush(rules, wagers, player, dealer, raise_)
    won = sum(net for net in settlement.results.values() if net > 0)
    lost = sum(net for net in settlement.results.values() if net < 0)
    cap = rules.max_aggregate_payout
    assert settlement.total == (min(won, cap) if cap else won) + lost
    assert settlement.capped == (cap is not None and won > cap)
    if not settlement.capped:
        assert settlement.total == sum(settlement.results.values())


@given(st.sampled_from(FLUSH_IDS), shuffled, st.data())
def test_a_fold_never_wins_the_ante(rules_id: str, deck: list[Card],
                                    data: st.DataObject) -> None:
    rules = flush_rules(rules_id)
    wagers = data.draw(flush_wagers(rules))
    results = settle_flush(rules, wagers, deck[:7], deck[7:14], 0).results
    assert results["ante"] == -wagers["ante"] and "raise" not in results
    for name in ("flush", "straight_flush"):
        if name in wagers and not rules.settled_on_fold[name]:
            assert results[name] == -wagers[name]


@given(shuffled, st.sampled_from(["red", "black"]), st.integers(1, 1000))
def test_nine_card_fold_loses_all9_only(deck: list[Card], colour: str, all9: int) -> None:
    rules = load_rules("nine-card-flush")
    assert isinstance(rules, NineCardRules)
    wagers = {"all9": all9, "bonus9": 1, "player6": 1, "first3": 1}
    folded = settle_nine_card(rules, wagers, colour, deck[:3], deck[3:9], False).results
    played = settle_nine_card(rules, wagers, colour, deck[:3], deck[3:9], True).results
    assert folded["all9"] == -all9 and "play" not in folded
    assert played["play"] == played["all9"] and played["all9"] in (-all9, 0, all9)
    for name in ("bonus9", "player6", "first3"):
        assert folded[name] == played[name]


@given(shuffled, st.integers(2, 10), st.lists(st.integers(1, 3), max_size=3))
def test_holdem_fold_loses_everything_bet(deck: list[Card], ante: int,
                                          multiples: list[int]) -> None:
    rules = load_rules("nh-holdem-stud")
    assert isinstance(rules, HoldemStudRules)
    streets = [ante * k for k in multiples]
    settlement = settle_holdem(rules, {"ante": ante, "bonus3": 2}, deck[:2], deck[2:5],
                               streets)
    main = {name: net for name, net in settlement.results.items() if name != "bonus3"}
    if len(streets) < 3:
        assert sum(main.values()) == -ante - sum(streets)
    else:
        odds = {net / stake for net, stake in zip(main.values(), [ante, *streets],
                                                  strict=True)}
        assert len(odds) == 1  # every wager at the same odds
    bonus_hand = three_card_hand(deck[2:5])
    assert settlement.results["bonus3"] == 2 * rules.bonus3_net_multiple(bonus_hand)


def test_capped_total() -> None:
    assert capped_total({"ante": 10, "straight_flush": 80000, "flush": -10}, 25000) == (
        24990, True)
    assert capped_total({"ante": 10, "flush": -10}, 25000) == (0, False)
    assert capped_total({"ante": 2000}, 2000) == (2000, False)
    assert capped_total({"ante": 2001, "raise": -5}, 2000) == (1995, True)
    assert capped_total({"ante": 10**6}, None) == (10**6, False)


def test_bonus_result() -> None:
    assert bonus_result({4: 1, 5: 10}, 6, 3) == 30
    assert bonus_result({4: 1, 5: 10}, 3, 3) == -3


def test_check_wagers() -> None:
    nh = load_rules("nh-flush-poker")
    assert check_wagers(nh, {"ante": 5, "flush": 0, "straight_flush": None}) == {"ante": 5}
    assert check_wagers(nh, {"ante": 5, "flush": 3, "straight_flush": 3}) == {
        "ante": 5, "flush": 3, "straight_flush": 3}
    cases: list[tuple[dict[str, object], str]] = [
        ({"ante": 5, "flush": 3, "straight_flush": 4}, "must be equal"),
        ({"flush": 3}, "ante is required"),
        ({"ante": 0}, "ante is required"),
        ({"ante": 5.0}, "whole number"),
        ({"ante": 5, "flush": False}, "wager flush must be a whole number of units"),
        ({"ante": 5, "flush": 0.0}, "wager flush must be a whole number of units"),
        ({"ante": 5, "bonus3": 2}, "unknown wager 'bonus3'"),
    ]
    for wagers, message in cases:
        with pytest.raises(WagerError, match=message):
            check_wagers(nh, wagers)


# --- independent oracles, written from RULES.md's words --------------------------------

def oracle_flush(cards: Sequence[Card]) -> tuple[int, list[int]]:
    """(length, ranks high to low) of the best suit: more cards, then the highest cards."""
    suits = [sorted((c.rank for c in cards if c.suit == suit), reverse=True) for suit in range(4)]
    best = max(suits, key=lambda ranks: (len(ranks), ranks))
    return len(best), best


@given(shuffled, st.integers(1, 100), st.booleans())
def test_main_game_against_an_oracle(deck: list[Card], ante: int, fold: bool) -> None:
    rules = flush_rules("high-card-flush")
    player, dealer = deck[:7], deck[7:14]
    raise_ = 0 if fold else ante
    results = settle_flush(rules, {"ante": ante}, player, dealer, raise_).results
    mine, theirs = oracle_flush(player), oracle_flush(dealer)
    nine = 7  # rank index of the 9
    qualifies = theirs[0] >= 4 or (theirs[0] == 3 and theirs[1][0] >= nine)
    if fold:
        expected = {"ante": -ante}
    elif not qualifies:
        expected = {"ante": ante, "raise": 0}
    else:
        sign = (mine > theirs) - (mine < theirs)
        expected = {"ante": sign * ante, "raise": sign * ante}
    assert results == expected


@given(shuffled, st.sampled_from(["red", "black"]), st.booleans())
def test_nine_card_against_an_oracle(deck: list[Card], colour: str, play: bool) -> None:
    rules = load_rules("nine-card-flush")
    assert isinstance(rules, NineCardRules)
    community, player = deck[:3], deck[3:9]
    suits = (1, 2) if colour == "red" else (0, 3)

    def count(cards: Sequence[Card]) -> int:
        return max(sum(card.suit == suit for card in cards) for suit in suits)

    wagers = {"all9": 10, "bonus9": 1, "player6": 1, "first3": 1}
    results = settle_nine_card(rules, wagers, colour, community, player, play).results
    nine, six, three = count([*community, *player]), count(player), count(community)
    main = 1 if nine >= 4 else 0 if nine == 3 else -1
    expected = {"all9": main * 10 if play else -10,
                "bonus9": {9: 500, 8: 250, 7: 100, 6: 20, 5: 3, 4: 1}.get(nine, -1),
                "player6": 3 if six >= 4 else 2 if six == 3 else -1,
                "first3": 5 if three == 3 else 2 if three == 2 else -1}
    if play:
        expected["play"] = main * 10
    assert results == expected
