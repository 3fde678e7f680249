"""The reference evaluators: the game's ranking rules on examples, known counts, and
the fast kernels on large random samples of full-deck hands (the exhaustive sub-deck
comparison is in test_kernels.py)."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import (
    CHECK_IDS,
    SEVEN_CARD_CHECKS,
    Hands,
    Kernel,
    Reference,
    as_array,
    assert_same,
    hand,
    load_data,
    random_hands,
    reference,
)
from feltlab.core import kernels
from feltlab.core.cards import Card, full_deck
from feltlab.core.evaluators import (
    PokerHand,
    ThreeCardHand,
    best_flush,
    colour_flush_count,
    dealer_qualifies,
    describe_flush_value,
    longest_straight_flush,
    poker_hand,
    three_card_hand,
)

SAMPLE_SIZE = 200_000


@pytest.fixture(scope="module")
def seven_card_sample() -> tuple[Hands, npt.NDArray[np.uint8]]:
    """The random 7-card hands and their array, drawn once for the four checks (a second
    each time)."""
    hands = random_hands(7, SAMPLE_SIZE, seed=20261121)
    return hands, as_array(hands)


@pytest.mark.parametrize(("what", "slow", "fast"), SEVEN_CARD_CHECKS, ids=CHECK_IDS)
def test_random_7_card_hands(seven_card_sample: tuple[Hands, npt.NDArray[np.uint8]],
                             what: str, slow: Reference, fast: Kernel) -> None:
    hands, array = seven_card_sample
    assert_same(fast(array), reference(slow, hands), hands, what)


def test_random_5_card_hands() -> None:
    hands = random_hands(5, SAMPLE_SIZE, seed=5)
    assert_same(kernels.poker_hands(as_array(hands)), reference(poker_hand, hands), hands,
                "poker class")


# --- flush ranking (RULES.md, High Card Flush family) -------------------------------

@pytest.mark.parametrize(("better", "worse"), [
    ("Ks Qs Js Ts 2h 3d 4c", "Kh Qh Jh 9h 2s 3c 5d"),  # K-Q-J-T beats K-Q-J-9
    ("Ad 4d 3d 2d 5s 6h 7c", "Ks Qs Js Ts 2h 3c 4c"),  # A-4-3-2 beats K-Q-J-T
    ("5h 4h 3h 2h 7s 6d 8c", "As Ks Qs Jd Td 9c 2c"),  # any 4-card beats any 3-card
    ("As Ks Qs Js 3s 2c 2d", "Ah Kh Qh Jh 2h 3d 4d"),  # decided by the fifth card
    ("2c 3c 4c 5c 6c 7c 8c", "Ah Kh Qh Jh Th 9h 2s"),  # 7 cards beat 6
])
def test_flush_order(better: str, worse: str) -> None:
    assert best_flush(hand(better)).value > best_flush(hand(worse)).value


def test_identical_ranks_tie_in_any_suit() -> None:
    assert best_flush(hand("Ks Qs Js Ts 2h 3d 4c")).value == best_flush(
        hand("Kh Qh Jh Th 2s 3c 5d")).value


def test_better_of_two_equal_length_suits() -> None:
    flush = best_flush(hand("As 3s 2s Kh Qh Jh 4d"))
    assert flush.describe() == "3-card spades flush A-3-2"
    assert describe_flush_value(flush.value) == "3-card flush A-3-2"


@given(st.lists(st.sampled_from(full_deck()), min_size=7, max_size=7, unique=True))
def test_flush_value_orders_by_length_then_ranks(cards: list[Card]) -> None:
    """The integer value orders as RULES.md does: length, then ranks from the top."""
    by_suit = [sorted((card.rank for card in cards if card.suit == suit), reverse=True)
               for suit in range(4)]
    best = max(by_suit, key=lambda ranks: (len(ranks), ranks))
    flush = best_flush(cards)
    assert list(flush.ranks) == best and flush.length == len(best)
    assert all((len(ranks), ranks) <= (flush.length, list(flush.ranks)) for ranks in by_suit)


@pytest.mark.parametrize(("cards", "qualifies"), [
    ("8h 5h 2h 7s 4s 6d 3d", False),  # 8-high 3-card flush
    ("9h 5h 2h 7s 4s 6d 3d", True),  # 9-high
    ("5h 4h 3h 2h 7s 6d 8c", True),  # any 4-card flush
    ("8h 5h 2h 9s 4s 3s 6d", True),  # two 3-card suits, the 9-high one plays
    ("As Ks Ah Kh Ad Kd 2c", False),  # 2-card flushes never qualify
])
def test_dealer_qualifier(cards: str, qualifies: bool) -> None:
    assert dealer_qualifies(best_flush(hand(cards)), 3, 7) is qualifies


@pytest.mark.parametrize(("cards", "run"), [
    ("Ad 2d 3d 9s 7h 5c Jh", 3),
    ("Qd Kd Ad 9s 7h 5c Jh", 3),
    ("Kd Ad 2d 9s 7h 5c Jh", 2),
    ("Kd Ad 2d 3d 4d 5c Jh", 4),
    ("Jd Qd Kd Ad 2d 3d 4d", 4),  # never K-A-2 at once: J-Q-K-A and A-2-3-4
    ("2s 3s 4s 5s 6s 7s 8s", 7),
    ("2s 4s 6s 8s Ts Qs Ah", 1),
])
def test_longest_straight_flush(cards: str, run: int) -> None:
    assert longest_straight_flush(hand(cards)) == run


def test_colour_counts_one_suit() -> None:
    cards = hand("2h 3h 5d 6d 7c 8c 9s")
    assert colour_flush_count(cards, "red") == 2
    assert colour_flush_count(cards, "black") == 2
    assert colour_flush_count(hand("2h 3h 4h 5d 6d 7d 8d"), "red") == 4


# --- poker classes -----------------------------------------------------------------

@pytest.mark.parametrize(("cards", "expected"), [
    ("Ah Kh Qh Jh Th", PokerHand.ROYAL_FLUSH),
    ("9h Kh Qh Jh Th", PokerHand.STRAIGHT_FLUSH),
    ("Ah 2h 3h 4h 5h", PokerHand.STRAIGHT_FLUSH),
    ("Ah 2c 3d 4s 5h", PokerHand.STRAIGHT),
    ("Kh Ac 2d 3s 4h", PokerHand.HIGH_CARD),
    ("6h 6c 2d 9s Kh", PokerHand.MID_PAIR),
    ("Th Tc 2d 9s Kh", PokerHand.MID_PAIR),
    ("5h 5c 2d 9s Kh", PokerHand.LOW_PAIR),
    ("Jh Jc 2d 9s Kh", PokerHand.HIGH_PAIR),
    ("Ah Ac 2d 9s Kh", PokerHand.HIGH_PAIR),
])
def test_poker_hand_examples(cards: str, expected: PokerHand) -> None:
    assert poker_hand(hand(cards)) is expected


def test_every_3_card_hand_reference_counts() -> None:
    table = load_data("three_card_counts.json")
    counts = Counter(three_card_hand(cards).name.lower()
                     for cards in combinations(full_deck(), 3))
    assert dict(counts) == table["counts"]
    assert three_card_hand(hand("Kd Ah 2c")) is ThreeCardHand.HIGH_CARD


@pytest.mark.slow
def test_every_5_card_hand_reference_counts() -> None:
    table = load_data("poker5_counts.json")
    counts = Counter(poker_hand(cards).name.lower() for cards in combinations(full_deck(), 5))
    assert dict(counts) == table["counts"]


def test_wrong_sizes_refused() -> None:
    with pytest.raises(ValueError, match="5 cards"):
        poker_hand(hand("Ah Kh"))
    with pytest.raises(ValueError, match="3 cards"):
        three_card_hand(hand("Ah Kh"))
