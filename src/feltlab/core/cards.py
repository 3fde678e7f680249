"""Cards, decks and shuffles.

A card is a small integer ``suit * 13 + rank`` where rank 0 is a deuce and rank 12 an
ace, and suits are ordered spades, hearts, diamonds, clubs. The :class:`Card` dataclass
wraps that integer for people; the fast code works on the integers directly.

Every command reads the forms any command writes: ``Ah``, ``Td`` or ``10d``, either
case, and suit symbols (``A♠ T♥ 9♦ 2♣``, white symbols too).

>>> parse_cards("Ah 10d 2c")
(Card('Ah'), Card('Td'), Card('2c'))
>>> format_cards(parse_cards("th8h6h"))
'Th 8h 6h'
>>> parse_cards("T♥ 8♡ J♠")
(Card('Th'), Card('8h'), Card('Js'))
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, TypeVar

if TYPE_CHECKING:  # NumPy loads with the first array: the card parser alone needs none
    import numpy as np
    import numpy.typing as npt

RANKS: Final = "23456789TJQKA"
SUITS: Final = "shdc"
SUIT_NAMES: Final = ("spades", "hearts", "diamonds", "clubs")
SUIT_SYMBOLS: Final = ("♠", "♥", "♦", "♣")
RED_SUITS: Final = (1, 2)
BLACK_SUITS: Final = (0, 3)
COLOUR_SUITS: Final = {"red": RED_SUITS, "black": BLACK_SUITS}
DECK_SIZE: Final = 52
CARD_NAMES: Final = tuple(RANKS[index % 13] + SUITS[index // 13] for index in range(DECK_SIZE))
"""Each card's name by index ("2s" ... "Ac"), made once: views name cards many times."""

CARD_FORMAT: Final = ("'Ah Td 2c' (10 for T works: '10d'), or with suit symbols 'A♠ T♥'; "
                      "spaces and commas optional")
"""How card text is written, for help texts and error messages."""
MAX_CARD_TEXT: Final = 1000
"""Longest card text read (a 52-card deck written out is under 160 characters)."""

T = TypeVar("T")
_SUIT_OF_SYMBOL: Final = {"♠": "s", "♥": "h", "♦": "d", "♣": "c",
                          "♤": "s", "♡": "h", "♢": "d", "♧": "c"}
_CARD_TOKEN = re.compile(r"(10|[2-9tjqka])([shdc♠♥♦♣♤♡♢♧])", re.IGNORECASE | re.ASCII)
_VARIATION_SELECTORS = re.compile("[\ufe0e\ufe0f]")  # text/emoji forms of a suit symbol


class CardError(ValueError):
    """Card text that cannot be read, a repeated card, or the wrong number of cards."""


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """One playing card; ``index`` is ``suit * 13 + rank``.

    >>> Card.parse("Qs").rank, Card.parse("Qs").suit
    (10, 0)
    >>> str(Card(51))
    'Ac'
    """

    index: int

    def __post_init__(self) -> None:
        if not 0 <= self.index < DECK_SIZE:
            raise CardError(f"card index {self.index} is outside 0-51")

    @classmethod
    def of(cls, rank: int, suit: int) -> Card:
        return cls(suit * 13 + rank)

    @classmethod
    def parse(cls, text: str) -> Card:
        cards = parse_cards(text)
        if len(cards) != 1:
            raise CardError(f"expected one card, got {len(cards)} in {text!r}")
        return cards[0]

    @property
    def rank(self) -> int:
        return self.index % 13

    @property
    def suit(self) -> int:
        return self.index // 13

    def __str__(self) -> str:
        return CARD_NAMES[self.index]

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"


