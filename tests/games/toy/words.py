"""What the faces say and show of the toy game: the rules card, the pages' buttons, the
dealer's procedure, hand views, the rules document and the terminal's prompts. Every
number comes from the rule set.

>>> rules = ToyRules.model_validate(EXAMPLE)
>>> [button["label"] for button in words.decision_buttons(rules)]
['Fold', 'Raise 1x']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from feltlab.core.cards import RANKS, Card, format_cards
from feltlab.core.engine import Action, Decide, HandState
from feltlab.core.family import TableView, Words
from feltlab.core.text import bullets, numbered, parse_amount
from feltlab.core.views import CardRun, Line, cards_json

from .engine import toy_rules
from .rules import EXAMPLE, TITLES, ToyRules
from .settle import RANK_NAMES, compare

__all__ = ["EXAMPLE", "ToyWords", "words"]

RANKING: Final = (
    "The higher rank wins: ace high, deuce low (A K Q J T 9 8 7 6 5 4 3 2).",
    "Equal ranks tie, and a tie pushes. Suits never break a tie.",
)

PROCEDURE: Final = (
    "Each player places the Ante.",
    "The dealer deals one card face down to each seated player, seat 1 first, then one "
    "card to the dealer, face down.",
    "Each player, in seat order, looks at the card and folds (the Ante is lost) or raises "
    "the rule set's multiple of the Ante.",
    "The dealer turns the card over: each raised hand of a higher rank wins Ante and Raise "
    "1 to 1, a lower rank loses both, an equal rank pushes both.",
)

OPEN_POINTS: Final = (
    ("Ties in the toy game", "Equal ranks push the Ante and the Raise; suits never break "
     "a tie.", "`tests/games/toy/settle.py`"),
)


def _describe(cards: Sequence[Card]) -> str:
    return RANK_NAMES[cards[0].rank].capitalize() if cards else ""


def _hand(cards: Sequence[Card]) -> dict[str, Any]:
    return {"cards": cards_json(cards, None), "describe": _describe(cards)}


def _card_line(title: str, cards: Sequence[Card]) -> Line:
    return Line((f"{title}: ", CardRun(cards), f"   {_describe(cards)}"))


class ToyWords(Words[ToyRules]):
    advice_takes_bets = False

    def card_lines(self, rules: ToyRules) -> list[str]:
        return ["Player and dealer get one card each; the higher rank wins (ace high).",
                f"Fold (lose the Ante) or raise {rules.raise_multiple}x the Ante.",
                "A raised hand wins or loses Ante and Raise 1 to 1; equal ranks push."]

    def card_tables(self, rules: ToyRules) -> list[TableView]:
        return []

    def pay_table(self, rules: ToyRules, wager: str) -> dict[str, Any] | None:
        return None

    def decision_buttons(self, rules: ToyRules) -> list[dict[str, Any]]:
        multiple = rules.raise_multiple
        return [{"label": "Fold", "action": "fold"},
                {"label": f"Raise {multiple}x", "action": "raise", "multiple": multiple}]

    def decision_wagers(self, rules: ToyRules) -> list[dict[str, Any]]:
        return [{"name": "raise", "title": TITLES["raise"],
                 "text": "1 to 1 with the Ante; equal ranks push"}]

    def deal_layout(self, rules: ToyRules) -> list[dict[str, Any]]:
        return [{"to": "player", "count": 1, "per_seat": True},
                {"to": "dealer", "count": 1, "per_seat": False}]

    def procedure(self, rules: ToyRules, first: str) -> list[str]:
        return [first, "Deal one card face down to each player, seat 1 (your left) first, "
                "then one to the dealer.",
                f"Each player in turn folds (the Ante is taken) or raises "
                f"{rules.raise_multiple}x the Ante.",
                "Turn the dealer's card.",
                "Pay or take Ante and Raise 1 to 1 by the higher rank; equal ranks push."]

    def hand_view(self, rules: ToyRules, player: Sequence[Card], dealer: Sequence[Card],
                  community: Sequence[Card], colour: str | None) -> dict[str, Any]:
        view: dict[str, Any] = {"bonus": []}
        if player:
            view["player"] = _hand(player)
        if dealer:
            view["dealer"] = _hand(dealer)
        return view

    def settled_on(self, rules: ToyRules, details: Mapping[str, Any], wager: str,
                   folded: bool, brief: bool = False) -> str:
        if folded:
            return "folded"
        player, dealer = details.get("player_card", ""), details.get("dealer_card", "")
        return f"{player} v {dealer}" if brief else f"player {player} v dealer {dealer}"

    def drill_hand(self, rules: ToyRules, deck: Sequence[Card],
                   randbelow: Callable[[int], int]) -> dict[str, Any]:
        return {"player": format_cards(deck[:1]), "community": "", "colour": None, "bets": []}

    def option_action(self, option: str, ante: int) -> tuple[str, dict[str, Any]]:
        if option == "fold":
            return "Fold", {"action": "fold"}
        multiple = int(option.removeprefix("raise ").removesuffix("x"))
        return f"Raise {multiple}x", {"action": "raise", "amount": multiple * ante}

    # the rules document ----------------------------------------------------------------

    def document_intro(self) -> list[str]:
        return ["How hands rank:", "", *bullets(RANKING), "",
                "The dealer's procedure:", "", *numbered(PROCEDURE), ""]

    def document_section(self, rules: ToyRules) -> list[str]:
        return [f"- Fold (the Ante is lost) or raise {rules.raise_multiple}x the Ante.",
                "- The higher rank wins Ante and Raise 1 to 1; equal ranks push both.", ""]

    def open_points(self) -> list[tuple[str, str, str]]:
        return list(OPEN_POINTS)

    # the terminal ----------------------------------------------------------------------

    def least_to_play_on(self, rules: ToyRules, antes: int) -> tuple[int, int, str]:
        needed = rules.raise_multiple * antes
        return needed, needed, f"a raise of {rules.raise_multiple}x the Ante"

    def decision_view(self, state: HandState, seat: int, label: str) -> list[Line]:
        return [_card_line(f"{label}Your card", state.seats[seat].cards)]

    def reveal_view(self, state: HandState, seats: Sequence[int],
                    label: Callable[[int], str]) -> list[Line]:
        return [Line(("The dealer turns the card over.",), style="dim")]

    def settlement_view(self, state: HandState) -> list[Line]:
        return [_card_line("Dealer", state.dealer_cards)]

    def seat_settlement_view(self, state: HandState, seat: int, label: str) -> list[Line]:
        hand = state.seats[seat]
        if hand.folded:
            return [Line((f"{label}You folded {RANKS[hand.cards[0].rank]}.",))]
        outcome = ("lower than", "as high as", "higher than")[
            compare(hand.cards[0], state.dealer_cards[0]) + 1]
        return [Line((f"{label}Your {RANK_NAMES[hand.cards[0].rank]} is {outcome} the "
                      f"dealer's {RANK_NAMES[state.dealer_cards[0].rank]}.",))]

    def decision_prompt(self, state: HandState, seat: int, payable: Sequence[int]) -> str:
        needed = state.legal_amounts(seat)[0]
        if not payable:
            return f"Not enough bankroll to raise ({needed:,} needed). f = fold: "
        multiple = toy_rules(state).raise_multiple
        return f"f = fold; r = raise {multiple}x ({needed:,}): "

    def choices_hint(self, state: HandState, seat: int, payable: Sequence[int],
                     short: Callable[[int, str], str | None]) -> str:
        needed = state.legal_amounts(seat)[0]
        if not payable:
            return f"f to fold: {short(needed, 'a raise')}"
        return f"f to fold or r to raise ({needed:,})"

    def parse_decision(self, state: HandState, seat: int, answer: str,
                       payable: Sequence[int]) -> Action | None:
        if answer in ("r", "raise"):
            return Decide(seat, "raise", state.legal_amounts(seat)[0])
        amount = parse_amount(answer, state.seats[seat].wagers["ante"])
        return None if amount is None else Decide(seat, "raise", amount)



words = ToyWords()
