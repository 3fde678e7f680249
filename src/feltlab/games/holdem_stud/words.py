"""What the faces say and show of Hold'em Stud: the rules card, the pages' pay tables and
buttons, the dealer's procedure, hand views, the rules document and the terminal's
prompts. Every number comes from the rule set.

>>> from feltlab.core.rules import load_rules
>>> [button["label"] for button in words.decision_buttons(load_rules("nh-holdem-stud"))]
['Fold', 'Bet 1x', 'Bet 2x', 'Bet 3x']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from feltlab.core.cards import Card, format_cards
from feltlab.core.engine import Action, Decide, HandState
from feltlab.core.evaluators import PokerHand, ThreeCardHand, poker_hand, three_card_hand
from feltlab.core.text import either, markdown_table, named_rows, numbered, parse_amount, pays_text
from feltlab.core.views import CardRun, Line, cards_json, pretty_class
from feltlab.core.words import TableView, Words
from feltlab.games.holdem_stud.rules import TITLES, HoldemStudRules
from feltlab.games.holdem_stud.settle import STREET_NAMES

PROCEDURE: Final = (
    "Each player places the Ante and, if wanted, the 3 Card Bonus.",
    "The dealer deals 2 cards face down to each player, seat 1 first, then 3 community "
    "cards face down.",
    "Before each community card is turned (3rd, 4th and 5th street), each remaining "
    "player, in seat order, folds (losing every wager made so far, the 3 Card Bonus "
    "apart) or makes the street bet: 1x the Ante, with an optional raise and re-raise of "
    "1x each. Every seat acts on a street before the next card is turned.",
    "After the third card is turned, the 3 Card Bonus is settled on the 3 community cards "
    "for every player who bet it, folded or not.",
    "Then each remaining player's 5 cards (2 own and 3 community) are paid on the pay "
    "table: every wager of that player (Ante and every street bet) at the same odds. "
    "Players play against the pay table, not against the dealer or one another.",
)

HAND_WORDS: Final = {
    "royal_flush": "Royal flush (A-K-Q-J-T of one suit)",
    "straight_flush": "Straight flush",
    "four_of_a_kind": "Four of a kind",
    "full_house": "Full house",
    "flush": "Flush",
    "straight": "Straight",
    "three_of_a_kind": "Three of a kind",
    "two_pair": "Two pair",
    "high_pair": "Pair of jacks, queens, kings or aces",
    "mid_pair": "Pair of sixes to tens",
    "low_pair": "Pair of deuces to fives",
    "high_card": "No pair",
    "pair": "Pair",
}
"""A pay-table line's hand, in words (Hold'em Stud's 5-card and 3-card hands)."""

STRAIGHT_NOTE: Final = {
    "five": "A straight's ace plays high (T-J-Q-K-A) or low (A-2-3-4-5).",
    "three": "A 3-card straight's ace plays high (Q-K-A) or low (A-2-3).",
}


OPEN_POINTS: Final = (
    ("Hold'em Stud street bets", "1x, 2x or 3x the Ante (bet, raise, re-raise, each equal "
     "to the Ante).", "`max_street_multiple`"),
    ("Hold'em Stud 3 Card Bonus limits", "The posted \"$2 minimum and $10 maximum\" "
     "applies to every wager, the bonus included.", "`limits.bonus3`"),
    ("Hold'em Stud pay table", "The posted table lost its layout when it was copied; it "
     "is read so that every line pays and the order is a poker order (the table above).",
     "`pays`"),
)


def _named_markdown(title: str, table: Mapping[str, int | str],
                    classes: type[PokerHand] | type[ThreeCardHand]) -> list[str]:
    if not table:
        return [f"**{title}**: not offered.", ""]
    rows = []
    for hand in sorted(classes, key=lambda member: -member.value):
        name = hand.name.lower()
        rows.append([HAND_WORDS.get(name, name), pays_text(table[name]) if name in table
                     else "lose"])
    return [f"**{title}**", "", *markdown_table(["hand", "pays"], rows), ""]


