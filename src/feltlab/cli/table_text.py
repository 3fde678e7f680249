"""The terminal's table in colour: cards in a four-colour deck, the playing suit
highlighted, a game's view lines (:mod:`feltlab.core.views`) drawn, amounts signed; and the
decks a terminal session deals from."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.text import Text

from feltlab.core.cards import RANKS, SUIT_SYMBOLS, Card, secure_shuffle, seeded_shuffle
from feltlab.core.views import FACE_DOWN, CardRun, Line

SUIT_STYLES = ("default", "red", "blue", "green")  # spades, hearts, diamonds, clubs
HIGHLIGHT = "bold underline reverse"

DeckSource = Callable[[], Sequence[Card]]


def deck_source(seed: int | None) -> DeckSource:
    """Decks for a session: cryptographic shuffles, or, with a seed, one seeded generator
    for the whole session so that the same seed deals the same sequence of hands.

    >>> first, second = deck_source(5), deck_source(5)
    >>> [first() for _ in range(3)] == [second() for _ in range(3)]
    True
    """
    if seed is None:
        return secure_shuffle
    import numpy as np

    generator = np.random.default_rng(seed)
    return lambda: seeded_shuffle(generator)


def card_text(card: Card, highlight: bool = False) -> Text:
    """A card in its suit's colour (spades default, hearts red, diamonds blue, clubs green).

    >>> card_text(Card.parse("Th")).plain, card_text(Card.parse("Th")).style
    ('T♥', 'red')
    """
    style = SUIT_STYLES[card.suit] + (f" {HIGHLIGHT}" if highlight else "")
    return Text(RANKS[card.rank] + SUIT_SYMBOLS[card.suit], style=style)


def cards_text(cards: Sequence[Card], highlight_suit: int | None = None, *,
               sort: bool = True, hidden: int = 0) -> Text:
    """Cards side by side (grouped by suit unless ``sort`` is false), the cards of
    ``highlight_suit`` highlighted, then ``hidden`` face-down cards.

    >>> from feltlab.core.cards import parse_cards
    >>> cards_text(parse_cards("2c Ah 9h Ks"), highlight_suit=1, hidden=1).plain
    'K♠ A♥ 9♥ 2♣ ▒▒'
    """
    run = CardRun(cards, highlight_suit, sort, hidden)
    text = Text()
    pieces = [card_text(card, card.suit == highlight_suit) for card in run.shown()]
    pieces += [Text(FACE_DOWN, style="dim")] * hidden
    for position, piece in enumerate(pieces):
        if position:
            text.append(" ")
        text.append_text(piece)
    return text


def line_text(line: Line) -> Text:
    """A family's view line in the terminal's colours."""
    text = Text(style=line.style)
    for part in line.parts:
        if isinstance(part, str):
            text.append(part)
        else:
            text.append_text(cards_text(part.cards, part.marked_suit, sort=part.sort,
                                        hidden=part.hidden))
    return text


def signed(amount: int) -> str:
    return f"{amount:+,}" if amount else "0"


def outcome(net: int) -> str:
    return "won" if net > 0 else "lost" if net < 0 else "push"
