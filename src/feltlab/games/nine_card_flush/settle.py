"""Settlement of 9 Card Flush: the one place its wagers' results are decided.

>>> from feltlab.core.rules import load_rules
>>> from feltlab.core.cards import parse_cards
>>> settle_nine_card(load_rules("nine-card-flush"), {"all9": 5}, "red",
...                  parse_cards("Ah 2h 3c"), parse_cards("4h 5h 6d 7d 8s 9s"), True).results
{'all9': 5, 'play': 5}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from feltlab.core.cards import Card, ensure_count, ensure_distinct, format_cards
from feltlab.core.evaluators import colour_flush_count
from feltlab.core.settle import Settlement, WagerError, bonus_result, check_wagers, finish
from feltlab.games.nine_card_flush.rules import NineCardRules

COLOURS: Final = ("red", "black")


def check_colour(colour: object) -> str:
    if colour not in COLOURS:
        raise WagerError(f"colour must be 'red' or 'black', got {colour!r}")
    return str(colour)


def all9_sign(rules: NineCardRules, flush_cards: int) -> int:
    """All 9 and Play per unit for a played hand with this many flush cards in the 9:
    1 win, 0 push, -1 lose.

    >>> from feltlab.core.rules import load_rules
    >>> [all9_sign(load_rules("nine-card-flush"), count) for count in (2, 3, 4)]
    [-1, 0, 1]
    """
    if flush_cards >= rules.all9_win_at:
        return 1
    if rules.all9_push_at is not None and flush_cards >= rules.all9_push_at:
        return 0
    return -1


def settle_nine_card(rules: NineCardRules, wagers: Mapping[str, object], colour: object,
                     community: Sequence[Card], player: Sequence[Card], play: bool) -> Settlement:
    """Settle a 9 Card Flush hand; ``play`` False means the player folded."""
    stakes = check_wagers(rules, wagers)
    chosen = check_colour(colour)
    if not isinstance(play, bool):
        raise WagerError(f"play must be true or false, got {play!r}")
    ensure_count(community, 3, "community")
    ensure_count(player, 6, "player")
    ensure_distinct([*community, *player])
    nine = colour_flush_count([*community, *player], chosen)
    six = colour_flush_count(player, chosen)
    three = colour_flush_count(community, chosen)
    all9 = stakes["all9"]
    results: dict[str, int] = {}
    if not play:
        results["all9"] = -all9
    else:
        results["all9"] = results["play"] = all9_sign(rules, nine) * all9
    for name, table, count in (("bonus9", rules.bonus9_pays, nine),
                               ("player6", rules.player6_pays, six),
                               ("first3", rules.first3_pays, three)):
        if name in stakes:
            results[name] = bonus_result(table, count, stakes[name])
    details = {"colour": chosen, "flush_cards_9": nine, "flush_cards_player6": six,
               "flush_cards_first3": three, "community_cards": format_cards(community),
               "player_cards": format_cards(player)}
    return finish(rules, results, details)
