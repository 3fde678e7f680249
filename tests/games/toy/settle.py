"""Settlement of the toy game: the one place its wagers' results are decided.

>>> from feltlab.core.cards import parse_cards
>>> rules = ToyRules.model_validate(EXAMPLE)
>>> s = settle_toy(rules, {"ante": 5}, parse_cards("Kh"), parse_cards("7c"), 5)
>>> s.results, s.total, s.details["outcome"]
({'ante': 5, 'raise': 5}, 10, 'win')
>>> settle_toy(rules, {"ante": 5}, parse_cards("Kh"), parse_cards("Ks"), 5).results
{'ante': 0, 'raise': 0}
>>> settle_toy(rules, {"ante": 5}, parse_cards("2h"), parse_cards("Ks"), 0).results
{'ante': -5}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from feltlab.core.cards import RANKS, Card, ensure_count, ensure_distinct, format_cards
from feltlab.core.settle import Settlement, WagerError, check_wagers, finish

from .rules import EXAMPLE, ToyRules

OUTCOMES: Final = {1: "win", 0: "tie", -1: "lose"}
RANK_NAMES: Final = ("deuce", "three", "four", "five", "six", "seven", "eight", "nine",
                     "ten", "jack", "queen", "king", "ace")
"""Each rank in words, deuce low and ace high."""

__all__ = ["EXAMPLE", "OUTCOMES", "RANK_NAMES", "a_rank", "check_raise", "compare",
           "settle_toy"]


def a_rank(rank: int) -> str:
    """A card of ``rank`` in words, with its article.

    >>> a_rank(0), a_rank(6), a_rank(12)
    ('a deuce', 'an eight', 'an ace')
    """
    name = RANK_NAMES[rank]
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def compare(player: Card, dealer: Card) -> int:
    """1 when the player's rank is higher, -1 when lower, 0 for equal ranks (ace high;
    suits never break a tie)."""
    return (player.rank > dealer.rank) - (player.rank < dealer.rank)


def check_raise(rules: ToyRules, ante: int, amount: object) -> None:
    """Refuse a raise other than the rule set's one size (0 is a fold, always allowed)."""
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise WagerError(f"raise must be a whole number of units, got {amount!r}")
    if amount != 0 and amount != rules.raise_amount(ante):
        raise WagerError(f"raise of {amount} is not allowed: {rules.id} raises "
                         f"{rules.raise_multiple}x the ante ({rules.raise_amount(ante)}) only")


def check_cards(player: Sequence[Card], dealer: Sequence[Card]) -> None:
    ensure_count(player, 1, "player")
    ensure_count(dealer, 1, "dealer")
    ensure_distinct([*player, *dealer])


def settle_toy(rules: ToyRules, wagers: Mapping[str, object], player: Sequence[Card],
               dealer: Sequence[Card], raise_amount: object) -> Settlement:
    """Settle one hand; ``raise_amount`` 0 means the player folded (the Ante is lost)."""
    stakes = check_wagers(rules, wagers)
    check_cards(player, dealer)
    ante = stakes["ante"]
    check_raise(rules, ante, raise_amount)
    assert isinstance(raise_amount, int)
    sign = compare(player[0], dealer[0])
    if raise_amount == 0:
        results = {"ante": -ante}
    else:
        results = {"ante": sign * ante, "raise": sign * raise_amount}
    details = {"player_card": format_cards(player), "dealer_card": format_cards(dealer),
               "player_rank": RANKS[player[0].rank], "dealer_rank": RANKS[dealer[0].rank],
               "outcome": "folded" if raise_amount == 0 else OUTCOMES[sign]}
    return finish(rules, results, details)
