"""The shape of an exact analysis (a PAR sheet), shared by every game and every report.

Counts are exact integers and every derived figure is an exact :class:`~fractions.Fraction`
(the standard deviation, a square root, is the one float).

>>> wager = WagerAnalysis("flush", "Flush bonus", (
...     OutcomeLine("4 cards", 1, 3), OutcomeLine("lose", -1, 7)), total=10)
>>> wager.house_edge, wager.hit_frequency
(Fraction(2, 5), Fraction(3, 10))
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

Progress = Callable[[int, int], None]
"""Called as ``progress(done, total)`` while a long computation runs."""


@dataclass(frozen=True)
class OutcomeLine:
    """One row of a return table.

    ``net`` is the net result in units of the wager (per ante for a main game, so a
    raise of 3x won is +4), ``count`` the exact number of deals with this outcome and
    ``wagered`` the total amount bet in those deals, in the same units (1 + raise).
    """

    label: str
    net: Fraction | int
    count: int
    wagered: Fraction | int = 1
    key: str | int | None = None  # the pay-table line this row pays on, if any


@dataclass(frozen=True)
class WagerAnalysis:
    """Exact return of one wager: ``total`` is the number of equally likely deals."""

    name: str
    title: str
    lines: tuple[OutcomeLine, ...]
    total: int
    rates: dict[str, Fraction] = field(default_factory=dict)
    decisions: bool = False  # a main game with decisions: report EoR and average wager
    sampled: bool = False  # ``total`` rounds played (a Monte Carlo estimate), not every deal

    def __post_init__(self) -> None:
        counted = sum(line.count for line in self.lines)
        if counted != self.total:
            raise ValueError(f"{self.name}: outcome counts add up to {counted}, "
                             f"not the {self.total} deals")

    def probability(self, line: OutcomeLine) -> Fraction:
        return Fraction(line.count, self.total)

    def contribution(self, line: OutcomeLine) -> Fraction:
        return Fraction(line.net) * Fraction(line.count, self.total)

    def _mean(self, value: Callable[[OutcomeLine], Fraction | int]) -> Fraction:
        """``value`` averaged over the deals, exactly: summed by count, then divided once
        (adding each line's share of a large total is many times slower)."""
        summed = Fraction(0)
        for line in self.lines:
            summed += value(line) * line.count
        return summed / self.total

    @property
    def expected_return(self) -> Fraction:
        return self._mean(lambda line: line.net)

    @property
    def house_edge(self) -> Fraction:
        """Expected loss per unit of this wager (positive favours the house)."""
        return -self.expected_return

    @property
    def average_total_wager(self) -> Fraction:
        return self._mean(lambda line: line.wagered)

    @property
    def element_of_risk(self) -> Fraction:
        """Expected loss per unit of everything wagered (raises and street bets included):
        for a wager without decisions, its house edge."""
        return self.house_edge / self.average_total_wager

    @property
    def hit_frequency(self) -> Fraction:
        return Fraction(sum(line.count for line in self.lines if line.net > 0), self.total)

    @property
    def variance(self) -> Fraction:
        mean = self.expected_return
        return self._mean(lambda line: line.net * line.net) - mean * mean

    @property
    def std_dev(self) -> float:
        return math.sqrt(self.variance)

    @property
    def std_error(self) -> float:
        """The standard error of :attr:`house_edge` were the ``total`` deals a random
        sample (a Monte Carlo estimate's; an exact sheet shows none)."""
        return self.std_dev / math.sqrt(self.total)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "title": self.title,
            "house_edge": float(self.house_edge),
            "house_edge_exact": str(self.house_edge),
            **({"std_error": self.std_error} if self.sampled else {}),
            "hit_frequency": float(self.hit_frequency),
            "std_dev": self.std_dev,
            "element_of_risk": float(self.element_of_risk),
            "total": self.total,
            "lines": [{"label": line.label, "net": float(line.net), "count": line.count,
                       "probability": float(self.probability(line)),
                       "contribution": float(self.contribution(line))} for line in self.lines],
            "rates": {name: float(value) for name, value in self.rates.items()},
        }
        if self.decisions:
            data["average_total_wager"] = float(self.average_total_wager)
        return data


@dataclass(frozen=True)
class StrategyCard:
    """The short rules a person can remember, and what playing them exactly costs."""

    lines: tuple[str, ...]
    house_edge: Fraction
    optimal_house_edge: Fraction

    @property
    def cost(self) -> Fraction:
        return self.house_edge - self.optimal_house_edge


StrategyRow = tuple[str, str, Fraction]
"""(hands, decision, share of all deals): one row of a PAR sheet's strategy map."""


