"""What the faces say and show of the High Card Flush family: the rules card, the pages'
pay tables and buttons, the dealer's procedure, hand views, the rules document and the
terminal's prompts. Every number comes from the rule set.

>>> from feltlab.core.rules import load_rules
>>> [button["label"] for button in words.decision_buttons(load_rules("nh-flush-poker"))]
['Fold', 'Raise 1x', 'Raise 2x']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from feltlab.core.cards import Card, format_cards, parse_cards
from feltlab.core.engine import Action, Decide, HandState
from feltlab.core.evaluators import best_flush, longest_straight_flush
from feltlab.core.text import (
    bullets,
    count_rows,
    count_table_markdown,
    either,
    markdown_table,
    numbered,
    parse_amount,
)
from feltlab.core.views import CardRun, Line, cards_json
from feltlab.core.words import TableView, Words
from feltlab.games.high_card_flush.rules import TITLES, FlushRules

PAY_TABLES: Final = {"flush": ("flush_pays", "flush cards"),
                     "straight_flush": ("straight_flush_pays", "straight flush cards")}
"""Each bonus's rule-set field and what its lines count."""

RANKING: Final = (
    "A hand's flush is its largest group of cards of one suit. More cards beat fewer: "
    "any 4-card flush beats any 3-card flush. Every 7-card hand has at least a 2-card "
    "flush.",
    "Between flushes of the same length, compare the highest cards, then the next "
    "highest, and so on (ace high, 2 low): K-Q-J-T beats K-Q-J-9 and loses to A-4-3-2.",
    "A hand with two suits of the same length plays the better of the two.",
    "Same length and the same ranks: a tie, which pushes. Suits never break a tie. "
    "Straights and pairs mean nothing in the main game; the dealer's straight flushes "
    "mean nothing at all.",
    "(One seed calls the top hand \"the highest number of sequenced cards in one suit\"; "
    "the rest of that page and every other seed rank by the number of suited cards, as "
    "above.)",
)

PROCEDURE: Final = (
    "Each player places the Ante and, if wanted, the Flush bonus and the Straight Flush "
    "bonus.",
    "The dealer deals 7 cards face down to each seated player, seat 1 first, then 7 cards "
    "to the dealer, face down.",
    "Each player, in seat order, looks at the 7 cards and folds (the Ante is lost) or "
    "raises within the sizes the rule set allows for the length of the player's flush "
    "(below).",
    "The dealer turns the 7 cards over. A dealer who does not qualify pays each raised "
    "hand's Ante 1 to 1 and pushes the Raise. A qualifying dealer compares hands: the "
    "higher hand wins Ante and Raise 1 to 1, a lower hand loses both, a tie pushes both.",
    "The bonus wagers are settled on the player's own 7 cards, win or lose against the "
    "dealer. Flush bonus: by the length of the longest flush; only the highest line pays. "
    "Straight Flush bonus: by the longest run of consecutive ranks in one suit; the ace "
    "plays high (Q-K-A) or low (A-2-3), never both at once (K-A-2 is not a run); the run "
    "need not be in the suit of the flush played against the dealer.",
)

OPEN_POINTS: Final = (
    ("Raise size, High Card Flush tables", "Any whole amount from 1x the Ante up to the "
     "flush length's maximum (\"may increase their Raise wager up to double\").",
     "`raise_in_whole_antes = false`"),
    ("Raise size, New Hampshire Flush Poker", "Whole multiples of the Ante only: raises "
     "are placed on raise spots, each matching the Ante.", "`raise_in_whole_antes = true`"),
    ("High Card Flush bonus tables", "The owner's rules name the bonus but give no table; "
     "the tables are the ones the game's owner published for Las Vegas in 2014. Other "
     "casinos post others (Flush 100/20/10/2 and Straight Flush 500/200/100/50/9 are "
     "seen); any table is a rule-set file.", "`flush_pays`, `straight_flush_pays`"),
    ("Ties between flushes", "Equal length and ranks push; suits never break a tie.",
     "`core.evaluators.flush_value_of`"),
)


