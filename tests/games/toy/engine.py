"""How a toy round goes in the engine: one card to each seated player, then one to the
dealer; each seat folds or raises the rule set's one size; the dealer's card is turned;
every seat is settled by :func:`~.settle.settle_toy`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from feltlab.core.cards import format_cards
from feltlab.core.engine import ActionError, Decide, HandState, Phase, SeatState
from feltlab.core.family import EngineSteps
from feltlab.core.payout import request_cards
from feltlab.core.settle import Settlement

from .rules import ToyRules
from .settle import check_raise, settle_toy


def toy_rules(state: HandState) -> ToyRules:
    rules = state.rules
    assert isinstance(rules, ToyRules)
    return rules


class ToySteps(EngineSteps[ToyRules]):
    colours: tuple[str, ...] = ()
    payout_fields = frozenset({"rules", "wagers", "player", "dealer", "raise"})

    def cards_needed(self, rules: ToyRules, players: int) -> int:
        return players + 1

    def check_ready(self, state: HandState, seat: int) -> None:
        return None

    def deal(self, state: HandState) -> None:
        for seat in state.active_seats:
            state.seats[seat].cards = state.draw(1)
        state.dealer_cards = state.draw(1)

    def check_decision(self, state: HandState, seat: int, action: Decide) -> None:
        assert action.amount is not None
        if action.amount == 0:
            raise ActionError("a raise of 0 is not a raise; fold instead")
        check_raise(toy_rules(state), state.seats[seat].wagers["ante"], action.amount)

    def stake(self, state: HandState, seat: int, action: Decide) -> int:
        assert action.amount is not None
        return action.amount

    def legal_amounts(self, state: HandState, seat: int) -> range:
        amount = toy_rules(state).raise_amount(state.seats[seat].wagers["ante"])
        return range(amount, amount + 1)

    def reveal(self, state: HandState) -> None:
        state.revealed = 1
        state.phase = Phase.SETTLE

    def settle(self, state: HandState, hand: SeatState) -> Settlement:
        amount = hand.decisions[0] if hand.decisions else 0
        return settle_toy(toy_rules(state), hand.wagers, hand.cards, state.dealer_cards,
                          amount)

    def options_json(self, state: HandState, seat: int
                     ) -> tuple[list[dict[str, Any]], dict[str, int] | None]:
        amount = self.legal_amounts(state, seat)[0]
        return [{"action": "fold"}, {"action": "raise", "amount": amount}], None

    def settle_request(self, rules: ToyRules, request: Mapping[str, Any]) -> Settlement:
        amount = request.get("raise")
        return settle_toy(rules, request["wagers"], request_cards(request, "player"),
                          request_cards(request, "dealer"), 0 if amount is None else amount)

    def payout_request(self, state: HandState, seat: int) -> dict[str, Any]:
        hand = state.seats[seat]
        return {"rules": state.rules.id, "wagers": dict(hand.wagers),
                "player": format_cards(hand.cards), "dealer": format_cards(state.dealer_cards),
                "raise": hand.decisions[0] if hand.decisions else 0}

    def request_stakes(self, request: Mapping[str, Any]) -> dict[str, int]:
        stakes = {name: int(amount) for name, amount in request["wagers"].items() if amount}
        if request.get("raise"):
            stakes["raise"] = int(request["raise"])
        return stakes


steps = ToySteps()
