"""The High Card Flush family's exact math as the protocol asks for it (the solver itself
is :mod:`.analysis` and the modules it assembles, :mod:`.wagers` among them; this module
loads their compiled code when first asked: checking a hand needs none of it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from feltlab.core.cards import RANKS, Card, ensure_count, parse_cards
from feltlab.core.evaluators import best_flush
from feltlab.core.family import AdviceInputs
from feltlab.core.model import Advice, ParSheet, Progress, WagerAnalysis
from feltlab.games.high_card_flush.rules import FlushRules
from feltlab.games.high_card_flush.strategy import Strategy, parse_strategy


def analyze(rules: FlushRules, progress: Progress | None) -> ParSheet:
    from feltlab.games.high_card_flush import analysis

    return analysis.analyze(rules, progress)


def advice_inputs(rules: FlushRules, cards: str, community: str | None, colour: str | None,
                  bets: str | None) -> AdviceInputs:
    player, shared = parse_cards(cards), parse_cards(community or "")
    multiples = tuple(int(part) for part in (bets or "").split(",") if part.strip())
    if colour is not None:
        raise ValueError(f"--colour is for 9 Card Flush, not {rules.id}")
    ensure_count(player, rules.hand_size, "player")
    if shared or multiples:
        raise ValueError(f"{rules.id} has no community cards and no street bets")
    return AdviceInputs(player)


def advise(rules: FlushRules, inputs: AdviceInputs, dead: Sequence[Card],
           seen: Sequence[Card]) -> Advice:
    from feltlab.games.high_card_flush import advisor

    return advisor.advise(rules, inputs.player, dead, seen)


def hand_group(rules: FlushRules, inputs: AdviceInputs) -> str:
    """``a 3-card flush to the Q``, ``a 4-card flush``.

    >>> hand_group(None, AdviceInputs(parse_cards("Qh 9h 2h 8s 6d 4c 3c")))
    'a 3-card flush to the Q'
    """
    flush = best_flush(inputs.player)
    if flush.length <= 3:
        return f"a {flush.length}-card flush to the {RANKS[flush.ranks[0]]}"
    return f"a {flush.length}-card flush"


def evaluate_strategy(rules: FlushRules, strategy: object) -> WagerAnalysis:
    from feltlab.games.high_card_flush import wagers

    if not isinstance(strategy, Strategy):
        raise ValueError(f"a {type(strategy).__name__} is not a strategy for {rules.id}")
    return wagers.evaluate_strategy(rules, strategy)


def capped_returns(rules: FlushRules, bets: Mapping[str, int]) -> dict[str, Fraction]:
    from feltlab.games.high_card_flush import wagers

    return wagers.capped_returns(rules, bets)


__all__ = ["advice_inputs", "advise", "analyze", "capped_returns", "evaluate_strategy",
           "hand_group",
           "parse_strategy"]
