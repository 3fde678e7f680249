"""Cards: reading, printing, decks and shuffles."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from feltlab.core.cards import (
    DECK_SIZE,
    RANKS,
    SUIT_SYMBOLS,
    SUITS,
    Card,
    CardError,
    card_indices,
    ensure_count,
    format_cards,
    full_deck,
    parse_cards,
    secure_shuffle,
    seeded_shuffle,
    sort_by_suit,
)

RANK_SPELLINGS = {rank: {rank, rank.lower()} for rank in RANKS}
RANK_SPELLINGS["T"] |= {"10"}


@st.composite
def card_texts(draw: st.DrawFn) -> tuple[str, list[Card]]:
    """Distinct cards written in any accepted spelling and separator."""
    cards = draw(st.lists(st.sampled_from(full_deck()), unique=True, max_size=12))
    parts = []
    for card in cards:
        rank = draw(st.sampled_from(sorted(RANK_SPELLINGS[RANKS[card.rank]])))
        suit = draw(st.sampled_from([SUITS[card.suit], SUITS[card.suit].upper()]))
        separator = draw(st.sampled_from(["", " ", ",", ", ", "\t", "  \n"]))
        parts.append(rank + suit + separator)
    return "".join(parts), cards


@given(card_texts())
def test_any_accepted_spelling_reads_and_prints_back(case: tuple[str, list[Card]]) -> None:
    text, cards = case
    parsed = parse_cards(text)
    assert list(parsed) == cards
    printed = format_cards(parsed)
    assert parse_cards(printed) == parsed
    assert printed == " ".join(RANKS[c.rank] + SUITS[c.suit] for c in cards)


@given(st.text(alphabet="0123456789tjqkaTJQKAshdcSHDCx ,", max_size=20))
def test_whatever_the_parser_accepts_prints_back(text: str) -> None:
    try:
        parsed = parse_cards(text)
    except CardError:
        return
    assert parse_cards(format_cards(parsed)) == parsed
    assert parse_cards([str(card) for card in parsed]) == parsed


@given(st.integers(0, DECK_SIZE - 1))
def test_card_round_trip(index: int) -> None:
    card = Card(index)
    assert Card.parse(str(card)) == card
    assert Card.of(card.rank, card.suit) == card
    assert repr(card) == f"Card({str(card)!r})"


@pytest.mark.parametrize(("text", "message"), [
    ("Ah Xh", "cannot read card 'Xh'"),
    ("Ah 1h", "cannot read card '1h'"),
    ("Ahh", "cannot read card 'Ahh'"),
    ("A", "cannot read card 'A'"),
    ("Ah ah", "card Ah appears twice"),
    ("10h Th", "card Th appears twice"),
])
def test_unreadable_or_repeated(text: str, message: str) -> None:
    with pytest.raises(CardError, match=message):
        parse_cards(text)


def test_list_items_must_be_text() -> None:
    with pytest.raises(CardError, match="cannot read card 5"):
        parse_cards(["Ah", 5])  # type: ignore[list-item]


def test_card_parse_wants_one_card() -> None:
    with pytest.raises(CardError, match="expected one card, got 2"):
        Card.parse("Ah Kh")
    with pytest.raises(CardError, match="outside 0-51"):
        Card(52)


def test_ensure_count_names_the_cards() -> None:
    ensure_count(parse_cards("Ah Kh Qh"), 3, "community")
    with pytest.raises(CardError, match=r"player needs 7 cards, got 1 \(Ah\)"):
        ensure_count(parse_cards("Ah"), 7, "player")


def test_decks() -> None:
    deck = full_deck()
    assert len(set(deck)) == DECK_SIZE and [card.index for card in deck] == list(range(52))
    assert sorted(secure_shuffle()) == list(deck)
    first = seeded_shuffle(np.random.default_rng(11))
    assert first == seeded_shuffle(np.random.default_rng(11))
    assert first != seeded_shuffle(np.random.default_rng(12))
    assert list(card_indices(first)) == [card.index for card in first]


def test_sort_by_suit() -> None:
    assert format_cards(sort_by_suit(parse_cards("2c Ah 3s Kh As"))) == "As 3s Ah Kh 2c"


def test_fisher_yates_gives_every_order_exactly_once() -> None:
    """Over every sequence of uniform draws, each of the 5! orders comes out once: the
    shuffle itself adds no bias."""
    from itertools import product

    from feltlab.core.cards import fisher_yates

    items = "abcde"
    orders = []
    for draws in product(*(range(n) for n in range(len(items), 1, -1))):
        answers = iter(draws)
        orders.append("".join(fisher_yates(items, lambda n, answers=answers: next(answers))))
    assert len(orders) == 120 and len(set(orders)) == 120


def test_secure_shuffle_positions_look_uniform() -> None:
    counts = np.zeros((4, 52), dtype=np.int64)
    for _ in range(5200):
        deck = secure_shuffle()
        for row, card in enumerate(deck[:4]):
            counts[row, card.index] += 1
    expected = 100
    chi2 = ((counts - expected) ** 2 / expected).sum(axis=1)
    assert (chi2 < 110).all(), chi2  # 51 degrees of freedom: p < 1e-5 above 110


def test_every_form_a_command_writes_is_read() -> None:
    deck = full_deck()
    symbols = " ".join(RANKS[card.rank] + SUIT_SYMBOLS[card.suit] for card in deck)
    assert parse_cards(symbols) == deck
    assert parse_cards(format_cards(deck)) == deck
    assert parse_cards("10♥,A♣\ufe0f K\u2661") == parse_cards("Th Ac Kh")


@pytest.mark.parametrize(("text", "message"), [
    ("\u212ah", "cannot read card '\u212ah': it holds U+212A KELVIN SIGN, not a plain letter"),
    ("A\u0455", "U+0455 CYRILLIC SMALL LETTER DZE"),
    ("Ah " * 400, "card text is at most 1,000 characters, got 1,200"),
    ("A♥ A♥", "card Ah appears twice"),
])
def test_look_alikes_and_long_text_are_named(text: str, message: str) -> None:
    with pytest.raises(CardError) as error:
        parse_cards(text)
    assert message in str(error.value)
