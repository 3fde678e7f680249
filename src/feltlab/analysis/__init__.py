"""Exact math: PAR sheets, optimal strategies, strategy cards and the per-hand advisor.

:func:`analyze` and :func:`advise` dispatch on the rule set's game to
:mod:`feltlab.analysis.flush`, :mod:`feltlab.analysis.holdem` and
:mod:`feltlab.analysis.nine`.
"""

from __future__ import annotations

from collections.abc import Sequence

from feltlab.analysis.model import Advice, ParSheet, Progress
from feltlab.cards import Card
from feltlab.rules import FlushRules, HoldemStudRules, NineCardRules, Rules

__all__ = ["Progress", "advise", "analyze"]


def analyze(rules: Rules, progress: Progress | None = None) -> ParSheet:
    """The exact PAR sheet of a rule set."""
    if isinstance(rules, FlushRules):
        import feltlab.analysis.flush as flush

        return flush.analyze(rules, progress)
    if isinstance(rules, HoldemStudRules):
        import feltlab.analysis.holdem as holdem

        return holdem.analyze(rules, progress)
    assert isinstance(rules, NineCardRules)
    import feltlab.analysis.nine as nine

    return nine.analyze(rules, progress)


def advise(rules: Rules, player: Sequence[Card], community: Sequence[Card] = (),
           colour: str | None = None, bets: Sequence[int] = ()) -> Advice:
    """Exact EV of every option for one hand.

    Flush family: ``player`` is the 7 cards. Hold'em Stud: ``player`` is the 2 cards,
    ``community`` the cards turned so far (0-2) and ``bets`` the street bets already made,
    in antes. 9 Card Flush: ``community`` is the 3 cards and ``colour`` the chosen colour
    (``player`` is empty: the decision comes before the player's cards).
    """
    if isinstance(rules, FlushRules):
        import feltlab.analysis.flush as flush

        return flush.advise(rules, player)
    if isinstance(rules, HoldemStudRules):
        import feltlab.analysis.holdem as holdem

        return holdem.advise(rules, player, community, bets)
    assert isinstance(rules, NineCardRules)
    import feltlab.analysis.nine as nine

    return nine.advise(rules, community, colour or "red")
