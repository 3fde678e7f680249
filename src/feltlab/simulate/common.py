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

from feltlab.rules import pays_for

I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]
U64 = npt.NDArray[np.uint64]

STATS: Final = 5
"""Per wager and chunk: sum of round nets, sum of squared round nets, wins, pushes, losses."""
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


def cap_value(cap: int | None) -> int:
    return NO_CAP if cap is None else cap


@nb.njit(cache=True, inline="always")
def bonus_net(pays: int, stake: int) -> int:
    """Net result of a count-based bonus that pays ``pays`` to 1 (-1: the stake is lost)."""
    return -stake if pays < 0 else pays * stake


@nb.njit(cache=True, inline="always")
def capped(won: int, lost: int, cap: int) -> int:
    """The hand total once the winnings are capped (see ``settle.capped_total``):
    ``won`` is the sum of the winning nets, ``lost`` of the losing ones."""
    if cap >= 0 and won > cap:
        return cap + lost
    return won + lost


@dataclass(frozen=True)
class Strategy:
    """A strategy as arrays, the way the kernels read it (meaning depends on the game).

    Flush family: ``table`` is a raise multiple (0 = fold) per flush value, -1 for "look
    the hand up in ``keys``/``values``" (sorted canonical hand keys). Hold'em Stud:
    ``table``, ``table2``, ``table3`` are the three streets' tables of
    :func:`feltlab.analysis.holdem.decision_tables` flattened (row: colex rank of the
    sorted known cards, column: antes at risk minus ``1 + L``). 9 Card Flush: ``table``
    is :func:`feltlab.analysis.nine.play_table` flattened (``4 * a + b``: community cards
    in the colour's first and second suit; 1 play, 0 fold).
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