def _flush_rules(rules: object) -> FlushRules:
    assert isinstance(rules, FlushRules)
    return rules


def _flush_line(title: str, cards: Sequence[Card]) -> Line:
    flush = best_flush(cards)
    return Line((f"{title}: ", CardRun(cards, flush.suit), f"   {flush.describe()}"))


def _flush_hand(cards: Sequence[Card]) -> dict[str, Any]:
    flush = best_flush(cards)
    return {"cards": cards_json(cards, flush.suit), "describe": flush.describe()}


def _straight_text(run: int) -> str:
    return f"{run}-card straight flush" if run >= 2 else "no straight flush"


def _raise_text(rules: FlushRules, length: int) -> str:
    most = rules.max_raise_multiple(length)
    if most == 0:
        return "fold only (no raise)"
    if most == 1:
        return "1x the Ante"
    if rules.raise_in_whole_antes:
        return either([f"{k}x" for k in range(1, most + 1)]) + " the Ante"
    return f"any whole amount from 1x to {most}x the Ante"


def raise_hint(raises: range, ante: int) -> str:
    """The legal raises, for a hint after an answer that is not a choice.

    >>> raise_hint(range(10, 31), 10)
    'r to raise 1x (10), or 2x or 3x to raise that many antes (20, 30), or any amount 10-30'
    >>> raise_hint(range(5, 6), 5)
    'r to raise 1x (5)'
    """
    multiples = [amount for amount in raises if amount % ante == 0]
    hint = f"r to raise 1x ({raises[0]:,})"
    if len(multiples) > 1:
        more = multiples[1:]
        hint += (f", or {either([f'{amount // ante}x' for amount in more])} to raise that "
                 f"many antes ({', '.join(f'{amount:,}' for amount in more)})")
    if len(multiples) < len(raises):
        hint += f", or any amount {raises[0]:,}-{raises[-1]:,}"
    return hint


def raise_choices(raises: range, ante: int) -> str:
    """The legal raises as the player can type them.

    >>> raise_choices(range(10, 31), 10)
    'r = 1x (10), 2x (20), 3x (30), or any amount 10-30'
    >>> raise_choices(range(5, 6), 5)
    'r = 1x (5)'
    """
    multiples = [amount for amount in raises if amount % ante == 0]
    named = ", ".join(f"{amount // ante}x ({amount:,})" for amount in multiples)
    if len(multiples) == len(raises):
        return f"r = {named}"
    return f"r = {named}, or any amount {raises[0]:,}-{raises[-1]:,}"


