"""What the pages show about a rule set: its wagers under the names the rules card uses,
their limits and pay tables, the decisions open to a hand, the order the engine deals
in, and the dealing procedure step by step. Everything comes from the rule set and its
game family's words (:class:`~feltlab.core.family.Words`); nothing here decides a result.

>>> card = rule_card("nh-flush-poker")
>>> [wager["spot"] for wager in card["wagers"]]
['Ante', 'Flush', 'Straight Flush']
>>> [decision["label"] for decision in card["decisions"]]
['Fold', 'Raise 1x', 'Raise 2x']
"""

from __future__ import annotations

from typing import Any

from feltlab.core.family import family_of, wager_title
from feltlab.core.rules import Rules, load_rules, open_ids


def spot_name(name: str) -> str:
    """The bet spot's name: the rules card's title without a trailing ' bonus'.

    >>> spot_name("flush"), spot_name("bonus9"), spot_name("ante")
    ('Flush', '9 Card Bonus', 'Ante')
    """
    return wager_title(name).removesuffix(" bonus")


def card_lines(rules: Rules) -> list[str]:
    """The rules card's lines on how the game goes: the game's own, then the cap and the
    seats."""
    lines = family_of(rules).words.card_lines(rules)
    if rules.max_aggregate_payout:
        lines.append(f"Maximum aggregate payout per hand: {rules.max_aggregate_payout:,}.")
    return [*lines, f"Seats: {rules.seats}."]


def cap_line(rules: Rules) -> str:
    """The aggregate payout cap in words."""
    if rules.max_aggregate_payout:
        return (f"No player wins more than {rules.max_aggregate_payout:,} on one hand (losing "
                "wagers are still taken).")
    return "This rule set has no aggregate payout cap."


def procedure(rules: Rules) -> list[str]:
    """The dealing procedure, step by step, for the dealer trainer."""
    bets = ", ".join(wager_title(name) for name in rules.optional_wagers)
    required = " and ".join(wager_title(name) for name in rules.required_wagers)
    first = f"Players place the {required}" + (f" and any of: {bets}." if bets else ".")
    return [*family_of(rules).words.procedure(rules, first), cap_line(rules)]


def wagers(rules: Rules) -> list[dict[str, Any]]:
    words = family_of(rules).words
    return [{"name": name, "title": wager_title(name), "spot": spot_name(name),
             "min": limit.min, "max": limit.max, "required": name in rules.required_wagers,
             "pay_table": words.pay_table(rules, name)}
            for name, limit in rules.limits.items()]


def rule_card(rules_id: str) -> dict[str, Any]:
    """Everything a page shows about one rule set, built-in or published (made once per
    content)."""
    return _card(load_rules(rules_id))


_CARDS: dict[str, dict[str, Any]] = {}


def _card(rules: Rules) -> dict[str, Any]:
    found = _CARDS.get(rules.fingerprint)
    if found is None:
        found = _CARDS[rules.fingerprint] = _make_card(rules)
    return found


def _make_card(rules: Rules) -> dict[str, Any]:
    family = family_of(rules)
    words = family.words
    decision_wagers = words.decision_wagers(rules)
    card: dict[str, Any] = {
        "id": rules.id, "name": rules.name, "game": rules.game,
        "game_name": family.title, "seats": rules.seats,
        "fingerprint": rules.fingerprint, "label": rules.label,
        "main_wager": rules.main_wager, "wagers": wagers(rules),
        "decision_wagers": decision_wagers, "decisions": words.decision_buttons(rules),
        "max_aggregate_payout": rules.max_aggregate_payout,
        "lines": card_lines(rules),
        "deal": words.deal_layout(rules), "procedure": procedure(rules), "notes": rules.notes,
        "colours": list(family.engine.colours),
        "advice_takes_bets": words.advice_takes_bets,
        "facets": sorted(family.provides),
        "titles": {name: wager_title(name) for name in
                   (*rules.limits, *(item["name"] for item in decision_wagers))},
    }
    return card


def rule_cards() -> list[dict[str, Any]]:
    """Every rule set a new table may use: the built-in ones, then the published ones."""
    return [rule_card(rules_id) for rules_id in open_ids()]
