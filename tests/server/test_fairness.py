"""The seed-to-deck mapping: exhaustively uniform on a small deck, card-by-position
chi-square over many decks, reproducible, and sensitive to both seeds."""

from __future__ import annotations

import hashlib
import itertools
import math
from collections import Counter
from collections.abc import Callable, Iterator

import numpy as np
import pytest

from feltlab.core.cards import fisher_yates
from feltlab.server.fairness import (
    FairnessError,
    check_client_seed,
    combine_client_seeds,
    commitment,
    deck_from_seed,
    new_server_seed,
    permutation_from_seed,
    shuffled,
    unbiased_randbelow,
    word_stream,
)

PUBLISHED_DECK = ("8d 3h 3d 4h 9c Jc 4d Js 9h 3s 4c Kh 9s Qh 6c 2c 7s Ac Tc 5h Kd As 8h 3c 5s "
                  "Td 5d 8c 4s Qd Jd Ks Qs 2d 7d Ad Th 6h 6s Kc Ah 2h 5c Ts 7c Qc Jh 7h 2s 8s "
                  "9d 6d")
"""The deck of server seed ``00`` * 32 with no client seed, top card first."""
PUBLISHED_DECK_WITH_CLIENT_SEED = (
    "4d Jd Jc Kc Td 8d 6d 2c Tc Ts Kh 3h 2s 8s 5h 4c 9h Ks Kd Js Th 3d 4h 6c 3s 8c Qh 7c 3c "
    "9c As Qs 5c 2h Qd 2d Ad 5d 7d 6h 5s 4s Qc 8h Ac Jh 9d 9s Ah 6s 7s 7h")
"""The same seed's deck with the client seed ``player``."""


def accepted_words(n: int, bits: int) -> range:
    return range((1 << bits) - (1 << bits) % n)


