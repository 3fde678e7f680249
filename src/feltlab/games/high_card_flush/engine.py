"""How a High Card Flush round goes in the engine: 7 cards to each seated player, then 7
to the dealer; each seat folds or raises by the length of its flush; the dealer's hand
is turned over; every seat is settled by :func:`~.settle.settle_flush`.

>>> from feltlab.core.cards import full_deck
>>> from feltlab.core.engine import Deal, HandState, PlaceWager
>>> from feltlab.core.rules import load_rules
>>> hand = HandState(load_rules("high-card-flush"), full_deck())
>>> for action in (PlaceWager(1, "ante", 10), Deal()):
...     hand.apply(action)
>>> hand.legal_amounts(1)
range(10, 31)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from feltlab.core.cards import format_cards
from feltlab.core.engine import ActionError, Decide, HandState, Phase, SeatState
from feltlab.core.evaluators import best_flush
from feltlab.core.family import EngineSteps
from feltlab.core.payout import request_cards
from feltlab.core.settle import Settlement
from feltlab.games.high_card_flush.rules import FlushRules
from feltlab.games.high_card_flush.settle import check_raise, settle_flush

HAND: Final = 7


def _rules(state: HandState) -> FlushRules:
    rules = state.rules
    assert isinstance(rules, FlushRules)
    return rules


class FlushSteps(EngineSteps[FlushRules]):
    colours: tuple[str, ...] = ()
    payout_fields = frozenset({"rules", "wagers", "player", "dealer", "raise"})

    def cards_needed(self, rules: FlushRules, players: int) -> int:
        return HAND * (players + 1)

    def check_ready(self, state: HandState, seat: int) -> None:
        return None

    def deal(self, state: HandState) -> None:
        for seat in state.active_seats:
            state.seats[seat].cards = state.draw(HAND)
        state.dealer_cards = state.draw(HAND)

    def check_decision(self, state: HandState, seat: int, action: Decide) -> None:
        assert action.amount is not None
        if action.amount == 0:
            raise ActionError("a raise of 0 is not a raise; fold instead")
        hand = state.seats[seat]
        check_raise(_rules(state), hand.cards, hand.wagers["ante"], action.amount)

    def stake(self, state: HandState, seat: int, action: Decide) -> int:
        assert action.amount is not None
        return action.amount

    def legal_amounts(self, state: HandState, seat: int) -> range:
        rules = _rules(state)
        hand = state.seats[seat]
        ante = hand.wagers["ante"]
        most = rules.max_raise_multiple(best_flush(hand.cards).length) * ante
        step = ante if rules.raise_in_whole_antes else 1
        return range(ante, most + 1, step) if most else range(0)

    def reveal(self, state: HandState) -> None:
        state.revealed = HAND
        state.phase = Phase.SETTLE

    def settle(self, state: HandState, hand: SeatState) -> Settlement:
        amount = hand.decisions[0] if hand.decisions else 0
        return settle_flush(_rules(state), hand.wagers, hand.cards, state.dealer_cards, amount)

    def options_json(self, state: HandState, seat: int
                     ) -> tuple[list[dict[str, Any]], dict[str, int] | None]:
        choices: list[dict[str, Any]] = [{"action": "fold"}]
        legal = self.legal_amounts(state, seat)
        if not legal:
            return choices, None
        ante = state.seats[seat].wagers["ante"]
        choices += [{"action": "raise", "amount": amount} for amount in legal
                    if amount % ante == 0]
        return choices, {"min": legal.start, "max": legal[-1], "step": legal.step}

    def settle_request(self, rules: FlushRules, request: Mapping[str, Any]) -> Settlement:
        amount = request.get("raise")
        return settle_flush(rules, request["wagers"], request_cards(request, "player"),
                            request_cards(request, "dealer"), 0 if amount is None else amount)

    def payout_request(self, state: HandState, seat: int) -> dict[str, Any]:
        hand = state.seats[seat]
        return {"rules": state.rules.id, "wagers": dict(hand.wagers),
                "player": format_cards(hand.cards), "dealer": format_cards(state.dealer_cards),
                "raise": hand.decisions[0] if hand.decisions else 0}

    def request_stakes(self, request: Mapping[str, Any]) -> dict[str, int]:
        stakes = {name: int(amount) for name, amount in request["wagers"].items()}
        if request.get("raise"):
            stakes["raise"] = int(request["raise"])
        return stakes

    def most_at_risk(self, rules: FlushRules, bets: Mapping[str, int]) -> int:
        """Ante and the largest raise lost, and both bonuses."""
        most = max(rules.max_raise_multiple(length) for length in range(8))
        return bets["ante"] * (1 + most) + bets.get("flush", 0) + bets.get("straight_flush", 0)


steps = FlushSteps()
