"""Counting a new qualifier quickly: what every qualifier shares is counted once.

For each player hand class (:func:`.counting.player_classes`) the cells of
:mod:`.cells` need the dealer hands that do not qualify (``nq``), that are beaten,
tie, or win. Only ``nq`` depends on the qualifier: the dealer hands below the player's
own value (``below``) and tied with it (``tie``) do not. :func:`class_counts` counts
those two once for every class (kept in memory and in the derived-data cache), and
:func:`accumulate_qualifier` then counts a qualifier's cells with ``nq`` alone.

Both use the same polynomial count as :mod:`.counting`, expanded: with the player's cards
out, a dealer suit holding ``k`` cards is below a threshold of length ``L`` when ``k <
L`` (any of ``C(free, k)`` ways) or ``k = L`` and its mask is below the threshold's
(``m`` ways). The coefficient of ``x**7`` in the product over the four suits of
``T_s(x) + m_s x**L`` (``T_s`` the binomials below degree ``L``) is a sum over the sets
``S`` of suits holding exactly ``L`` cards: ``E[S] * prod(m_s for s in S)``, where
``E[S]`` depends only on the four suit lengths of the player's hand and ``L``
(:func:`subset_coefficients`). So a class costs a few table look-ups and multiplications.

>>> import numpy as np
>>> from feltlab.games.high_card_flush import counting as fk
>>> masks = np.array([0b1110000, 0b11, 0b11, 0], dtype=np.int64)
>>> table = subset_coefficients()
>>> polys = fk.qualifier_polynomials((3 << 13) | (1 << 7))
>>> terms = polys[masks, 3]
>>> int(below_threshold(masks, 3, terms, table, np.zeros(16, dtype=np.int64))) == int(
...     fk.count_less(masks, 7, (3 << 13) | (1 << 7), fk.BINOM))
True
"""

from __future__ import annotations

import numba as nb
import numpy as np
import numpy.typing as npt

from feltlab.core.kernels import POPCOUNT
from feltlab.games.high_card_flush import counting as fk

Int64Array = npt.NDArray[np.int64]
Int32Array = npt.NDArray[np.int32]
SUBSETS = 16
POPCOUNT64 = POPCOUNT.astype(np.int64)


@nb.njit(cache=True)
def _subset_coefficients(binom: Int64Array) -> Int64Array:
    hand = fk.HAND_SIZE
    table = np.zeros((hand + 1, hand + 1, hand + 1, hand + 1, hand + 1, SUBSETS),
                     dtype=np.int64)
    lengths = np.zeros(4, dtype=np.int64)
    poly = np.zeros(hand + 1, dtype=np.int64)
    product = np.zeros(hand + 1, dtype=np.int64)
    for length in range(1, hand + 1):
        for l0 in range(hand + 1):
            for l1 in range(hand + 1 - l0):
                for l2 in range(hand + 1 - l0 - l1):
                    l3 = hand - l0 - l1 - l2
                    lengths[0], lengths[1], lengths[2], lengths[3] = l0, l1, l2, l3
                    for subset in range(SUBSETS):
                        need = hand
                        for suit in range(4):
                            if subset >> suit & 1:
                                need -= length
                        if need < 0:
                            continue
                        poly[:] = 0
                        poly[0] = 1
                        for suit in range(4):
                            if subset >> suit & 1:
                                continue
                            free = fk.RANK_BITS - lengths[suit]
                            product[:] = 0
                            for degree in range(hand + 1):
                                for k in range(min(length, free + 1, degree + 1)):
                                    product[degree] += poly[degree - k] * binom[free, k]
                            poly[:] = product
                        table[length, l0, l1, l2, l3, subset] = poly[need]
    return table


def subset_coefficients() -> Int64Array:
    """``E[L, l0, l1, l2, l3, S]``: the coefficient of the product of ``m_s`` over the
    suits ``s`` in ``S`` (bit ``s``), for a threshold of length ``L`` and a player hand
    with suit lengths ``l0`` to ``l3`` (summing to 7)."""
    return _subset_coefficients(fk.BINOM)


