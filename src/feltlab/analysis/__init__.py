"""Exact math: PAR sheets, optimal strategies, strategy cards and the per-hand advisor.

:func:`analyze` and :func:`advise` dispatch on the rule set's game to
:mod:`feltlab.analysis.flush`, :mod:`feltlab.analysis.holdem` and
:mod:`feltlab.analysis.nine`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from feltlab.analysis.model import Advice, ParSheet, Progress, WagerAnalysis
from feltlab.cards import Card
from feltlab.rules import FlushRules, HoldemStudRules, NineCardRules, Rules

if TYPE_CHECKING:  # the game modules load Numba: import them only when used
    from feltlab.analysis.flush_strategy import Strategy as FlushStrategy
    from feltlab.analysis.holdem_strategy import StudStrategy
    from feltlab.analysis.nine import NineStrategy

    Strategy = FlushStrategy | StudStrategy | NineStrategy

__all__ = ["Progress", "advise", "analyze", "evaluate_strategy", "load_strategy_file",
           "with_strategy"]


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


def load_strategy_file(rules: Rules, path: str | Path) -> Strategy:
    """The strategy in a TOML file, in the format of the rule set's game (see
    :mod:`feltlab.analysis.flush_strategy`, :mod:`feltlab.analysis.holdem_strategy` and
    :func:`feltlab.analysis.nine.parse_nine_strategy`); errors name the field."""
    try:
        text = Path(path).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"cannot read strategy file {path}: {error}") from error
    if isinstance(rules, FlushRules):
        from feltlab.analysis.flush_strategy import parse_strategy

        return parse_strategy(text, str(path))
    if isinstance(rules, HoldemStudRules):
        from feltlab.analysis.holdem_strategy import parse_strategy as parse_stud

        return parse_stud(text)
    from feltlab.analysis.nine import parse_nine_strategy

    return parse_nine_strategy(text)


def evaluate_strategy(rules: Rules, strategy: Strategy) -> WagerAnalysis:
    """Exact main-game return of a strategy loaded by :func:`load_strategy_file`."""
    if isinstance(rules, FlushRules):
        import feltlab.analysis.flush as flush
        from feltlab.analysis.flush_strategy import Strategy as FlushStrategy

        if isinstance(strategy, FlushStrategy):
            return flush.evaluate_strategy(rules, strategy)
    elif isinstance(rules, HoldemStudRules):
        import feltlab.analysis.holdem as holdem
        from feltlab.analysis.holdem_strategy import StudStrategy

        if isinstance(strategy, StudStrategy):
            return holdem.evaluate_strategy(rules, strategy)
    else:
        import feltlab.analysis.nine as nine

        if isinstance(strategy, nine.NineStrategy):
            return nine.evaluate_strategy(rules, strategy)
    raise ValueError(f"a {type(strategy).__name__} is not a strategy for {rules.id}")


def with_strategy(sheet: ParSheet, main: WagerAnalysis, source: str) -> ParSheet:
    """The PAR sheet with its main game played by another strategy (``main``, from
    :func:`evaluate_strategy`), noting its cost against the optimal strategy."""
    optimal = sheet.wagers[0]
    played = replace(main, name=optimal.name)
    note = (f"The main game is played by the strategy in {source}: house edge "
            f"{float(played.house_edge):.4%}, {float(played.house_edge - optimal.house_edge):.4%}"
            f" more than the optimal strategy's {float(optimal.house_edge):.4%}.")
    return replace(sheet, wagers=(played, *sheet.wagers[1:]), notes=(*sheet.notes, note))
