"""Pieces every game's kernel shares: the table of a pay table, counting, the cap.

The compiled kernels are a second implementation of the rules for speed: every number
they use comes from the rule-set model through the helpers here (pay tables become
arrays indexed by count, ``-1`` meaning the wager loses), never from the kernel's code.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Final

import numba as nb
import numpy as np
import numpy.typing as npt

from feltlab.core.rules import pays_for

I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]
U64 = npt.NDArray[np.uint64]

STATS: Final = 10
"""Per wager and chunk: the sum of the round nets (:data:`S_SUM`), the sum of their
squares in exact 64-bit parts (:data:`S_SMALL` to ``S_SQUARE + 4``, see
:func:`square_sum`), then seat-hands won, pushed and lost (:data:`S_WINS`)."""
S_SUM, S_SMALL, S_SQUARE, S_WINS = 0, 1, 2, 7
SMALL_NET: Final = 1 << 23
"""A round net below this in magnitude adds its square to ``S_SMALL`` directly: 2**16
rounds a chunk of squares below 2**46 stay below 2**62."""
COUNTERS: Final = 16
NO_CAP: Final = -1
LOSE: Final = -1


def pay_array(table: Mapping[int, int], largest_count: int) -> I64:
    """A count-based pay table as an array indexed by count: N to 1, or -1 to lose.

    >>> pay_array({4: 1, 5: 10}, 6).tolist()
    [-1, -1, -1, -1, 1, 10, 10]
    """
    pays = [pays_for(dict(table), count) for count in range(largest_count + 1)]
    return np.array([LOSE if line is None else line for line in pays], dtype=np.int64)


def square_sum(row: list[int]) -> int:
    """The exact sum of squared round nets from a wager's stats row (Python integers).

    A large net ``x = a 2**32 + b 2**16 + c`` (16-bit digits) adds ``a*a`` to part 4,
    ``2ab`` to part 3, ``2ac + b*b`` to part 2, ``2bc`` to part 1 and ``c*c`` to part 0,
    each below 2**34, so no part of a chunk can overflow (``tests/core/test_bounds.py``).

    >>> row = [0] * STATS
    >>> add_square(row, 3); add_square(row, (1 << 40) + 5)
    >>> square_sum(row) == 9 + ((1 << 40) + 5) ** 2
    True
    """
    parts = row[S_SQUARE:S_SQUARE + 5]
    return int(row[S_SMALL]) + sum(int(part) << (16 * i) for i, part in enumerate(parts))


def add_square(row: list[int], net: int) -> None:
    """:func:`_add_square` in Python (for the doctest above)."""
    magnitude = abs(net)
    if magnitude < SMALL_NET:
        row[S_SMALL] += magnitude * magnitude
        return
    a, b, c = magnitude >> 32, (magnitude >> 16) & 0xFFFF, magnitude & 0xFFFF
    for i, part in enumerate((c * c, 2 * b * c, 2 * a * c + b * b, 2 * a * b, a * a)):
        row[S_SQUARE + i] += part


@nb.njit(cache=True)
def add_big_square(row: I64, magnitude: int) -> None:
    """Add ``magnitude**2`` (``magnitude >= SMALL_NET``) to the five square parts.
    Out of line: it runs only for the rare large net."""
    a = magnitude >> 32
    b = (magnitude >> 16) & 0xFFFF
    c = magnitude & 0xFFFF
    row[S_SQUARE] += c * c
    row[S_SQUARE + 1] += 2 * b * c
    row[S_SQUARE + 2] += 2 * a * c + b * b
    row[S_SQUARE + 3] += 2 * a * b
    row[S_SQUARE + 4] += a * a


def cap_value(cap: int | None) -> int:
    return NO_CAP if cap is None else cap


@nb.njit(inline="always")
def bonus_net(pays: int, stake: int) -> int:
    """Net result of a count-based bonus that pays ``pays`` to 1 (-1: the stake is lost)."""
    return -stake if pays < 0 else pays * stake


@nb.njit(inline="always")
def capped(won: int, lost: int, cap: int) -> int:
    """The hand total once the winnings are capped (see ``settle.capped_total``):
    ``won`` is the sum of the winning nets, ``lost`` of the losing ones."""
    if cap >= 0 and won > cap:
        return cap + lost
    return won + lost


@dataclass(frozen=True)
class Strategy:
    """A strategy as arrays, the way a game's kernel reads them: what each array means is
    the game's own (its family's kernel module says), e.g. a decision per hand class in
    ``table``, one table per street in ``table2`` and ``table3``, or a hash table of the
    hands whose decision differs from their class's in ``keys`` and ``values``.
    """

    name: str
    table: I8
    table2: I8 = field(default_factory=lambda: np.zeros(1, dtype=np.int8))
    table3: I8 = field(default_factory=lambda: np.zeros(1, dtype=np.int8))
    keys: U64 = field(default_factory=lambda: np.zeros(0, dtype=np.uint64))
    values: I8 = field(default_factory=lambda: np.zeros(0, dtype=np.int8))
    optimal: bool = False
    """The analysis's optimal strategy (its exact values are the PAR sheet's)."""
    plan: object | None = None
    """The analysis's strategy model these arrays were built from, when there is one (its
    exact main-game value is the analysis's ``evaluate_strategy`` of it)."""


StrategyFactory = Callable[[], Strategy]
