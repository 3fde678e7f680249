"""Exact math: PAR sheets, optimal strategies, strategy cards and the per-hand advisor.

:func:`analyze` and :func:`advise` dispatch on the rule set's game to
:mod:`feltlab.analysis.flush`, :mod:`feltlab.analysis.holdem` and
:mod:`feltlab.analysis.nine`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from feltlab.analysis.model import Advice, ParSheet, Progress, WagerAnalysis
from feltlab.cards import Card
from feltlab.rules import (
    MAX_RULES_BYTES,
    FlushRules,
    HoldemStudRules,
    NineCardRules,
    Rules,
    parse_toml,
    read_limited,
)

if TYPE_CHECKING:  # the game modules load Numba: import them only when used
    from feltlab.analysis.flush_strategy import Strategy as FlushStrategy
    from feltlab.analysis.holdem_strategy import StudStrategy
    from feltlab.analysis.nine import NineStrategy

    Strategy = FlushStrategy | StudStrategy | NineStrategy

__all__ = ["Progress", "advise", "analyze", "evaluate_strategy", "load_strategy_file",
           "with_strategy"]


def analyze(rules: Rules, progress: Progress | None = None) -> ParSheet:
    """The exact PAR sheet of a rule set, with the rule set's fingerprint."""
    sheet: ParSheet
    if isinstance(rules, FlushRules):
        import feltlab.analysis.flush as flush

        sheet = flush.analyze(rules, progress)
    elif isinstance(rules, HoldemStudRules):
        import feltlab.analysis.holdem as holdem

        sheet = holdem.analyze(rules, progress)
    else:
        assert isinstance(rules, NineCardRules)
        import feltlab.analysis.nine as nine

        sheet = nine.analyze(rules, progress)
    return replace(sheet, fingerprint=rules.fingerprint, modified=rules.modified)


def advise(rules: Rules, player: Sequence[Card], community: Sequence[Card] = (),
           colour: str | None = None, bets: Sequence[int] = (), dead: Sequence[Card] = (),
           seen: Sequence[Card] = ()) -> Advice:
    """Exact EV of every option for one hand, over every completion of what is unseen.

    Flush family: ``player`` is the 7 cards. Hold'em Stud: ``player`` is the 2 cards,
    ``community`` the cards turned so far (0-2) and ``bets`` the street bets already made,
    in antes. 9 Card Flush: ``community`` is the 3 cards and ``colour`` the chosen colour
    (``player`` is empty: the decision comes before the player's cards).

    ``dead``: cards known to be out of the deck (other seats' hands). ``seen``: cards seen
    before the decision: the dealer's (flush family), the next community cards in the
    order they will be turned (Hold'em Stud), cards of the player's own six (9 Card Flush).
    """
    if isinstance(rules, FlushRules):
        import feltlab.analysis.flush as flush

        return flush.advise(rules, player, dead, seen)
    if isinstance(rules, HoldemStudRules):
        import feltlab.analysis.holdem as holdem

        return holdem.advise(rules, player, community, bets, dead, seen)
    assert isinstance(rules, NineCardRules)
    import feltlab.analysis.nine as nine

    return nine.advise(rules, community, colour or "red", dead, seen)


STRATEGY_KEYS: Mapping[str, frozenset[str]] = {
    "high-card-flush": frozenset({"rule", "default"}),
    "holdem-stud": frozenset({"street3", "street4", "street5"}),
    "nine-card-flush": frozenset({"play_when"}),
}
"""The keys that tell each game's strategy files apart."""


def read_strategy_text(rules: Rules, path: str | Path) -> str:
    """A strategy file's text, refused (``ValueError`` naming the file) when it cannot be
    read, is too large, or was made for another game or rule set: a file naming a rule
    set in ``rules = "..."`` applies to that rule set only."""
    text = read_limited(Path(path), MAX_RULES_BYTES, "strategy")
    data = parse_toml(text, str(path))
    game = data.get("game") if isinstance(data.get("game"), str) else next(
        (name for name, keys in STRATEGY_KEYS.items() if keys & set(data)), rules.game)
    if game != rules.game:
        raise ValueError(f"{path} is a strategy for a {game} game, not for {rules.id} "
                         f"({rules.game})")
    made_for = data.get("rules", "")
    if made_for and made_for != rules.id:
        raise ValueError(f"{path} is a strategy for rule set {made_for!r}, not {rules.id!r}: "
                         f"change or remove its rules = {json.dumps(made_for)} line to apply "
                         "it anyway")
    return text


def load_strategy_file(rules: Rules, path: str | Path) -> Strategy:
    """The strategy in a TOML file, in the format of the rule set's game (see
    :mod:`feltlab.analysis.flush_strategy`, :mod:`feltlab.analysis.holdem_strategy` and
    :func:`feltlab.analysis.nine.parse_nine_strategy`); errors name the field, and a file
    made for another game or rule set is refused (:func:`read_strategy_text`)."""
    text = read_strategy_text(rules, path)
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
