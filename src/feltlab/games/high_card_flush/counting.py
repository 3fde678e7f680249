"""Numba kernels behind :mod:`feltlab.games.high_card_flush.cells`: exact dealer counts by suit.

A player hand is four 13-bit suit masks. The dealer's 7 cards come from the 45 cards
left, and the dealer's flush value (``length << 13 | ranks``, see
:mod:`feltlab.core.evaluators`) is below a threshold ``t`` exactly when every suit's own
value is below ``t``. So the number of dealer hands below ``t`` is the coefficient of
``x**7`` in the product over the suits of ``sum_k f_s(k, t) x**k``, where ``f_s(k, t)``
counts the ``k``-subsets of the suit's free ranks whose value is below ``t``. No dealer
hand is ever enumerated.

Player hands are enumerated up to a permutation of the suits: a class is a multiset of
four suit masks (kept sorted: longer suits first, then higher masks), weighted by the
number of distinct suit assignments, ``4! / prod(multiplicity!)``.

>>> import numpy as np
>>> masks = np.array([0b111, 0b11, 0b11, 0], dtype=np.int64)
>>> int(count_less(masks, 7, 3 << 13, BINOM)) > 0
True
"""

from __future__ import annotations

import math
from typing import Final

import numba as nb
import numpy as np
import numpy.typing as npt

from feltlab.core.jit import compile_plain, kernel_of
from feltlab.core.kernels import POPCOUNT, RUN_LENGTH
from feltlab.games.high_card_flush import dealer_counts as plain
from feltlab.games.high_card_flush.dealer_counts import BINOM as BINOM
from feltlab.games.high_card_flush.dealer_counts import FULL_SUIT as FULL_SUIT
from feltlab.games.high_card_flush.dealer_counts import HAND_SIZE as HAND_SIZE
from feltlab.games.high_card_flush.dealer_counts import POPCOUNT64 as POPCOUNT64
from feltlab.games.high_card_flush.dealer_counts import RANK_BITS as RANK_BITS

DEALER_HANDS: Final = math.comb(45, 7)
PLAYER_HANDS: Final = math.comb(52, 7)
VALUE_SPACE: Final = (HAND_SIZE + 1) << RANK_BITS

# Hand categories by the exact dealer counts (independent of raise sizes, see
# :func:`category_of`); the analysis turns them into decisions for each rule set.
FOLD_BETTER: Final = 0  # dealer better more often, and raising 1x loses more than folding
RAISE_MIN: Final = 1  # dealer better more often, but raising 1x beats (or ties) folding
RAISE_MAX: Final = 2  # player wins at least as often as the qualified dealer beats it
CATEGORIES: Final = 3
# Quantities accumulated per cell: player hands, then deals by dealer outcome.
HANDS, NOT_QUALIFIED, DEALER_WORSE, TIE, DEALER_BETTER = range(5)
QUANTITIES: Final = 5

Int64Array = npt.NDArray[np.int64]


def _value_index() -> tuple[npt.NDArray[np.int32], Int64Array]:
    """Compact index of every possible flush value of a 7-card hand (length 2 to 7)."""
    index = np.full(VALUE_SPACE, -1, dtype=np.int32)
    values = [(int(POPCOUNT[mask]) << RANK_BITS) | mask for mask in range(1 << RANK_BITS)
              if 2 <= POPCOUNT[mask] <= HAND_SIZE]
    values.sort()
    for position, value in enumerate(values):
        index[value] = position
    return index, np.array(values, dtype=np.int64)


VALUE_INDEX, VALUES = _value_index()

# One hand's dealer counts (and what they call), compiled from the plain functions of
# :mod:`.dealer_counts` that the advisor runs as they are.
_compiled = compile_plain(vars(plain), plain.KERNELS)
flush_value_of_masks = kernel_of(_compiled, plain.flush_value_of_masks)
binom_big = kernel_of(_compiled, plain.binom_big)
count_less_known = kernel_of(_compiled, plain.count_less_known)
dealer_counts_known = kernel_of(_compiled, plain.dealer_counts_known)


