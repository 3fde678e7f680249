"""Settlement of Hold'em Stud: the one place its wagers' results are decided.

>>> from feltlab.core.rules import load_rules
>>> from feltlab.core.cards import parse_cards
>>> settle_holdem(load_rules("nh-holdem-stud"), {"ante": 5}, parse_cards("Jh Js"),
...               parse_cards("2c 7d 9s"), [5, 5, 10]).results
{'ante': 5, 'street3': 5, 'street4': 5, 'street5': 10}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from feltlab.core.cards import Card, ensure_count, ensure_distinct, format_cards
from feltlab.core.evaluators import poker_hand, three_card_hand
from feltlab.core.settle import Settlement, WagerError, check_wagers, finish
from feltlab.games.holdem_stud.rules import HoldemStudRules

STREET_NAMES = ("street3", "street4", "street5")


def check_street_bet(rules: HoldemStudRules, ante: int, street: int, amount: object) -> int:
    """Refuse a street bet that is not 1x up to the maximum multiple of the ante."""
    name = STREET_NAMES[street]
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise WagerError(f"{name} bet must be a whole number of units, got {amount!r}")
    most = rules.max_street_multiple
    if amount < ante or amount > most * ante or amount % ante:
        allowed = ", ".join(str(ante * k) for k in range(1, most + 1))
        raise WagerError(f"{name} bet of {amount} is not 1x to {most}x the ante of {ante} "
                         f"(allowed: {allowed})")
    return amount


def settle_holdem(rules: HoldemStudRules, wagers: Mapping[str, object], player: Sequence[Card],
                  community: Sequence[Card], streets: Sequence[object]) -> Settlement:
    """Settle a Hold'em Stud hand; fewer than three street bets means the player folded at
    the next street."""
    stakes = check_wagers(rules, wagers)
    ensure_count(player, 2, "player")
    ensure_count(community, 3, "community")
    ensure_distinct([*player, *community])
    if len(streets) > rules.streets:
        raise WagerError(f"streets: at most {rules.streets} street bets, got {len(streets)}")
    ante = stakes["ante"]
    bets = [check_street_bet(rules, ante, index, amount) for index, amount in enumerate(streets)]
    hand = poker_hand([*player, *community])
    folded = len(bets) < rules.streets
    multiple = -1 if folded else rules.net_multiple(hand)
    results = {"ante": multiple * ante}
    for name, amount in zip(STREET_NAMES, bets, strict=False):
        results[name] = multiple * amount
    bonus_hand = three_card_hand(community)
    if "bonus3" in stakes:
        results["bonus3"] = rules.bonus3_net_multiple(bonus_hand) * stakes["bonus3"]
    details = {"player_hand": hand.name.lower(), "bonus3_hand": bonus_hand.name.lower(),
               "folded": folded, "player_cards": format_cards(player),
               "community_cards": format_cards(community)}
    return finish(rules, results, details)
