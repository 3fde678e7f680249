"""Hold'em Stud as a game family: what the registry loads by the entry point
``holdem-stud = "feltlab.games.holdem_stud.family:family"``.

Only the rule-set model is imported with the family; every facet (the engine steps, the
words, and the compiled exact math, simulation kernel and protection model) is a module
of this folder imported when first asked for (:class:`~feltlab.core.family.PackagedFamily`),
so that a command pays only for what it runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from feltlab.core.decisions import DecisionKind
from feltlab.core.family import GameFamily, PackagedFamily
from feltlab.games.holdem_stud.rules import TITLES, HoldemStudRules


class HoldemStud(PackagedFamily):
    game = "holdem-stud"
    title = "Hold'em Stud"
    position = 2
    rules_model = HoldemStudRules
    wager_titles = TITLES
    strategy_keys = frozenset({"street3", "street4", "street5"})
    decisions = (DecisionKind("bet", "Bet", takes_amount=True),)


family: GameFamily = HoldemStud("feltlab.games.holdem_stud")


if TYPE_CHECKING:  # mypy checks each facet against its protocol
    from feltlab.core.family import EngineSteps, ExactMath, ProtectionModel, SimulationKernel
    from feltlab.core.words import Words
    from feltlab.games.holdem_stud import engine, exact, kernel, protection, words

    _engine: EngineSteps[Any] = engine.steps
    _words: Words[Any] = words.words
    _math: ExactMath[Any] = exact
    _kernel: SimulationKernel[Any] = kernel
    _protection: ProtectionModel[Any] = protection.protection
