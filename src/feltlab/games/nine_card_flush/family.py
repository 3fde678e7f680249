"""9 Card Flush as a game family: what the registry loads by the entry point
``nine-card-flush = "feltlab.games.nine_card_flush.family:family"``.

Only the rule-set model is imported with the family; every facet (the engine steps, the
words, and the compiled exact math, simulation kernel and protection model) is a module
of this folder imported when first asked for (:class:`~feltlab.core.family.PackagedFamily`),
so that a command pays only for what it runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from feltlab.core.decisions import DecisionKind
from feltlab.core.family import GameFamily, PackagedFamily
from feltlab.games.nine_card_flush.rules import TITLES, NineCardRules


class NineCardFlush(PackagedFamily):
    game = "nine-card-flush"
    title = "9 Card Flush"
    position = 1
    rules_model = NineCardRules
    wager_titles = TITLES
    strategy_keys = frozenset({"play_when"})
    decisions = (DecisionKind("play", "Play", noun="Play"),)


family: GameFamily = NineCardFlush("feltlab.games.nine_card_flush")


if TYPE_CHECKING:  # mypy checks each facet against its protocol
    from feltlab.core.family import EngineSteps, ExactMath, ProtectionModel, SimulationKernel
    from feltlab.core.words import Words
    from feltlab.games.nine_card_flush import engine, exact, kernel, protection, words

    _engine: EngineSteps[Any] = engine.steps
    _words: Words[Any] = words.words
    _math: ExactMath[Any] = exact
    _kernel: SimulationKernel[Any] = kernel
    _protection: ProtectionModel[Any] = protection.protection