@pytest.mark.parametrize("size, bits", [(4, 4), (5, 3), (6, 3)])
def test_every_word_sequence_gives_each_order_equally_often(size: int, bits: int) -> None:
    """Enumerate every sequence of accepted words (rejected words only repeat a draw):
    each order of the deck comes out the same number of times."""
    draws = list(range(size, 1, -1))
    counts: Counter[tuple[int, ...]] = Counter()
    for words in itertools.product(*(accepted_words(n, bits) for n in draws)):
        counts[tuple(fisher_yates(range(size), unbiased_randbelow(iter(words), bits)))] += 1
    sequences = math.prod(len(accepted_words(n, bits)) for n in draws)
    assert len(counts) == math.factorial(size)
    assert set(counts.values()) == {sequences // math.factorial(size)}


def test_rejected_words_are_skipped() -> None:
    randbelow = unbiased_randbelow(iter([14, 15, 4]), bits=4)
    assert randbelow(5) == 4 and randbelow(5) == 4  # 15 >= 15 is rejected
    assert list(itertools.islice(word_stream("ab" * 32, ""), 3)) == list(
        itertools.islice(word_stream("ab" * 32, ""), 3))


def chi_square_by_position(decks: int, size: int = 52) -> tuple[float, int, np.ndarray]:
    counts = np.zeros((size, size), dtype=np.int64)
    positions = np.arange(size)
    for number in range(decks):
        order = permutation_from_seed(f"{number:064x}", "chi", size)
        counts[positions, order] += 1
    expected = decks / size
    statistic = float(((counts - expected) ** 2 / expected).sum())
    return statistic, size * (size - 1), counts


def upper_tail(statistic: float, freedom: int) -> float:
    """P(chi-square with ``freedom`` degrees >= statistic), Wilson-Hilferty."""
    cube = (statistic / freedom) ** (1 / 3)
    z = (cube - (1 - 2 / (9 * freedom))) / math.sqrt(2 / (9 * freedom))
    return 0.5 * math.erfc(z / math.sqrt(2))


def test_card_by_position_chi_square_quick() -> None:
    statistic, freedom, counts = chi_square_by_position(40_000)
    assert (counts.sum(axis=0) == 40_000).all() and (counts.sum(axis=1) == 40_000).all()
    assert 1e-4 < upper_tail(statistic, freedom) < 1 - 1e-4


@pytest.mark.slow
def test_card_by_position_chi_square_million() -> None:
    statistic, freedom, counts = chi_square_by_position(1_000_000)
    assert (counts.sum(axis=1) == 1_000_000).all()
    assert 1e-4 < upper_tail(statistic, freedom) < 1 - 1e-4
    per_position = ((counts - 1_000_000 / 52) ** 2 / (1_000_000 / 52)).sum(axis=1)
    assert min(upper_tail(float(value), 51) for value in per_position) > 1e-4 / 52


def naive_randbelow(words: Iterator[int]) -> Callable[[int], int]:
    """Modulo of 6-bit words, no rejection: biased."""
    return lambda n: (next(words) >> 26) % n


def test_chi_square_catches_a_biased_mapping() -> None:
    """The same statistic flags the classic modulo bias of a naive shuffle."""
    size, decks = 52, 20_000
    counts = np.zeros((size, size), dtype=np.int64)
    for number in range(decks):
        order = fisher_yates(range(size), naive_randbelow(word_stream(f"{number:064x}", "bias")))
        counts[np.arange(size), order] += 1
    expected = decks / size
    statistic = float(((counts - expected) ** 2 / expected).sum())
    assert upper_tail(statistic, size * (size - 1)) < 1e-6


def test_seeds_reproduce_and_differ() -> None:
    seed = new_server_seed()
    assert len(seed) == 64 and seed != new_server_seed()
    assert deck_from_seed(seed, "") == deck_from_seed(seed, "")
    assert sorted(deck_from_seed(seed, "x")) == sorted(deck_from_seed(seed, ""))
    assert deck_from_seed(seed, "x") != deck_from_seed(seed, "")
    assert commitment(seed) != commitment(new_server_seed())


@pytest.mark.parametrize("bad", ["a" * 65, "with space", "emoji😀", "semi;colon"])
def test_client_seed_checked(bad: str) -> None:
    with pytest.raises(FairnessError):
        check_client_seed(bad)


@pytest.mark.parametrize("bad", ["", "XY" * 32, "ab" * 31])
def test_server_seed_checked(bad: str) -> None:
    with pytest.raises(FairnessError):
        commitment(bad)


def mixed_by_hand(pairs: list[tuple[int, str]]) -> str:
    """The README's recipe, written out separately: SHA-256 of "SEAT:SEED" lines."""
    text = "".join(f"{seat}:{seed}\n" for seat, seed in pairs)
    return hashlib.sha256(text.encode()).hexdigest()


def test_combine_client_seeds() -> None:
    assert combine_client_seeds({}) == "" and combine_client_seeds({1: "", 7: ""}) == ""
    seeds = {7: "g", 2: "b:2", 1: "", 10: "ten"}
    mixed = combine_client_seeds(seeds)
    assert mixed == mixed_by_hand([(2, "b:2"), (7, "g"), (10, "ten")])
    assert mixed == combine_client_seeds(dict(reversed(seeds.items())))  # any key order
    assert check_client_seed(mixed) == mixed and len(mixed) == 64  # a valid client seed
    assert combine_client_seeds({3: "x"}) == mixed_by_hand([(3, "x")]) != "x"
    variants = [{1: "a", 2: "b"}, {1: "b", 2: "a"}, {1: "a", 3: "b"}, {1: "a"},
                {1: "a", 2: "B"}, {1: "a", 2: "b", 3: "c"}, {11: "a", 2: "b"}]
    assert len({combine_client_seeds(item) for item in variants}) == len(variants)


def test_combine_client_seeds_checks_each_seed() -> None:
    with pytest.raises(FairnessError, match="client_seed"):
        combine_client_seeds({1: "fine", 2: "new\nline"})


def test_the_fast_shuffle_is_the_reference_shuffle() -> None:
    """Every deck is dealt by :func:`shuffled`; it draws the same words the same way as
    the reference (Fisher-Yates over the unbiased draws of the HMAC word stream), for
    seeds and client seeds of every kind and sizes that reject words now and then."""
    for number in range(300):
        seed = hashlib.sha256(str(number).encode()).hexdigest()
        for client_seed in ("", "x", f"seat-{number}:ok"):
            for size in (52, 2, 9, 1, 0):
                assert shuffled(seed, client_seed, size) == permutation_from_seed(
                    seed, client_seed, size)


def test_a_published_deck_is_dealt_as_published() -> None:
    """A fixed seed's deck, written down once: anyone checking a round with the
    documented recipe gets this deck, so the algorithm may never drift."""
    deck = deck_from_seed("00" * 32, "")
    assert " ".join(str(card) for card in deck) == PUBLISHED_DECK
    assert " ".join(str(card) for card in deck_from_seed("00" * 32, "player")) == (
        PUBLISHED_DECK_WITH_CLIENT_SEED)
