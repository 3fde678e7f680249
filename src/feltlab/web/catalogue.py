"""What the pages show about a rule set: its wagers under the names the rules card uses,
their limits and pay tables, the decisions open to a hand, the order the engine deals
in, and the dealing procedure step by step. Everything comes from the rule set and
:mod:`feltlab.rulescard`; nothing here decides a result.

>>> card = rule_card("nh-flush-poker")
>>> [wager["spot"] for wager in card["wagers"]]
['Ante', 'Flush', 'Straight Flush']
>>> [decision["label"] for decision in card["decisions"]]
['Fold', 'Raise 1x', 'Raise 2x']
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from rich.text import Text

from feltlab.rules import (
    FlushRules,
    HoldemStudRules,
    NineCardRules,
    PayTable,
    Rules,
    builtin_ids,
    load_rules,
)
from feltlab.rulescard import rules_card, wager_title

GAME_NAMES = {"high-card-flush": "High Card Flush family", "nine-card-flush": "9 Card Flush",
              "holdem-stud": "Hold'em Stud"}

PAY_TABLES: dict[str, tuple[str, str]] = {
    "flush": ("flush_pays", "flush cards"),
    "straight_flush": ("straight_flush_pays", "straight flush cards"),
    "bonus9": ("bonus9_pays", "flush cards in the 9"),
    "player6": ("player6_pays", "flush cards in your 6"),
    "first3": ("first3_pays", "flush cards in the 3 community cards"),
}
"""Count-based pay tables: the rule-set field of each wager and what its lines count."""


def spot_name(name: str) -> str:
    """The bet spot's name: the rules card's title without a trailing ' bonus'.

    >>> spot_name("flush"), spot_name("bonus9"), spot_name("ante")
    ('Flush', '9 Card Bonus', 'Ante')
    """
    return wager_title(name).removesuffix(" bonus")


def _count_rows(table: PayTable) -> list[dict[str, Any]]:
    return [{"line": str(count), "pays": f"{table[count]:,} to 1"}
            for count in sorted(table, reverse=True)]


def _named_rows(table: Mapping[str, int | str]) -> list[dict[str, Any]]:
    return [{"line": name.replace("_", " ").capitalize(),
             "pays": "push" if pays == "push" else f"{int(pays):,} to 1"}
            for name, pays in table.items()]


def pay_table(rules: Rules, name: str) -> dict[str, Any] | None:
    """The pay table a wager is paid on, as rows of text, or ``None`` (even money)."""
    if isinstance(rules, HoldemStudRules):
        if name == "ante":
            return {"title": "Pay table (Ante and every street bet)", "unit": "5-card hand",
                    "rows": _named_rows(rules.pays)}
        if name == "bonus3":
            return {"title": "3 Card Bonus (community cards)", "unit": "hand",
                    "rows": _named_rows(rules.bonus3_pays)}
        return None
    if name not in PAY_TABLES:
        return None
    field, unit = PAY_TABLES[name]
    table = getattr(rules, field, None)
    if table is None:
        return None
    return {"title": wager_title(name), "unit": unit, "rows": _count_rows(table)}


def decisions(rules: Rules) -> list[dict[str, Any]]:
    """Every decision button the game can show, in the API's action form (``multiple``
    is in antes; the round's own options say which are open)."""
    fold = {"label": "Fold", "action": "fold"}
    if isinstance(rules, FlushRules):
        most = max(rules.raise_multiples.values())
        return [fold, *({"label": f"Raise {k}x", "action": "raise", "multiple": k}
                        for k in range(1, most + 1))]
    if isinstance(rules, NineCardRules):
        return [fold, {"label": "Play", "action": "play"}]
    return [fold, *({"label": f"Bet {k}x", "action": "bet", "multiple": k}
                    for k in range(1, rules.max_street_multiple + 1))]


def deal_layout(rules: Rules) -> list[dict[str, Any]]:
    """The order the engine deals from the top of the deck (``per_seat``: once for each
    seat with a hand, in seat order). :mod:`tests.web` checks it against the engine."""
    if isinstance(rules, FlushRules):
        return [{"to": "player", "count": 7, "per_seat": True},
                {"to": "dealer", "count": 7, "per_seat": False}]
    if isinstance(rules, NineCardRules):
        return [{"to": "community", "count": 3, "per_seat": False},
                {"to": "player", "count": 6, "per_seat": True}]
    return [{"to": "player", "count": 2, "per_seat": True},
            {"to": "community", "count": 3, "per_seat": False}]


