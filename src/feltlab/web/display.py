"""How a round's cards are shown: grouped by suit, the playing flush (or the colour's
flush cards) marked, each hand described and the bonus hands named apart, and what each
wager was settled on. The descriptions come from :mod:`feltlab.evaluators` and the
settlement's own details; nothing here settles a wager.

>>> view = hand_view("high-card-flush", {"player": "2s Ah 9h Kh 3c 4d 5d"})
>>> [(card["text"], card["marked"]) for card in view["player"]["cards"]][:4]
[('2s', False), ('Ah', True), ('Kh', True), ('9h', True)]
>>> view["player"]["describe"]
'3-card hearts flush A-K-9'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from feltlab.cards import Card, parse_cards, sort_by_suit
from feltlab.evaluators import best_flush, longest_straight_flush, poker_hand, three_card_hand
from feltlab.play import colour_suit, pretty_class
from feltlab.rules import FlushRules, NineCardRules, Rules, load_rules
from feltlab.rulescard import wager_title


def _cards(cards: Sequence[Card], marked_suit: int | None, sort: bool = True
           ) -> list[dict[str, Any]]:
    shown = sort_by_suit(cards) if sort else list(cards)
    return [{"text": str(card), "marked": card.suit == marked_suit} for card in shown]


def _flush_hand(cards: Sequence[Card]) -> dict[str, Any]:
    flush = best_flush(cards)
    return {"cards": _cards(cards, flush.suit), "describe": flush.describe()}


def _colour_hand(cards: Sequence[Card], colour: str | None, sort: bool = True
                 ) -> dict[str, Any]:
    if colour is None:
        return {"cards": _cards(cards, None, sort), "describe": ""}
    suit = colour_suit(cards, colour)
    count = sum(card.suit == suit for card in cards) if suit is not None else 0
    return {"cards": _cards(cards, suit, sort),
            "describe": f"{count} {colour} flush card{'s' * (count != 1)}"}


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
    view: dict[str, Any] = {"bonus": []}
    if isinstance(rules, FlushRules):
        if player:
            view["player"] = _flush_hand(player)
            run = longest_straight_flush(player)
            view["bonus"].append({"wager": wager_title("straight_flush"),
                                  "text": f"{run}-card straight flush" if run >= 2
                                  else "no straight flush"})
        if dealer:
            view["dealer"] = _flush_hand(dealer)
        return view
    if isinstance(rules, NineCardRules):
        if community:
            view["community"] = _colour_hand(community, colour, sort=False)
            view["bonus"].append({"wager": wager_title("first3"),
                                  "text": view["community"]["describe"]})
        if player:
            view["player"] = _colour_hand(player, colour)
            view["bonus"].append({"wager": wager_title("player6"),
                                  "text": view["player"]["describe"]})
            if community:
                view["nine"] = _colour_hand([*community, *player], colour)
        return view
    if player:
        view["player"] = {"cards": _cards(player, None), "describe": ""}
    if community:
        view["community"] = {"cards": _cards(community, None, sort=False), "describe": ""}
        if len(community) == 3:
            view["bonus"].append({"wager": wager_title("bonus3"),
                                  "text": pretty_class(three_card_hand(community).name.lower())})
    if len(player) == 2 and len(community) == 3:
        view["player"]["describe"] = pretty_class(poker_hand([*player, *community]).name.lower())
    return view


def settled_on(rules: Rules, settlement: Mapping[str, Any], wager: str, folded: bool
               ) -> str:
    """What a settled wager was paid on, in words, from the settlement's details."""
    if isinstance(rules, FlushRules):
        lost_on_fold = {"ante", *(name for name, kept in rules.settled_on_fold.items()
                                  if not kept)}
        if folded and wager in lost_on_fold:
            return "folded"
        if wager == "flush":
            return str(settlement.get("player_flush", ""))
        if wager == "straight_flush":
            run = int(settlement.get("player_straight_flush", 0))
            return f"{run}-card straight flush" if run >= 2 else "no straight flush"
        if not settlement.get("dealer_qualifies", True):
            return "dealer does not qualify"
        return f"{settlement.get('player_flush', '')} v {settlement.get('dealer_flush', '')}"
    if isinstance(rules, NineCardRules):
        if wager == "all9" and folded:
            return "folded"
        key, where = {"player6": ("flush_cards_player6", "your 6 cards"),
                      "first3": ("flush_cards_first3", "the community cards")}.get(
            wager, ("flush_cards_9", "the 9 cards"))
        count = int(settlement.get(key, 0))
        return f"{count} flush card{'s' * (count != 1)} in {where}"
    if wager == "bonus3":
        return pretty_class(str(settlement.get("bonus3_hand", "")))
    if settlement.get("folded"):
        return "folded"
    return pretty_class(str(settlement.get("player_hand", "")))


def settlement_rows(rules_id: str, round_json: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per settled wager of a complete round: title, stake, net and what it was
    settled on (stakes of decision wagers from the round's payout request)."""
    rules = load_rules(rules_id)
    settlement = round_json.get("settlement") or {}
    results: Mapping[str, int] = round_json.get("results") or {}
    request = round_json.get("payout_request") or {}
    wagers: Mapping[str, int] = round_json.get("wagers") or {}
    decisions = [amount for amount in round_json.get("decisions") or [] if amount]
    folded = bool(round_json.get("decisions")) and 0 in (round_json.get("decisions") or [])
    stakes = dict(wagers)
    if isinstance(rules, FlushRules) and request.get("raise"):
        stakes["raise"] = int(request["raise"])
    elif isinstance(rules, NineCardRules) and request.get("play"):
        stakes["play"] = int(wagers.get("all9", 0))
    else:
        for index, amount in enumerate(decisions):
            stakes[f"street{index + 3}"] = amount
    return [{"wager": name, "title": wager_title(name), "stake": stakes.get(name, 0),
             "net": net, "on": settled_on(rules, settlement, name, folded)}
            for name, net in results.items()]


