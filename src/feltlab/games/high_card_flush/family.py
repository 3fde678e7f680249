"""The High Card Flush family: what the registry loads by the entry point
``high-card-flush = "feltlab.games.high_card_flush.family:family"``.

Only the rule-set model is imported with the family; every facet (the engine steps, the
words, and the compiled exact math, simulation kernel and protection model) is a module
of this folder imported when first asked for (:class:`~feltlab.core.family.PackagedFamily`),
so that a command pays only for what it runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from feltlab.core.decisions import DecisionKind
from feltlab.core.family import GameFamily, PackagedFamily
from feltlab.games.high_card_flush.rules import TITLES, FlushRules


class HighCardFlush(PackagedFamily):
    game = "high-card-flush"
    title = "High Card Flush family"
    position = 0
    rules_model = FlushRules
    wager_titles = TITLES
    strategy_keys = frozenset({"rule", "default"})
    decisions = (DecisionKind("raise", "Raise", takes_amount=True),)


family: GameFamily = HighCardFlush("feltlab.games.high_card_flush")


if TYPE_CHECKING:  # mypy checks each facet against its protocol
    from feltlab.core.family import EngineSteps, ExactMath, ProtectionModel, SimulationKernel
    from feltlab.core.words import Words
    from feltlab.games.high_card_flush import engine, exact, kernel, protection, words

    _engine: EngineSteps[Any] = engine.steps
    _words: Words[Any] = words.words
    _math: ExactMath[Any] = exact
    _kernel: SimulationKernel[Any] = kernel
    _protection: ProtectionModel[Any] = protection.protection