@nb.njit(cache=True)
def _masks_below(free: int, length: int, limit: int, binom: Int64Array,
                 popcount: Int64Array) -> int:
    """Number of ``length``-subsets of the ranks in ``free`` whose mask is below ``limit``.

    Walk the limit's bits from the ace down: a subset that matches the limit above rank
    ``r`` and leaves out ``r`` where the limit has it is smaller, whatever it holds below.
    """
    count = 0
    need = length
    for rank in range(RANK_BITS - 1, -1, -1):
        bit = 1 << rank
        if limit & bit:
            below = popcount[free & (bit - 1)]
            if need <= below:
                count += binom[below, need]
            if not free & bit:
                return count
            need -= 1
            if need < 0:
                return count
    return count


@nb.njit(cache=True)
def count_less(masks: Int64Array, dealt: int, threshold: int, binom: Int64Array) -> int:
    """Number of ``dealt``-card dealer hands, from the cards not in the player's suit
    ``masks``, whose flush value is below ``threshold``."""
    length = threshold >> RANK_BITS
    limit = threshold & FULL_SUIT
    poly = np.zeros(dealt + 1, dtype=np.int64)
    poly[0] = 1
    suit_poly = np.zeros(dealt + 1, dtype=np.int64)
    for suit in range(4):
        free = FULL_SUIT & ~masks[suit]
        size = POPCOUNT64[free]
        for k in range(dealt + 1):
            if k < length:
                suit_poly[k] = binom[size, k] if k <= size else 0
            elif k == length:
                suit_poly[k] = _masks_below(free, length, limit, binom, POPCOUNT64)
            else:
                suit_poly[k] = 0
        for total in range(dealt, -1, -1):
            acc = 0
            for k in range(total + 1):
                acc += poly[total - k] * suit_poly[k]
            poly[total] = acc
    return int(poly[dealt])


@nb.njit(cache=True)
def dealer_counts(masks: Int64Array, qualify: int,
                  binom: Int64Array) -> tuple[int, int, int, int]:
    """(not qualified, dealer worse, tie, dealer better) over all 7-card dealer hands."""
    value = flush_value_of_masks(masks)
    not_qualified = count_less(masks, HAND_SIZE, qualify, binom)
    worse = tie = 0
    if value >= qualify:
        below = count_less(masks, HAND_SIZE, value, binom)
        worse = below - not_qualified
        tie = count_less(masks, HAND_SIZE, value + 1, binom) - below
    better = DEALER_HANDS - not_qualified - worse - tie
    return not_qualified, worse, tie, better


@nb.njit(inline="always")
def category_of(not_qualified: int, worse: int, better: int) -> int:
    """Which decision the counts call for, whatever the raise sizes (ties: larger wager).

    EV(raise r) = (not_qualified + (worse - better)(1 + r)) / C(45, 7) and EV(fold) = -1,
    so the best raise is the largest when worse >= better and 1x otherwise.
    """
    edge = worse - better
    if edge >= 0:
        return RAISE_MAX
    if not_qualified + 2 * edge + DEALER_HANDS >= 0:
        return RAISE_MIN
    return FOLD_BETTER


@nb.njit(cache=True)
def optimal_raise_of_masks(masks: Int64Array, qualify: int, max_raise: npt.NDArray[np.int64],
                           binom: Int64Array) -> int:
    """The optimal raise, in antes (0 = fold), of the hand with these suit masks.

    ``max_raise[length]`` is the rule set's largest raise for a flush of that length.
    """
    value = flush_value_of_masks(masks)
    most = max_raise[value >> RANK_BITS]
    if most == 0:
        return 0
    not_qualified, worse, _, better = dealer_counts(masks, qualify, binom)
    category = category_of(not_qualified, worse, better)
    if category == RAISE_MAX:
        return int(most)
    return 1 if category == RAISE_MIN else 0


def partitions_of_seven() -> Int64Array:
    """Suit lengths of a 7-card hand, longest first: (7,0,0,0), (6,1,0,0), ..."""
    parts = [(a, b, c, 7 - a - b - c) for a in range(8) for b in range(a + 1)
             for c in range(b + 1) if 0 <= 7 - a - b - c <= c]
    return np.array(parts, dtype=np.int64)


def masks_by_length() -> tuple[Int64Array, Int64Array]:
    """Per suit length 0-7, the masks of that popcount (padded rows) and their number."""
    lists = [[mask for mask in range(1 << RANK_BITS) if POPCOUNT[mask] == length]
             for length in range(HAND_SIZE + 1)]
    table = np.zeros((HAND_SIZE + 1, max(len(row) for row in lists)), dtype=np.int64)
    for length, row in enumerate(lists):
        table[length, :len(row)] = row
    return table, np.array([len(row) for row in lists], dtype=np.int64)


