"""The High Card Flush family: what the registry loads by the entry point
``high-card-flush = "feltlab.games.high_card_flush.family:family"``.

Only the rule-set model is imported with the family; every facet (the engine steps, the
words, and the compiled exact math, simulation kernel and protection model) is imported
when first asked for, so that a command pays only for what it runs.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from feltlab.core.family import (
    EngineSteps,
    ExactMath,
    GameFamily,
    ProtectionModel,
    SimulationKernel,
    Words,
)
from feltlab.games.high_card_flush.rules import TITLES, FlushRules


class HighCardFlush(GameFamily):
    game = "high-card-flush"
    title = "High Card Flush family"
    position = 0
    rules_model = FlushRules
    wager_titles = TITLES
    strategy_keys = frozenset({"rule", "default"})

    @property
    def folder(self) -> Traversable:
        return resources.files("feltlab.games.high_card_flush")

    @property
    def engine(self) -> EngineSteps[Any]:
        from feltlab.games.high_card_flush.engine import steps

        return steps

    @property
    def words(self) -> Words[Any]:
        from feltlab.games.high_card_flush.words import words

        return words

    @property
    def math(self) -> ExactMath[Any]:
        from feltlab.games.high_card_flush import exact

        return exact

    @property
    def kernel(self) -> SimulationKernel[Any]:
        from feltlab.games.high_card_flush import kernel

        return kernel

    @property
    def protection(self) -> ProtectionModel[Any]:
        from feltlab.games.high_card_flush.protection import protection

        return protection


family = HighCardFlush()