def card_lines(rules: Rules) -> list[str]:
    """The rules card's lines on how the game goes (its bullet points)."""
    return [part.plain.removeprefix("• ") for part in rules_card(rules).renderables
            if isinstance(part, Text) and part.plain.startswith("• ")]


def procedure(rules: Rules) -> list[str]:
    """The dealing procedure, step by step, for the dealer trainer."""
    bets = ", ".join(wager_title(name) for name in rules.optional_wagers)
    required = " and ".join(wager_title(name) for name in rules.required_wagers)
    first = f"Players place the {required}" + (f" and any of: {bets}." if bets else ".")
    if isinstance(rules, FlushRules):
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
                "from the pay tables, folded or not as the rule set says.",
                _cap_line(rules)]
    if isinstance(rules, NineCardRules):
        return [first + " Each player marks red or black.",
                "Deal 3 community cards face up.",
                "Each player in turn folds (All 9 is taken; the other wagers stay) or bets "
                "Play equal to All 9.",
                "Deal 6 cards to every player, folded or not, seat 1 first.",
                "Count each player's flush cards of the chosen colour (the most cards of one "
                "suit of that colour) in the 9, the 6 and the 3.",
                f"Pay All 9 and Play 1 to 1 at {rules.all9_win_at}+ flush cards in the 9"
                + (f", push at {rules.all9_push_at}" if rules.all9_push_at else "")
                + "; then the 9 Card Bonus, Player 6 and First 3 from their pay tables.",
                _cap_line(rules)]
    return [first, "Deal 2 cards face down to each player, then 3 community cards face "
            "down.",
            *(f"Street {n}: each player in turn folds (every wager so far is taken) or bets "
              f"1x-{rules.max_street_multiple}x the Ante; then turn community card "
              f"{n - 2}." for n in (3, 4, 5)),
            "Settle the 3 Card Bonus on the 3 community cards for everyone who bet it.",
            "Pay each remaining hand's Ante and street bets on the pay table (5 cards: 2 own "
            "and 3 community), every wager at the same odds.",
            _cap_line(rules)]


def _cap_line(rules: Rules) -> str:
    if rules.max_aggregate_payout:
        return (f"No player wins more than {rules.max_aggregate_payout:,} on one hand (losing "
                "wagers are still taken).")
    return "This rule set has no aggregate payout cap."


def wagers(rules: Rules) -> list[dict[str, Any]]:
    return [{"name": name, "title": wager_title(name), "spot": spot_name(name),
             "min": limit.min, "max": limit.max, "required": name in rules.required_wagers,
             "pay_table": pay_table(rules, name)}
            for name, limit in rules.limits.items()]


def extra_tables(rules: Rules) -> list[dict[str, Any]]:
    """Wagers made by a decision and how they pay (Raise, Play, street bets)."""
    if isinstance(rules, FlushRules):
        return [{"name": "raise", "title": "Raise", "text": "1 to 1 against a qualifying "
                 "dealer; pushes when the dealer does not qualify"}]
    if isinstance(rules, NineCardRules):
        return [{"name": "play", "title": "Play", "text": "equal to All 9, paid like All 9"}]
    return [{"name": name, "title": wager_title(name), "text": "paid on the pay table"}
            for name in ("street3", "street4", "street5")]


@cache
def rule_card(rules_id: str) -> dict[str, Any]:
    """Everything a page shows about one built-in rule set."""
    rules = load_rules(rules_id)
    card: dict[str, Any] = {
        "id": rules.id, "name": rules.name, "game": rules.game,
        "game_name": GAME_NAMES[rules.game], "seats": rules.seats,
        "fingerprint": rules.fingerprint, "label": rules.label,
        "main_wager": rules.main_wager, "wagers": wagers(rules),
        "decision_wagers": extra_tables(rules), "decisions": decisions(rules),
        "max_aggregate_payout": rules.max_aggregate_payout, "lines": card_lines(rules),
        "deal": deal_layout(rules), "procedure": procedure(rules), "notes": rules.notes,
        "colours": ["red", "black"] if isinstance(rules, NineCardRules) else [],
        "titles": {name: wager_title(name) for name in
                   (*rules.limits, *(item["name"] for item in extra_tables(rules)))},
    }
    return card


def rule_cards() -> list[dict[str, Any]]:
    return [rule_card(rules_id) for rules_id in builtin_ids()]