def parse_cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Read cards from text such as ``"Ah Td 2c"``, ``"AhTd2c"`` or ``["Ah", "10d"]``.

    Ranks 2-9, T (or 10), J, Q, K, A; suits s h d c or ♠ ♥ ♦ ♣; either case; spaces and
    commas optional. Unreadable text is refused with a message naming it (and any
    look-alike character in it); so is a card that appears twice.

    >>> parse_cards(["Ks", "kd"])
    (Card('Ks'), Card('Kd'))
    >>> parse_cards("Ah Xh")
    Traceback (most recent call last):
    ...
    feltlab.core.cards.CardError: cannot read card 'Xh'
    >>> parse_cards("Ah ah")
    Traceback (most recent call last):
    ...
    feltlab.core.cards.CardError: card Ah appears twice
    """
    if not isinstance(text, str):
        text = " ".join(_require_str(item) for item in text)
    if len(text) > MAX_CARD_TEXT:
        raise CardError(f"card text is at most {MAX_CARD_TEXT:,} characters, got {len(text):,}")
    cards: list[Card] = []
    for chunk in re.split(r"[\s,]+", _VARIATION_SELECTORS.sub("", text).strip()):
        if chunk:
            cards.extend(_parse_chunk(chunk))
    ensure_distinct(cards)
    return tuple(cards)


def _require_str(item: object) -> str:
    if not isinstance(item, str):
        raise CardError(f"cannot read card {item!r}: expected text such as 'Ah'")
    return item


def _parse_chunk(chunk: str) -> list[Card]:
    cards: list[Card] = []
    position = 0
    while position < len(chunk):
        match = _CARD_TOKEN.match(chunk, position)
        if match is None:
            bad = chunk[position : position + 2] if len(chunk) - position > 1 else chunk
            raise CardError(f"cannot read card {bad!r}{_look_alike(bad)}")
        rank_text, suit_text = match.groups()
        rank = RANKS.index("T" if rank_text == "10" else rank_text.upper())
        suit = _SUIT_OF_SYMBOL.get(suit_text, suit_text.lower())
        cards.append(Card.of(rank, SUITS.index(suit)))
        position = match.end()
    return cards


def _look_alike(text: str) -> str:
    """Name the first character outside ASCII and the suit symbols, if any."""
    for character in text:
        if not character.isascii() and character not in _SUIT_OF_SYMBOL:
            name = unicodedata.name(character, "an unnamed character")
            return f": it holds U+{ord(character):04X} {name}, not a plain letter"
    return ""


def ensure_distinct(cards: Iterable[Card]) -> None:
    """Refuse a collection in which any card appears twice, naming it."""
    cards = tuple(cards)
    if len({card.index for card in cards}) == len(cards):  # every deck is checked: quick
        return
    seen: set[Card] = set()
    for card in cards:
        if card in seen:
            raise CardError(f"card {card} appears twice")
        seen.add(card)


def ensure_count(cards: Sequence[Card], count: int, what: str) -> None:
    """Refuse ``cards`` unless there are exactly ``count`` of them.

    >>> ensure_count(parse_cards("Ah Kh"), 3, "community")
    Traceback (most recent call last):
    ...
    feltlab.core.cards.CardError: community needs 3 cards, got 2 (Ah Kh)
    """
    if len(cards) != count:
        raise CardError(f"{what} needs {count} cards, got {len(cards)} ({format_cards(cards)})")


def format_cards(cards: Iterable[Card]) -> str:
    return " ".join([CARD_NAMES[card.index] for card in cards])


def sort_by_suit(cards: Iterable[Card]) -> list[Card]:
    """Group cards by suit (spades, hearts, diamonds, clubs), high ranks first."""
    return sorted(cards, key=lambda card: (card.suit, -card.rank))


def full_deck() -> tuple[Card, ...]:
    """The 52 cards in card order (made once: cards are immutable)."""
    return _FULL_DECK


_FULL_DECK = tuple(Card(index) for index in range(DECK_SIZE))


def fisher_yates(items: Sequence[T], randbelow: Callable[[int], int]) -> list[T]:
    """The items in a random order: Fisher-Yates, which gives every order the same chance
    when ``randbelow(n)`` is uniform on ``0 .. n-1``.

    >>> fisher_yates("abc", lambda n: 0)
    ['b', 'c', 'a']
    """
    order = list(items)
    for top in range(len(order) - 1, 0, -1):
        pick = randbelow(top + 1)
        order[top], order[pick] = order[pick], order[top]
    return order


def secure_shuffle() -> tuple[Card, ...]:
    """A deck shuffled for play: Fisher-Yates driven by the OS's cryptographic generator."""
    return tuple(fisher_yates(full_deck(), secrets.randbelow))


def seeded_shuffle(generator: np.random.Generator) -> tuple[Card, ...]:
    """A deck shuffled for simulation from a seeded generator (reproducible from its seed).

    >>> import numpy as np
    >>> a = seeded_shuffle(np.random.default_rng(7))
    >>> a == seeded_shuffle(np.random.default_rng(7)) and sorted(a) == list(full_deck())
    True
    """
    return tuple(Card(int(index)) for index in generator.permutation(DECK_SIZE))


def card_indices(cards: Iterable[Card]) -> npt.NDArray[np.uint8]:
    import numpy as np

    return np.fromiter((card.index for card in cards), dtype=np.uint8)
