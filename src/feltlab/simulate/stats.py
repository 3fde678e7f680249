"""Estimates from merged integer sums: house edge, standard error, 95% interval, hit rates.

The unit of sampling is the round, not the seat: seats at one table share the dealer's
hand (or the community cards), so their results are correlated. The standard error is
that of the mean over rounds of the round's net summed over the seats.

>>> w = WagerStats("ante", stake=1, rounds=4, seats=1, net_sum=-2, net_square_sum=4,
...                wins=1, pushes=0, losses=3)
>>> w.house_edge, round(w.std_error, 4)
(Fraction(1, 2), 0.5)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

Z95 = 1.959963984540054


@dataclass(frozen=True)
class WagerStats:
    """Exact sums over a run for one wager; every estimate is derived from them."""

    name: str
    stake: int
    rounds: int
    seats: int
    net_sum: int
    net_square_sum: int
    wins: int
    pushes: int
    losses: int
    exact: Fraction | None = None

    @property
    def hands(self) -> int:
        return self.rounds * self.seats

    @property
    def house_edge(self) -> Fraction:
        """Estimated expected loss per unit staked (per seat-hand)."""
        if self.hands == 0:
            return Fraction(0)
        return -Fraction(self.net_sum, self.hands * self.stake)

    @property
    def std_error(self) -> float:
        if self.rounds < 2:
            return math.inf
        mean = Fraction(self.net_sum, self.rounds)
        variance = (Fraction(self.net_square_sum) - self.rounds * mean * mean) / (self.rounds - 1)
        return math.sqrt(float(variance) / self.rounds) / (self.seats * self.stake)

    @property
    def interval95(self) -> tuple[float, float]:
        edge = float(self.house_edge)
        return edge - Z95 * self.std_error, edge + Z95 * self.std_error

    def rate(self, count: int) -> Fraction:
        return Fraction(count, self.hands) if self.hands else Fraction(0)

    @property
    def z_score(self) -> float | None:
        """Distance of the estimate from the exact value, in standard errors."""
        if self.exact is None or self.std_error in (0.0, math.inf):
            return None
        return float(self.house_edge - self.exact) / self.std_error

    def to_json(self) -> dict[str, Any]:
        low, high = self.interval95
        return {
            "name": self.name,
            "stake": self.stake,
            "house_edge": float(self.house_edge),
            "std_error": self.std_error,
            "interval95": [low, high],
            "hit_rate": float(self.rate(self.wins)),
            "push_rate": float(self.rate(self.pushes)),
            "loss_rate": float(self.rate(self.losses)),
            "exact_house_edge": None if self.exact is None else float(self.exact),
            "exact_house_edge_fraction": None if self.exact is None else str(self.exact),
            "z_score": self.z_score,
        }


def merge(totals: list[list[int]], more: list[list[int]]) -> list[list[int]]:
    """Add two per-wager tables of integer sums (Python integers: no overflow)."""
    return [[a + b for a, b in zip(row, other, strict=True)]
            for row, other in zip(totals, more, strict=True)]
