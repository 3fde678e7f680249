"""Reference hand evaluators: simple, obviously correct, one hand at a time.

The fast batch versions live in :mod:`feltlab.core.kernels`; the tests prove the two equal.

A flush is scored as one integer, ``length << 13 | rank_mask`` where bit ``r`` of the
mask is set when rank ``r`` (0 = deuce, 12 = ace) is in the flush. For flushes of the
same length, comparing masks as integers compares the highest card, then the next, and
so on, so the integer order is exactly the game's order.

>>> from feltlab.core.cards import parse_cards
>>> best_flush(parse_cards("Th 8h 6h Js Ad Qd Jc")).describe()
'3-card hearts flush T-8-6'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

from feltlab.core.cards import COLOUR_SUITS, RANKS, SUIT_NAMES, Card

RANK_BITS = 13


@dataclass(frozen=True, slots=True)
class Flush:
    """The flush a hand plays: its suit and ranks, highest first."""

    suit: int
    ranks: tuple[int, ...]

    @property
    def length(self) -> int:
        return len(self.ranks)

    @property
    def value(self) -> int:
        """The flush as one comparable integer (higher is better)."""
        return flush_value_of(self.length, self.ranks)

    @property
    def high_rank(self) -> int:
        return self.ranks[0]

    def describe(self) -> str:
        ranks = "-".join(RANKS[rank] for rank in self.ranks)
        return f"{self.length}-card {SUIT_NAMES[self.suit]} flush {ranks}"


def flush_value_of(length: int, ranks: Sequence[int]) -> int:
    return (length << RANK_BITS) | sum(1 << rank for rank in ranks)


def describe_flush_value(value: int) -> str:
    """Readable form of a flush value, e.g. ``'3-card flush T-8-6'``."""
    length = value >> RANK_BITS
    ranks = [rank for rank in range(12, -1, -1) if value >> rank & 1]
    return f"{length}-card flush " + "-".join(RANKS[rank] for rank in ranks)


def best_flush(cards: Sequence[Card]) -> Flush:
    """The hand's flush: its longest suit, the best by ranks among suits of that length."""
    by_suit: tuple[list[int], ...] = ([], [], [], [])
    for card in cards:
        by_suit[card.suit].append(card.rank)
    for ranks in by_suit:
        ranks.sort(reverse=True)
    suit = max(range(4), key=lambda suit: (len(by_suit[suit]), by_suit[suit]))
    return Flush(suit, tuple(by_suit[suit]))


def dealer_qualifies(flush: Flush, min_length: int, min_high_rank: int) -> bool:
    """A flush of ``min_length`` qualifies with a high card of at least ``min_high_rank``;
    any longer flush qualifies."""
    if flush.length != min_length:
        return flush.length > min_length
    return flush.high_rank >= min_high_rank


def longest_straight_flush(cards: Sequence[Card]) -> int:
    """Length of the longest run of consecutive ranks in one suit; an ace plays high
    (Q-K-A) or low (A-2-3) but never both at once (no K-A-2). A lone card counts 1."""
    best = 1 if cards else 0
    for suit in range(4):
        ranks = {card.rank for card in cards if card.suit == suit}
        if 12 in ranks:
            ranks.add(-1)  # the ace, low
        for start in ranks:
            length = 1
            while start + length in ranks:
                length += 1
            best = max(best, length)
    return best


def colour_flush_count(cards: Sequence[Card], colour: str) -> int:
    """Flush cards in a colour: the most cards of any one suit of that colour."""
    return max(sum(1 for card in cards if card.suit == suit) for suit in COLOUR_SUITS[colour])


def colour_suit(cards: Sequence[Card], colour: str) -> int | None:
    """The suit of ``colour`` holding the colour's flush cards (``None`` if it has none).

    >>> from feltlab.core.cards import parse_cards
    >>> colour_suit(parse_cards("2h 3d 4d 5s"), "red"), colour_suit(parse_cards("2s"), "red")
    (2, None)
    """
    count = colour_flush_count(cards, colour)
    suits = [suit for suit in COLOUR_SUITS[colour]
             if sum(card.suit == suit for card in cards) == count]
    return suits[0] if count else None


