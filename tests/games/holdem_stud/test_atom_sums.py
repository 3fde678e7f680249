"""The card search's condition sums against one masked sum per condition."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from feltlab.games.holdem_stud.atom_sums import ConditionTable

NAMES = ("a", "b", "c", "d")


def _masked_sums(conditions: list[tuple[tuple[str, int], ...]],
                 features: dict[str, np.ndarray], values: np.ndarray) -> np.ndarray:
    masks = np.array([np.logical_and.reduce([features[name] >= low for name, low in when])
                      for when in conditions], dtype=np.int64)
    return masks @ values  # type: ignore[no-any-return]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 300))
def test_condition_sums_equal_masked_sums(seed: int, rows: int) -> None:
    rng = np.random.default_rng(seed)
    features = {name: rng.integers(0, 9, rows) for name in NAMES}
    values = rng.integers(-10**12, 10**12, rows, dtype=np.int64)
    singles = [(name, int(low)) for name in NAMES for low in range(0, 11)]
    conditions = [(single,) for single in singles]
    conditions += [(first, second) for first in singles for second in singles
                   if first[0] != second[0] and rng.random() < 0.2]
    table = ConditionTable.of(conditions, features)
    assert np.array_equal(table.sums(values), _masked_sums(conditions, features, values))
