"""The rule-set bounds keep every 64-bit quantity in range: shown from the bounds, and
at the bounds by settling and analysing rule sets that sit on them."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from feltlab.analysis import analyze
from feltlab.core.cards import Card
from feltlab.core.rules import (
    MAX_CAP,
    MAX_HAND_NET,
    MAX_MULTIPLE,
    MAX_PAY,
    MAX_WAGER,
    Rules,
    load_rules,
)
from feltlab.games.high_card_flush.settle import settle_flush
from feltlab.games.holdem_stud.rules import HoldemStudRules
from feltlab.games.holdem_stud.settle import settle_holdem
from feltlab.games.nine_card_flush.settle import settle_nine_card

INT64 = 2**63 - 1


def at_the_bounds(rules_id: str) -> Rules:
    """The built-in rule set with every pay, limit and multiple at its bound."""
    rules = load_rules(rules_id)
    data = rules.model_dump()
    data["limits"] = {name: {"min": 1, "max": MAX_WAGER} for name in data["limits"]}
    for field, table in data.items():
        if field.endswith("pays"):
            data[field] = {line: MAX_PAY for line in table}
    if "raise_multiples" in data:
        data["raise_multiples"] = {length: MAX_MULTIPLE for length in range(2, 8)}
    if "max_street_multiple" in data:
        data["max_street_multiple"] = MAX_MULTIPLE
    data["max_aggregate_payout"] = None
    return type(rules).model_validate(data)


def test_the_bounds_fit_64_bits() -> None:
    assert MAX_HAND_NET == 32 * 10**11
    # analysis: every deal counted once; the Hold'em solver's largest scaled value is its
    # ordered completions times the most a hand can win
    assert math.comb(52, 7) * math.comb(45, 7) < INT64
    assert math.comb(52, 3) * math.comb(49, 6) < INT64
    assert 48 * 47 * 46 * 50 * MAX_PAY * (1 + 3 * MAX_MULTIPLE) < INT64
    # ledger and cap: a cap, a balance of a billion maximal hands
    assert MAX_CAP < INT64 and 10**6 * MAX_HAND_NET < INT64


@pytest.mark.parametrize("rules_id", ["high-card-flush", "nine-card-flush", "nh-holdem-stud"])
def test_no_hand_wins_or_loses_more_than_the_bound(rules_id: str) -> None:
    rules = at_the_bounds(rules_id)
    stakes = {name: MAX_WAGER for name in rules.limits}
    rng = random.Random(7)
    for _ in range(300):
        deck = [Card(index) for index in rng.sample(range(52), 52)]
        if rules.game == "high-card-flush":
            from feltlab.core.evaluators import best_flush
            most = rules.max_raise_multiple(best_flush(deck[:7]).length)
            result = settle_flush(rules, stakes, deck[:7], deck[7:14], most * MAX_WAGER)
        elif rules.game == "nine-card-flush":
            result = settle_nine_card(rules, stakes, "red", deck[:3], deck[3:9], True)
        else:
            result = settle_holdem(rules, stakes, deck[:2], deck[2:5],
                                   [MAX_MULTIPLE * MAX_WAGER] * 3)
        assert abs(result.total) <= MAX_HAND_NET
    assert max(abs(net) for net in result.results.values()) <= MAX_HAND_NET


@pytest.mark.slow
def test_holdem_analysis_at_the_bounds_is_exact() -> None:
    """Every hand paying MAX_PAY to 1: the best play bets the most on every street, and
    the player's edge is exactly MAX_PAY times the antes bet."""
    rules = at_the_bounds("nh-holdem-stud")
    assert isinstance(rules, HoldemStudRules)
    rules = rules.model_copy(update={"pays": {name: MAX_PAY for name in (
        "high_card", "low_pair", "mid_pair", "high_pair", "two_pair", "three_of_a_kind",
        "straight", "flush", "full_house", "four_of_a_kind", "straight_flush",
        "royal_flush")}})
    main = analyze(type(rules).model_validate(rules.model_dump())).wagers[0]
    assert main.house_edge == -Fraction(MAX_PAY * (1 + 3 * MAX_MULTIPLE))
