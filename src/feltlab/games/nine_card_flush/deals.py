"""The deals of 9 Card Flush, counted by class: what every wager of the exact analysis
is summed over.

By colour symmetry the analysis is for red; black is the same. A deal is 3 community
cards (C(52,3) sets) and the player's 6 from the other 49 (C(49,6) sets): every wager
is counted over all 22,100 x 13,983,816 = 309,042,333,600 of them. Only the number of
hearts and of diamonds matters, so the deals are counted by multivariate
hypergeometric products: C(13, hearts) C(13, diamonds) C(26, black) for the community
and C(13 - h, x_h) C(13 - d, x_d) C(26 - b, x_b) for the player's six.

>>> sum(deal.count for deal in all_deals()) == DEALS
True
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

from feltlab.games.nine_card_flush.rules import NineCardRules
from feltlab.games.nine_card_flush.settle import all9_sign

SUIT_SIZE = 13
OTHER_SIZE = 26  # the cards of the other colour
COMMUNITY = 3
PLAYER = 6
DEALS = math.comb(52, COMMUNITY) * math.comb(52 - COMMUNITY, PLAYER)


@dataclass(frozen=True)
class Deal:
    """A class of deals: community (first suit, second suit, other colour) and the
    player's six likewise, with how many deals it holds."""

    community: tuple[int, int, int]
    player: tuple[int, int, int]
    count: int

    @property
    def nine(self) -> int:
        return max(self.community[0] + self.player[0], self.community[1] + self.player[1])

    @property
    def six(self) -> int:
        return max(self.player[:2])

    @property
    def three(self) -> int:
        return max(self.community[:2])


def suit_splits(total: int, sizes: tuple[int, int, int]) -> Iterator[tuple[int, int, int]]:
    for first in range(min(total, sizes[0]) + 1):
        for second in range(min(total - first, sizes[1]) + 1):
            other = total - first - second
            if other <= sizes[2]:
                yield first, second, other


def split_ways(taken: tuple[int, int, int], sizes: tuple[int, int, int]) -> int:
    return math.prod(math.comb(size, count) for size, count in zip(sizes, taken, strict=True))


def community_classes() -> list[tuple[tuple[int, int, int], int]]:
    """(hearts, diamonds, black) of the community and how many 3-card sets have it."""
    sizes = (SUIT_SIZE, SUIT_SIZE, OTHER_SIZE)
    return [(split, split_ways(split, sizes)) for split in suit_splits(COMMUNITY, sizes)]


def player_classes(community: tuple[int, int, int]) -> list[Deal]:
    """Every class of the player's six given the community (counts add to C(49, 6))."""
    sizes = (SUIT_SIZE - community[0], SUIT_SIZE - community[1], OTHER_SIZE - community[2])
    return [Deal(community, split, split_ways(split, sizes))
            for split in suit_splits(PLAYER, sizes)]


def all_deals() -> list[Deal]:
    """Every class of the full deal, counts multiplied out (they add up to ``DEALS``)."""
    deals = []
    for community, ways in community_classes():
        deals += [Deal(community, deal.player, deal.count * ways)
                  for deal in player_classes(community)]
    return deals


def all9_signs(rules: NineCardRules) -> tuple[int, ...]:
    """All 9 result per unit (1 win, 0 push, -1 lose) by 9-card flush count, as
    :func:`feltlab.core.settle.settle_nine_card` decides it for a played hand.

    >>> from feltlab.core.rules import load_rules
    >>> all9_signs(load_rules("nine-card-flush"))
    (-1, -1, -1, 0, 1, 1, 1, 1, 1, 1)
    """
    return tuple(all9_sign(rules, count) for count in range(COMMUNITY + PLAYER + 1))
