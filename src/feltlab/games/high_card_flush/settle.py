"""Settlement of the High Card Flush family: the one place its wagers' results are
decided.

>>> from feltlab.core.rules import load_rules
>>> from feltlab.core.cards import parse_cards
>>> s = settle_flush(load_rules("high-card-flush"), {"ante": 5},
...                  parse_cards("Th 8h 6h Js Ad Qd Jc"), parse_cards("8s 7s 2s 3h 4d 5c Kc"), 5)
>>> s.results, s.total, s.details["dealer_qualifies"]
({'ante': 5, 'raise': 0}, 5, False)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from feltlab.core.cards import Card, ensure_count, ensure_distinct, format_cards
from feltlab.core.evaluators import best_flush, dealer_qualifies, longest_straight_flush
from feltlab.core.settle import Settlement, WagerError, bonus_result, check_wagers, finish
from feltlab.games.high_card_flush.rules import BONUSES, FlushRules


def check_raise(rules: FlushRules, player: Sequence[Card], ante: int, amount: int) -> None:
    """Refuse a raise the player's flush does not allow (0 is a fold, always allowed)."""
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise WagerError(f"raise must be a whole number of units, got {amount!r}")
    if amount == 0:
        return
    length = best_flush(player).length
    most = rules.max_raise_multiple(length)
    if most == 0:
        raise WagerError(f"raise: a {length}-card flush may not raise in {rules.id}; "
                         "the hand may only fold")
    if amount < ante:
        raise WagerError(f"raise of {amount} is below the minimum of 1x the ante ({ante})")
    if amount > most * ante:
        raise WagerError(f"raise of {amount} is above the maximum of {most}x the ante "
                         f"({most * ante}) for a {length}-card flush")
    if rules.raise_in_whole_antes and amount % ante:
        raise WagerError(f"raise of {amount} must be a whole multiple of the ante ({ante}) "
                         f"in {rules.id}")


def flush_bonus_result(rules: FlushRules, name: Literal["flush", "straight_flush"], count: int,
                       stake: int, folded: bool) -> int:
    """A flush-family bonus: paid on its table by ``count`` (flush length or straight-flush
    run), or lost with the hand on a fold where the rule set says so.

    >>> from feltlab.core.rules import load_rules
    >>> nh = load_rules("nh-flush-poker")
    >>> flush_bonus_result(nh, "flush", 5, 2, folded=True)
    -2
    >>> flush_bonus_result(nh, "straight_flush", 3, 2, folded=True)
    14
    """
    if folded and not rules.settled_on_fold[name]:
        return -stake
    table = rules.flush_pays if name == "flush" else rules.straight_flush_pays
    return bonus_result(table, count, stake)


def check_flush_cards(player: Sequence[Card], dealer: Sequence[Card] | None) -> None:
    ensure_count(player, 7, "player")
    if dealer is not None:
        ensure_count(dealer, 7, "dealer")
        ensure_distinct([*player, *dealer])


def settle_flush(rules: FlushRules, wagers: Mapping[str, object], player: Sequence[Card],
                 dealer: Sequence[Card], raise_amount: int) -> Settlement:
    """Settle a High Card Flush family hand; ``raise_amount`` 0 means the player folded."""
    stakes = check_wagers(rules, wagers)
    check_flush_cards(player, dealer)
    ante = stakes["ante"]
    check_raise(rules, player, ante, raise_amount)
    mine, theirs = best_flush(player), best_flush(dealer)
    qualifies = dealer_qualifies(theirs, rules.qualifier.min_length,
                                 rules.qualifier.min_high_rank)
    results: dict[str, int] = {}
    if raise_amount == 0:
        results["ante"] = -ante
    elif not qualifies:
        results["ante"], results["raise"] = ante, 0
    else:
        sign = (mine.value > theirs.value) - (mine.value < theirs.value)
        results["ante"], results["raise"] = sign * ante, sign * raise_amount
    straight_run = longest_straight_flush(player)
    counts = {"flush": mine.length, "straight_flush": straight_run}
    for name in BONUSES:
        if name in stakes:
            results[name] = flush_bonus_result(rules, name, counts[name], stakes[name],
                                               folded=raise_amount == 0)
    details = {
        "player_flush": mine.describe(),
        "dealer_flush": theirs.describe(),
        "dealer_qualifies": qualifies,
        "player_straight_flush": straight_run,
        "player_cards": format_cards(player),
        "dealer_cards": format_cards(dealer),
    }
    return finish(rules, results, details)
