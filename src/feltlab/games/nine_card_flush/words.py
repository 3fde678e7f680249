"""What the faces say and show of 9 Card Flush: the rules card, the pages' pay tables
and buttons, the dealer's procedure, hand views, the rules document and the terminal's
prompts. Every number comes from the rule set.

>>> from feltlab.core.rules import load_rules
>>> [table.title for table in words.card_tables(load_rules("nine-card-flush"))]
['9 Card Bonus (9 cards)', 'Player 6 (your 6 cards)', 'First 3 (community cards)']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from feltlab.core.cards import Card, format_cards
from feltlab.core.engine import Action, Decide, HandState
from feltlab.core.evaluators import colour_flush_count, colour_suit
from feltlab.core.text import count_rows, count_table_markdown, numbered, plural
from feltlab.core.views import CardRun, Line, cards_json
from feltlab.core.words import TableView, Words
from feltlab.games.nine_card_flush.rules import TITLES, NineCardRules
from feltlab.games.nine_card_flush.settle import COLOURS

PAY_TABLES: Final = {"bonus9": "flush cards in the 9", "player6": "flush cards in your 6",
                     "first3": "flush cards in the 3 community cards"}
"""What each bonus's lines count, as the pages say it."""
COUNTED: Final = {"player6": ("flush_cards_player6", "your 6 cards"),
                  "first3": ("flush_cards_first3", "the community cards")}
"""The settlement's count each bonus is paid on, and where it was counted (else the 9)."""

PROCEDURE: Final = (
    "Each player picks red (hearts and diamonds) or black (spades and clubs) and bets the "
    "required All 9 on it; the optional 9 Card Bonus, Player 6 and First 3 wagers are on "
    "the same colour.",
    "The dealer deals 3 community cards face up.",
    "Each player, in seat order, folds (All 9 is lost; the optional wagers stay in play) "
    "or bets Play, exactly equal to All 9.",
    "The dealer then deals 6 cards to each player, folded or not, seat 1 first. A "
    "player's 9-card hand is the 3 community cards and the player's 6.",
    "\"Flush cards in the chosen colour\" of a set of cards is the largest number of them "
    "in one suit of that colour: two hearts and two diamonds count 2, not 4.",
    "Every wager is settled by its count and pay table below.",
)

OPEN_POINTS: Final = (
    ("9 Card Bonus table", "The posted rules give no numbers and no casino's table could "
     "be found, so the built-in table is an example (table A: 500/250/100/20/3/1 for "
     "9 to 4 cards). Example table B starts at 5 cards: 1,000/500/100/25/10. First 3 "
     "has alternative tables paying 4 to 1 or 3 to 1 for 3 cards.",
     "`bonus9_pays`, `first3_pays`"),
    ("9 Card Flush Play", "Exactly the All 9 amount.", "`core.engine.Play`"),
)


def _colour_hand(cards: Sequence[Card], colour: str | None, sort: bool = True
                 ) -> dict[str, Any]:
    if colour is None:
        return {"cards": cards_json(cards, None, sort), "describe": ""}
    suit = colour_suit(cards, colour)
    count = sum(card.suit == suit for card in cards) if suit is not None else 0
    return {"cards": cards_json(cards, suit, sort),
            "describe": f"{plural(count, f'{colour} flush card')}"}


