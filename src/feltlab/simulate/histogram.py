"""A histogram of integers merged batch by batch in bounded memory: the sessions'
results and drawdowns, however many sessions are played."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

PERCENTILES = (1, 5, 10, 25, 50, 75, 90, 95, 99)
MAX_DISTINCT = 1 << 18
"""Most distinct values a histogram keeps; past it, its bins widen (by powers of 2)."""


class Histogram:
    """Counts of integer values, merged batch by batch: exact while the values take at
    most :data:`MAX_DISTINCT` distinct values, then binned by ``width`` (a power of 2),
    so that memory stays bounded whatever the number of sessions.

    >>> h = Histogram()
    >>> h.add(np.array([3, 1, 2, 2, 9]))
    >>> h.count, h.percentiles((0, 50, 100))
    (5, {'p0': 1.0, 'p50': 2.0, 'p100': 9.0})
    """

    def __init__(self) -> None:
        self.values = np.zeros(0, dtype=np.int64)
        self.counts = np.zeros(0, dtype=np.int64)
        self.width = 1

    @property
    def count(self) -> int:
        return int(self.counts.sum())

    def add(self, batch: npt.NDArray[np.int64]) -> None:
        binned = batch if self.width == 1 else batch // self.width * self.width
        values, counts = np.unique(binned, return_counts=True)
        self._merge(values, counts.astype(np.int64))
        while self.values.size > MAX_DISTINCT:
            self.width *= 2
            self._merge(self.values // self.width * self.width, self.counts, replace=True)

    def _merge(self, values: npt.NDArray[np.int64], counts: npt.NDArray[np.int64],
               replace: bool = False) -> None:
        every = values if replace else np.concatenate((self.values, values))
        weights = counts if replace else np.concatenate((self.counts, counts))
        self.values, where = np.unique(every, return_inverse=True)
        self.counts = np.bincount(where, weights=weights).astype(np.int64)

    def at_rank(self, rank: int) -> int:
        """The value at 0-based ``rank`` in sorted order."""
        return int(self.values[np.searchsorted(np.cumsum(self.counts), rank, side="right")])

    def percentiles(self, points: tuple[int, ...] = PERCENTILES) -> dict[str, float]:
        """NumPy's default (linear) percentiles of the values counted."""
        n = self.count
        if n == 0:
            return {}
        result = {}
        for point in points:
            position = point / 100 * (n - 1)
            low = int(np.floor(position))
            below, above = self.at_rank(low), self.at_rank(min(low + 1, n - 1))
            result[f"p{point}"] = float(below + (position - low) * (above - below))
        return result
