"""9 Card Flush in the simulator: the compiled round, the optimal play, exact returns.

Wager slots: ``all9`` (All 9 and Play together, per unit of All 9), ``bonus9``,
``player6``, ``first3`` and the capped hand ``total``. Every seat bets the same colour
(the colours are symmetric, so the choice changes no figure).

The decision sees only the 3 community cards, and through the colour only how many of
them fall in each suit of the colour: the strategy is play or fold by that pair of
counts, larger first (``table[4 * larger + smaller]``).
"""

from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Final

import numba as nb
import numpy as np

from feltlab.cards import COLOUR_SUITS
from feltlab.kernels import LANE, LANE_BIT, LANE_MASK, POPCOUNT
from feltlab.rules import NineCardRules
from feltlab.simulate.common import I8, I64, U64, Strategy, bonus_net, cap_value, capped, pay_array
from feltlab.simulate.rng import Deck, State, chance

WAGERS: Final = ("all9", "bonus9", "player6", "first3", "total")
COMMUNITY: Final = 3
HAND: Final = 6

P_ALL9, P_BONUS9, P_PLAYER6, P_FIRST3, P_CAP, P_MISTAKE, P_SUIT_A, P_SUIT_B = range(8)
P_WIN_AT, P_PUSH_AT = 8, 9
P_BONUS9_PAYS: Final = 10  # 10 entries by count 0-9
P_PLAYER6_PAYS: Final = 20  # 7 entries by count 0-6
P_FIRST3_PAYS: Final = 27  # 4 entries by count 0-3
PARAMS: Final = 32

C_PLAY, C_FOLD, C_CAPPED = 0, 1, 2
COUNTER_NAMES: Final = ("play", "fold", "capped")


def params(rules: NineCardRules, bets: dict[str, int], mistake_threshold: int,
           colour: str = "red") -> I64:
    p = np.zeros(PARAMS, dtype=np.int64)
    p[P_ALL9] = bets.get("all9", 0)
    p[P_BONUS9] = bets.get("bonus9", 0)
    p[P_PLAYER6] = bets.get("player6", 0)
    p[P_FIRST3] = bets.get("first3", 0)
    p[P_CAP] = cap_value(rules.max_aggregate_payout)
    p[P_MISTAKE] = mistake_threshold
    p[P_SUIT_A], p[P_SUIT_B] = COLOUR_SUITS[colour]
    p[P_WIN_AT] = rules.all9_win_at
    p[P_PUSH_AT] = rules.all9_push_at if rules.all9_push_at is not None else rules.all9_win_at
    p[P_BONUS9_PAYS:P_BONUS9_PAYS + 10] = pay_array(rules.bonus9_pays, 9)
    p[P_PLAYER6_PAYS:P_PLAYER6_PAYS + 7] = pay_array(rules.player6_pays, 6)
    p[P_FIRST3_PAYS:P_FIRST3_PAYS + 4] = pay_array(rules.first3_pays, 3)
    return p


def cards_per_round(seats: int) -> int:
    return COMMUNITY + HAND * seats


@nb.njit(cache=True, inline="always")
def _suit_count(mask: np.uint64, suit: int) -> int:
    return int(POPCOUNT[(mask >> np.uint64(LANE * suit)) & np.uint64(LANE_MASK)])


@nb.njit(cache=True, inline="always")
def _mask(deck: Deck, start: int, count: int) -> np.uint64:
    mask = np.uint64(0)
    for i in range(start, start + count):
        mask |= LANE_BIT[deck[i]]
    return mask