def class_count(parts: Int64Array, sizes: Int64Array) -> int:
    """Number of suit-permutation classes: multisets of masks per group of equal lengths."""
    total = 0
    for part in parts:
        count = 1
        for length in set(int(p) for p in part):
            repeats = sum(1 for p in part if p == length)
            count *= math.comb(int(sizes[length]) + repeats - 1, repeats)
        total += count
    return total


@nb.njit(cache=True)
def _fill_classes(parts: Int64Array, table: Int64Array, sizes: Int64Array,
                  out_masks: npt.NDArray[np.uint16], out_weights: npt.NDArray[np.uint8]) -> int:
    position = 0
    slot = np.zeros(4, dtype=np.int64)
    for part_row in range(parts.shape[0]):
        p0, p1, p2, p3 = parts[part_row, 0], parts[part_row, 1], parts[part_row, 2], \
            parts[part_row, 3]
        for i0 in range(sizes[p0]):
            for i1 in range(i0 if p1 == p0 else 0, sizes[p1]):
                for i2 in range(i1 if p2 == p1 else 0, sizes[p2]):
                    for i3 in range(i2 if p3 == p2 else 0, sizes[p3]):
                        slot[0], slot[1], slot[2], slot[3] = i0, i1, i2, i3
                        denominator = 1
                        run = 1
                        for j in range(1, 4):
                            if parts[part_row, j] == parts[part_row, j - 1] and \
                                    slot[j] == slot[j - 1]:
                                run += 1
                                denominator *= run
                            else:
                                run = 1
                        for j in range(4):
                            out_masks[position, j] = table[parts[part_row, j], slot[j]]
                        out_weights[position] = 24 // denominator
                        position += 1
    return position


def player_classes() -> tuple[npt.NDArray[np.uint16], npt.NDArray[np.uint8]]:
    """Every 7-card player hand up to suit permutation: (masks, weights)."""
    parts = partitions_of_seven()
    table, sizes = masks_by_length()
    count = class_count(parts, sizes)
    masks = np.empty((count, 4), dtype=np.uint16)
    weights = np.empty(count, dtype=np.uint8)
    filled = _fill_classes(parts, table, sizes, masks, weights)
    assert filled == count
    return masks, weights


def qualifier_polynomials(qualify: int) -> Int64Array:
    """Per player suit mask (13 bits), the dealer's polynomial in that suit for the
    qualifier: coefficient ``k`` counts the ``k``-subsets of the suit's free ranks whose
    flush value is below ``qualify`` (the same for every hand, so computed once)."""
    return _qualifier_polynomials(qualify, BINOM)


@nb.njit(cache=True)
def _qualifier_polynomials(qualify: int, binom: Int64Array) -> Int64Array:
    table = np.zeros((FULL_SUIT + 1, HAND_SIZE + 1), dtype=np.int64)
    for mask in range(FULL_SUIT + 1):
        _suit_polynomial(FULL_SUIT & ~mask, qualify, binom, table[mask])
    return table


@nb.njit(inline="always")
def _suit_polynomial(free: int, threshold: int, binom: Int64Array, out: Int64Array) -> None:
    """``out[k]``: the ``k``-subsets of the ranks in ``free`` with flush value below
    ``threshold`` (as in :func:`count_less`, one suit)."""
    length = threshold >> RANK_BITS
    size = POPCOUNT64[free]
    for k in range(HAND_SIZE + 1):
        if k < length:
            out[k] = binom[size, k] if k <= size else 0
        elif k == length:
            out[k] = _masks_below(free, length, threshold & FULL_SUIT, binom, POPCOUNT64)
        else:
            out[k] = 0


@nb.njit(inline="always")
def _seventh(p0: Int64Array, p1: Int64Array, p2: Int64Array, p3: Int64Array,
             low: Int64Array, high: Int64Array) -> int:
    """Coefficient of ``x**7`` in ``p0 p1 p2 p3`` (polynomials of degree 7 at most):
    ``low = p0 p1`` and ``high = p2 p3`` truncated, then one dot product."""
    for total in range(HAND_SIZE + 1):
        a = 0
        b = 0
        for k in range(total + 1):
            a += p0[k] * p1[total - k]
            b += p2[k] * p3[total - k]
        low[total] = a
        high[total] = b
    result = 0
    for k in range(HAND_SIZE + 1):
        result += low[k] * high[HAND_SIZE - k]
    return int(result)


