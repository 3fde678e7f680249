"""Settlement: the one place where a wager's result is decided.

Each ``settle_*`` function takes a rule set, the wagers, the cards and the player's
decisions, checks every one of them against the rules, and returns a :class:`Settlement`
with the net result of every wager in play and the hand total after the aggregate
payout cap. The hand engine, the payout calculator, the simulator's tests and the server
all come here.

>>> from feltlab.rules import load_rules
>>> from feltlab.cards import parse_cards
>>> s = settle_flush(load_rules("high-card-flush"), {"ante": 5},
...                  parse_cards("Th 8h 6h Js Ad Qd Jc"), parse_cards("8s 7s 2s 3h 4d 5c Kc"), 5)
>>> s.results, s.total, s.details["dealer_qualifies"]
({'ante': 5, 'raise': 0}, 5, False)
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

from feltlab.cards import Card, ensure_count, ensure_distinct, format_cards
from feltlab.evaluators import (
    best_flush,
    colour_flush_count,
    dealer_qualifies,
    longest_straight_flush,
    poker_hand,
    three_card_hand,
)
from feltlab.rules import FlushRules, HoldemStudRules, NineCardRules, Rules, pays_for

COLOURS = ("red", "black")


class WagerError(ValueError):
    """A wager or decision the rules do not allow; the message names the wager and rule."""


@dataclass(frozen=True)
class Settlement:
    """Net result per wager (won > 0, lost < 0, push 0) and the capped hand total."""

    results: dict[str, int]
    total: int
    capped: bool = False
    details: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {"results": self.results, "total": self.total, "capped": self.capped,
                **self.details}


def capped_total(results: Mapping[str, int], cap: int | None) -> tuple[int, bool]:
    """Total of a hand's results once the winnings are capped; losses are still collected.

    >>> capped_total({"ante": 10, "straight_flush": 80000, "flush": -10}, 25000)
    (24990, True)
    """
    won = sum(net for net in results.values() if net > 0)
    lost = sum(net for net in results.values() if net < 0)
    if cap is not None and won > cap:
        return cap + lost, True
    return won + lost, False


def capped_shares(results: Mapping[str, int], cap: int | None) -> dict[str, Fraction]:
    """Each wager's result once the cap applies: the excess comes off the winning wagers
    in proportion to their wins (how the analysis reports a wager's capped return).

    >>> capped_shares({"ante": 100, "flush": 300, "raise": -50}, 200)
    {'ante': Fraction(50, 1), 'flush': Fraction(150, 1), 'raise': Fraction(-50, 1)}
    """
    total, capped = capped_total(results, cap)
    if not capped:
        return {name: Fraction(value) for name, value in results.items()}
    won = sum(value for value in results.values() if value > 0)
    kept = total - sum(value for value in results.values() if value < 0)
    return {name: Fraction(value * kept, won) if value > 0 else Fraction(value)
            for name, value in results.items()}


def parse_wagers(text: str, option: str = "--wagers") -> dict[str, int]:
    """Wagers typed as ``ante=10,flush=5`` (or a JSON object) as whole amounts by name;
    ``option`` names the command-line option in errors. A wager named twice, an amount
    that is not a whole number and an empty list are refused.

    >>> parse_wagers("ante=10, flush=0")
    {'ante': 10, 'flush': 0}
    >>> parse_wagers("ante=ten", "--bets")
    Traceback (most recent call last):
    ...
    feltlab.settle.WagerError: --bets: 'ante=ten' is not name=amount with a whole number
    >>> parse_wagers("ante=10,ante=1")
    Traceback (most recent call last):
    ...
    feltlab.settle.WagerError: --wagers: wager 'ante' is given twice
    """
    from feltlab.jsonio import loads

    if text.strip().startswith("{"):
        try:
            value = loads(text)
        except ValueError as error:
            message = str(error).replace("key", "wager", 1)
            raise WagerError(f"{option}: {message}") from error
        for name, amount in value.items():
            if isinstance(amount, bool) or not isinstance(amount, int):
                raise WagerError(f"{option}: wager {name!r} must be a whole number of units, "
                                 f"got {json.dumps(amount)}")
        pairs = list(value.items())
    else:
        pairs = []
        for pair in filter(None, (part.strip() for part in text.split(","))):
            name, sep, amount = pair.partition("=")
            if not sep or not re.fullmatch(r"\s*-?\d{1,18}\s*", amount):
                raise WagerError(f"{option}: {pair!r} is not name=amount with a whole number")
            pairs.append((name.strip(), int(amount)))
    wagers: dict[str, int] = {}
    for name, amount in pairs:
        if name in wagers:
            raise WagerError(f"{option}: wager {name!r} is given twice")
        wagers[name] = amount
    if not wagers:
        raise WagerError(f"{option}: no wagers given; write them as ante=10,flush=5")
    return wagers


def check_wagers(rules: Rules, wagers: Mapping[str, object]) -> dict[str, int]:
    """The wagers as whole amounts, each known, within its limits, the required ones present.

    >>> from feltlab.rules import load_rules
    >>> check_wagers(load_rules("nh-flush-poker"), {"ante": 11})
    Traceback (most recent call last):
    ...
    feltlab.settle.WagerError: wager ante of 11 is above the maximum of 10
    """
    checked: dict[str, int] = {}
    for name, amount in wagers.items():
        if name not in rules.limits:
            raise WagerError(f"unknown wager {name!r} for {rules.id}; "
                             f"wagers are {', '.join(rules.wager_names)}")
        if amount is None:  # JSON null: not bet, as an absent wager
            continue
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise WagerError(f"wager {name} must be a whole number of units (0 = not bet), "
                             f"got {json.dumps(amount) if _is_json(amount) else repr(amount)}")
        if amount == 0:
            continue
        limit = rules.limits[name]
        if amount < limit.min:
            raise WagerError(f"wager {name} of {amount} is below the minimum of {limit.min}")
        if amount > limit.max:
            raise WagerError(f"wager {name} of {amount} is above the maximum of {limit.max}")
        checked[name] = amount
    for name in rules.required_wagers:
        if name not in checked:
            raise WagerError(f"wager {name} is required by {rules.id}")
    if isinstance(rules, FlushRules) and rules.equal_bonuses:
        flush, straight = checked.get("flush"), checked.get("straight_flush")
        if flush and straight and flush != straight:
            raise WagerError(f"wagers flush ({flush}) and straight_flush ({straight}) must be "
                             f"equal when both are bet ({rules.id})")
    return checked


def _is_json(value: object) -> bool:
    return value is None or isinstance(value, bool | int | float | str | list | dict)


def bonus_result(table: Mapping[int, int], count: int, stake: int) -> int:
    pays = pays_for(dict(table), count)
    return -stake if pays is None else pays * stake


def _finish(rules: Rules, results: dict[str, int], details: dict[str, Any]) -> Settlement:
    total, capped = capped_total(results, rules.max_aggregate_payout)
    return Settlement(results, total, capped, details)


# High Card Flush family -------------------------------------------------------------------

def check_raise(rules: FlushRules, player: Sequence[Card], ante: int, amount: int) -> None:
    """Refuse a raise the player's flush does not allow (0 is a fold, always allowed)."""
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise WagerError(f"raise must be a whole number of units, got {amount!r}")
    if amount == 0:
        return
    length = best_flush(player).length
    most = rules.max_raise_multiple(length)
    if most == 0:
        raise WagerError(f"raise: a {length}-card flush may not raise in {rules.id}; "
                         "the hand may only fold")
    if amount < ante:
        raise WagerError(f"raise of {amount} is below the minimum of 1x the ante ({ante})")
    if amount > most * ante:
        raise WagerError(f"raise of {amount} is above the maximum of {most}x the ante "
                         f"({most * ante}) for a {length}-card flush")
    if rules.raise_in_whole_antes and amount % ante:
        raise WagerError(f"raise of {amount} must be a whole multiple of the ante ({ante}) "
                         f"in {rules.id}")


FLUSH_BONUSES: tuple[Literal["flush", "straight_flush"], ...] = ("flush", "straight_flush")


def flush_bonus_result(rules: FlushRules, name: Literal["flush", "straight_flush"], count: int,
                       stake: int, folded: bool) -> int:
    """A flush-family bonus: paid on its table by ``count`` (flush length or straight-flush
    run), or lost with the hand on a fold where the rule set says so.

    >>> from feltlab.rules import load_rules
    >>> nh = load_rules("nh-flush-poker")
    >>> flush_bonus_result(nh, "flush", 5, 2, folded=True)
    -2
    >>> flush_bonus_result(nh, "straight_flush", 3, 2, folded=True)
    14
    """
    if folded and not rules.settled_on_fold[name]:
        return -stake
    table = rules.flush_pays if name == "flush" else rules.straight_flush_pays
    return bonus_result(table, count, stake)


def check_flush_cards(player: Sequence[Card], dealer: Sequence[Card] | None) -> None:
    ensure_count(player, 7, "player")
    if dealer is not None:
        ensure_count(dealer, 7, "dealer")
        ensure_distinct([*player, *dealer])


def settle_flush(rules: FlushRules, wagers: Mapping[str, object], player: Sequence[Card],
                 dealer: Sequence[Card], raise_amount: int) -> Settlement:
    """Settle a High Card Flush family hand; ``raise_amount`` 0 means the player folded."""
    stakes = check_wagers(rules, wagers)
    check_flush_cards(player, dealer)
    ante = stakes["ante"]
    check_raise(rules, player, ante, raise_amount)
    mine, theirs = best_flush(player), best_flush(dealer)
    qualifies = dealer_qualifies(theirs, rules.qualifier.min_length,
                                 rules.qualifier.min_high_rank)
    results: dict[str, int] = {}
    if raise_amount == 0:
        results["ante"] = -ante
    elif not qualifies:
        results["ante"], results["raise"] = ante, 0
    else:
        sign = (mine.value > theirs.value) - (mine.value < theirs.value)
        results["ante"], results["raise"] = sign * ante, sign * raise_amount
    straight_run = longest_straight_flush(player)
    counts = {"flush": mine.length, "straight_flush": straight_run}
    for name in FLUSH_BONUSES:
        if name in stakes:
            results[name] = flush_bonus_result(rules, name, counts[name], stakes[name],
                                               folded=raise_amount == 0)
    details = {
        "player_flush": mine.describe(),
        "dealer_flush": theirs.describe(),
        "dealer_qualifies": qualifies,
        "player_straight_flush": straight_run,
        "player_cards": format_cards(player),
        "dealer_cards": format_cards(dealer),
    }
    return _finish(rules, results, details)


# 9 Card Flush -----------------------------------------------------------------------------

def check_colour(colour: object) -> str:
    if colour not in COLOURS:
        raise WagerError(f"colour must be 'red' or 'black', got {colour!r}")
    return str(colour)


def all9_sign(rules: NineCardRules, flush_cards: int) -> int:
    """All 9 and Play per unit for a played hand with this many flush cards in the 9:
    1 win, 0 push, -1 lose.

    >>> from feltlab.rules import load_rules
    >>> [all9_sign(load_rules("nine-card-flush"), count) for count in (2, 3, 4)]
    [-1, 0, 1]
    """
    if flush_cards >= rules.all9_win_at:
        return 1
    if rules.all9_push_at is not None and flush_cards >= rules.all9_push_at:
        return 0
    return -1


def settle_nine_card(rules: NineCardRules, wagers: Mapping[str, object], colour: object,
                     community: Sequence[Card], player: Sequence[Card], play: bool) -> Settlement:
    """Settle a 9 Card Flush hand; ``play`` False means the player folded."""
    stakes = check_wagers(rules, wagers)
    chosen = check_colour(colour)
    if not isinstance(play, bool):
        raise WagerError(f"play must be true or false, got {play!r}")
    ensure_count(community, 3, "community")
    ensure_count(player, 6, "player")
    ensure_distinct([*community, *player])
    nine = colour_flush_count([*community, *player], chosen)
    six = colour_flush_count(player, chosen)
    three = colour_flush_count(community, chosen)
    all9 = stakes["all9"]
    results: dict[str, int] = {}
    if not play:
        results["all9"] = -all9
    else:
        results["all9"] = results["play"] = all9_sign(rules, nine) * all9
    for name, table, count in (("bonus9", rules.bonus9_pays, nine),
                               ("player6", rules.player6_pays, six),
                               ("first3", rules.first3_pays, three)):
        if name in stakes:
            results[name] = bonus_result(table, count, stakes[name])
    details = {"colour": chosen, "flush_cards_9": nine, "flush_cards_player6": six,
               "flush_cards_first3": three, "community_cards": format_cards(community),
               "player_cards": format_cards(player)}
    return _finish(rules, results, details)


# Hold'em Stud -----------------------------------------------------------------------------

STREET_NAMES = ("street3", "street4", "street5")


def check_street_bet(rules: HoldemStudRules, ante: int, street: int, amount: object) -> int:
    """Refuse a street bet that is not 1x up to the maximum multiple of the ante."""
    name = STREET_NAMES[street]
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise WagerError(f"{name} bet must be a whole number of units, got {amount!r}")
    most = rules.max_street_multiple
    if amount < ante or amount > most * ante or amount % ante:
        allowed = ", ".join(str(ante * k) for k in range(1, most + 1))
        raise WagerError(f"{name} bet of {amount} is not 1x to {most}x the ante of {ante} "
                         f"(allowed: {allowed})")
    return amount


def settle_holdem(rules: HoldemStudRules, wagers: Mapping[str, object], player: Sequence[Card],
                  community: Sequence[Card], streets: Sequence[object]) -> Settlement:
    """Settle a Hold'em Stud hand; fewer than three street bets means the player folded at
    the next street."""
    stakes = check_wagers(rules, wagers)
    ensure_count(player, 2, "player")
    ensure_count(community, 3, "community")
    ensure_distinct([*player, *community])
    if len(streets) > rules.streets:
        raise WagerError(f"streets: at most {rules.streets} street bets, got {len(streets)}")
    ante = stakes["ante"]
    bets = [check_street_bet(rules, ante, index, amount) for index, amount in enumerate(streets)]
    hand = poker_hand([*player, *community])
    folded = len(bets) < rules.streets
    multiple = -1 if folded else rules.net_multiple(hand)
    results = {"ante": multiple * ante}
    for name, amount in zip(STREET_NAMES, bets, strict=False):
        results[name] = multiple * amount
    bonus_hand = three_card_hand(community)
    if "bonus3" in stakes:
        results["bonus3"] = rules.bonus3_net_multiple(bonus_hand) * stakes["bonus3"]
    details = {"player_hand": hand.name.lower(), "bonus3_hand": bonus_hand.name.lower(),
               "folded": folded, "player_cards": format_cards(player),
               "community_cards": format_cards(community)}
    return _finish(rules, results, details)