@nb.njit(cache=True, inline="always")
def play(deck: Deck, seats: int, p: I64, table: I8, table2: I8, table3: I8,
         keys: U64, values: I8, state: State, nets: I64, counters: I64) -> None:
    """Play and settle one dealt round: ``deck[:3]`` community, then 6 cards a seat."""
    community = _mask(deck, 0, COMMUNITY)
    a = _suit_count(community, p[P_SUIT_A])
    b = _suit_count(community, p[P_SUIT_B])
    three = max(a, b)
    decision = int(table[4 * three + min(a, b)])
    all9 = p[P_ALL9]
    for seat in range(seats):
        plays = decision
        if chance(state, p[P_MISTAKE]):
            plays = 1 - plays
        counters[C_FOLD - plays] += 1
        mine = _mask(deck, COMMUNITY + HAND * seat, HAND)
        x = _suit_count(mine, p[P_SUIT_A])
        y = _suit_count(mine, p[P_SUIT_B])
        nine = max(a + x, b + y)
        if plays == 0:
            main = -all9
        elif nine >= p[P_WIN_AT]:
            main = 2 * all9
        elif nine >= p[P_PUSH_AT]:
            main = 0
        else:
            main = -2 * all9
        bonus9 = bonus_net(p[P_BONUS9_PAYS + nine], p[P_BONUS9])
        player6 = bonus_net(p[P_PLAYER6_PAYS + max(x, y)], p[P_PLAYER6])
        first3 = bonus_net(p[P_FIRST3_PAYS + three], p[P_FIRST3])
        won = max(main, 0) + max(bonus9, 0) + max(player6, 0) + max(first3, 0)
        lost = min(main, 0) + min(bonus9, 0) + min(player6, 0) + min(first3, 0)
        total = capped(won, lost, p[P_CAP])
        counters[C_CAPPED] += total != won + lost
        nets[seat, 0] = main
        nets[seat, 1] = bonus9
        nets[seat, 2] = player6
        nets[seat, 3] = first3
        nets[seat, 4] = total


# Exact analysis by suit counts ------------------------------------------------------------
# The colour's two suits have 13 cards each, the other 26 cards are "off colour".

def _compositions(total: int) -> list[tuple[int, int, int]]:
    return [(a, b, total - a - b) for a in range(total + 1) for b in range(total + 1 - a)]


def _community_ways(a: int, b: int, o: int) -> int:
    return comb(13, a) * comb(13, b) * comb(26, o)


def _player_ways(a: int, b: int, o: int, x: int, y: int, z: int) -> int:
    return comb(13 - a, x) * comb(13 - b, y) * comb(26 - o, z)


def _main_sign(rules: NineCardRules, nine: int) -> int:
    if nine >= rules.all9_win_at:
        return 1
    push_at = rules.all9_push_at
    return 0 if push_at is not None and nine >= push_at else -1


def _play_value(rules: NineCardRules, a: int, b: int, o: int) -> Fraction:
    """Expected net of playing (All 9 and Play, per unit of All 9) given the community."""
    total = comb(49, HAND)
    value = sum(2 * _main_sign(rules, max(a + x, b + y)) * _player_ways(a, b, o, x, y, z)
                for x, y, z in _compositions(HAND))
    return Fraction(value, total)


def optimal_strategy(rules: NineCardRules) -> Strategy:
    """Play when playing loses less than folding (-1); exact ties play."""
    table = np.zeros(16, dtype=np.int8)
    for a, b, o in _compositions(COMMUNITY):
        table[4 * max(a, b) + min(a, b)] = _play_value(rules, a, b, o) >= -1
    return Strategy("optimal", table)


def simple_strategy(rules: NineCardRules) -> Strategy:
    """Always play (a player who never folds)."""
    return Strategy("simple", np.ones(16, dtype=np.int8))


def exact_edges(rules: NineCardRules, strategy: Strategy) -> dict[str, Fraction]:
    """Exact house edge of every wager under ``strategy`` (enumeration by suit counts)."""
    bonus_tables = {"bonus9": pay_array(rules.bonus9_pays, 9),
                    "player6": pay_array(rules.player6_pays, 6),
                    "first3": pay_array(rules.first3_pays, 3)}
    returned = dict.fromkeys(("all9", *bonus_tables), 0)
    for a, b, o in _compositions(COMMUNITY):
        community = _community_ways(a, b, o)
        plays = bool(strategy.table[4 * max(a, b) + min(a, b)])
        for x, y, z in _compositions(HAND):
            ways = community * _player_ways(a, b, o, x, y, z)
            nine = max(a + x, b + y)
            main = 2 * _main_sign(rules, nine) if plays else -1
            returned["all9"] += main * ways
            counts = {"bonus9": nine, "player6": max(x, y), "first3": max(a, b)}
            for name, pays in bonus_tables.items():
                returned[name] += int(bonus_net(int(pays[counts[name]]), 1)) * ways
    total = comb(52, COMMUNITY) * comb(49, HAND)
    return {name: -Fraction(value, total) for name, value in returned.items()}
