"""How a Hold'em Stud round goes in the engine: 2 cards to each seat, then 3 community
cards face down; before each community card is turned every seat folds or makes a
street bet; each remaining hand is settled by :func:`~.settle.settle_holdem`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from feltlab.core.cards import format_cards
from feltlab.core.engine import Decide, HandState, Phase, SeatState
from feltlab.core.family import EngineSteps
from feltlab.core.payout import RequestError, request_cards
from feltlab.core.settle import Settlement
from feltlab.games.holdem_stud.rules import HoldemStudRules
from feltlab.games.holdem_stud.settle import STREET_NAMES, check_street_bet, settle_holdem

HOLE: Final = 2
COMMUNITY: Final = 3


def _rules(state: HandState) -> HoldemStudRules:
    rules = state.rules
    assert isinstance(rules, HoldemStudRules)
    return rules


class StudSteps(EngineSteps[HoldemStudRules]):
    colours: tuple[str, ...] = ()
    payout_fields = frozenset({"rules", "wagers", "player", "community", "streets"})

    def cards_needed(self, rules: HoldemStudRules, players: int) -> int:
        return HOLE * players + COMMUNITY

    def check_ready(self, state: HandState, seat: int) -> None:
        return None

    def deal(self, state: HandState) -> None:
        for seat in state.active_seats:
            state.seats[seat].cards = state.draw(HOLE)
        state.community = state.draw(COMMUNITY)

    def check_decision(self, state: HandState, seat: int, action: Decide) -> None:
        assert action.amount is not None
        check_street_bet(_rules(state), state.seats[seat].wagers["ante"], state.street,
                         action.amount)

    def stake(self, state: HandState, seat: int, action: Decide) -> int:
        assert action.amount is not None
        return action.amount

    def legal_amounts(self, state: HandState, seat: int) -> list[int]:
        ante = state.seats[seat].wagers["ante"]
        return [ante * k for k in range(1, _rules(state).max_street_multiple + 1)]

    def reveal(self, state: HandState) -> None:
        state.revealed += 1
        state.street += 1
        if state.street >= _rules(state).streets:
            state.phase = Phase.SETTLE
        else:
            state.phase = Phase.DECISIONS
            state.after_decision()

    def settle(self, state: HandState, hand: SeatState) -> Settlement:
        streets = [amount for amount in hand.decisions if amount]
        return settle_holdem(_rules(state), hand.wagers, hand.cards, state.community, streets)

    def options_json(self, state: HandState, seat: int
                     ) -> tuple[list[dict[str, Any]], dict[str, int] | None]:
        return [{"action": "fold"}, *({"action": "bet", "amount": amount}
                                      for amount in self.legal_amounts(state, seat))], None

    def settle_request(self, rules: HoldemStudRules, request: Mapping[str, Any]) -> Settlement:
        streets = request.get("streets", [])
        if not isinstance(streets, list):
            raise RequestError("field 'streets' must be a list of street bet amounts")
        return settle_holdem(rules, request["wagers"], request_cards(request, "player"),
                             request_cards(request, "community"), streets)

    def payout_request(self, state: HandState, seat: int) -> dict[str, Any]:
        hand = state.seats[seat]
        return {"rules": state.rules.id, "wagers": dict(hand.wagers),
                "player": format_cards(hand.cards), "community": format_cards(state.community),
                "streets": [amount for amount in hand.decisions if amount]}

    def request_stakes(self, request: Mapping[str, Any]) -> dict[str, int]:
        stakes = {name: int(amount) for name, amount in request["wagers"].items()}
        for name, amount in zip(STREET_NAMES, request.get("streets") or [], strict=False):
            stakes[name] = int(amount)
        return stakes

    def most_at_risk(self, rules: HoldemStudRules, bets: Mapping[str, int]) -> int:
        """Ante, the largest bet on every street and the bonus lost."""
        return bets["ante"] * (1 + rules.streets * rules.max_street_multiple) + bets.get(
            "bonus3", 0)


steps = StudSteps()
