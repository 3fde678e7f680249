"""A toy game family in one folder, installed as its own package: one card each to the
player and the dealer; the player folds, plays on (a Play equal to the Ante) or pulls
back half the Ante; the higher rank wins. It provides the required facets only (rules,
engine steps, words): feltlab estimates its math and simulates it through the engine.
"""

from __future__ import annotations

from typing import Final, Literal

from feltlab.core.decisions import DecisionKind
from feltlab.core.exposure import Payout
from feltlab.core.family import GameFamily, PackagedFamily
from feltlab.core.rules import Rules

PLAY = DecisionKind("play", "Play", noun="Play")  # as 9 Card Flush declares it
PULL_BACK = DecisionKind("pull_back", "Pull back half", money="refund")


class ToyRules(Rules):
    """One card each against the dealer's: nothing to set beyond the base rule set."""

    game: Literal["toy-pull-back"]

    def placeable_wagers(self) -> tuple[str, ...]:
        return ("ante",)

    def decision_payouts(self) -> tuple[Payout, ...]:
        return (Payout("play", self.limits["ante"].max, 1),)  # the Play, the Ante again


class ToyPullBack(PackagedFamily):
    game = "toy-pull-back"
    title = "Toy Pull Back"
    position = 99
    rules_model = ToyRules
    wager_titles: Final = {"ante": "Ante", "play": "Play"}
    strategy_keys = frozenset({"pull_back_below"})
    decisions = (PLAY, PULL_BACK)


family: GameFamily = ToyPullBack(__name__)