@nb.njit(inline="always")
def _class_counts(masks: Int64Array, value: int, qualify: int, qualifier_polys: Int64Array,
                  binom: Int64Array, polys: Int64Array, low: Int64Array, high: Int64Array
                  ) -> tuple[int, int, int, int]:
    """:func:`dealer_counts` without allocating: the qualifier's suit polynomials come
    from a table, and the thresholds ``value`` and ``value + 1`` share theirs (they
    differ by one in coefficient ``length`` of each suit that holds every rank of the
    player's flush)."""
    not_qualified = _seventh(qualifier_polys[masks[0]], qualifier_polys[masks[1]],
                             qualifier_polys[masks[2]], qualifier_polys[masks[3]], low, high)
    worse = tie = 0
    if value >= qualify:
        length = value >> RANK_BITS
        ranks = value & FULL_SUIT
        for suit in range(4):
            _suit_polynomial(FULL_SUIT & ~masks[suit], value, binom, polys[suit])
        below = _seventh(polys[0], polys[1], polys[2], polys[3], low, high)
        for suit in range(4):
            if (ranks & masks[suit]) == 0:
                polys[suit, length] += 1
        tie = _seventh(polys[0], polys[1], polys[2], polys[3], low, high) - below
        worse = below - not_qualified
    better = DEALER_HANDS - not_qualified - worse - tie
    return not_qualified, worse, tie, better


@nb.njit(cache=True, parallel=True)
def accumulate(classes: npt.NDArray[np.uint16], weights: npt.NDArray[np.uint8], start: int,
               stop: int, qualify: int, qualifier_polys: Int64Array, binom: Int64Array,
               value_index: npt.NDArray[np.int32], run_length: npt.NDArray[np.int8],
               acc: Int64Array) -> None:
    """Add classes ``start:stop`` into ``acc[chunk, value, straight run, category, quantity]``.

    Each chunk of the range goes to its own slice of ``acc`` (sum over axis 0 afterwards).
    ``qualifier_polys`` is :func:`qualifier_polynomials` of ``qualify``.
    """
    chunks = acc.shape[0]
    span = stop - start
    for chunk in nb.prange(chunks):
        masks = np.zeros(4, dtype=np.int64)
        polys = np.zeros((4, HAND_SIZE + 1), dtype=np.int64)
        low = np.zeros(HAND_SIZE + 1, dtype=np.int64)
        high = np.zeros(HAND_SIZE + 1, dtype=np.int64)
        for i in range(start + span * chunk // chunks, start + span * (chunk + 1) // chunks):
            run = 0
            for suit in range(4):
                masks[suit] = classes[i, suit]
                run = max(run, run_length[masks[suit]])
            weight = np.int64(weights[i])
            value = flush_value_of_masks(masks)
            not_qualified, worse, tie, better = _class_counts(
                masks, value, qualify, qualifier_polys, binom, polys, low, high)
            category = category_of(not_qualified, worse, better)
            cell = acc[chunk, value_index[value], run, category]
            cell[HANDS] += weight
            cell[NOT_QUALIFIED] += weight * not_qualified
            cell[DEALER_WORSE] += weight * worse
            cell[TIE] += weight * tie
            cell[DEALER_BETTER] += weight * better


def new_accumulator(chunks: int) -> Int64Array:
    return np.zeros((chunks, len(VALUES), HAND_SIZE + 1, CATEGORIES, QUANTITIES), dtype=np.int64)


def run_lengths() -> npt.NDArray[np.int8]:
    return RUN_LENGTH


@nb.njit(inline="always")
def best_ev_numerator(not_qualified: int, worse: int, better: int, total: int,
                      most: int) -> int:
    """The best option's EV times ``total``: fold (-total) or a raise of 1x or ``most``x
    (the EV is linear in the raise, so the best raise is one of the two ends)."""
    best = -total
    if most >= 1:
        best = max(best, not_qualified + (worse - better) * 2)
        best = max(best, not_qualified + (worse - better) * (1 + most))
    return best
