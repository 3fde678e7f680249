"""Hold'em Stud's betting structure as the solver's and the advisor's tables index it: a
decision with ``level`` community cards turned, and the antes then at risk."""

from __future__ import annotations

import math
from dataclasses import dataclass

COMMUNITY = 3


@dataclass(frozen=True)
class Shape:
    """The betting structure: decision streets and the largest street bet (antes)."""

    streets: int
    most: int

    def low(self, level: int) -> int:
        """Smallest antes at risk at a decision with ``level`` community cards turned."""
        return 1 + level

    def width(self, level: int) -> int:
        return level * (self.most - 1) + 1

    def scale(self, level: int) -> int:
        """Ordered deals of the community cards still face down at this decision."""
        return math.perm(52 - 2 - level, COMMUNITY - level)

    @property
    def last(self) -> int:
        return self.streets - 1

    @property
    def top(self) -> int:
        """Largest total bet, ante included."""
        return 1 + self.streets * self.most
