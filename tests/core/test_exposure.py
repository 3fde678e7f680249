"""The house's exposure: every built-in's is within the default limit, and is what its
best hand at the maximum wagers wins (the bound is exact for them); a design with a
built-in's limits and pays no higher than its own stays within the default limit,
whatever its multiples."""

from __future__ import annotations

from typing import Any

import pytest

from feltlab.core.exposure import DEFAULT_EXPOSURE_LIMIT, exposure
from feltlab.core.family import family_of
from feltlab.core.rules import MAX_MULTIPLE, Rules, load_rules
from shipped import own_ids

EXPOSURES = {"high-card-flush": 834_000, "high-card-flush-toledo": 144_000,
             "nh-flush-poker": 4_030, "nh-holdem-stud": 12_900, "nine-card-flush": 52_800}


def most_wagered(rules: Rules) -> dict[str, int]:
    return {name: limit.max for name, limit in rules.limits.items()}


def best_hand(rules: Rules) -> dict[str, Any]:
    """A payout request for the hand that reaches every top line at the maximum wagers."""
    wagers = most_wagered(rules)
    request: dict[str, Any] = {"rules": rules.id, "wagers": wagers}
    if rules.game == "high-card-flush":
        most = max(rules.raise_multiples.values())
        return {**request, "player": "Ah Kh Qh Jh Th 9h 8h",
                "dealer": "2s 3s 4s 5s 6s 7s 8s", "raise": most * wagers["ante"]}
    if rules.game == "holdem-stud":
        street = rules.max_street_multiple * wagers["ante"]
        return {**request, "player": "Ah Kh", "community": "Qh Jh Th",
                "streets": [street] * 3}
    return {**request, "colour": "red", "community": "Ah Kh Qh",
            "player": "Jh Th 9h 8h 7h 6h", "play": True}


def test_every_built_in_is_within_the_default_limit() -> None:
    assert {rules_id: exposure(load_rules(rules_id)).total
            for rules_id in own_ids()} == EXPOSURES
    assert max(EXPOSURES.values()) <= DEFAULT_EXPOSURE_LIMIT


@pytest.mark.parametrize("rules_id", own_ids())
def test_a_built_in_s_best_hand_wins_its_exposure(rules_id: str) -> None:
    rules = load_rules(rules_id)
    settlement = family_of(rules).engine.settle_request(rules, best_hand(rules))
    won = sum(net for net in settlement.results.values() if net > 0)
    assert won == exposure(rules).total
    assert {payout.name for payout in exposure(rules).payouts} == set(settlement.results)


@pytest.mark.parametrize("rules_id", own_ids())
def test_the_most_multiples_on_a_built_in_s_limits_and_pays_stay_within(rules_id: str) -> None:
    rules = load_rules(rules_id)
    multiples = {"raise_multiples": dict.fromkeys(range(2, 8), MAX_MULTIPLE)} \
        if rules.game == "high-card-flush" else \
        {"max_street_multiple": MAX_MULTIPLE} if rules.game == "holdem-stud" else {}
    boldest = rules.model_copy(update=multiples)
    assert exposure(rules).total <= exposure(boldest).total <= DEFAULT_EXPOSURE_LIMIT


def test_the_sum_is_spelt_out() -> None:
    found = exposure(load_rules("high-card-flush"))
    assert found.describe() == ("ante 1,000 x 1 + raise 3,000 x 1 + flush 100 x 300 + "
                                "straight_flush 100 x 8,000")
    assert exposure(load_rules("nh-flush-poker")).total == 10 + 20 + 10 * 200 + 10 * 200