class FlushWords(Words[FlushRules]):
    advice_takes_bets = False

    def card_lines(self, rules: FlushRules) -> list[str]:
        q = rules.qualifier
        raises = []
        for length in range(2, 8):
            most = rules.max_raise_multiple(length)
            raises.append(f"{length}: " + ("fold only" if most == 0 else
                                            "1x" if most == 1 else f"1x-{most}x"))
        fold_rule = ", ".join(TITLES[name] + (" settled" if kept else " lost")
                              for name, kept in rules.settled_on_fold.items())
        lines = [
            "Player and dealer get 7 cards; the hand is its longest suit (more cards win, "
            "then the highest card, the next, ...).",
            "Fold (lose the Ante) or raise. Raise by flush length: " + "; ".join(raises) + ".",
            f"Dealer qualifies with a {q.min_length}-card flush {q.min_high_card} high or "
            "better, or any longer flush. Not qualified: Ante pays 1 to 1, Raise pushes.",
            "Qualified: the better hand wins Ante and Raise 1 to 1; a tie pushes.",
            f"On a fold: {fold_rule}.",
        ]
        if rules.raise_in_whole_antes:
            lines.append("Raises are whole multiples of the Ante.")
        if rules.equal_bonuses:
            lines.append("When both bonuses are bet they must be equal.")
        return lines

    def card_tables(self, rules: FlushRules) -> list[TableView]:
        return [TableView("Flush bonus", "flush cards", count_rows(rules.flush_pays)),
                TableView("Straight Flush bonus", "straight flush cards",
                          count_rows(rules.straight_flush_pays))]

    def pay_table(self, rules: FlushRules, wager: str) -> dict[str, Any] | None:
        if wager not in PAY_TABLES:
            return None
        field, unit = PAY_TABLES[wager]
        rows = count_rows(getattr(rules, field))
        return {"title": TITLES[wager], "unit": unit,
                "rows": [{"line": line, "pays": pays} for line, pays in rows]}

    def decision_buttons(self, rules: FlushRules) -> list[dict[str, Any]]:
        most = max(rules.raise_multiples.values())
        return [{"label": "Fold", "action": "fold"},
                *({"label": f"Raise {k}x", "action": "raise", "multiple": k}
                  for k in range(1, most + 1))]

    def decision_wagers(self, rules: FlushRules) -> list[dict[str, Any]]:
        return [{"name": "raise", "title": "Raise", "text": "1 to 1 against a qualifying "
                 "dealer; pushes when the dealer does not qualify"}]

    def deal_layout(self, rules: FlushRules) -> list[dict[str, Any]]:
        return [{"to": "player", "count": 7, "per_seat": True},
                {"to": "dealer", "count": 7, "per_seat": False}]

    def procedure(self, rules: FlushRules, first: str) -> list[str]:
        q = rules.qualifier
        return [first, "Deal 7 cards face down to each player, seat 1 (your left) first, "
                "then 7 to the dealer.",
                "Each player in turn folds (the Ante is taken) or raises: "
                + "; ".join(f"{n}-card flush up to {rules.max_raise_multiple(n)}x"
                            for n in range(2, 8)) + ".",
                "Turn the dealer's 7 cards; name the dealer's flush.",
                f"Dealer qualifies with a {q.min_length}-card flush {q.min_high_card} high or "
                "better, or any longer flush. Not qualified: pay Ante 1 to 1, Raise pushes.",
                "Qualified: compare flushes (length, then cards from the highest); pay or "
                "take Ante and Raise 1 to 1; a tie pushes.",
                "Settle the Flush and Straight Flush bonuses on each player's own 7 cards "
                "from the pay tables, folded or not as the rule set says."]

    def hand_view(self, rules: FlushRules, player: Sequence[Card], dealer: Sequence[Card],
                  community: Sequence[Card], colour: str | None) -> dict[str, Any]:
        view: dict[str, Any] = {"bonus": []}
        if player:
            view["player"] = _flush_hand(player)
            view["bonus"].append({"wager": TITLES["straight_flush"],
                                  "text": _straight_text(longest_straight_flush(player))})
        if dealer:
            view["dealer"] = _flush_hand(dealer)
        return view

    def settled_on(self, rules: FlushRules, details: Mapping[str, Any], wager: str,
                   folded: bool, brief: bool = False) -> str:
        lost_on_fold = {"ante", *(name for name, kept in rules.settled_on_fold.items()
                                  if not kept)}
        if folded and wager in lost_on_fold:
            return "folded"
        if wager == "flush":
            if brief:
                cards = parse_cards(str(details.get("player_cards", "")))
                return f"{best_flush(cards).length}-card flush"
            return str(details.get("player_flush", ""))
        if wager == "straight_flush":
            return _straight_text(int(details.get("player_straight_flush", 0)))
        if not details.get("dealer_qualifies", True):
            return "dealer does not qualify"
        if brief:
            return ""
        return f"{details.get('player_flush', '')} v {details.get('dealer_flush', '')}"

    def drill_hand(self, rules: FlushRules, deck: Sequence[Card],
                   randbelow: Callable[[int], int]) -> dict[str, Any]:
        return {"player": format_cards(deck[:7]), "community": "", "colour": None, "bets": []}

    def option_action(self, option: str, ante: int) -> tuple[str, dict[str, Any]]:
        """The advisor's ``fold`` or ``raise Nx`` as a button and an action.

        >>> words.option_action("raise 2x", 5)
        ('Raise 2x', {'action': 'raise', 'amount': 10})
        """
        if option == "fold":
            return "Fold", {"action": "fold"}
        multiple = int(option.removeprefix("raise ").removesuffix("x"))
        return f"Raise {multiple}x", {"action": "raise", "amount": multiple * ante}

    # the rules document ----------------------------------------------------------------

    def document_intro(self) -> list[str]:
        return ["How hands rank:", "", *bullets(RANKING), "",
                "The dealer's procedure:", "", *numbered(PROCEDURE), ""]

    def document_section(self, rules: FlushRules) -> list[str]:
        q = rules.qualifier
        raises = markdown_table(["player's flush", "raise"],
                                [[f"{length} cards", _raise_text(rules, length)]
                                 for length in range(2, 8)])
        folds = [f"{TITLES[name]}: " + ("still settled" if kept else "lost")
                 for name, kept in rules.settled_on_fold.items()]
        lines = [*raises, "",
                 f"- The dealer qualifies with a {q.min_length}-card flush {q.min_high_card} "
                 f"high or better, or any flush of {q.min_length + 1} cards or more.",
                 "- On a fold the Ante is lost; " + "; ".join(folds) + "."]
        if rules.equal_bonuses:
            lines.append("- When both bonus wagers are bet, they must be equal.")
        lines.append("")
        lines += count_table_markdown(f"{TITLES['flush']} (longest flush)", rules.flush_pays,
                                      "flush cards")
        lines += count_table_markdown(f"{TITLES['straight_flush']} (longest straight-flush "
                                      "run)", rules.straight_flush_pays, "straight-flush cards")
        return lines

    def open_points(self) -> list[tuple[str, str, str]]:
        return list(OPEN_POINTS)

    # the terminal ----------------------------------------------------------------------

    def least_to_play_on(self, rules: FlushRules, antes: int) -> tuple[int, int, str]:
        return antes, antes, "a raise of 1x the Ante"

    def decision_view(self, state: HandState, seat: int, label: str) -> list[Line]:
        return [_flush_line(f"{label}Your cards", state.seats[seat].cards)]

    def reveal_view(self, state: HandState, seats: Sequence[int],
                    label: Callable[[int], str]) -> list[Line]:
        return [Line(("The dealer turns the cards over.",), style="dim")]

    def settlement_view(self, state: HandState) -> list[Line]:
        return [_flush_line("Dealer", state.dealer_cards)]

    def seat_settlement_view(self, state: HandState, seat: int, label: str) -> list[Line]:
        settlement = state.seats[seat].settlement
        assert settlement is not None
        details = settlement.details
        qualifies = "qualifies" if details["dealer_qualifies"] else "does not qualify"
        return [Line((f"{label}The dealer {qualifies}. You: {details['player_flush']}.",))]

    def decision_prompt(self, state: HandState, seat: int, payable: Sequence[int]) -> str:
        legal = state.legal_raises(seat)
        if not legal:
            return "This hand may only fold. f = fold: "
        if not payable:
            return f"Not enough bankroll to raise ({legal[0]:,} needed). f = fold: "
        assert isinstance(payable, range)
        return f"f = fold; raise: {raise_choices(payable, state.seats[seat].wagers['ante'])}: "

    def choices_hint(self, state: HandState, seat: int, payable: Sequence[int],
                     short: Callable[[int, str], str | None]) -> str:
        legal = state.legal_raises(seat)
        if not legal:
            return "f to fold: this hand may only fold"
        if not payable:
            return f"f to fold: {short(legal[0], 'a raise')}"
        assert isinstance(payable, range)
        return "f to fold, " + raise_hint(payable, state.seats[seat].wagers["ante"])

    def parse_decision(self, state: HandState, seat: int, answer: str,
                       payable: Sequence[int]) -> Action | None:
        ante = state.seats[seat].wagers["ante"]
        if answer in ("r", "raise"):
            raises = payable or state.legal_raises(seat)
            return Decide(seat, "raise", raises[0] if raises else ante)
        amount = parse_amount(answer, ante)
        return None if amount is None else Decide(seat, "raise", amount)



words = FlushWords()


__all__ = ["FlushWords", "raise_choices", "raise_hint", "words"]
