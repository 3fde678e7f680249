"""Hold'em Stud in the simulator: the compiled round, the optimal strategy, exact returns.

Wager slots: ``ante`` (Ante and every street bet together, per unit of Ante),
``bonus3`` and the capped hand ``total``.

The optimal strategy is computed here by backward induction over every deal the player
can see (hole cards, then one, then two community cards), exactly, in integers: at the
third street the expected pay multiple over the 48 unseen fifth cards decides; at the
second, the average over the 49 possible next cards of the best third-street choice;
at the first, the average over the 50 possible first cards. Other seats' cards are not
seen, so they do not enter the decisions. Tables are indexed by a two-card index
(:func:`pair_index`), the next card and the street bets made so far, in antes.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations
from typing import Final

import numba as nb
import numpy as np

from feltlab.evaluators import PokerHand, ThreeCardHand
from feltlab.kernels import _is_straight_mask, _rank_shape, poker_hands
from feltlab.rules import HoldemStudRules
from feltlab.simulate.common import I8, I64, U64, Strategy, cap_value, capped
from feltlab.simulate.flush import _mistake
from feltlab.simulate.rng import Deck, State, chance

WAGERS: Final = ("ante", "bonus3", "total")
HOLE: Final = 2
COMMUNITY: Final = 3
PAIRS: Final = 52 * 51 // 2

P_ANTE, P_BONUS3, P_CAP, P_MISTAKE, P_MOST = range(5)
P_PAYS: Final = 8  # 12 entries by PokerHand
P_BONUS3_PAYS: Final = 20  # 6 entries by ThreeCardHand
PARAMS: Final = 32

C_FOLD1, C_FOLD2, C_FOLD3, C_SHOWDOWN, C_CAPPED, C_STREET_ANTES = range(6)
COUNTER_NAMES: Final = ("fold_street1", "fold_street2", "fold_street3", "showdown", "capped",
                        "street_bets_in_antes")


def pays_by_class(rules: HoldemStudRules) -> I64:
    return np.array([rules.net_multiple(hand) for hand in PokerHand], dtype=np.int64)


def params(rules: HoldemStudRules, bets: dict[str, int], mistake_threshold: int) -> I64:
    if rules.streets != 3:
        raise ValueError(f"the simulator plays 3 streets; {rules.id} has {rules.streets}")
    p = np.zeros(PARAMS, dtype=np.int64)
    p[P_ANTE] = bets.get("ante", 0)
    p[P_BONUS3] = bets.get("bonus3", 0)
    p[P_CAP] = cap_value(rules.max_aggregate_payout)
    p[P_MISTAKE] = mistake_threshold
    p[P_MOST] = rules.max_street_multiple
    p[P_PAYS:P_PAYS + 12] = pays_by_class(rules)
    p[P_BONUS3_PAYS:P_BONUS3_PAYS + 6] = [rules.bonus3_net_multiple(h) for h in ThreeCardHand]
    return p


def cards_per_round(seats: int) -> int:
    return HOLE * seats + COMMUNITY


@nb.njit(cache=True, inline="always")
def pair_index(first: int, second: int) -> int:
    """Index 0-1325 of an unordered pair of distinct cards.

    >>> pair_index(0, 1), pair_index(51, 50), pair_index(50, 51)
    (0, 1325, 1325)
    """
    low, high = min(first, second), max(first, second)
    return high * (high - 1) // 2 + low


@nb.njit(cache=True)
def poker_class(cards: Deck) -> int:
    """:class:`~feltlab.evaluators.PokerHand` value of 5 cards (as ``kernels.poker_hands``)."""
    ranks, pairs, trips, quads, pair_rank, suited = _rank_shape(cards)
    straight = pairs + trips + quads == 0 and _is_straight_mask(ranks, 5, 0b1000000001111)
    if straight and suited:
        return 11 if ranks == 0b1111100000000 else 10
    if quads:
        return 9
    if trips and pairs:
        return 8
    if suited:
        return 7
    if straight:
        return 6
    if trips:
        return 5
    if pairs == 2:
        return 4
    if pairs == 1:
        return 3 if pair_rank >= 9 else (2 if pair_rank >= 4 else 1)
    return 0


@nb.njit(cache=True)
def three_card_class(cards: Deck) -> int:
    """:class:`~feltlab.evaluators.ThreeCardHand` value of 3 cards."""
    ranks, pairs, trips, _, _, suited = _rank_shape(cards)
    straight = pairs + trips == 0 and _is_straight_mask(ranks, 3, 0b1000000000011)
    if straight and suited:
        return 5
    if trips:
        return 4
    if straight:
        return 3
    if suited:
        return 2
    return 1 if pairs else 0


@nb.njit(cache=True, inline="always")
def _bet(state: State, table: I8, at: int, most: int, mistake: int) -> int:
    bet = int(table[at])
    if chance(state, mistake):
        bet = _mistake(state, bet, most + 1)
    return bet


@nb.njit(cache=True, inline="always")
def play(deck: Deck, seats: int, p: I64, table: I8, table2: I8, table3: I8,
         keys: U64, values: I8, state: State, nets: I64, counters: I64) -> None:
    """Play and settle one dealt round: 2 cards a seat, then the 3 community cards."""
    base = HOLE * seats
    first, second = int(deck[base]), int(deck[base + 1])
    community_class = three_card_class(deck[base:base + COMMUNITY])
    bonus = p[P_BONUS3_PAYS + community_class] * p[P_BONUS3]
    most = p[P_MOST]
    stride = 3 * most + 1
    turned = pair_index(first, second)
    ante = p[P_ANTE]
    five = np.empty(5, dtype=np.uint8)
    five[2:] = deck[base:base + COMMUNITY]
    for seat in range(seats):
        five[0], five[1] = deck[HOLE * seat], deck[HOLE * seat + 1]
        hole = pair_index(int(five[0]), int(five[1]))
        bets = _bet(state, table, hole, most, p[P_MISTAKE])
        street = 0
        if bets > 0:
            street = 1
            bet = _bet(state, table2, (hole * 52 + first) * stride + bets, most, p[P_MISTAKE])
            if bet > 0:
                street = 2
                bets += bet
                bet = _bet(state, table3, (hole * PAIRS + turned) * stride + bets, most,
                           p[P_MISTAKE])
                if bet > 0:
                    street = 3
                    bets += bet
        counters[C_FOLD1 + street] += 1
        counters[C_STREET_ANTES] += bets
        if street < 3:
            main = -(1 + bets) * ante
        else:
            main = p[P_PAYS + poker_class(five)] * (1 + bets) * ante
        won = max(main, 0) + max(bonus, 0)
        lost = min(main, 0) + min(bonus, 0)
        total = capped(won, lost, p[P_CAP])
        counters[C_CAPPED] += total != won + lost
        nets[seat, 0] = main
        nets[seat, 1] = bonus
        nets[seat, 2] = total


# The optimal strategy by backward induction -----------------------------------------------

@nb.njit(cache=True)
def _pair_cards() -> tuple[I64, I64]:
    low = np.empty(PAIRS, dtype=np.int64)
    high = np.empty(PAIRS, dtype=np.int64)
    for h in range(1, 52):
        for c in range(h):
            at = pair_index(c, h)
            low[at], high[at] = c, h
    return low, high


@nb.njit(cache=True, parallel=True)
def _third_street_sums(pays: I64) -> I64:
    """Sum over the 48 unseen fifth cards of the pay multiple, per (hole, two community)."""
    low, high = _pair_cards()
    sums = np.zeros((PAIRS, PAIRS), dtype=np.int64)
    for hole in nb.prange(PAIRS):
        h0, h1 = low[hole], high[hole]
        five = np.empty(5, dtype=np.uint8)
        five[0], five[1] = h0, h1
        for seen in range(PAIRS):
            c1, c2 = low[seen], high[seen]
            if c1 in (h0, h1) or c2 in (h0, h1):
                continue
            five[2], five[3] = c1, c2
            total = 0
            for card in range(52):
                if card in (h0, h1, c1, c2):
                    continue
                five[4] = card
                total += pays[poker_class(five)]
            sums[hole, seen] = total
    return sums


@nb.njit(cache=True, inline="always")
def _choose(fold: int, per_antes: int, made: int, most: int) -> tuple[int, int]:
    """Best choice at a street where betting ``b`` is worth ``per_antes * (1 + made + b)``
    and folding ``fold``: returns (bet, value); exact ties go to the larger bet."""
    best, value = 0, fold
    for bet in range(1, most + 1):
        worth = per_antes * (1 + made + bet)
        if worth >= value:
            best, value = bet, worth
    return best, value


@nb.njit(cache=True, parallel=True)
def _solve(sums: I64, most: int) -> tuple[I8, I8, I8, I64]:
    low, high = _pair_cards()
    stride = 3 * most + 1
    table1 = np.zeros(PAIRS, dtype=np.int8)
    table2 = np.zeros(PAIRS * 52 * stride, dtype=np.int8)
    table3 = np.zeros(PAIRS * PAIRS * stride, dtype=np.int8)
    value1 = np.zeros(PAIRS, dtype=np.int64)  # units of 1 / (48 * 49 * 50)
    for hole in nb.prange(PAIRS):
        h0, h1 = low[hole], high[hole]
        value2 = np.zeros((52, stride), dtype=np.int64)  # units of 1 / (48 * 49)
        for c1 in range(52):
            if c1 in (h0, h1):
                continue
            for made in range(1, most + 1):
                best_bet, best_value = 0, -(1 + made) * 48 * 49
                for bet in range(1, most + 1):
                    worth = 0
                    for c2 in range(52):
                        if c2 in (h0, h1, c1):
                            continue
                        seen = pair_index(c1, c2)
                        choice, value = _choose(-(1 + made + bet) * 48, sums[hole, seen],
                                                made + bet, most)
                        table3[(hole * PAIRS + seen) * stride + made + bet] = choice
                        worth += value
                    if worth >= best_value:
                        best_bet, best_value = bet, worth
                table2[(hole * 52 + c1) * stride + made] = best_bet
                value2[c1, made] = best_value
        best_bet, best_value = 0, -48 * 49 * 50
        for bet in range(1, most + 1):
            worth = 0
            for c1 in range(52):
                if c1 != h0 and c1 != h1:
                    worth += value2[c1, bet]
            if worth >= best_value:
                best_bet, best_value = bet, worth
        table1[hole] = best_bet
        value1[hole] = best_value
    return table1, table2, table3, value1


@dataclass(frozen=True)
class Solution:
    strategy: Strategy
    ante_edge: Fraction


@cache
def _solve_for(pays: tuple[int, ...], most: int) -> Solution:
    sums = _third_street_sums(np.array(pays, dtype=np.int64))
    table1, table2, table3, value1 = _solve(sums, most)
    ev = Fraction(int(value1.sum()), PAIRS * 48 * 49 * 50)
    return Solution(Strategy("optimal", table1, table2, table3), -ev)


def solve(rules: HoldemStudRules) -> Solution:
    """The optimal strategy and the exact house edge of the Ante it gives (a few seconds)."""
    return _solve_for(tuple(int(x) for x in pays_by_class(rules)), rules.max_street_multiple)


def optimal_strategy(rules: HoldemStudRules) -> Strategy:
    return solve(rules).strategy


def simple_strategy(rules: HoldemStudRules) -> Strategy:
    """Bet 1x on every street and never fold."""
    stride = 3 * rules.max_street_multiple + 1
    return Strategy("simple", np.ones(PAIRS, dtype=np.int8),
                    np.ones(PAIRS * 52 * stride, dtype=np.int8),
                    np.ones(PAIRS * PAIRS * stride, dtype=np.int8))


# Exact returns by enumeration (independent of the kernels above) -------------------------

@cache
def _class_counts_5() -> tuple[int, ...]:
    """Five-card hands by PokerHand class, over all C(52, 5) hands (``kernels.poker_hands``)."""
    hands = np.array(list(combinations(range(52), 5)), dtype=np.uint8)
    return tuple(int(n) for n in np.bincount(poker_hands(hands), minlength=12))


def simple_ante_edge(rules: HoldemStudRules) -> Fraction:
    """Exact house edge of the Ante for :func:`simple_strategy` (4 antes on every deal)."""
    counts = _class_counts_5()
    returned = sum(4 * rules.net_multiple(PokerHand(c)) * n for c, n in enumerate(counts))
    return -Fraction(returned, sum(counts))


def bonus3_edge(rules: HoldemStudRules) -> Fraction:
    """Exact house edge of the 3 Card Bonus over all C(52, 3) community cards."""
    from feltlab.cards import Card
    from feltlab.evaluators import three_card_hand

    returned = 0
    for cards in combinations(range(52), 3):
        returned += rules.bonus3_net_multiple(three_card_hand([Card(c) for c in cards]))
    return -Fraction(returned, 22100)
