"""How a 9 Card Flush round goes in the engine: each seat picks red or black, 3
community cards are dealt, each seat folds or bets Play (equal to All 9), then every
seat gets 6 cards, folded or not, and is settled by :func:`~.settle.settle_nine_card`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from feltlab.core.cards import format_cards
from feltlab.core.engine import ActionError, Decide, HandState, Phase, SeatState
from feltlab.core.family import EngineSteps
from feltlab.core.payout import RequestError, request_cards
from feltlab.core.settle import Settlement
from feltlab.games.nine_card_flush.rules import BONUSES, NineCardRules
from feltlab.games.nine_card_flush.settle import COLOURS, settle_nine_card

COMMUNITY: Final = 3
PLAYER: Final = 6


def _rules(state: HandState) -> NineCardRules:
    rules = state.rules
    assert isinstance(rules, NineCardRules)
    return rules


class NineSteps(EngineSteps[NineCardRules]):
    colours = COLOURS
    payout_fields = frozenset({"rules", "wagers", "colour", "community", "player", "play"})

    def cards_needed(self, rules: NineCardRules, players: int) -> int:
        return COMMUNITY + PLAYER * players

    def check_ready(self, state: HandState, seat: int) -> None:
        if state.seats[seat].colour is None:
            raise ActionError(f"seat {seat} has not chosen red or black")

    def deal(self, state: HandState) -> None:
        state.community = state.draw(COMMUNITY)
        state.revealed = COMMUNITY

    def check_decision(self, state: HandState, seat: int, action: Decide) -> None:
        return None

    def stake(self, state: HandState, seat: int, action: Decide) -> int:
        return state.seats[seat].wagers["all9"]

    def legal_amounts(self, state: HandState, seat: int) -> list[int]:
        return [state.seats[seat].wagers["all9"]]

    def reveal(self, state: HandState) -> None:
        for seat in state.active_seats:
            state.seats[seat].cards = state.draw(PLAYER)
        state.phase = Phase.SETTLE

    def settle(self, state: HandState, hand: SeatState) -> Settlement:
        play = bool(hand.decisions and hand.decisions[0])
        return settle_nine_card(_rules(state), hand.wagers, hand.colour, state.community,
                                hand.cards, play)

    def options_json(self, state: HandState, seat: int
                     ) -> tuple[list[dict[str, Any]], dict[str, int] | None]:
        return [{"action": "fold"}, {"action": "play"}], None

    def settle_request(self, rules: NineCardRules, request: Mapping[str, Any]) -> Settlement:
        if "play" not in request:
            raise RequestError("missing field 'play' (true to play, false to fold)")
        return settle_nine_card(rules, request["wagers"], request.get("colour"),
                                request_cards(request, "community"),
                                request_cards(request, "player"), request["play"])

    def payout_request(self, state: HandState, seat: int) -> dict[str, Any]:
        hand = state.seats[seat]
        return {"rules": state.rules.id, "wagers": dict(hand.wagers),
                "player": format_cards(hand.cards), "colour": hand.colour,
                "community": format_cards(state.community),
                "play": bool(hand.decisions and hand.decisions[0])}

    def request_stakes(self, request: Mapping[str, Any]) -> dict[str, int]:
        stakes = {name: int(amount) for name, amount in request["wagers"].items()}
        if request.get("play"):
            stakes["play"] = stakes["all9"]
        return stakes

    def most_at_risk(self, rules: NineCardRules, bets: Mapping[str, int]) -> int:
        """All 9, Play and every bonus lost."""
        return 2 * bets["all9"] + sum(bets.get(name, 0) for name in BONUSES)


steps = NineSteps()
