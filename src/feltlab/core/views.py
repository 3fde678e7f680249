"""What a face shows of a hand, in no face's own form: lines of words and runs of cards.

A game family describes what a seat sees (its cards with the playing flush marked, the
community cards with those still face down) as :class:`Line` values; the terminal draws
them in colour, and a page could draw them as card faces.

>>> from feltlab.core.cards import parse_cards
>>> line = Line(("Your cards: ", CardRun(parse_cards("Ah 2c"), marked_suit=1)))
>>> plain_text(line)
'Your cards: A♥ 2♣'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from feltlab.core.cards import RANKS, SUIT_SYMBOLS, Card, sort_by_suit

FACE_DOWN = "▒▒"


@dataclass(frozen=True)
class CardRun:
    """Cards shown side by side: grouped by suit unless ``sort`` is false, the cards of
    ``marked_suit`` marked, then ``hidden`` cards face down."""

    cards: Sequence[Card]
    marked_suit: int | None = None
    sort: bool = True
    hidden: int = 0

    def shown(self) -> list[Card]:
        return sort_by_suit(self.cards) if self.sort else list(self.cards)


@dataclass(frozen=True)
class Line:
    """One line: words and card runs in order; ``style`` is ``""``, ``"dim"`` or
    ``"bold"``."""

    parts: tuple[str | CardRun, ...]
    style: str = ""


def plain_text(line: Line) -> str:
    """The line without colours (each card as rank and suit symbol)."""
    pieces = []
    for part in line.parts:
        if isinstance(part, str):
            pieces.append(part)
            continue
        faces = [RANKS[card.rank] + SUIT_SYMBOLS[card.suit] for card in part.shown()]
        pieces.append(" ".join(faces + [FACE_DOWN] * part.hidden))
    return "".join(pieces)


def pretty_class(name: str) -> str:
    """A hand class's name for people: ``'high_pair'`` as ``'High pair'``.

    >>> pretty_class("high_pair")
    'High pair'
    """
    return name.replace("_", " ").capitalize()


def cards_json(cards: Sequence[Card], marked_suit: int | None, sort: bool = True
               ) -> list[dict[str, object]]:
    """Cards as a page shows them: each card's text and whether it is marked."""
    shown = sort_by_suit(cards) if sort else list(cards)
    return [{"text": str(card), "marked": card.suit == marked_suit} for card in shown]
