"""Settlement: what every game's settlement is made of.

A game family's ``settle`` module is the one place where its wagers' results are
decided: it takes a rule set, the wagers, the cards and the player's decisions, checks
every one of them against the rules (the wagers here, with :func:`check_wagers`), and
returns a :class:`Settlement` with the net result of every wager in play and the hand
total after the aggregate payout cap (:func:`finish`). The hand engine, the payout
calculator, the simulator's tests and the server all come there.

>>> capped_total({"ante": 10, "raise": 20, "flush": -5}, None)
(25, False)
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from feltlab.core.rules import Rules, pays_for


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
    feltlab.core.settle.WagerError: --bets: 'ante=ten' is not name=amount with a whole number
    >>> parse_wagers("ante=10,ante=1")
    Traceback (most recent call last):
    ...
    feltlab.core.settle.WagerError: --wagers: wager 'ante' is given twice
    """
    from feltlab.core.jsonio import loads

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

    >>> from feltlab.core.rules import load_rules
    >>> check_wagers(load_rules("nh-flush-poker"), {"ante": 11})
    Traceback (most recent call last):
    ...
    feltlab.core.settle.WagerError: wager ante of 11 is above the maximum of 10
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
    problem = rules.check_stakes(checked)
    if problem:
        raise WagerError(problem)
    return checked


def _is_json(value: object) -> bool:
    return value is None or isinstance(value, bool | int | float | str | list | dict)


def bonus_result(table: Mapping[int, int], count: int, stake: int) -> int:
    pays = pays_for(dict(table), count)
    return -stake if pays is None else pays * stake


def finish(rules: Rules, results: dict[str, int], details: dict[str, Any]) -> Settlement:
    """The settlement of a hand's results under the rule set's aggregate payout cap."""
    total, capped = capped_total(results, rules.max_aggregate_payout)
    return Settlement(results, total, capped, details)