def _table_line(state: HandState, seat: int, label: str) -> Line:
    turned = state.visible_community
    return Line((f"{label}Your cards: ", CardRun(state.seats[seat].cards), "   Community: ",
                 CardRun(turned, sort=False, hidden=len(state.community) - len(turned))))


class StudWords(Words[HoldemStudRules]):
    advice_takes_bets = True

    def card_lines(self, rules: HoldemStudRules) -> list[str]:
        return [
            "2 cards each and 3 community cards face down. Before each community card is "
            f"turned: fold, or bet 1x-{rules.max_street_multiple}x the Ante.",
            "Your 2 cards and the 3 community cards are paid on the pay table, every wager "
            "at the same odds. The 3 Card Bonus pays on the community cards.",
        ]

    def card_tables(self, rules: HoldemStudRules) -> list[TableView]:
        return [TableView("Pay table", "hand", named_rows(rules.pays)),
                TableView("3 Card Bonus", "hand", named_rows(rules.bonus3_pays))]

    def pay_table(self, rules: HoldemStudRules, wager: str) -> dict[str, Any] | None:
        if wager == "ante":
            title, unit, table = "Pay table (Ante and every street bet)", "5-card hand", rules.pays
        elif wager == "bonus3":
            title, unit, table = "3 Card Bonus (community cards)", "hand", rules.bonus3_pays
        else:
            return None
        return {"title": title, "unit": unit,
                "rows": [{"line": line, "pays": pays} for line, pays in named_rows(table)]}

    def decision_buttons(self, rules: HoldemStudRules) -> list[dict[str, Any]]:
        return [{"label": "Fold", "action": "fold"},
                *({"label": f"Bet {k}x", "action": "bet", "multiple": k}
                  for k in range(1, rules.max_street_multiple + 1))]

    def decision_wagers(self, rules: HoldemStudRules) -> list[dict[str, Any]]:
        return [{"name": name, "title": TITLES[name], "text": "paid on the pay table"}
                for name in STREET_NAMES]

    def deal_layout(self, rules: HoldemStudRules) -> list[dict[str, Any]]:
        return [{"to": "player", "count": 2, "per_seat": True},
                {"to": "community", "count": 3, "per_seat": False}]

    def procedure(self, rules: HoldemStudRules, first: str) -> list[str]:
        return [first, "Deal 2 cards face down to each player, then 3 community cards face "
                "down.",
                *(f"Street {n}: each player in turn folds (every wager so far is taken) or bets "
                  f"1x-{rules.max_street_multiple}x the Ante; then turn community card "
                  f"{n - 2}." for n in (3, 4, 5)),
                "Settle the 3 Card Bonus on the 3 community cards for everyone who bet it.",
                "Pay each remaining hand's Ante and street bets on the pay table (5 cards: 2 own "
                "and 3 community), every wager at the same odds."]

    def hand_view(self, rules: HoldemStudRules, player: Sequence[Card],
                  dealer: Sequence[Card], community: Sequence[Card], colour: str | None
                  ) -> dict[str, Any]:
        view: dict[str, Any] = {"bonus": []}
        if player:
            view["player"] = {"cards": cards_json(player, None), "describe": ""}
        if community:
            view["community"] = {"cards": cards_json(community, None, sort=False),
                                 "describe": ""}
            if len(community) == 3:
                view["bonus"].append({"wager": TITLES["bonus3"], "text": pretty_class(
                    three_card_hand(community).name.lower())})
        if len(player) == 2 and len(community) == 3:
            view["player"]["describe"] = pretty_class(
                poker_hand([*player, *community]).name.lower())
        return view

    def settled_on(self, rules: HoldemStudRules, details: Mapping[str, Any], wager: str,
                   folded: bool, brief: bool = False) -> str:
        if wager == "bonus3":
            return pretty_class(str(details.get("bonus3_hand", "")))
        if details.get("folded"):
            return "folded"
        return pretty_class(str(details.get("player_hand", "")))

    def drill_hand(self, rules: HoldemStudRules, deck: Sequence[Card],
                   randbelow: Callable[[int], int]) -> dict[str, Any]:
        street = randbelow(rules.streets)
        return {"player": format_cards(deck[:2]), "community": format_cards(deck[2:2 + street]),
                "colour": None,
                "bets": [1 + randbelow(rules.max_street_multiple) for _ in range(street)]}

    def option_action(self, option: str, ante: int) -> tuple[str, dict[str, Any]]:
        """The advisor's ``fold`` or a street bet of ``Nx`` as a button and an action.

        >>> words.option_action("3x", 2)
        ('Bet 3x', {'action': 'bet', 'amount': 6})
        """
        if option == "fold":
            return "Fold", {"action": "fold"}
        multiple = int(option.removesuffix("x"))
        return f"Bet {multiple}x", {"action": "bet", "amount": multiple * ante}

    # the rules document ----------------------------------------------------------------

    def document_intro(self) -> list[str]:
        return ["The dealer's procedure:", "", *numbered(PROCEDURE), ""]

    def document_section(self, rules: HoldemStudRules) -> list[str]:
        bets = either([f"{k}x" for k in range(1, rules.max_street_multiple + 1)])
        return [f"- Each street bet is {bets} the Ante.", "",
                *_named_markdown("Pay table (2 own cards and 3 community cards; every wager)",
                                 rules.pays, PokerHand),
                STRAIGHT_NOTE["five"], "",
                *_named_markdown("3 Card Bonus (the 3 community cards)", rules.bonus3_pays,
                                 ThreeCardHand),
                STRAIGHT_NOTE["three"], ""]

    def open_points(self) -> list[tuple[str, str, str]]:
        return list(OPEN_POINTS)

    # the terminal ----------------------------------------------------------------------

    def least_to_play_on(self, rules: HoldemStudRules, antes: int) -> tuple[int, int, str]:
        return (antes * rules.streets, antes,
                f"a 1x street bet on each of the {rules.streets} streets")

    def decision_view(self, state: HandState, seat: int, label: str) -> list[Line]:
        return [_table_line(state, seat, label)]

    def reveal_view(self, state: HandState, seats: Sequence[int],
                    label: Callable[[int], str]) -> list[Line]:
        return [Line(("Turned: ", CardRun(state.visible_community[-1:])))]

    def settlement_view(self, state: HandState) -> list[Line]:
        return []

    def seat_settlement_view(self, state: HandState, seat: int, label: str) -> list[Line]:
        settlement = state.seats[seat].settlement
        assert settlement is not None
        details = settlement.details
        folded = " (folded)" if details["folded"] else ""
        return [_table_line(state, seat, label),
                Line((f"{label}Your hand: {pretty_class(details['player_hand'])}{folded}; "
                      f"3 Card Bonus hand: {pretty_class(details['bonus3_hand'])}.",))]

    def decision_prompt(self, state: HandState, seat: int, payable: Sequence[int]) -> str:
        ante = state.seats[seat].wagers["ante"]
        street = TITLES[STREET_NAMES[state.street]]
        if not payable:
            return (f"{street}: not enough bankroll for a street bet ({ante:,} needed). "
                    "f = fold: ")
        multiples = "/".join(f"{bet // ante}x" for bet in payable)
        return f"{street}: f = fold, or bet {multiples} ({', '.join(map(str, payable))}): "

    def choices_hint(self, state: HandState, seat: int, payable: Sequence[int],
                     short: Callable[[int, str], str | None]) -> str:
        ante = state.seats[seat].wagers["ante"]
        if not payable:
            return f"f to fold: {short(ante, 'a street bet')}"
        multiples = either([f"{bet // ante}x" for bet in payable])
        amounts = ", ".join(f"{bet:,}" for bet in payable)
        return f"f to fold, or {multiples} to bet that many antes ({amounts})"

    def parse_decision(self, state: HandState, seat: int, answer: str,
                       payable: Sequence[int]) -> Action | None:
        ante = state.seats[seat].wagers["ante"]
        if answer in ("b", "bet"):
            return Decide(seat, "bet", ante)
        amount = parse_amount(answer, ante)
        return None if amount is None else Decide(seat, "bet", amount)



words = StudWords()