class PokerHand(IntEnum):
    """Five-card classes for Hold'em Stud's pay table, weakest first."""

    HIGH_CARD = 0
    LOW_PAIR = 1  # deuces to fives
    MID_PAIR = 2  # sixes to tens
    HIGH_PAIR = 3  # jacks to aces
    TWO_PAIR = 4
    THREE_OF_A_KIND = 5
    STRAIGHT = 6
    FLUSH = 7
    FULL_HOUSE = 8
    FOUR_OF_A_KIND = 9
    STRAIGHT_FLUSH = 10
    ROYAL_FLUSH = 11


class ThreeCardHand(IntEnum):
    """Three-card classes for the 3 Card Bonus, weakest first (three-card poker order)."""

    HIGH_CARD = 0
    PAIR = 1
    FLUSH = 2
    STRAIGHT = 3
    THREE_OF_A_KIND = 4
    STRAIGHT_FLUSH = 5


def _is_straight(ranks: Sequence[int]) -> bool:
    distinct = sorted(set(ranks))
    if len(distinct) != len(ranks):
        return False
    if distinct[-1] - distinct[0] == len(ranks) - 1:
        return True
    # The ace plays low: A-2-3-4-5, A-2-3.
    low = sorted(-1 if rank == 12 else rank for rank in ranks)
    return low[-1] - low[0] == len(ranks) - 1


def poker_hand(cards: Sequence[Card]) -> PokerHand:
    """Class of a five-card poker hand.

    >>> from feltlab.core.cards import parse_cards
    >>> poker_hand(parse_cards("Ah 2c 3d 4s 5h")).name
    'STRAIGHT'
    >>> poker_hand(parse_cards("8h 8c 3d 4s Kh")).name
    'MID_PAIR'
    """
    if len(cards) != 5:
        raise ValueError(f"a poker hand needs 5 cards, got {len(cards)}")
    ranks = [card.rank for card in cards]
    flush = len({card.suit for card in cards}) == 1
    straight = _is_straight(ranks)
    shape = sorted(Counter(ranks).values(), reverse=True)
    if straight and flush:
        return PokerHand.ROYAL_FLUSH if min(ranks) == 8 else PokerHand.STRAIGHT_FLUSH
    if shape[0] == 4:
        return PokerHand.FOUR_OF_A_KIND
    if shape == [3, 2]:
        return PokerHand.FULL_HOUSE
    if flush:
        return PokerHand.FLUSH
    if straight:
        return PokerHand.STRAIGHT
    if shape[0] == 3:
        return PokerHand.THREE_OF_A_KIND
    if shape[:2] == [2, 2]:
        return PokerHand.TWO_PAIR
    if shape[0] == 2:
        pair_rank = next(rank for rank, count in Counter(ranks).items() if count == 2)
        if pair_rank >= RANKS.index("J"):
            return PokerHand.HIGH_PAIR
        return PokerHand.MID_PAIR if pair_rank >= RANKS.index("6") else PokerHand.LOW_PAIR
    return PokerHand.HIGH_CARD


def three_card_hand(cards: Sequence[Card]) -> ThreeCardHand:
    """Class of three cards for the 3 Card Bonus (A-2-3 and Q-K-A are straights).

    >>> from feltlab.core.cards import parse_cards
    >>> three_card_hand(parse_cards("Qh Kh Ah")).name
    'STRAIGHT_FLUSH'
    """
    if len(cards) != 3:
        raise ValueError(f"a three-card hand needs 3 cards, got {len(cards)}")
    ranks = [card.rank for card in cards]
    flush = len({card.suit for card in cards}) == 1
    straight = _is_straight(ranks)
    distinct = len(set(ranks))
    if straight and flush:
        return ThreeCardHand.STRAIGHT_FLUSH
    if distinct == 1:
        return ThreeCardHand.THREE_OF_A_KIND
    if straight:
        return ThreeCardHand.STRAIGHT
    if flush:
        return ThreeCardHand.FLUSH
    if distinct == 2:
        return ThreeCardHand.PAIR
    return ThreeCardHand.HIGH_CARD
