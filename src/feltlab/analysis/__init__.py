"""Exact math: PAR sheets, optimal strategies, strategy cards and the per-hand advisor.

Each game family's exact solver (its ``math`` facet, :class:`~feltlab.core.family.ExactMath`)
does the counting; :func:`analyze`, :func:`advise` and the strategy files are the same
for every game, and the reports (:mod:`.report_text`, :mod:`.report_html`,
:mod:`.report_csv`), the pay-table solver (:mod:`.paytable`) and the in-process PAR-sheet
memo (:mod:`.sheets`) are written once against the protocol.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

from feltlab.core.cards import Card
from feltlab.core.family import AdviceInputs, family_of, provides
from feltlab.core.model import Advice, ParSheet, Progress, WagerAnalysis
from feltlab.core.registry import families
from feltlab.core.rules import MAX_RULES_BYTES, Rules, parse_toml, read_limited

__all__ = ["Progress", "advice_inputs", "advise", "analyze", "capped_returns",
           "evaluate_strategy", "load_strategy_file", "with_strategy"]


def analyze(rules: Rules, progress: Progress | None = None) -> ParSheet:
    """The exact PAR sheet of a rule set, with the rule set's fingerprint; a Monte Carlo
    estimate for a game without exact math (:mod:`feltlab.analysis.estimate`)."""
    if not provides(rules, "math"):
        from feltlab.analysis.estimate import estimated_sheet

        return estimated_sheet(rules)
    sheet = family_of(rules).math.analyze(rules, progress)
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
    inputs = AdviceInputs(tuple(player), tuple(community), colour, tuple(bets))
    return family_of(rules).math.advise(rules, inputs, dead, seen)


def advice_inputs(rules: Rules, cards: str, community: str | None = None,
                  colour: str | None = None, bets: str | None = None) -> AdviceInputs:
    """A hand typed as card text (and street bets as ``1,3``), checked against the game;
    ``ValueError`` names what is wrong."""
    return family_of(rules).math.advice_inputs(rules, cards, community, colour, bets)


def read_strategy_text(rules: Rules, path: str | Path) -> str:
    """A strategy file's text, refused (``ValueError`` naming the file) when it cannot be
    read, is too large, or was made for another game or rule set: a file naming a rule
    set in ``rules = "..."`` applies to that rule set only."""
    text = read_limited(Path(path), MAX_RULES_BYTES, "strategy")
    data = parse_toml(text, str(path))
    game = data.get("game") if isinstance(data.get("game"), str) else next(
        (each.game for each in families() if each.strategy_keys & set(data)), rules.game)
    if game != rules.game:
        raise ValueError(f"{path} is a strategy for a {game} game, not for {rules.id} "
                         f"({rules.game})")
    made_for = data.get("rules", "")
    if made_for and made_for != rules.id:
        raise ValueError(f"{path} is a strategy for rule set {made_for!r}, not {rules.id!r}: "
                         f"change or remove its rules = {json.dumps(made_for)} line to apply "
                         "it anyway")
    return text


def load_strategy_file(rules: Rules, path: str | Path) -> object:
    """The strategy in a TOML file, in the format of the rule set's game (its family's
    ``math.parse_strategy``); errors name the field, and a file made for another game or
    rule set is refused (:func:`read_strategy_text`)."""
    text = read_strategy_text(rules, path)
    return family_of(rules).math.parse_strategy(text, str(path))


def evaluate_strategy(rules: Rules, strategy: object) -> WagerAnalysis:
    """Exact main-game return of a strategy loaded by :func:`load_strategy_file`."""
    return family_of(rules).math.evaluate_strategy(rules, strategy)


def capped_returns(rules: Rules, bets: Mapping[str, int]) -> dict[str, Fraction]:
    """Every wager's house edge at ``bets`` under the aggregate payout cap (and
    ``total``: per unit of all the initial wagers)."""
    return family_of(rules).math.capped_returns(rules, dict(bets))


def with_strategy(sheet: ParSheet, main: WagerAnalysis, source: str) -> ParSheet:
    """The PAR sheet with its main game played by another strategy (``main``, from
    :func:`evaluate_strategy`), noting its cost against the optimal strategy."""
    optimal = sheet.wagers[0]
    played = replace(main, name=optimal.name)
    note = (f"The main game is played by the strategy in {source}: house edge "
            f"{float(played.house_edge):.4%}, {float(played.house_edge - optimal.house_edge):.4%}"
            f" more than the optimal strategy's {float(optimal.house_edge):.4%}.")
    return replace(sheet, wagers=(played, *sheet.wagers[1:]), notes=(*sheet.notes, note))
