"""How a round's cards are shown: grouped by suit, the playing flush (or the colour's
flush cards) marked, each hand described and the bonus hands named apart, and what each
wager was settled on. The layout is the game family's (its words' ``hand_view`` and
``settled_on``), from the evaluators and the settlement's own details; nothing here
settles a wager.

>>> view = hand_view("high-card-flush", {"player": "2s Ah 9h Kh 3c 4d 5d"})
>>> [(card["text"], card["marked"]) for card in view["player"]["cards"]][:4]
[('2s', False), ('Ah', True), ('Kh', True), ('9h', True)]
>>> view["player"]["describe"]
'3-card hearts flush A-K-9'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from feltlab.core.cards import Card, parse_cards
from feltlab.core.family import family_of, wager_title
from feltlab.core.rules import load_rules


def _read(cards: Mapping[str, Any], name: str) -> tuple[Card, ...]:
    text = cards.get(name) or ""
    return parse_cards(text) if isinstance(text, str | list) else ()


def hand_view(rules_id: str, cards: Mapping[str, Any], colour: str | None = None
              ) -> dict[str, Any]:
    """The cards a round shows (``player``, ``dealer``, ``community`` as card text) laid
    out for the page, with the bonus hands named apart under ``bonus``."""
    rules = load_rules(rules_id)
    player, dealer, community = (_read(cards, name) for name in ("player", "dealer",
                                                                  "community"))
    return family_of(rules).words.hand_view(rules, player, dealer, community, colour)


def settlement_rows(rules_id: str, round_json: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per settled wager of a complete round: title, stake, net and what it was
    settled on (stakes of decision wagers from the round's payout request)."""
    rules = load_rules(rules_id)
    family = family_of(rules)
    settlement = round_json.get("settlement") or {}
    results: Mapping[str, int] = round_json.get("results") or {}
    request = {**(round_json.get("payout_request") or {}),
               "wagers": round_json.get("wagers") or {}}
    seat = round_json.get("seat")
    folded = any(entry.get("type") == "Fold" and entry.get("seat") == seat
                 for entry in round_json.get("log") or [])
    stakes = family.engine.request_stakes(request)
    return [{"wager": name, "title": wager_title(name), "stake": stakes.get(name, 0),
             "net": net, "on": family.words.settled_on(rules, settlement, name, folded)}
            for name, net in results.items()]