def name_splits(rows: Sequence[StrategyRow], rest: Callable[[str], str],
                ) -> tuple[StrategyRow, ...]:
    """The strategy map with every row named by the hands it holds: where one group of
    hands has several optimal decisions (the decision depends on cards the group's name
    does not mention), the most common decision's row says ``most hands`` (or ``the
    rest``) and each other row says which hands it holds; ``rest(group)`` names the cards
    that decide (``'other 4 cards'``).

    >>> rows = name_splits([("3-card flush", "fold", Fraction(3, 10)),
    ...                     ("3-card flush", "raise 1x", Fraction(1, 10)),
    ...                     ("4-card flush", "raise 1x", Fraction(1, 5))],
    ...                    lambda group: "other 4 cards")
    >>> for row in rows:
    ...     print(row[0])
    3-card flush, most hands
    3-card flush, when the other 4 cards favour raise 1x
    4-card flush
    """
    by_group: dict[str, list[int]] = {}
    for index, (group, _, _) in enumerate(rows):
        by_group.setdefault(group, []).append(index)
    named = list(rows)
    for group, indices in by_group.items():
        if len(indices) < 2:
            continue
        main = max(indices, key=lambda index: rows[index][2])
        total = sum((rows[index][2] for index in indices), Fraction(0))
        for index in indices:
            _, decision, share = rows[index]
            if index == main:
                label = f"{group}, {'most hands' if 2 * share > total else 'the rest'}"
            else:
                label = f"{group}, when the {rest(group)} favour {decision}"
            named[index] = (label, decision, share)
    return tuple(named)


def unsplit_group(label: str) -> str:
    """The hand group a row named by :func:`name_splits` belongs to (for charts, which
    show a group's decisions side by side in one bar).

    >>> unsplit_group("3-card flush, when the other 4 cards favour fold")
    '3-card flush'
    >>> unsplit_group("3-card flush, most hands"), unsplit_group("4-card flush")
    ('3-card flush', '4-card flush')
    """
    for ending in (", most hands", ", the rest"):
        if label.endswith(ending):
            return label.removesuffix(ending)
    return label.rsplit(", when the ", 1)[0]


@dataclass(frozen=True)
class ParSheet:
    rules_id: str
    rules_name: str
    wagers: tuple[WagerAnalysis, ...]
    strategy_card: StrategyCard | None = None
    # (hand group, decision, share of all deals) under the optimal strategy, for charts
    strategy_map: tuple[tuple[str, str, Fraction], ...] = ()
    notes: tuple[str, ...] = ()
    fingerprint: str = ""
    modified: bool = False
    sampled: int = 0
    """Rounds sampled for a Monte Carlo estimate (a game without exact math); 0: exact."""
    seed: int = 0
    """The estimate's seed (from the rule set's fingerprint)."""

    @property
    def is_estimate(self) -> bool:
        return self.sampled > 0

    def upper95(self, wager: WagerAnalysis) -> Fraction:
        """The house edge's upper 95% bound: the exact edge itself for an exact sheet."""
        if not self.is_estimate:
            return wager.house_edge
        return wager.house_edge + Fraction(1.959963984540054 * wager.std_error)

    @property
    def rules_label(self) -> str:
        """The id as shown to people (a modified built-in says so)."""
        if self.modified:
            return f"{self.rules_id} (modified, fingerprint {self.fingerprint[:12]})"
        return self.rules_id

    def wager(self, name: str) -> WagerAnalysis:
        for wager in self.wagers:
            if wager.name == name:
                return wager
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"rules": self.rules_id, "fingerprint": self.fingerprint,
                                "modified": self.modified, "name": self.rules_name,
                                "wagers": [wager.to_json() for wager in self.wagers],
                                "notes": list(self.notes)}
        if self.is_estimate:
            data["estimate"] = {"method": "monte carlo", "rounds": self.sampled,
                                "seed": self.seed,
                                "std_errors": {wager.name: wager.std_error
                                               for wager in self.wagers}}
        if self.strategy_card is not None:
            card = self.strategy_card
            data["strategy_card"] = {"lines": list(card.lines),
                                     "house_edge": float(card.house_edge),
                                     "optimal_house_edge": float(card.optimal_house_edge),
                                     "cost": float(card.cost)}
        data["strategy_map"] = [{"hands": group, "decision": decision, "share": float(share)}
                                for group, decision, share in self.strategy_map]
        return data


@dataclass(frozen=True)
class OptionValue:
    """One option open to a hand and its exact expected net result, in units of the
    main wager (Ante, or All 9), counting every main-game bet the option commits to."""

    option: str
    ev: Fraction


@dataclass(frozen=True)
class Advice:
    """The exact value of every option for one hand; ``best`` is the optimal option
    (exact ties go to the larger wager)."""

    rules_id: str
    hand: str
    options: tuple[OptionValue, ...]
    best: str
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"rules": self.rules_id, "hand": self.hand, "best": self.best,
                "options": [{"option": o.option, "ev": float(o.ev), "ev_exact": str(o.ev)}
                            for o in self.options], **self.details}
