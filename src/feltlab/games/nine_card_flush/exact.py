"""9 Card Flush's exact math as the protocol asks for it (the counting itself is
:mod:`.analysis` and the modules it assembles: :mod:`.decisions`, :mod:`.wagers`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from feltlab.core.cards import RED_SUITS, Card, ensure_count, parse_cards
from feltlab.core.family import AdviceInputs
from feltlab.core.model import Advice, ParSheet, Progress, WagerAnalysis
from feltlab.games.nine_card_flush.rules import NineCardRules
from feltlab.games.nine_card_flush.settle import check_colour

if TYPE_CHECKING:  # the solver loads when first asked: checking a hand needs none of it
    from feltlab.games.nine_card_flush.strategy import NineStrategy


def analyze(rules: NineCardRules, progress: Progress | None) -> ParSheet:
    from feltlab.games.nine_card_flush import analysis

    return analysis.analyze(rules, progress)


def advice_inputs(rules: NineCardRules, cards: str, community: str | None, colour: str | None,
                  bets: str | None) -> AdviceInputs:
    """The 3 community cards and the colour: the decision comes before the player's cards
    (the cards may be given as ``cards`` or as ``community``)."""
    player, shared = parse_cards(cards), parse_cards(community or "")
    if community is None:
        player, shared = (), player
    ensure_count(player, 0, "player (the decision comes before the player's cards)")
    ensure_count(shared, 3, "community")
    return AdviceInputs((), shared, check_colour(colour or "red"))


def advise(rules: NineCardRules, inputs: AdviceInputs, dead: Sequence[Card],
           seen: Sequence[Card]) -> Advice:
    from feltlab.games.nine_card_flush import decisions

    return decisions.advise(rules, inputs.community, inputs.colour or "red", dead, seen)


def parse_strategy(text: str, origin: str) -> NineStrategy:
    from feltlab.games.nine_card_flush.strategy import parse_nine_strategy

    return parse_nine_strategy(text)


def hand_group(rules: NineCardRules, inputs: AdviceInputs) -> str:
    """How many of the 3 community cards are of the chosen colour.

    >>> hand_group(None, AdviceInputs((), parse_cards("Ah Kd 2c"), "red"))
    '2 red community cards'
    """
    red = sum(card.suit in RED_SUITS for card in inputs.community)
    count = red if inputs.colour == "red" else len(inputs.community) - red
    return f"{count} {inputs.colour} community card{'' if count == 1 else 's'}"


def evaluate_strategy(rules: NineCardRules, strategy: object) -> WagerAnalysis:
    from feltlab.games.nine_card_flush import wagers
    from feltlab.games.nine_card_flush.strategy import NineStrategy

    if not isinstance(strategy, NineStrategy):
        raise ValueError(f"a {type(strategy).__name__} is not a strategy for {rules.id}")
    return wagers.evaluate_strategy(rules, strategy)


def capped_returns(rules: NineCardRules, bets: Mapping[str, int]) -> dict[str, Fraction]:
    from feltlab.games.nine_card_flush import wagers

    return wagers.capped_returns(rules, bets)
