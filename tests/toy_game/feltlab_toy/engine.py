"""How a toy round goes in the engine, and how a hand is settled: one card to each
seated player, one to the dealer; each seat folds, plays (a Play equal to the Ante) or
pulls back half the Ante (paid back with the settlement, the other half lost); the
dealer's card is turned and played hands are paid 1 to 1 by the higher rank.

>>> from feltlab.core.cards import parse_cards
>>> rules = ToyRules.model_validate({"id": "t", "name": "t", "game": "toy-pull-back",
...     "seats": 1, "required_wagers": ["ante"], "limits": {"ante": {"min": 2, "max": 9}}})
>>> settle_toy(rules, {"ante": 4}, parse_cards("Kh"), parse_cards("7c"), "play").results
{'ante': 4, 'play': 4}
>>> settle_toy(rules, {"ante": 5}, parse_cards("2h"), parse_cards("7c"), "pull_back").results
{'ante': -3}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from feltlab.core.cards import Card, ensure_count, ensure_distinct, format_cards
from feltlab.core.decisions import DecisionKind
from feltlab.core.engine import Decide, HandState, Phase, SeatState
from feltlab.core.family import EngineSteps
from feltlab.core.payout import RequestError, request_cards
from feltlab.core.settle import Settlement, check_wagers, finish

from . import PLAY, PULL_BACK, ToyRules

CHOICES: Final = ("fold", "play", "pull_back")
OUTCOMES: Final = {1: "win", 0: "tie", -1: "lose"}


def refund(ante: int) -> int:
    """What pulling back gives back: half the Ante, rounded down."""
    return ante // 2


def settle_toy(rules: ToyRules, wagers: Mapping[str, object], player: Sequence[Card],
               dealer: Sequence[Card], choice: str) -> Settlement:
    """Settle one hand; ``choice`` is ``fold``, ``play`` or ``pull_back``."""
    ante = check_wagers(rules, wagers)["ante"]
    ensure_count(player, 1, "player")
    ensure_count(dealer, 1, "dealer")
    ensure_distinct([*player, *dealer])
    if choice not in CHOICES:
        raise RequestError(f"choice must be one of {', '.join(CHOICES)}, got {choice!r}")
    sign = (player[0].rank > dealer[0].rank) - (player[0].rank < dealer[0].rank)
    results = {"fold": {"ante": -ante}, "pull_back": {"ante": refund(ante) - ante},
               "play": {"ante": sign * ante, "play": sign * ante}}[choice]
    details = {"player_card": format_cards(player), "dealer_card": format_cards(dealer),
               "outcome": OUTCOMES[sign] if choice == "play" else choice.replace("_", " ")}
    return finish(rules, results, details)


def choice_of(hand: SeatState) -> str:  # the hand's one decision
    return hand.choices[0] if hand.choices else "fold"

class ToySteps(EngineSteps[ToyRules]):
    colours: tuple[str, ...] = ()
    payout_fields = frozenset({"rules", "wagers", "player", "dealer", "choice"})

    def cards_needed(self, rules: ToyRules, players: int) -> int:
        return players + 1

    def check_ready(self, state: HandState, seat: int) -> None:
        return None
    def deal(self, state: HandState) -> None:
        for seat in state.active_seats:
            state.seats[seat].cards = state.draw(1)
        state.dealer_cards = state.draw(1)

    def check_decision(self, state: HandState, seat: int, action: Decide) -> None:
        return None  # play and pull back are always open

    def stake(self, state: HandState, seat: int, action: Decide) -> int:
        return state.seats[seat].wagers["ante"] if action.kind == "play" else 0

    def legal_amounts(self, state: HandState, seat: int) -> Sequence[int]:
        return [state.seats[seat].wagers["ante"]]

    def open_kinds(self, state: HandState, seat: int
                   ) -> list[tuple[DecisionKind, Sequence[int]]]:
        return [(PLAY, ()), (PULL_BACK, ())]

    def reveal(self, state: HandState) -> None:
        state.revealed = 1
        state.phase = Phase.SETTLE

    def settle(self, state: HandState, hand: SeatState) -> Settlement:
        rules = state.rules
        assert isinstance(rules, ToyRules)
        return settle_toy(rules, hand.wagers, hand.cards, state.dealer_cards, choice_of(hand))

    def options_json(self, state: HandState, seat: int
                     ) -> tuple[list[dict[str, Any]], dict[str, int] | None]:
        return [{"action": choice} for choice in CHOICES], None

    def settle_request(self, rules: ToyRules, request: Mapping[str, Any]) -> Settlement:
        return settle_toy(rules, request["wagers"], request_cards(request, "player"),
                          request_cards(request, "dealer"), request.get("choice", "fold"))

    def payout_request(self, state: HandState, seat: int) -> dict[str, Any]:
        hand = state.seats[seat]
        return {"rules": state.rules.id, "wagers": dict(hand.wagers),
                "player": format_cards(hand.cards), "dealer": format_cards(state.dealer_cards),
                "choice": choice_of(hand)}

    def request_stakes(self, request: Mapping[str, Any]) -> dict[str, int]:
        stakes = {name: int(amount) for name, amount in request["wagers"].items() if amount}
        if request.get("choice") == "play":
            stakes["play"] = stakes["ante"]
        return stakes

    def most_at_risk(self, rules: ToyRules, bets: Mapping[str, int]) -> int:
        return 2 * bets["ante"]  # the Ante and the Play lost


steps = ToySteps()
