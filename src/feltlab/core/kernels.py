"""Fast batch evaluators (Numba), equal to :mod:`feltlab.core.evaluators` on every hand.

Every kernel takes a 2-D ``uint8`` array, one hand per row, each entry a card index
(``suit * 13 + rank``), and returns one small integer per hand. Inside, a hand becomes a
64-bit mask with one 16-bit lane per suit (bit ``16 * suit + rank``); per-lane tables
give the popcount and the longest straight-flush run, so a 7-card hand costs a handful
of table lookups and no branches.

>>> import numpy as np
>>> from feltlab.core.cards import card_indices, parse_cards
>>> hands = np.stack([card_indices(parse_cards("Th 8h 6h Js Ad Qd Jc"))])
>>> int(flush_values(hands)[0]) == (3 << 13 | 1 << 8 | 1 << 6 | 1 << 4)
True
"""

from __future__ import annotations

from typing import Final

import numba as nb
import numpy as np
import numpy.typing as npt

from feltlab.core.cards import COLOUR_SUITS

LANE: Final = 16
LANE_MASK: Final = 0x1FFF
CardArray = npt.NDArray[np.uint8]


def _popcount_table() -> npt.NDArray[np.int32]:
    lanes = np.arange(1 << 13, dtype=np.int32)
    counts: npt.NDArray[np.int32] = ((lanes[:, None] >> np.arange(13)) & 1).sum(axis=1)
    return counts.astype(np.int32)


def _run_table() -> npt.NDArray[np.int8]:
    """Longest run of set bits once the ace (bit 12) is copied below the deuce: the number
    of times ``bits &= bits << 1`` leaves any bit set."""
    lanes = np.arange(1 << 13, dtype=np.int64)
    bits = (lanes << 1) | (lanes >> 12)
    table = np.zeros(1 << 13, dtype=np.int8)
    while bits.any():
        table += bits != 0
        bits &= bits << 1
    return table


def _lane_value_table(popcount: npt.NDArray[np.int32]) -> npt.NDArray[np.int32]:
    """A single suit's flush value (``length << 13 | ranks``) by its lane."""
    return (popcount << 13) | np.arange(1 << 13, dtype=np.int32)


