"""Sums over the conditions a strategy-card line may use, all at once.

The card search (:mod:`feltlab.games.holdem_stud.strategy_card`) asks, again and again, for the
sum of a value over the groups of decision nodes that meet each candidate condition: one
feature at least a minimum, or two features each at least its own. Rather than one masked
sum per condition (conditions x groups), :func:`condition_sums` adds the values once into
a table by the two features' values for every pair of features, turns the tables into
suffix sums, and reads each condition's sum in one look-up. The sums are exact integers
(int64, as the masked sums were), whatever the order of the additions.

>>> table = ConditionTable.of([(("made", 1),), (("made", 1), ("points", 2))],
...                           {"made": np.array([0, 1, 2]), "points": np.array([3, 1, 2])})
>>> table.sums(np.array([5, 7, 11], dtype=np.int64)).tolist()
[18, 11]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numba as nb
import numpy as np
import numpy.typing as npt

I64 = npt.NDArray[np.int64]
Condition = Sequence[tuple[str, int]]


@nb.njit(cache=True)
def condition_sums(features: I64, first: I64, first_min: I64, second: I64, second_min: I64,
                   top: int, values: I64) -> I64:
    """``values`` summed over the rows of ``features`` (groups x features, values 0 to
    ``top - 1``) meeting each condition ``features[:, first] >= first_min`` and, where
    ``second`` is not -1, ``features[:, second] >= second_min`` (minimums from 0 to
    ``top``)."""
    count = features.shape[1]
    table = np.zeros((count, count, top + 1, top + 1), dtype=np.int64)
    for row in range(features.shape[0]):
        value = values[row]
        if value == 0:
            continue
        for a in range(count):
            x = features[row, a]
            for b in range(a, count):
                table[a, b, x, features[row, b]] += value
    for a in range(count):
        for b in range(a, count):
            for x in range(top - 1, -1, -1):
                for y in range(top - 1, -1, -1):
                    table[a, b, x, y] += (table[a, b, x + 1, y] + table[a, b, x, y + 1]
                                          - table[a, b, x + 1, y + 1])
    sums = np.zeros(first.shape[0], dtype=np.int64)
    for index in range(first.shape[0]):
        a, x = first[index], first_min[index]
        if second[index] < 0:
            sums[index] = table[a, a, x, x]
            continue
        b, y = second[index], second_min[index]
        if b < a:
            a, b, x, y = b, a, y, x
        sums[index] = table[a, b, x, y]
    return sums


@dataclass(frozen=True)
class ConditionTable:
    """Conditions of one or two features as arrays for :func:`condition_sums`."""

    features: I64
    first: I64
    first_min: I64
    second: I64
    second_min: I64
    top: int

    @classmethod
    def of(cls, conditions: Sequence[Condition],
           features: Mapping[str, npt.NDArray[np.integer]]) -> ConditionTable:
        names = sorted({name for condition in conditions for name, _ in condition})
        column = {name: index for index, name in enumerate(names)}
        matrix = np.stack([np.asarray(features[name], dtype=np.int64) for name in names],
                          axis=1)
        if matrix.size and matrix.min() < 0:
            raise ValueError("features must not be negative")
        minimums = [value for condition in conditions for _, value in condition]
        top = int(max(matrix.max(initial=0) + 1, max(minimums, default=0), 1))
        arrays: list[list[int]] = [[], [], [], []]
        for condition in conditions:
            (name, value), *rest = condition
            arrays[0].append(column[name])
            arrays[1].append(min(max(value, 0), top))
            if rest:
                arrays[2].append(column[rest[0][0]])
                arrays[3].append(min(max(rest[0][1], 0), top))
            else:
                arrays[2].append(-1)
                arrays[3].append(0)
        first, first_min, second, second_min = (np.array(row, dtype=np.int64)
                                                for row in arrays)
        return cls(matrix, first, first_min, second, second_min, top)

    def sums(self, values: I64) -> I64:
        """Each condition's sum of ``values`` (one per row of the features)."""
        return condition_sums(self.features, self.first, self.first_min, self.second,
                              self.second_min, self.top, np.ascontiguousarray(values,
                                                                              dtype=np.int64))
