"""The shape of a game-protection report, shared by every game and every report form."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final

from feltlab.core.model import Progress

__all__ = [
    "Case",
    "CaseResult",
    "Countermeasure",
    "Leak",
    "McSums",
    "Progress",
    "ProtectReport",
    "Signal",
]


@dataclass(frozen=True, order=True)
class Case:
    """One amount of information: ``colluders`` seats pooling their cards (1 = a lone
    player), ``dealer_seen`` of the dealer's cards seen (hole-carding), ``next_seen``
    community or next cards seen before they are dealt or turned."""

    colluders: int = 1
    dealer_seen: int = 0
    next_seen: int = 0

    @property
    def is_baseline(self) -> bool:
        return self == Case()

    def describe(self) -> str:
        parts = []
        if self.colluders > 1:
            parts.append(f"{self.colluders} colluding seats")
        if self.dealer_seen:
            parts.append(f"{self.dealer_seen} dealer card{'s' if self.dealer_seen > 1 else ''}"
                         " seen")
        if self.next_seen:
            parts.append(f"{self.next_seen} next card{'s' if self.next_seen > 1 else ''} seen")
        return ", ".join(parts) or "no extra information (the house edge)"


@dataclass
class McSums:
    """Running sums of a Monte Carlo estimate (one value per information state)."""

    count: int = 0
    total: float = 0.0
    squares: float = 0.0

    def add(self, count: int, total: float, squares: float) -> None:
        self.count += count
        self.total += total
        self.squares += squares

    @property
    def mean(self) -> float:
        return self.total / self.count if self.count else 0.0

    @property
    def std_error(self) -> float:
        if self.count < 2:
            return 0.0
        variance = (self.squares - self.total * self.total / self.count) / (self.count - 1)
        return math.sqrt(max(variance, 0.0) / self.count)


@dataclass(frozen=True)
class CaseResult:
    """The players' edge (expected net per unit of the main wager, positive when the
    players win) for one case, each informed seat playing its best strategy.

    ``exact`` results carry the exact fraction; Monte Carlo ones a standard error.
    ``states`` is the number of information states enumerated (exact) or sampled."""

    case: Case
    player_edge: Fraction | float
    std_error: float
    exact: bool
    states: int
    method: str
    seconds: float = 0.0

    @property
    def edge(self) -> float:
        return float(self.player_edge)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "colluders": self.case.colluders, "dealer_seen": self.case.dealer_seen,
            "next_seen": self.case.next_seen, "player_edge": self.edge,
            "std_error": self.std_error, "exact": self.exact, "states": self.states,
            "method": self.method, "seconds": round(self.seconds, 3)}
        if isinstance(self.player_edge, Fraction):
            data["player_edge_exact"] = str(self.player_edge)
        return data


@dataclass(frozen=True)
class Signal:
    """A strategy a team could really signal, derived from the exact decisions."""

    leak: str
    name: str
    rule: str
    player_edge: float
    std_error: float
    full_information_edge: float
    states: int

    def to_json(self) -> dict[str, Any]:
        return {"leak": self.leak, "name": self.name, "rule": self.rule,
                "player_edge": self.player_edge, "std_error": self.std_error,
                "full_information_edge": self.full_information_edge, "states": self.states}


@dataclass(frozen=True)
class Countermeasure:
    """What an operator can change, and what it does to a leak (computed)."""

    leak: str
    change: str
    before: float
    after: float
    std_error: float
    exact: bool
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"leak": self.leak, "change": self.change, "player_edge_before": self.before,
                "player_edge_after": self.after, "std_error": self.std_error,
                "exact": self.exact, "note": self.note}


@dataclass(frozen=True)
class Leak:
    """A kind of information and what the report says about it."""

    name: str
    title: str
    applies: bool
    why: str


@dataclass(frozen=True)
class ProtectReport:
    rules_id: str
    rules_name: str
    fingerprint: str
    modified: bool
    house_edge: Fraction
    cases: tuple[CaseResult, ...]
    leaks: tuple[Leak, ...] = ()
    signals: tuple[Signal, ...] = ()
    countermeasures: tuple[Countermeasure, ...] = ()
    notes: tuple[str, ...] = ()
    seed: int = 0
    deals: int = 0
    seconds: float = 0.0
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def rules_label(self) -> str:
        if self.modified:
            return f"{self.rules_id} (modified, fingerprint {self.fingerprint[:12]})"
        return self.rules_id

    def to_json(self) -> dict[str, Any]:
        return {"rules": self.rules_id, "fingerprint": self.fingerprint,
                "modified": self.modified, "name": self.rules_name,
                "house_edge": float(self.house_edge), "house_edge_exact": str(self.house_edge),
                "cases": [case.to_json() for case in self.cases],
                "leaks": [{"name": leak.name, "title": leak.title, "applies": leak.applies,
                           "why": leak.why} for leak in self.leaks],
                "signals": [signal.to_json() for signal in self.signals],
                "countermeasures": [item.to_json() for item in self.countermeasures],
                "notes": list(self.notes), "seed": self.seed, "deals": self.deals,
                "seconds": round(self.seconds, 3)}


def find_result(results: Sequence[CaseResult], case: Case) -> CaseResult | None:
    """The result of ``case`` among ``results``, if it was computed."""
    return next((result for result in results if result.case == case), None)


def fewer_seats(seats: int, results: Sequence[CaseResult]) -> list[Countermeasure]:
    """Fewer seats at the table, read off the colluder cases already computed: a full
    table of one, two or three fewer colluders."""
    full = find_result(results, Case(seats))
    if full is None:
        return []
    measures = []
    for fewer_count in range(seats - 1, max(1, seats - 3), -1):
        fewer = find_result(results, Case(fewer_count))
        if fewer is not None:
            measures.append(Countermeasure(
                "colluders", f"{fewer_count} seats instead of {seats}", full.edge, fewer.edge,
                fewer.std_error, fewer.exact, f"a full table of {fewer_count} colluders"))
    return measures


ORDER_NOTE: Final = (
    "the dealer's hand is a uniformly random set of the cards the team has not seen "
    "whatever the order of the deal, and a burn card is one more unseen card: the team's "
    "edge is exactly the same")
