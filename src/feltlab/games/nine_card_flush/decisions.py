"""9 Card Flush's one decision, exactly: fold, or play (a Play wager equal to All 9),
taken on the 3 community cards before any of the player's own six is dealt.

The optimal decision per community class (:func:`optimal_plays`, ties play), the same as
a 4 x 4 table for the simulator (:func:`play_table`), and the advice on one set of
community cards, also with dead cards or some of the player's six seen
(:func:`advise`). Counts are by suit class, as in :mod:`.deals`.

>>> from feltlab.core.cards import parse_cards
>>> from feltlab.core.rules import load_rules
>>> advise(load_rules("nine-card-flush"), parse_cards("Ah Kh 2s"), "red").best
'play'
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from functools import cache

import numpy as np
import numpy.typing as npt

from feltlab.core.cards import (
    COLOUR_SUITS,
    Card,
    CardError,
    ensure_count,
    ensure_distinct,
    format_cards,
)
from feltlab.core.model import Advice, OptionValue
from feltlab.games.nine_card_flush.deals import (
    COMMUNITY,
    OTHER_SIZE,
    PLAYER,
    SUIT_SIZE,
    all9_signs,
    community_classes,
    player_classes,
    split_ways,
    suit_splits,
)
from feltlab.games.nine_card_flush.rules import NineCardRules
from feltlab.games.nine_card_flush.settle import check_colour


@cache
def play_ev(signs: tuple[int, ...], community: tuple[int, int, int]) -> Fraction:
    """EV per unit of All 9 of playing (All 9 and Play together) on this community."""
    total = sum(2 * signs[deal.nine] * deal.count for deal in player_classes(community))
    return Fraction(total, math.comb(52 - COMMUNITY, PLAYER))


def optimal_plays(rules: NineCardRules) -> dict[tuple[int, int, int], bool]:
    """Play (True) or fold per community class (hearts, diamonds, black); ties play."""
    signs = all9_signs(rules)
    return {community: play_ev(signs, community) >= -1 for community, _ in community_classes()}


def play_table(rules: NineCardRules) -> npt.NDArray[np.int8]:
    """Optimal decision as a 4 x 4 array: ``[cards of the colour's first suit, cards of its
    second suit]`` in the community (the rest are of the other colour) -> 1 play, 0 fold.
    Entries whose two counts add up to more than 3 are 0 (they cannot happen).

    >>> from feltlab.core.rules import load_rules
    >>> play_table(load_rules("nine-card-flush"))[0, 0]
    np.int8(0)
    """
    table = np.zeros((4, 4), dtype=np.int8)
    for (first, second, _), play in optimal_plays(rules).items():
        table[first, second] = int(play)
    return table


# Advice ---------------------------------------------------------------------------------

def _community_split(community: Sequence[Card], colour: str) -> tuple[int, int, int]:
    first, second = COLOUR_SUITS[colour]
    counts = [sum(1 for card in community if card.suit == suit) for suit in (first, second)]
    return counts[0], counts[1], len(community) - sum(counts)


def _colour_split(cards: Sequence[Card], colour: str) -> tuple[int, int, int]:
    """(first suit, second suit, other colour) counts of the chosen colour."""
    first, second = COLOUR_SUITS[colour]
    return (sum(1 for card in cards if card.suit == first),
            sum(1 for card in cards if card.suit == second),
            sum(1 for card in cards if card.suit not in (first, second)))


def play_ev_known(rules: NineCardRules, community: tuple[int, int, int],
                  out: tuple[int, int, int], seen: tuple[int, int, int]) -> Fraction:
    """EV per unit of All 9 of playing when, besides the community split, the cards
    split as ``out`` are out of the deck and the player's own cards split as ``seen``
    are already known (colour splits as :func:`_colour_split`)."""
    signs = all9_signs(rules)
    sizes = tuple(full - c - o - s for full, c, o, s in zip(
        (SUIT_SIZE, SUIT_SIZE, OTHER_SIZE), community, out, seen, strict=True))
    first, second, other = sizes
    still = PLAYER - sum(seen)
    total = 0
    for split in suit_splits(still, (first, second, other)):
        nine = max(community[0] + seen[0] + split[0], community[1] + seen[1] + split[1])
        total += 2 * signs[nine] * split_ways(split, (first, second, other))
    return Fraction(total, math.comb(first + second + other, still))


def advise(rules: NineCardRules, community: Sequence[Card], colour: str,
           dead: Sequence[Card] = (), seen: Sequence[Card] = ()) -> Advice:
    """Exact EV per unit of All 9 of folding and of playing on these community cards;
    ``dead`` cards are out of the deck and ``seen`` are cards of the player's own six
    glimpsed before the decision (by default neither: the six are unknown)."""
    chosen = check_colour(colour)
    ensure_count(community, COMMUNITY, "community")
    if len(seen) > PLAYER:
        raise CardError(f"dealer (cards seen): the player gets {PLAYER} cards, got {len(seen)}")
    ensure_distinct([*community, *dead, *seen])
    if 52 - COMMUNITY - len(dead) - len(seen) < PLAYER - len(seen):
        raise CardError(f"dead: {len(dead)} dead cards leave too few for the player's six")
    split = _community_split(community, chosen)
    if dead or seen:
        play = play_ev_known(rules, split, _colour_split(dead, chosen),
                             _colour_split(seen, chosen))
    else:
        play = play_ev(all9_signs(rules), split)
    options = (OptionValue("fold", Fraction(-1)), OptionValue("play", play))
    best = "play" if play >= -1 else "fold"
    details: dict[str, object] = {"colour": chosen, "community": format_cards(community),
                                  "colour_cards": split[0] + split[1],
                                  "flush_cards": max(split[:2])}
    if dead or seen:
        details |= {"dead": format_cards(dead), "seen": format_cards(seen)}
    return Advice(rules.id, format_cards(community), options, best, details)