def _lane_bit_table() -> npt.NDArray[np.uint64]:
    return np.array([1 << (LANE * (c // 13) + c % 13) for c in range(52)], dtype=np.uint64)


POPCOUNT: Final = _popcount_table()
RUN_LENGTH: Final = _run_table()
LANE_VALUE: Final = _lane_value_table(POPCOUNT)
LANE_BIT: Final = _lane_bit_table()
WHEEL: Final = 0b1000000001111


@nb.njit(inline="always")
def _hand_mask(row: npt.NDArray[np.uint8], lane_bit: npt.NDArray[np.uint64]) -> np.uint64:
    mask = np.uint64(0)
    for card in row:
        mask |= lane_bit[card]
    return mask


@nb.njit(inline="always")
def flush_value_of_mask(mask: np.uint64, popcount: npt.NDArray[np.int32]) -> np.int32:
    """Flush value (``length << 13 | ranks``) of a hand given as a 4-lane mask."""
    best = np.int32(0)
    for suit in range(4):
        lane = np.int32((mask >> np.uint64(LANE * suit)) & np.uint64(LANE_MASK))
        value = (popcount[lane] << 13) | lane
        best = max(best, value)
    return best


@nb.njit(cache=True, parallel=True)
def _flush_values(hands: CardArray, lane_bit: npt.NDArray[np.uint64],
                  lane_value: npt.NDArray[np.int32]) -> npt.NDArray[np.int32]:
    # One table lookup per suit (LANE_VALUE) is ~15% faster than flush_value_of_mask's
    # popcount, shift and or; the two agree on every lane.
    out = np.empty(hands.shape[0], dtype=np.int32)
    for i in nb.prange(hands.shape[0]):
        mask = _hand_mask(hands[i], lane_bit)
        best = np.int32(0)
        for suit in range(4):
            best = max(best, lane_value[(mask >> np.uint64(LANE * suit)) & np.uint64(LANE_MASK)])
        out[i] = best
    return out


@nb.njit(cache=True, parallel=True)
def _straight_flush_lengths(hands: CardArray, lane_bit: npt.NDArray[np.uint64],
                            run_length: npt.NDArray[np.int8]) -> npt.NDArray[np.int8]:
    out = np.empty(hands.shape[0], dtype=np.int8)
    for i in nb.prange(hands.shape[0]):
        mask = _hand_mask(hands[i], lane_bit)
        best = np.int8(0)
        for suit in range(4):
            lane = (mask >> np.uint64(LANE * suit)) & np.uint64(LANE_MASK)
            best = max(best, run_length[lane])
        out[i] = best
    return out


@nb.njit(cache=True, parallel=True)
def _colour_flush_counts(hands: CardArray, first_suit: int, second_suit: int,
                         lane_bit: npt.NDArray[np.uint64],
                         popcount: npt.NDArray[np.int32]) -> npt.NDArray[np.int8]:
    out = np.empty(hands.shape[0], dtype=np.int8)
    for i in nb.prange(hands.shape[0]):
        mask = _hand_mask(hands[i], lane_bit)
        first = popcount[(mask >> np.uint64(LANE * first_suit)) & np.uint64(LANE_MASK)]
        second = popcount[(mask >> np.uint64(LANE * second_suit)) & np.uint64(LANE_MASK)]
        out[i] = max(first, second)
    return out


@nb.njit(inline="always")
def _rank_shape(row: npt.NDArray[np.uint8]) -> tuple[int, int, int, int, int, bool]:
    """Rank mask, count of ranks seen 2/3/4 times, top paired rank, and whether suited."""
    counts = np.uint64(0)  # a 4-bit counter per rank
    ranks = 0
    suit = row[0] // 13
    suited = True
    for card in row:
        rank = card % 13
        ranks |= 1 << rank
        counts += np.uint64(1) << np.uint64(4 * rank)
        suited = suited and card // 13 == suit
    pairs = trips = quads = 0
    pair_rank = -1
    for rank in range(13):
        count = (counts >> np.uint64(4 * rank)) & np.uint64(15)
        if count == 2:
            pairs += 1
            pair_rank = rank
        elif count == 3:
            trips += 1
        elif count == 4:
            quads += 1
    return ranks, pairs, trips, quads, pair_rank, suited


@nb.njit(inline="always")
def _is_straight_mask(ranks: int, size: int, wheel: int) -> bool:
    low = ranks & -ranks
    return ranks == wheel or ranks == low * ((1 << size) - 1)


@nb.njit(cache=True)
def poker_class_of_row(row: npt.NDArray[np.uint8]) -> int:
    """:class:`~feltlab.core.evaluators.PokerHand` value of one five-card hand (card indices).

    >>> from feltlab.core.cards import card_indices, parse_cards
    >>> poker_class_of_row(card_indices(parse_cards("As Ks Qs Js Ts")))
    11
    >>> poker_class_of_row(card_indices(parse_cards("Ah 2d 3c 4s 5s")))
    6
    """
    ranks, pairs, trips, quads, pair_rank, suited = _rank_shape(row)
    straight = pairs + trips + quads == 0 and _is_straight_mask(ranks, 5, WHEEL)
    if straight and suited:
        return 11 if ranks == 0b1111100000000 else 10
    if quads:
        return 9
    if trips and pairs:
        return 8
    if suited:
        return 7
    if straight:
        return 6
    if trips:
        return 5
    if pairs == 2:
        return 4
    if pairs == 1:
        return 3 if pair_rank >= 9 else (2 if pair_rank >= 4 else 1)
    return 0


@nb.njit(cache=True)
def three_card_class_of_row(row: npt.NDArray[np.uint8]) -> int:
    """:class:`~feltlab.core.evaluators.ThreeCardHand` value of one three-card hand.

    >>> from feltlab.core.cards import card_indices, parse_cards
    >>> three_card_class_of_row(card_indices(parse_cards("Qh Kh Ah")))
    5
    >>> three_card_class_of_row(card_indices(parse_cards("Ah 2d 3c")))
    3
    """
    ranks, pairs, trips, _, _, suited = _rank_shape(row)
    straight = pairs + trips == 0 and _is_straight_mask(ranks, 3, 0b1000000000011)
    if straight and suited:
        return 5
    if trips:
        return 4
    if straight:
        return 3
    if suited:
        return 2
    return 1 if pairs else 0


@nb.njit(cache=True, parallel=True)
def _poker_hands(hands: CardArray) -> npt.NDArray[np.int8]:
    out = np.empty(hands.shape[0], dtype=np.int8)
    for i in nb.prange(hands.shape[0]):
        out[i] = poker_class_of_row(hands[i])
    return out


@nb.njit(cache=True, parallel=True)
def _three_card_hands(hands: CardArray) -> npt.NDArray[np.int8]:
    out = np.empty(hands.shape[0], dtype=np.int8)
    for i in nb.prange(hands.shape[0]):
        out[i] = three_card_class_of_row(hands[i])
    return out


def _as_hands(hands: npt.ArrayLike, size: int | None = None) -> CardArray:
    array = np.ascontiguousarray(hands, dtype=np.uint8)
    if array.ndim != 2:
        raise ValueError(f"expected a 2-D array of hands, got shape {array.shape}")
    if size is not None and array.shape[1] != size:
        raise ValueError(f"expected hands of {size} cards, got {array.shape[1]}")
    if array.size and int(array.max()) >= 52:
        raise ValueError(f"card index {int(array.max())} is outside 0-51")
    return array


def flush_values(hands: npt.ArrayLike) -> npt.NDArray[np.int32]:
    """Flush value of each hand (see :func:`feltlab.core.evaluators.flush_value_of`)."""
    return _flush_values(_as_hands(hands), LANE_BIT, LANE_VALUE)


def straight_flush_lengths(hands: npt.ArrayLike) -> npt.NDArray[np.int8]:
    """Longest straight-flush run of each hand (ace high or low, no wrap)."""
    return _straight_flush_lengths(_as_hands(hands), LANE_BIT, RUN_LENGTH)


def colour_flush_counts(hands: npt.ArrayLike, colour: str) -> npt.NDArray[np.int8]:
    """Flush cards of ``colour`` ("red" or "black") in each hand."""
    if colour not in COLOUR_SUITS:
        raise ValueError(f"colour must be 'red' or 'black', got {colour!r}")
    first, second = COLOUR_SUITS[colour]
    array = _as_hands(hands)
    return _colour_flush_counts(array, first, second, LANE_BIT, POPCOUNT)


def poker_hands(hands: npt.ArrayLike) -> npt.NDArray[np.int8]:
    """:class:`~feltlab.core.evaluators.PokerHand` value of each five-card hand."""
    return _poker_hands(_as_hands(hands, 5))


def three_card_hands(hands: npt.ArrayLike) -> npt.NDArray[np.int8]:
    """:class:`~feltlab.core.evaluators.ThreeCardHand` value of each three-card hand."""
    return _three_card_hands(_as_hands(hands, 3))

