"""9 Card Flush's strategy card and strategy map.

The strategy card is the simplest candidate rule (always play; play with at least so
many community cards of the colour, or of one suit of it; two such thresholds, either or
both) whose exact house edge is the lowest (:func:`strategy_card`). The strategy map is
each kind of community's share of all deals by optimal decision (:func:`strategy_map`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction

from feltlab.core.model import StrategyCard, WagerAnalysis
from feltlab.core.text import plural
from feltlab.games.nine_card_flush.deals import COMMUNITY, community_classes
from feltlab.games.nine_card_flush.decisions import optimal_plays
from feltlab.games.nine_card_flush.rules import NineCardRules
from feltlab.games.nine_card_flush.strategy import NineFeature, NineStrategy
from feltlab.games.nine_card_flush.wagers import evaluate_strategy


def _describe(condition: Mapping[NineFeature, int]) -> str:
    parts = [f"at least {plural(least, 'community card')} of "
             + ("your colour" if name == "colour_cards" else "one suit of your colour")
             for name, least in condition.items()]
    return " and ".join(parts)


def _candidate_cards() -> list[NineStrategy]:
    """Simple rules first: always, one threshold, then two thresholds."""
    singles: list[dict[NineFeature, int]] = [
        {name: least} for name in ("colour_cards", "flush_cards") for least in (1, 2, 3)]
    cards = [NineStrategy(play_when=({},))]
    cards += [NineStrategy(play_when=(single,)) for single in singles]
    for first in singles:
        for second in singles:
            if list(first) < list(second):
                cards.append(NineStrategy(play_when=(first, second)))
                cards.append(NineStrategy(play_when=({**first, **second},)))
    return cards


def strategy_card(rules: NineCardRules, optimal: WagerAnalysis) -> tuple[NineStrategy,
                                                                         StrategyCard]:
    """The simplest candidate rule with the lowest exact house edge."""
    best: tuple[Fraction, NineStrategy] | None = None
    for candidate in _candidate_cards():
        edge = evaluate_strategy(rules, candidate).house_edge
        if best is None or edge < best[0]:
            best = (edge, candidate)
    assert best is not None
    edge, card = best
    conditions = [_describe(condition) or "always" for condition in card.play_when]
    lines = ("Play with " + "; or with ".join(conditions) + "; otherwise fold.",)
    return card, StrategyCard(lines, edge, optimal.house_edge)


def _community_label(community: tuple[int, int, int]) -> str:
    high, low = sorted(community[:2], reverse=True)
    if high == 0:
        return "no card of your colour"
    return f"{high} + {low} of your colour's two suits" if low else f"{high} of one suit"


def strategy_map(rules: NineCardRules) -> list[tuple[str, str, Fraction]]:
    """Share of all community cards by kind (cards of the colour by suit) and optimal
    decision."""
    shares: dict[tuple[str, str], int] = {}
    plays = optimal_plays(rules)
    for community, ways in community_classes():
        key = (_community_label(community), "play" if plays[community] else "fold")
        shares[key] = shares.get(key, 0) + ways
    total = math.comb(52, COMMUNITY)
    return [(group, decision, Fraction(count, total))
            for (group, decision), count in sorted(shares.items())]
