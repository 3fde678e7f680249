"""What the faces say and show of the toy game: rules card, buttons, procedure, hand
views, the rules document and the terminal's prompts.

>>> from feltlab.core.rules import load_rules
>>> [button["label"] for button in words.decision_buttons(load_rules("toy-pull-back"))]
['Fold', 'Play', 'Pull back half']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from feltlab.core.cards import Card
from feltlab.core.engine import Action, Decide, HandState
from feltlab.core.views import CardRun, Line, cards_json
from feltlab.core.words import Words

from . import ToyRules
from .engine import refund

RANKS: Final = ("deuce", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                "jack", "queen", "king", "ace")
RULES: Final = ("Player and dealer get one card each; the higher rank wins (ace high).",
                "Fold (the Ante is lost), play on (a Play equal to the Ante) or pull back "
                "half the Ante (paid back with the settlement; the other half is lost).",
                "A played hand wins or loses Ante and Play 1 to 1; equal ranks push.")
PROCEDURE: Final = ("Deal one card face down to each player, seat 1 (your left) first, "
                    "then one to the dealer.",
                    "Each player in turn folds, plays (a Play equal to the Ante) or pulls "
                    "back half the Ante (set it aside: it is paid back at the settlement).",
                    "Turn the dealer's card.",
                    "Pay or take Ante and Play 1 to 1 by the higher rank; equal ranks push; "
                    "return half the Ante of each hand that pulled back.")
ANSWERS: Final = {"p": "play", "play": "play", "b": "pull_back", "pull back": "pull_back"}


def _describe(cards: Sequence[Card]) -> str:
    return RANKS[cards[0].rank].capitalize() if cards else ""


def _line(title: str, cards: Sequence[Card]) -> Line:
    return Line((f"{title}: ", CardRun(cards), f"   {_describe(cards)}"))


class ToyWords(Words[ToyRules]):
    def card_lines(self, rules: ToyRules) -> list[str]:
        return list(RULES)

    def decision_wagers(self, rules: ToyRules) -> list[dict[str, Any]]:
        return [{"name": "play", "title": "Play", "text": "1 to 1 with the Ante; ties push"}]

    def deal_layout(self, rules: ToyRules) -> list[dict[str, Any]]:
        return [{"to": "player", "count": 1, "per_seat": True},
                {"to": "dealer", "count": 1, "per_seat": False}]

    def procedure(self, rules: ToyRules, first: str) -> list[str]:
        return [first, *PROCEDURE]

    def hand_view(self, rules: ToyRules, player: Sequence[Card], dealer: Sequence[Card],
                  community: Sequence[Card], colour: str | None) -> dict[str, Any]:
        view: dict[str, Any] = {"bonus": []}
        for name, cards in (("player", player), ("dealer", dealer)):
            if cards:
                view[name] = {"cards": cards_json(cards, None), "describe": _describe(cards)}
        return view

    def settled_on(self, rules: ToyRules, details: Mapping[str, Any], wager: str,
                   folded: bool, brief: bool = False) -> str:
        if folded or details.get("outcome") == "pull back":
            return "folded" if folded else "pulled back half"
        player, dealer = details.get("player_card", ""), details.get("dealer_card", "")
        return f"{player} v {dealer}" if brief else f"player {player} v dealer {dealer}"

    def document_intro(self) -> list[str]:
        return ["The dealer's procedure:", "", *(f"{n}. {step}" for n, step in
                                                 enumerate(PROCEDURE, 1)), ""]

    def open_points(self) -> list[tuple[str, str, str]]:
        return [("An odd Ante pulled back", "Half is rounded down.",
                 "`tests/toy_game/feltlab_toy/engine.py`")]

    # the terminal ----------------------------------------------------------------------

    def least_to_play_on(self, rules: ToyRules, antes: int) -> tuple[int, int, str]:
        return antes, antes, "a Play equal to the Ante"

    def decision_view(self, state: HandState, seat: int, label: str) -> list[Line]:
        return [_line(f"{label}Your card", state.seats[seat].cards)]

    def reveal_view(self, state: HandState, seats: Sequence[int],
                    label: Callable[[int], str]) -> list[Line]:
        return [Line(("The dealer turns the card over.",), style="dim")]

    def settlement_view(self, state: HandState) -> list[Line]:
        return [_line("Dealer", state.dealer_cards)]

    def seat_settlement_view(self, state: HandState, seat: int, label: str) -> list[Line]:
        hand = state.seats[seat]
        choice = hand.choices[0] if hand.choices else "fold"
        if choice != "play":
            back = refund(hand.wagers["ante"])
            said = "folded" if choice == "fold" else f"pulled back {back:,}"
            return [Line((f"{label}You {said} with {_describe(hand.cards).lower()}.",))]
        return [_line(f"{label}Your card", hand.cards)]

    def decision_prompt(self, state: HandState, seat: int, payable: Sequence[int]) -> str:
        ante, back = state.seats[seat].wagers["ante"], refund(state.seats[seat].wagers["ante"])
        return (f"Not enough bankroll to play ({ante:,} needed). f = fold, b = pull back: "
                if not payable else f"f = fold; p = play ({ante:,}); b = pull back half "
                f"({back:,} back): ")

    def choices_hint(self, state: HandState, seat: int, payable: Sequence[int],
                     short: Callable[[int, str], str | None]) -> str:
        ante = state.seats[seat].wagers["ante"]
        if not payable:
            return f"f to fold or b to pull back half: {short(ante, 'a Play')}"
        return "f to fold, p to play or b to pull back half"

    def parse_decision(self, state: HandState, seat: int, answer: str,
                       payable: Sequence[int]) -> Action | None:
        return Decide(seat, ANSWERS[answer]) if answer in ANSWERS else None


words = ToyWords()
