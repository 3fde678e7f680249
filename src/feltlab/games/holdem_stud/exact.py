"""Hold'em Stud's exact math as the protocol asks for it (the solver itself is
:mod:`.analysis` and :mod:`.solver`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from feltlab.core.cards import RANKS, Card, ensure_count, ensure_distinct, parse_cards
from feltlab.core.family import AdviceInputs
from feltlab.core.model import Advice, ParSheet, Progress, WagerAnalysis
from feltlab.games.holdem_stud.rules import HoldemStudRules

if TYPE_CHECKING:  # the solver loads when first asked: checking a hand needs none of it
    from feltlab.games.holdem_stud.strategy import StudStrategy


def analyze(rules: HoldemStudRules, progress: Progress | None) -> ParSheet:
    from feltlab.games.holdem_stud import analysis

    return analysis.analyze(rules, progress)


def advice_inputs(rules: HoldemStudRules, cards: str, community: str | None,
                  colour: str | None, bets: str | None) -> AdviceInputs:
    player, shared = parse_cards(cards), parse_cards(community or "")
    multiples = tuple(int(part) for part in (bets or "").split(",") if part.strip())
    if colour is not None:
        raise ValueError(f"--colour is for 9 Card Flush, not {rules.id}")
    ensure_count(player, 2, "player")
    if len(shared) >= rules.streets:
        raise ValueError(f"community: at most {rules.streets - 1} cards are turned before "
                         f"the last decision, got {len(shared)}")
    if len(multiples) != len(shared):
        raise ValueError(f"--bets: one street bet (in antes) per turned community card: "
                         f"{len(shared)} expected, got {len(multiples)}")
    for multiple in multiples:
        if not 1 <= multiple <= rules.max_street_multiple:
            raise ValueError(f"--bets: a street bet is 1 to {rules.max_street_multiple} "
                             f"antes, got {multiple}")
    ensure_distinct([*player, *shared])
    return AdviceInputs(player, shared, None, multiples)


def advise(rules: HoldemStudRules, inputs: AdviceInputs, dead: Sequence[Card],
           seen: Sequence[Card]) -> Advice:
    from feltlab.games.holdem_stud import advisor

    return advisor.advise(rules, inputs.player, inputs.community, inputs.bets, dead, seen)


def parse_strategy(text: str, origin: str) -> StudStrategy:
    from feltlab.games.holdem_stud.strategy import parse_strategy as parse_stud

    return parse_stud(text)


def hand_group(rules: HoldemStudRules, inputs: AdviceInputs) -> str:
    """The two cards as a starting hand (``AKs``, ``QQ``, ``T9o``), and the community
    cards turned when there are some.

    >>> hand_group(None, AdviceInputs(parse_cards("Ah Kh"), parse_cards("2c")))
    'AKs with 1 community card turned'
    """
    high, low = sorted(inputs.player[:2], key=lambda card: card.rank, reverse=True)
    start = RANKS[high.rank] * 2 if high.rank == low.rank else (
        RANKS[high.rank] + RANKS[low.rank] + ("s" if high.suit == low.suit else "o"))
    turned = len(inputs.community)
    if not turned:
        return start
    return f"{start} with {turned} community card{'s' if turned > 1 else ''} turned"


def evaluate_strategy(rules: HoldemStudRules, strategy: object) -> WagerAnalysis:
    from feltlab.games.holdem_stud import analysis
    from feltlab.games.holdem_stud.strategy import StudStrategy

    if not isinstance(strategy, StudStrategy):
        raise ValueError(f"a {type(strategy).__name__} is not a strategy for {rules.id}")
    return analysis.evaluate_strategy(rules, strategy)


def capped_returns(rules: HoldemStudRules, bets: Mapping[str, int]) -> dict[str, Fraction]:
    from feltlab.games.holdem_stud import analysis

    return analysis.capped_returns(rules, bets)
