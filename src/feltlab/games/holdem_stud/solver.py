"""Hold'em Stud by exact backward induction over card sets (Numba kernels).

Every value depends only on the SET of cards known (the player's 2 and the community
cards turned), never on which of them are the player's: the final hand is the set of
all five. So a decision point is (set of ``2 + L`` cards, antes at risk ``B``) where
``L`` is the number of community cards turned, and the tables are indexed by the
colex rank of the sorted set (:func:`colex_index`) and ``B - (1 + L)``.

Values are exact integers: the value at level ``L`` is scaled by ``D_L``, the number of
ORDERED ways to deal the community cards not yet turned (``48 = D_2``,
``49 * 48 = D_1``, ``50 * 49 * 48 = D_0``), so the EV per ante is ``value / D_L``.

>>> binom = binomials()
>>> int(colex_index(np.array([0, 1, 2, 3], dtype=np.int64), binom))
0
>>> int(colex_index(np.array([48, 49, 50, 51], dtype=np.int64), binom)) == 270725 - 1
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from feltlab.core.evaluators import PokerHand
from feltlab.core.kernels import poker_hands
from feltlab.games.holdem_stud.rules import HoldemStudRules
from feltlab.games.holdem_stud.shape import COMMUNITY, Shape

I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]
CLASSES = len(PokerHand)


@cache
def binomials() -> I64:
    """``binom[n, k] = C(n, k)`` for n up to 52 and k up to 5 (shared: do not modify)."""
    return np.array([[math.comb(n, k) for k in range(6)] for n in range(53)], dtype=np.int64)


@nb.njit(cache=True)
def colex_index(cards: I64, binom: I64) -> int:
    """Rank of a SORTED set of distinct card indices among all sets of its size."""
    index = 0
    for position in range(cards.shape[0]):
        index += binom[cards[position], position + 1]
    return index


@nb.njit(cache=True)
def set_colex_index(cards: npt.NDArray[np.integer[Any]], start: int, stop: int, buffer: I64,
                    binom: I64) -> int:
    """:func:`colex_index` of ``cards[start:stop]`` in any order, sorted into ``buffer``
    (insertion sort: no allocation in a hot loop).

    >>> binom = binomials()
    >>> buffer = np.empty(5, dtype=np.int64)
    >>> int(set_colex_index(np.array([9, 51, 50, 49, 48]), 1, 5, buffer, binom)) == 270725 - 1
    True
    """
    size = stop - start
    for position in range(size):
        card = cards[start + position]
        slot = position
        while slot > 0 and buffer[slot - 1] > card:
            buffer[slot] = buffer[slot - 1]
            slot -= 1
        buffer[slot] = card
    index = 0
    for position in range(size):
        index += binom[buffer[position], position + 1]
    return index


@nb.njit(cache=True)
def _all_sets(size: int, binom: I64) -> npt.NDArray[np.uint8]:
    out = np.empty((binom[52, size], size), dtype=np.uint8)
    cards = np.arange(size).astype(np.int64)
    while True:
        out[colex_index(cards, binom)] = cards
        position = size - 1
        while position >= 0 and cards[position] == 52 - size + position:
            position -= 1
        if position < 0:
            return out
        cards[position] += 1
        for later in range(position + 1, size):
            cards[later] = cards[later - 1] + 1


@cache
def all_sets(size: int) -> npt.NDArray[np.uint8]:
    """Every set of ``size`` cards, sorted ascending, row ``i`` the set of colex rank i."""
    return _all_sets(size, binomials())


@cache
def five_card_classes() -> I8:
    """:class:`PokerHand` of every five-card set, by colex rank (2,598,960)."""
    return poker_hands(all_sets(5))


@nb.njit(cache=True)
def _superset_histograms(hands: npt.NDArray[np.uint8], classes: I8, size: int,
                         binom: I64) -> npt.NDArray[np.int64]:
    """Per ``size``-card set, how many of its five-card supersets fall in each class."""
    out = np.zeros((binom[52, size], 12), dtype=np.int64)
    subset = np.empty(size, dtype=np.int64)
    for row in range(hands.shape[0]):
        for pick in range(32):
            count = 0
            for bit in range(5):
                if pick >> bit & 1:
                    count += 1
            if count != size:
                continue
            filled = 0
            for bit in range(5):
                if pick >> bit & 1:
                    subset[filled] = hands[row, bit]
                    filled += 1
            out[colex_index(subset, binom), classes[row]] += 1
    return out


@nb.njit(cache=True)
def last_choice(final: int, at_risk: int, scale: int, most: int) -> tuple[int, int]:
    """The scaled value and choice at a last-street node: ``final`` is the node's sum of
    net multiples over the ordered completions, ``scale`` their number.

    A bet's value ``final * (at_risk + bet)`` is linear in the bet, so the best bet is the
    largest when the final sum is not negative (ties go to the larger bet) and 1
    otherwise; folding beats it only when strictly better.
    """
    bet = most if final >= 0 else 1
    if -scale * at_risk > final * (at_risk + bet):
        return -scale * at_risk, 0
    return final * (at_risk + bet), bet


@nb.njit(cache=True)
def middle_choice(sums: I64, row: int, offset: int, fold: int, most: int) -> tuple[int, int]:
    """The scaled value and choice at a node of a street before the last: bet ``b`` is
    worth ``sums[row, offset + b]``, folding ``fold``. Ties go to the larger bet, and
    folding must be strictly better."""
    best, choice = sums[row, offset + most], most
    for bet in range(most - 1, 0, -1):
        if sums[row, offset + bet] > best:
            best, choice = sums[row, offset + bet], bet
    if fold > best:
        return fold, 0
    return best, choice


@nb.njit(cache=True)
def _last_level(final_sums: I64, scale: int, low: int, width: int, most: int
                ) -> tuple[I64, I8]:
    """Values and choices when the next cards end the hand (:func:`last_choice`)."""
    values = np.empty((final_sums.shape[0], width), dtype=np.int64)
    choices = np.empty((final_sums.shape[0], width), dtype=np.int8)
    for row in range(final_sums.shape[0]):
        for column in range(width):
            values[row, column], choices[row, column] = last_choice(
                final_sums[row], low + column, scale, most)
    return values, choices


@nb.njit(cache=True)
def _parents(sets: npt.NDArray[np.uint8], binom: I64) -> I64:
    """Per set, the colex ranks of the sets one card smaller (each card left out once)."""
    size = sets.shape[1]
    out = np.empty((sets.shape[0], size), dtype=np.int64)
    for row in range(sets.shape[0]):
        for left_out in range(size):
            index = 0
            position = 0
            for slot in range(size):
                if slot != left_out:
                    index += binom[sets[row, slot], position + 1]
                    position += 1
            out[row, left_out] = index
    return out


@cache
def parents(size: int) -> I64:
    """:func:`_parents` of every set of ``size`` cards (shared: do not modify)."""
    return _parents(all_sets(size), binomials())


@nb.njit(cache=True)
def add_at(out: I64, index: I64, values: I64) -> None:
    """``out[index[i]] += values[i]`` for every ``i`` (exact integers, like ``np.add.at``)."""
    for position in range(index.shape[0]):
        out[index[position]] += values[position]


@nb.njit(cache=True)
def _final_sums(histograms: I64, multiples: I64, orders: int) -> I64:
    """Per last-street set: the net multiples summed over its ordered completions."""
    sums = np.empty(histograms.shape[0], dtype=np.int64)
    for row in range(histograms.shape[0]):
        total = 0
        for hand_class in range(histograms.shape[1]):
            total += histograms[row, hand_class] * multiples[hand_class]
        sums[row] = orders * total
    return sums


@nb.njit(cache=True)
def _middle_level(parents: I64, rows: int, next_values: I64, next_low: int, scale: int,
                  low: int, width: int, most: int) -> tuple[I64, I8, I64]:
    """Values and choices at a street before the last, and each row's sums of the next
    street's values over the next card (``sums[row, j]``, the strategy card and the
    advisor weigh the options with them again).

    A bet's scaled value at a node depends on the antes at risk after it alone, so every
    option of every column of a row is one entry of its sums. They are made by adding
    each next set's values into its ``parents`` (the set less one card): the large next
    table is read once, in order.
    """
    sums = np.zeros((rows, next_values.shape[1]), dtype=np.int64)
    for child in range(parents.shape[0]):
        for index in range(parents.shape[1]):
            parent = parents[child, index]
            for column in range(next_values.shape[1]):
                sums[parent, column] += next_values[child, column]
    values = np.empty((rows, width), dtype=np.int64)
    choices = np.empty((rows, width), dtype=np.int8)
    for row in range(rows):
        for column in range(width):
            at_risk = low + column
            values[row, column], choices[row, column] = middle_choice(
                sums, row, at_risk - next_low, -scale * at_risk, most)
    return values, choices, sums


@nb.njit(cache=True)
def _forward(reach: I64, choices: I8, low: int, scale: int, parents: I64, next_reach: I64,
             next_low: int, top: int) -> tuple[I64, int]:
    """Push ``reach`` (dealt paths per node) one street on; returns the folded deals by
    antes at risk and the deals x bet made at this street.

    Each next node gathers from its ``parents`` (its cards less one), so the large next
    table is written in order rather than scattered into.
    """
    folded = np.zeros(top + 1, dtype=np.int64)
    bet_total = 0
    for row in range(reach.shape[0]):
        for column in range(reach.shape[1]):
            paths = reach[row, column]
            if paths == 0:
                continue
            bet = choices[row, column]
            bet_total += paths * scale * bet
            if bet == 0:
                folded[low + column] += paths * scale
    for child in range(parents.shape[0]):
        for index in range(parents.shape[1]):
            parent = parents[child, index]
            for column in range(reach.shape[1]):
                paths = reach[parent, column]
                if paths == 0:
                    continue
                bet = choices[parent, column]
                if bet != 0:
                    next_reach[child, low + column + bet - next_low] += paths
    return folded, bet_total


@nb.njit(cache=True)
def _finish(reach: I64, choices: I8, low: int, histograms: I64, orders: int, top: int
            ) -> tuple[I64, I64, int]:
    """Last street: folds by antes at risk, final (class, total bet) counts, bets made."""
    scale = orders * histograms[0].sum()
    folded = np.zeros(top + 1, dtype=np.int64)
    final = np.zeros((12, top + 1), dtype=np.int64)
    bet_total = 0
    for row in range(reach.shape[0]):
        for column in range(reach.shape[1]):
            paths = reach[row, column]
            if paths == 0:
                continue
            bet = choices[row, column]
            bet_total += paths * scale * bet
            if bet == 0:
                folded[low + column] += paths * scale
            else:
                for hand_class in range(12):
                    final[hand_class, low + column + bet] += (
                        paths * orders * histograms[row, hand_class])
    return folded, final, bet_total


@dataclass(frozen=True)
class Solution:
    """Optimal values and choices per level (level = community cards turned)."""

    shape: Shape
    multiples: tuple[int, ...]
    values: tuple[I64, ...]
    choices: tuple[I8, ...]
    histograms: I64  # per last-level set: five-card supersets by class (unordered)
    final_sums: I64  # per last-level set: sum of net multiples over ORDERED completions
    next_sums: tuple[I64, ...]  # per level before the last: each row's sums over the next card

    @property
    def orders(self) -> int:
        """Orders in which the community cards left after the last decision can come."""
        return math.factorial(COMMUNITY - self.shape.last)


@cache
def completion_histograms(size: int) -> I64:
    """Per set of ``size`` cards, how many of its five-card supersets fall in each
    :class:`PokerHand` (shared: do not modify)."""
    return _superset_histograms(all_sets(5), five_card_classes(), size, binomials())


@lru_cache(maxsize=8)
def solve(multiples: tuple[int, ...], streets: int, most: int) -> Solution:
    """Backward induction for a pay table given as net multiple per :class:`PokerHand`
    (the last few kept: a designer's process meets many pay tables)."""
    shape = Shape(streets, most)
    histograms = completion_histograms(2 + shape.last)
    orders = math.factorial(COMMUNITY - shape.last)
    final_sums = _final_sums(histograms, np.array(multiples, dtype=np.int64), orders)
    values, choices = _last_level(final_sums, shape.scale(shape.last), shape.low(shape.last),
                                  shape.width(shape.last), most)
    all_values, all_choices = [values], [choices]
    all_sums: list[I64] = []
    for level in range(shape.last - 1, -1, -1):
        values, choices, sums = _middle_level(parents(3 + level), math.comb(52, 2 + level),
                                              values, shape.low(level + 1), shape.scale(level),
                                              shape.low(level), shape.width(level), most)
        all_values.insert(0, values)
        all_choices.insert(0, choices)
        all_sums.insert(0, sums)
    return Solution(shape, multiples, tuple(all_values), tuple(all_choices), histograms,
                    final_sums, tuple(all_sums))


@dataclass(frozen=True)
class Outcome:
    """Exact counts of a strategy's results over every ordered deal."""

    folded: tuple[I64, ...]  # per level: ordered deals folded, by antes at risk
    final: I64  # [class, total bet in antes]: ordered deals played to the end
    bets: tuple[int, ...]  # per level: deals x antes bet at that street
    reach: tuple[I64, ...]  # per level: dealt paths reaching (set, antes at risk)
    total: int


def play_out(shape: Shape, choices: tuple[I8, ...]) -> Outcome:
    """Counts of every result when ``choices`` (per level, shaped like the optimal
    choices) are played, over all ordered deals of 2 player and 3 community cards (the
    pays do not enter)."""
    reach = np.zeros((math.comb(52, 2), 1), dtype=np.int64)
    reach[:, 0] = 1
    reaches, folded, bets = [reach], [], []
    for level in range(shape.last):
        next_reach = np.zeros((math.comb(52, 3 + level), shape.width(level + 1)),
                              dtype=np.int64)
        fold, bet = _forward(reach, choices[level], shape.low(level), shape.scale(level),
                             parents(3 + level), next_reach, shape.low(level + 1), shape.top)
        folded.append(fold)
        bets.append(int(bet))
        reach = next_reach
        reaches.append(reach)
    fold, final, bet = _finish(reach, choices[shape.last], shape.low(shape.last),
                               completion_histograms(2 + shape.last),
                               math.factorial(COMMUNITY - shape.last), shape.top)
    folded.append(fold)
    bets.append(int(bet))
    total = math.comb(52, 2) * shape.scale(0)
    return Outcome(tuple(folded), final, tuple(bets), tuple(reaches), total)


def net_multiples(rules: HoldemStudRules) -> tuple[int, ...]:
    """Net result per unit bet of each :class:`PokerHand`, weakest first."""
    return tuple(rules.net_multiple(hand) for hand in PokerHand)


def solution_for(rules: HoldemStudRules) -> Solution:
    """The optimal strategy's values and choices (cached per pay table and structure)."""
    return solve(net_multiples(rules), rules.streets, rules.max_street_multiple)
