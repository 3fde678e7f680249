"""Hold'em Stud as a game family: what the registry loads by the entry point
``holdem-stud = "feltlab.games.holdem_stud.family:family"``.

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
from feltlab.games.holdem_stud.rules import TITLES, HoldemStudRules


class HoldemStud(GameFamily):
    game = "holdem-stud"
    title = "Hold'em Stud"
    position = 2
    rules_model = HoldemStudRules
    wager_titles = TITLES
    strategy_keys = frozenset({"street3", "street4", "street5"})

    @property
    def folder(self) -> Traversable:
        return resources.files("feltlab.games.holdem_stud")

    @property
    def engine(self) -> EngineSteps[Any]:
        from feltlab.games.holdem_stud.engine import steps

        return steps

    @property
    def words(self) -> Words[Any]:
        from feltlab.games.holdem_stud.words import words

        return words

    @property
    def math(self) -> ExactMath[Any]:
        from feltlab.games.holdem_stud import exact

        return exact

    @property
    def kernel(self) -> SimulationKernel[Any]:
        from feltlab.games.holdem_stud import kernel

        return kernel

    @property
    def protection(self) -> ProtectionModel[Any]:
        from feltlab.games.holdem_stud.protection import protection

        return protection


family = HoldemStud()