@nb.njit(inline="always")
def below_threshold(masks: Int64Array, length: int, terms: Int64Array, table: Int64Array,
                    work: Int64Array) -> int:
    """Dealer hands below a threshold of ``length`` cards, the player holding ``masks``:
    ``terms[s]`` is suit ``s``'s ``m_s`` (its ``length``-card masks below the
    threshold's), ``table`` :func:`subset_coefficients`, ``work`` 16 scratch entries."""
    coefficients = table[length, POPCOUNT64[masks[0]], POPCOUNT64[masks[1]],
                         POPCOUNT64[masks[2]], POPCOUNT64[masks[3]]]
    for subset in range(SUBSETS):
        work[subset] = coefficients[subset]
    # Fold the suits in one by one: sum over S of E[S] * prod(m_s for s in S).
    half = SUBSETS
    for suit in range(3, -1, -1):
        half //= 2
        for subset in range(half):
            work[subset] += terms[suit] * work[subset + half]
    return int(work[0])


@nb.njit(cache=True, parallel=True)
def _class_counts(classes: npt.NDArray[np.uint16], table: Int64Array, binom: Int64Array,
                  below: Int32Array, tie: Int32Array) -> None:
    total = classes.shape[0]
    chunks = 64
    for chunk in nb.prange(chunks):
        masks = np.zeros(4, dtype=np.int64)
        terms = np.zeros(4, dtype=np.int64)
        work = np.zeros(SUBSETS, dtype=np.int64)
        for i in range(total * chunk // chunks, total * (chunk + 1) // chunks):
            for suit in range(4):
                masks[suit] = classes[i, suit]
            value = fk.flush_value_of_masks(masks)
            length = value >> fk.RANK_BITS
            limit = value & fk.FULL_SUIT
            for suit in range(4):
                terms[suit] = fk._masks_below(fk.FULL_SUIT & ~masks[suit], length, limit,
                                              binom, POPCOUNT64)
            under = below_threshold(masks, length, terms, table, work)
            for suit in range(4):  # a threshold one higher also counts the limit itself
                if (limit & masks[suit]) == 0:
                    terms[suit] += 1
            below[i] = under
            tie[i] = below_threshold(masks, length, terms, table, work) - under


def class_counts(classes: npt.NDArray[np.uint16]) -> tuple[Int32Array, Int32Array]:
    """Per class, the dealer hands below the player's flush value and those tied with it
    (any qualifier's cells follow from these and the qualifier's own count)."""
    below = np.empty(len(classes), dtype=np.int32)
    tie = np.empty(len(classes), dtype=np.int32)
    _class_counts(classes, subset_coefficients(), fk.BINOM, below, tie)
    return below, tie


@nb.njit(cache=True, parallel=True)
def accumulate_qualifier(classes: npt.NDArray[np.uint16], weights: npt.NDArray[np.uint8],
                         below: Int32Array, tie: Int32Array, qualify: int,
                         masks_below: Int64Array, table: Int64Array,
                         value_index: npt.NDArray[np.int32], run_length: npt.NDArray[np.int8],
                         acc: Int64Array) -> None:
    """:func:`.counting.accumulate` of every class from its kept counts: the same cells.

    ``masks_below[mask]`` is the qualifier's ``m`` term of a suit where the player holds
    ``mask`` (column ``L`` of :func:`.counting.qualifier_polynomials`).
    """
    chunks = acc.shape[0]
    total = classes.shape[0]
    length = qualify >> fk.RANK_BITS
    for chunk in nb.prange(chunks):
        masks = np.zeros(4, dtype=np.int64)
        terms = np.zeros(4, dtype=np.int64)
        work = np.zeros(SUBSETS, dtype=np.int64)
        for i in range(total * chunk // chunks, total * (chunk + 1) // chunks):
            run = 0
            for suit in range(4):
                masks[suit] = classes[i, suit]
                terms[suit] = masks_below[masks[suit]]
                run = max(run, run_length[masks[suit]])
            weight = np.int64(weights[i])
            value = fk.flush_value_of_masks(masks)
            not_qualified = below_threshold(masks, length, terms, table, work)
            worse = 0
            tied = 0
            if value >= qualify:
                worse = int(below[i]) - not_qualified
                tied = int(tie[i])
            better = fk.DEALER_HANDS - not_qualified - worse - tied
            category = fk.category_of(not_qualified, worse, better)
            cell = acc[chunk, value_index[value], run, category]
            cell[fk.HANDS] += weight
            cell[fk.NOT_QUALIFIED] += weight * not_qualified
            cell[fk.DEALER_WORSE] += weight * worse
            cell[fk.TIE] += weight * tied
            cell[fk.DEALER_BETTER] += weight * better
