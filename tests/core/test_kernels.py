"""The Numba kernels equal the reference evaluators, hand for hand, and the known counts.

Exhaustive where the reference is fast enough (every 7-card hand of a 26-card sub-deck,
every 3-card hand), large random samples elsewhere, and every hand in ``slow`` tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, product
from math import comb

import numpy as np
import numpy.typing as npt
import pytest

from conftest import (
    CHECK_IDS,
    SEVEN_CARD_CHECKS,
    Hands,
    Kernel,
    Reference,
    as_array,
    assert_same,
    load_data,
    random_hands,
    reference,
    seven_card_hands_from,
)
from feltlab.core import kernels
from feltlab.core.cards import card_indices, full_deck, parse_cards
from feltlab.core.evaluators import (
    PokerHand,
    ThreeCardHand,
    best_flush,
    poker_hand,
    three_card_hand,
)

# 26 cards spanning every suit and rank: A-7 and 8-A suited (wheels, 7-card runs, ace
# high and low), K-A-2 without Q or 3 (a wrap-around would show), and a gappy suit.
SUB_DECK = parse_cards("As 2s 3s 4s 5s 6s 7s  8h 9h Th Jh Qh Kh Ah  Kd Ad 2d 5d 7d 9d"
                       "  2c 4c 6c 8c Tc Qc")


@pytest.fixture(scope="module")
def sub_deck_hands() -> Hands:
    assert len(SUB_DECK) == 26
    assert {card.suit for card in SUB_DECK} == set(range(4))
    assert {card.rank for card in SUB_DECK} == set(range(13))
    hands: Hands = list(combinations(SUB_DECK, 7))
    assert len(hands) == comb(26, 7) == 657_800
    return hands


@pytest.fixture(scope="module")
def sub_deck_array(sub_deck_hands: Hands) -> npt.NDArray[np.uint8]:
    """:func:`sub_deck_hands` as the kernels take them, built once (0.7 s each time)."""
    return as_array(sub_deck_hands)


@pytest.mark.parametrize(("what", "slow", "fast"), SEVEN_CARD_CHECKS, ids=CHECK_IDS)
def test_every_7_card_hand_of_the_sub_deck(sub_deck_hands: Hands,
                                           sub_deck_array: npt.NDArray[np.uint8], what: str,
                                           slow: Reference, fast: Kernel) -> None:
    assert_same(fast(sub_deck_array), reference(slow, sub_deck_hands), sub_deck_hands, what)


def longest_suit_counts(suit_sizes: Sequence[int], hand_size: int) -> dict[int, int]:
    """Hands by longest suit, summed over every split of the hand among the suits."""
    counts: dict[int, int] = {}
    for split in product(*(range(min(size, hand_size) + 1) for size in suit_sizes)):
        if sum(split) == hand_size:
            ways = 1
            for size, taken in zip(suit_sizes, split, strict=True):
                ways *= comb(size, taken)
            counts[max(split)] = counts.get(max(split), 0) + ways
    return counts


def test_sub_deck_flush_lengths_match_combinatorics(sub_deck_array: npt.NDArray[np.uint8]
                                                    ) -> None:
    lengths = kernels.flush_values(sub_deck_array) >> 13
    found = {int(length): int(count) for length, count in
             zip(*np.unique(lengths, return_counts=True), strict=True)}
    assert found == longest_suit_counts([7, 7, 6, 6], 7)


def test_longest_suit_formula_matches_the_data_table() -> None:
    table = load_data("seven_card_longest_suit.json")
    expected = {int(length): count for length, count in table["counts"].items()}
    assert longest_suit_counts([13] * 4, 7) == expected
    assert sum(expected.values()) == table["total"] == comb(52, 7)


def test_every_3_card_hand() -> None:
    hands: Hands = list(combinations(full_deck(), 3))
    fast = kernels.three_card_hands(as_array(hands))
    slow = reference(three_card_hand, hands)
    assert_same(fast, slow, hands, "three-card class")
    table = load_data("three_card_counts.json")
    assert {ThreeCardHand(value).name.lower(): int(count) for value, count in
            zip(*np.unique(fast, return_counts=True), strict=True)} == table["counts"]
    assert len(hands) == table["total"]


def all_5_card_hands() -> npt.NDArray[np.uint8]:
    flat = np.fromiter((card for hand in combinations(range(52), 5) for card in hand),
                       dtype=np.uint8, count=5 * comb(52, 5))
    return flat.reshape(-1, 5)


def test_poker_counts_of_every_5_card_hand() -> None:
    classes = kernels.poker_hands(all_5_card_hands())
    table = load_data("poker5_counts.json")
    counts = np.bincount(classes, minlength=len(PokerHand))
    assert {hand.name.lower(): int(counts[hand]) for hand in PokerHand} == table["counts"]
    assert int(counts.sum()) == table["total"]


@pytest.mark.slow
def test_every_5_card_hand_against_the_reference() -> None:
    array = all_5_card_hands()
    deck = full_deck()
    hands = [tuple(deck[card] for card in row) for row in array.tolist()]
    assert_same(kernels.poker_hands(array), reference(poker_hand, hands), hands, "poker class")


@pytest.mark.slow
def test_every_7_card_hand_flush_lengths() -> None:
    buffer = np.empty((comb(51, 6), 7), dtype=np.uint8)
    counts = np.zeros(8, dtype=np.int64)
    for first in range(46):
        rows = seven_card_hands_from(first, buffer)
        assert rows == comb(51 - first, 6)
        counts += np.bincount(kernels.flush_values(buffer[:rows]) >> 13, minlength=8)
    table = load_data("seven_card_longest_suit.json")
    assert {str(length): int(counts[length]) for length in range(2, 8)} == table["counts"]
    assert counts[:2].sum() == 0 and counts.sum() == comb(52, 7)


def test_single_hand_examples() -> None:
    hand = card_indices(parse_cards("Th 8h 6h Js Ad Qd Jc"))[None, :]
    assert int(kernels.flush_values(hand)[0]) == best_flush(parse_cards(
        "Th 8h 6h Js Ad Qd Jc")).value
    wheel = card_indices(parse_cards("Ah 2h 3h 4h 5h"))[None, :]
    assert kernels.poker_hands(wheel)[0] == PokerHand.STRAIGHT_FLUSH
    assert kernels.straight_flush_lengths(card_indices(parse_cards(
        "Kd Ad 2d 3d 9s 9h 9c"))[None, :])[0] == 3


@pytest.mark.parametrize("bad", [
    np.zeros(7, dtype=np.uint8),  # one hand, not a batch
    np.array([[0, 1, 2, 3, 4, 5, 52]]),  # not a card
])
def test_kernels_refuse_bad_arrays(bad: npt.NDArray[np.integer]) -> None:
    with pytest.raises(ValueError):
        kernels.flush_values(bad)


def test_kernels_refuse_wrong_hand_size_and_colour() -> None:
    with pytest.raises(ValueError, match="5 cards"):
        kernels.poker_hands(np.zeros((1, 7), dtype=np.uint8))
    with pytest.raises(ValueError, match="3 cards"):
        kernels.three_card_hands(np.zeros((1, 5), dtype=np.uint8))
    with pytest.raises(ValueError, match="colour"):
        kernels.colour_flush_counts(np.zeros((1, 7), dtype=np.uint8), "green")


def test_empty_batch() -> None:
    assert kernels.flush_values(np.empty((0, 7), dtype=np.uint8)).shape == (0,)


def test_single_mask_evaluator_agrees() -> None:
    """``flush_value_of_mask`` (used by the simulator) equals the batch kernel."""
    hands = as_array(random_hands(5000, 7, seed=9))
    masks = [int(np.bitwise_or.reduce(kernels.LANE_BIT[row])) for row in hands]
    one_by_one = [int(kernels.flush_value_of_mask(np.uint64(mask), kernels.POPCOUNT))
                  for mask in masks]
    assert one_by_one == kernels.flush_values(hands).tolist()
    lanes = np.arange(1 << 13)
    assert ((kernels.POPCOUNT[lanes] << 13 | lanes) == kernels.LANE_VALUE).all()