class NineWords(Words[NineCardRules]):
    advice_takes_bets = False

    def card_lines(self, rules: NineCardRules) -> list[str]:
        push = f"; {rules.all9_push_at} push both" if rules.all9_push_at else ""
        return [
            "Pick red or black. 3 community cards face up; fold (lose All 9) or bet Play "
            "equal to All 9; then 6 cards each. Flush cards = most cards of one suit of "
            "your colour.",
            f"All 9 and Play: {rules.all9_win_at}+ flush cards in the 9 pay 1 to 1{push}; "
            "fewer lose.",
        ]

    def card_tables(self, rules: NineCardRules) -> list[TableView]:
        return [TableView("9 Card Bonus (9 cards)", "flush cards", count_rows(rules.bonus9_pays)),
                TableView("Player 6 (your 6 cards)", "flush cards",
                          count_rows(rules.player6_pays)),
                TableView("First 3 (community cards)", "flush cards",
                          count_rows(rules.first3_pays))]

    def pay_table(self, rules: NineCardRules, wager: str) -> dict[str, Any] | None:
        if wager not in PAY_TABLES:
            return None
        rows = count_rows(rules.bonus_table(wager))
        return {"title": TITLES[wager], "unit": PAY_TABLES[wager],
                "rows": [{"line": line, "pays": pays} for line, pays in rows]}

    def decision_buttons(self, rules: NineCardRules) -> list[dict[str, Any]]:
        return [{"label": "Fold", "action": "fold"}, {"label": "Play", "action": "play"}]

    def decision_wagers(self, rules: NineCardRules) -> list[dict[str, Any]]:
        return [{"name": "play", "title": "Play", "text": "equal to All 9, paid like All 9"}]

    def deal_layout(self, rules: NineCardRules) -> list[dict[str, Any]]:
        return [{"to": "community", "count": 3, "per_seat": False},
                {"to": "player", "count": 6, "per_seat": True}]

    def procedure(self, rules: NineCardRules, first: str) -> list[str]:
        return [first + " Each player marks red or black.",
                "Deal 3 community cards face up.",
                "Each player in turn folds (All 9 is taken; the other wagers stay) or bets "
                "Play equal to All 9.",
                "Deal 6 cards to every player, folded or not, seat 1 first.",
                "Count each player's flush cards of the chosen colour (the most cards of one "
                "suit of that colour) in the 9, the 6 and the 3.",
                f"Pay All 9 and Play 1 to 1 at {rules.all9_win_at}+ flush cards in the 9"
                + (f", push at {rules.all9_push_at}" if rules.all9_push_at else "")
                + "; then the 9 Card Bonus, Player 6 and First 3 from their pay tables."]

    def hand_view(self, rules: NineCardRules, player: Sequence[Card], dealer: Sequence[Card],
                  community: Sequence[Card], colour: str | None) -> dict[str, Any]:
        view: dict[str, Any] = {"bonus": []}
        if community:
            view["community"] = _colour_hand(community, colour, sort=False)
            view["bonus"].append({"wager": TITLES["first3"],
                                  "text": view["community"]["describe"]})
        if player:
            view["player"] = _colour_hand(player, colour)
            view["bonus"].append({"wager": TITLES["player6"],
                                  "text": view["player"]["describe"]})
            if community:
                view["nine"] = _colour_hand([*community, *player], colour)
                # the line under the player's cards names the All 9 hand (each hand once)
                view["headline"] = f"All 9: {view['nine']['describe']}"
        return view

    def settled_on(self, rules: NineCardRules, details: Mapping[str, Any], wager: str,
                   folded: bool, brief: bool = False) -> str:
        if wager == "all9" and folded:
            return "folded"
        key, where = COUNTED.get(wager, ("flush_cards_9", "the 9 cards"))
        return f"{plural(int(details.get(key, 0)), 'flush card')} in {where}"

    def drill_hand(self, rules: NineCardRules, deck: Sequence[Card],
                   randbelow: Callable[[int], int]) -> dict[str, Any]:
        return {"player": "", "community": format_cards(deck[:3]),
                "colour": COLOURS[randbelow(len(COLOURS))], "bets": []}

    def option_action(self, option: str, ante: int) -> tuple[str, dict[str, Any]]:
        """The advisor's ``fold`` or ``play`` as a button and an action."""
        return option.capitalize(), {"action": option}

    # the rules document ----------------------------------------------------------------

    def document_intro(self) -> list[str]:
        return ["The dealer's procedure:", "", *numbered(PROCEDURE), ""]

    def document_section(self, rules: NineCardRules) -> list[str]:
        push = (f"exactly {rules.all9_push_at} push both; " if rules.all9_push_at is not None
                else "")
        return [f"- All 9 and Play: {rules.all9_win_at} or more flush cards of the chosen "
                f"colour in the 9 cards pay 1 to 1 on both; {push}fewer lose both.", "",
                *count_table_markdown("9 Card Bonus (the 9 cards)", rules.bonus9_pays,
                                      "flush cards"),
                *count_table_markdown("Player 6 (the player's 6 cards)", rules.player6_pays,
                                      "flush cards"),
                *count_table_markdown("First 3 (the 3 community cards)", rules.first3_pays,
                                      "flush cards")]

    def open_points(self) -> list[tuple[str, str, str]]:
        return list(OPEN_POINTS)

    # the terminal ----------------------------------------------------------------------

    def least_to_play_on(self, rules: NineCardRules, antes: int) -> tuple[int, int, str]:
        return antes, antes, "the Play wager (equal to All 9)"

    def decision_view(self, state: HandState, seat: int, label: str) -> list[Line]:
        colour = state.seats[seat].colour or "red"
        community = state.community
        count = colour_flush_count(community, colour)
        return [Line((f"{label}Community: ", CardRun(community, colour_suit(community, colour)),
                      f"   ({plural(count, f'{colour} flush card')})"))]

    def reveal_view(self, state: HandState, seats: Sequence[int],
                    label: Callable[[int], str]) -> list[Line]:
        return [Line((f"{label(seat)}Your 6 cards: ", CardRun(state.seats[seat].cards)))
                for seat in seats]

    def settlement_view(self, state: HandState) -> list[Line]:
        return []

    def seat_settlement_view(self, state: HandState, seat: int, label: str) -> list[Line]:
        hand = state.seats[seat]
        assert hand.settlement is not None
        details = hand.settlement.details
        nine = [*state.community, *hand.cards]
        colour = details["colour"]
        return [Line((f"{label}Your 9 cards: ", CardRun(nine, colour_suit(nine, colour)),
                      f"   {details['flush_cards_9']} {colour} flush cards"))]

    def decision_prompt(self, state: HandState, seat: int, payable: Sequence[int]) -> str:
        all9 = state.seats[seat].wagers["all9"]
        if not payable:
            return f"Not enough bankroll for Play ({all9:,} needed). f = fold: "
        return f"f = fold, play = bet Play ({all9:,}): "

    def choices_hint(self, state: HandState, seat: int, payable: Sequence[int],
                     short: Callable[[int, str], str | None]) -> str:
        all9 = state.seats[seat].wagers["all9"]
        problem = short(all9, "Play")
        return f"f to fold ({problem})" if problem else f"f to fold or play to bet Play ({all9:,})"

    def parse_decision(self, state: HandState, seat: int, answer: str,
                       payable: Sequence[int]) -> Action | None:
        return Decide(seat, "play") if answer in ("play", "b", "bet") else None



words = NineWords()
