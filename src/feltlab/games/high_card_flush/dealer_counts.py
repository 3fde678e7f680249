"""The dealer's hands against one player hand, counted by suit: plain Python that
:mod:`.counting` compiles with Numba for its kernels (:func:`feltlab.core.jit.compile_plain`)
and that the advisor runs as it is. One hand's counts are a few thousand operations, well
under a millisecond in Python, while importing Numba alone takes a third of a second of a
``feltlab advise`` run.

A hand is four 13-bit suit masks; the dealer's flush value (``length << 13 | ranks``) is
below a threshold exactly when every suit's own value is, so the dealer hands below it are
the coefficient of ``x**k`` in a product of one polynomial per suit (see
:mod:`.counting`). With some cards out of the deck (other seats' hands) and some of the
dealer's known, suit ``s`` contributes its known dealer cards ``seen[s]`` plus ``k`` of its
free ranks, and only the combined mask is compared.

>>> import numpy as np
>>> player = np.array([0b1111100000000, 0b11, 0, 0], dtype=np.int64)
>>> none = np.zeros(4, dtype=np.int64)
>>> not_qualified, worse, tie, better, total = dealer_counts_known(
...     player, player, none, 3 << RANK_BITS | 0b100000000, BINOM)
>>> print(total, not_qualified + worse + tie + better)
45379620 45379620
"""

from __future__ import annotations

import math
from typing import Final

import numpy as np
import numpy.typing as npt

from feltlab.core.jit import KernelOptions

RANK_BITS: Final = 13
FULL_SUIT: Final = (1 << RANK_BITS) - 1
HAND_SIZE: Final = 7

Int64Array = npt.NDArray[np.int64]


def _binomials() -> Int64Array:
    table = np.zeros((RANK_BITS + 1, HAND_SIZE + 2), dtype=np.int64)
    for n in range(RANK_BITS + 1):
        for k in range(HAND_SIZE + 2):
            table[n, k] = math.comb(n, k)
    return table


BINOM: Final = _binomials()
POPCOUNT64: Final = np.array([mask.bit_count() for mask in range(1 << RANK_BITS)],
                             dtype=np.int64)


def flush_value_of_masks(masks: Int64Array) -> int:
    best = 0
    for suit in range(4):
        value = (POPCOUNT64[masks[suit]] << RANK_BITS) | masks[suit]
        best = max(best, value)
    return best


def binom_big(n: int, k: int) -> int:
    """C(n, k) for any n up to 52 (the table above stops at 13)."""
    if k < 0 or k > n:
        return 0
    result = 1
    for i in range(k):
        result = result * (n - i) // (i + 1)
    return result


def masks_below_with(free: int, fixed: int, need: int, limit: int, binom: Int64Array,
                     popcount: Int64Array) -> int:
    """Number of ``need``-subsets ``S`` of ``free`` with ``fixed | S`` below ``limit`` (the
    caller makes ``popcount(fixed) + need`` the limit's length, so masks compare as
    integers). Walk from the ace down while the combined mask equals the limit."""
    count = 0
    for rank in range(RANK_BITS - 1, -1, -1):
        bit = 1 << rank
        if fixed & bit:
            if not limit & bit:
                return count
            continue
        if limit & bit:
            below = popcount[free & (bit - 1)]
            if need <= below:
                count += binom[below, need]
            if not free & bit or need == 0:
                return count
            need -= 1
    return count


def count_less_known(out: Int64Array, seen: Int64Array, free_cards: int, threshold: int,
                     binom: Int64Array) -> int:
    """Dealer hands (the ``seen`` suit masks plus ``free_cards`` cards from those neither
    in ``out`` nor seen) whose flush value is below ``threshold``."""
    length = threshold >> RANK_BITS
    limit = threshold & FULL_SUIT
    poly = np.zeros(free_cards + 1, dtype=np.int64)
    poly[0] = 1
    suit_poly = np.zeros(free_cards + 1, dtype=np.int64)
    for suit in range(4):
        free = FULL_SUIT & ~out[suit] & ~seen[suit]
        size = POPCOUNT64[free]
        fixed = POPCOUNT64[seen[suit]]
        # taking more of this suit than ``top`` cards is impossible (``size``) or makes
        # its flush longer than the threshold's: those terms are 0, and skipped
        top = min(free_cards, length - fixed, size)
        if top < 0:
            return 0
        for k in range(top + 1):
            if fixed + k < length:
                suit_poly[k] = binom[size, k]
            else:
                suit_poly[k] = masks_below_with(free, seen[suit], k, limit, binom, POPCOUNT64)
        for total in range(free_cards, -1, -1):
            acc = 0
            for k in range(min(total, top) + 1):
                acc += poly[total - k] * suit_poly[k]
            poly[total] = acc
    return int(poly[free_cards])


def dealer_counts_known(player: Int64Array, out: Int64Array, seen: Int64Array,
                        qualify: int, binom: Int64Array) -> tuple[int, int, int, int, int]:
    """(not qualified, dealer worse, tie, dealer better, all dealer hands) for the hand
    ``player`` when the cards in ``out`` (the player's own among them) are out of the
    deck and the dealer's cards ``seen`` are known (all as four suit masks)."""
    seen_count = 0
    unseen = 52
    for suit in range(4):
        seen_count += POPCOUNT64[seen[suit]]
        unseen -= POPCOUNT64[out[suit] | seen[suit]]
    free_cards = HAND_SIZE - seen_count
    total = binom_big(unseen, free_cards)
    value = flush_value_of_masks(player)
    not_qualified = count_less_known(out, seen, free_cards, qualify, binom)
    worse = tie = 0
    if value >= qualify:
        below = count_less_known(out, seen, free_cards, value, binom)
        worse = below - not_qualified
        tie = count_less_known(out, seen, free_cards, value + 1, binom) - below
    better = total - not_qualified - worse - tie
    return not_qualified, worse, tie, better, total


KERNELS: Final[dict[str, KernelOptions]] = {
    "flush_value_of_masks": {"inline": "always"},
    "binom_big": {"inline": "always"},
    "masks_below_with": {"cache": True},
    "count_less_known": {"cache": True},
    "dealer_counts_known": {"cache": True},
}
"""The functions above that :mod:`.counting` compiles, with Numba's options for each."""
