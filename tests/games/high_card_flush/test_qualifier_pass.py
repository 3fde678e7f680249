"""The quick count of a qualifier's cells against the first way (every class's three
dealer counts from its own polynomials), cell for cell."""

from __future__ import annotations

import numpy as np
import pytest

from feltlab.core.rules import load_rules
from feltlab.games.high_card_flush import analysis as flush
from feltlab.games.high_card_flush import cells
from feltlab.games.high_card_flush import counting as fk
from feltlab.games.high_card_flush import qualifier_pass as qp
from feltlab.games.high_card_flush.rules import FlushRules


def _threshold(length: int, high: int) -> int:
    return (length << fk.RANK_BITS) | (1 << high)


@pytest.mark.parametrize(("length", "high"), [(3, 7), (2, 11), (1, 0), (4, 3), (7, 12)])
def test_cells_equal_the_reference_count(length: int, high: int) -> None:
    qualify = _threshold(length, high)
    assert np.array_equal(cells.compute_cells(qualify), cells.reference_cells(qualify))


def test_class_counts_equal_the_polynomial_count() -> None:
    classes, _ = cells.player_classes()
    below, tie = cells.class_counts()
    rng = np.random.default_rng(23)
    for index in rng.choice(len(classes), 400, replace=False):
        masks = classes[index].astype(np.int64)
        value = fk.flush_value_of_masks(masks)
        under = int(fk.count_less(masks, fk.HAND_SIZE, value, fk.BINOM))
        assert int(below[index]) == under
        assert int(tie[index]) == int(fk.count_less(masks, fk.HAND_SIZE, value + 1,
                                                    fk.BINOM)) - under


def test_expansion_equals_the_product_of_suit_polynomials() -> None:
    classes, _ = cells.player_classes()
    table = qp.subset_coefficients()
    work = np.zeros(qp.SUBSETS, dtype=np.int64)
    rng = np.random.default_rng(5)
    for length in range(1, fk.HAND_SIZE + 1):
        for high in (0, 4, 9, 12):
            qualify = _threshold(length, high)
            polys = fk.qualifier_polynomials(qualify)
            for index in rng.choice(len(classes), 60, replace=False):
                masks = classes[index].astype(np.int64)
                expanded = qp.below_threshold(masks, length, polys[masks, length], table, work)
                assert expanded == fk.count_less(masks, fk.HAND_SIZE, qualify, fk.BINOM)


def test_a_new_qualifier_par_sheet_equals_one_from_the_reference_cells(
        monkeypatch: pytest.MonkeyPatch) -> None:
    base = load_rules("nh-flush-poker")
    assert isinstance(base, FlushRules)
    qualifier = base.qualifier.model_copy(update={"min_length": 3, "min_high_card": "5"})
    rules = base.model_copy(update={"qualifier": qualifier})
    quick = flush.analyze(rules).to_json()
    flush.clear_cache()
    monkeypatch.setattr(cells, "compute_cells", cells.reference_cells)
    monkeypatch.setattr(cells.derived, "enabled", lambda: False)
    try:
        assert flush.analyze(rules).to_json() == quick
    finally:
        flush.clear_cache()
