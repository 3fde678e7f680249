"""The toy game as a game family: what the tests register with
``feltlab.core.registry.register(family)``, as an installed package would name it in an
entry point of the group ``feltlab.games`` (``toy-high-card = "PACKAGE.family:family"``).

Laid out like feltlab's own families (:class:`~feltlab.core.family.PackagedFamily`): the
facets are the modules ``engine``, ``words``, ``exact``, ``kernel`` and ``protection`` of
this folder, imported when first asked for; only the rule-set model comes with the family.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from feltlab.core.decisions import DecisionKind
from feltlab.core.family import GameFamily, PackagedFamily

from .rules import TITLES, ToyRules


class ToyHighCard(PackagedFamily):
    game = "toy-high-card"
    title = "Toy High Card"
    position = 99
    rules_model = ToyRules
    wager_titles = TITLES
    strategy_keys = frozenset({"raise_from"})
    decisions = (DecisionKind("raise", "Raise", takes_amount=True),)


assert __package__, "the toy family is a package: tests/games/toy"
family: GameFamily = ToyHighCard(__package__)


if TYPE_CHECKING:  # mypy checks each facet against its protocol
    from feltlab.core.family import (
        EngineSteps,
        ExactMath,
        ProtectionModel,
        SimulationKernel,
        Words,
    )

    from . import engine, exact, kernel, protection, words

    _engine: EngineSteps[Any] = engine.steps
    _words: Words[Any] = words.words
    _math: ExactMath[Any] = exact
    _kernel: SimulationKernel[Any] = kernel
    _protection: ProtectionModel[Any] = protection.protection
