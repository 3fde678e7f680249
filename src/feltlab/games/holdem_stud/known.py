"""Hold'em Stud with cards known beyond the game's own: dead cards (other seats' hands)
and community cards seen before they are turned, solved exactly by backward induction
over every order the unseen community cards can come in (Numba kernels).

A decision point is (street ``L``, community cards known ``k``, antes at risk ``B``). Its
value is an exact integer: the sum over every ordered completion of the ``3 - k``
community cards still unknown, so the EV per ante is ``value / P(n, 3 - k)`` with ``n``
the cards left unseen. Which community cards are known at each street is a *schedule*:
``schedule[L]`` cards are known at the decision before the ``L + 1``-th card is turned
(at least ``L``, never fewer than at the street before); the normal game is
``(0, 1, 2, 3)``, a player who always sees the next card ``(1, 2, 3, 3)``.

>>> from feltlab.core.rules import load_rules
>>> from feltlab.core.cards import parse_cards
>>> sums, scale = option_sums(load_rules("nh-holdem-stud"), parse_cards("Ah Ad"), ())
>>> scale, [int(value) for value in sums] == sorted(int(value) for value in sums)
(117600, True)
"""

from __future__ import annotations

from collections.abc import Sequence

import numba as nb
import numpy as np
import numpy.typing as npt

from feltlab.core.cards import Card
from feltlab.games.holdem_stud.rules import HoldemStudRules
from feltlab.games.holdem_stud.solver import (
    I64,
    binomials,
    five_card_classes,
    net_multiples,
    set_colex_index,
    solution_for,
)

I8 = npt.NDArray[np.int8]
Used = npt.NDArray[np.bool_]
Cards = npt.NDArray[np.int64]
STREETS = 3


@nb.njit(cache=True)
def _unseen(used: Used) -> int:
    count = 0
    for card in range(52):
        count += 0 if used[card] else 1
    return count


@nb.njit(cache=True)
def ordered_ways(unseen: int, count: int) -> int:
    ways = 1
    for i in range(count):
        ways *= unseen - i
    return ways


@nb.njit(cache=True)
def final_sum(cards: Cards, known: int, used: Used, classes: I8, multiples: I64,
              binom: I64, buffer: I64, table: I64, dead: Cards) -> int:
    """Sum of the net multiple of the final hand over every completion of the community
    (``known`` is 2 or 3; ``cards[2 + known:]`` are filled in). With one card to come and
    ``table`` given (the full-deck sums by 4-card set, :attr:`Solution.final_sums`), the
    sum is the table's less the hands the ``dead`` cards would have made."""
    if known == STREETS:
        return int(multiples[classes[set_colex_index(cards, 0, 5, buffer, binom)]])
    if table.shape[0] > 0:
        total = int(table[set_colex_index(cards, 0, 4, buffer, binom)])
        for card in dead:
            cards[4] = card
            total -= int(multiples[classes[set_colex_index(cards, 0, 5, buffer, binom)]])
        return total
    total = 0
    for card in range(52):
        if not used[card]:
            cards[4] = card
            total += int(multiples[classes[set_colex_index(cards, 0, 5, buffer, binom)]])
    return total


@nb.njit(cache=True)
def _best_over_bets(after: I64, scale: int, most: int, values: I64) -> None:
    """``values[B] = max(-B scale, after[B + b] for b = 1..most)``."""
    for at_risk in range(after.shape[0] - most):
        best = -at_risk * scale
        for bet in range(1, most + 1):
            best = max(best, after[at_risk + bet])
        values[at_risk] = best


# Scratch rows of the work array (one row per street and role: no allocation per node).
LAST_AFTER, LAST_VALUES, SECOND_AFTER, SECOND_VALUES, FIRST_AFTER, FIRST_VALUES = range(6)
WORK_ROWS = 6


def new_work(most: int) -> I64:
    return np.zeros((WORK_ROWS, 2 + most * STREETS), dtype=np.int64)


@nb.njit(cache=True)
def _final_values(total: int, after: I64) -> None:
    for at_risk in range(after.shape[0]):
        after[at_risk] = at_risk * total


@nb.njit(cache=True)
def _street3(cards: Cards, known: int, used: Used, unseen: int, most: int, classes: I8,
             multiples: I64, binom: I64, buffer: I64, table: I64, dead: Cards,
             work: I64) -> None:
    """Values by antes at risk at the last decision (``known`` is 2 or 3) into
    ``work[LAST_VALUES]``."""
    total = final_sum(cards, known, used, classes, multiples, binom, buffer, table, dead)
    _final_values(total, work[LAST_AFTER])
    _best_over_bets(work[LAST_AFTER], ordered_ways(unseen, STREETS - known), most,
                    work[LAST_VALUES])


@nb.njit(cache=True)
def _after_street4(cards: Cards, known: int, target: int, used: Used, unseen: int, most: int,
                   classes: I8, multiples: I64, binom: I64, buffer: I64, table: I64,
                   dead: Cards, work: I64) -> None:
    """After the second decision: the last decision's values, summed over the one card
    (at most) that becomes known by then, into ``work[SECOND_AFTER]``."""
    acc = work[SECOND_AFTER]
    if known == target:
        _street3(cards, known, used, unseen, most, classes, multiples, binom, buffer, table, dead,
                 work)
        acc[:] = work[LAST_VALUES]
        return
    acc[:] = 0
    for card in range(52):
        if not used[card]:
            used[card] = True
            cards[2 + known] = card
            _street3(cards, known + 1, used, unseen - 1, most, classes, multiples, binom,
                     buffer, table, dead, work)
            acc += work[LAST_VALUES]
            used[card] = False


@nb.njit(cache=True)
def _street4(cards: Cards, known: int, used: Used, unseen: int, schedule: I64, most: int,
             classes: I8, multiples: I64, binom: I64, buffer: I64, table: I64, dead: Cards,
             work: I64) -> None:
    _after_street4(cards, known, schedule[2], used, unseen, most, classes, multiples, binom, buffer,
                   table, dead, work)
    _best_over_bets(work[SECOND_AFTER], ordered_ways(unseen, STREETS - known), most,
                    work[SECOND_VALUES])


@nb.njit(cache=True)
def _after_street3(cards: Cards, known: int, target: int, used: Used, unseen: int, schedule: I64,
                   most: int, classes: I8, multiples: I64, binom: I64, buffer: I64,
                   table: I64, dead: Cards, work: I64) -> None:
    acc = work[FIRST_AFTER]
    if known == target:
        _street4(cards, known, used, unseen, schedule, most, classes, multiples, binom, buffer,
                 table, dead, work)
        acc[:] = work[SECOND_VALUES]
        return
    acc[:] = 0
    for card in range(52):
        if not used[card]:
            used[card] = True
            cards[2 + known] = card
            _street4(cards, known + 1, used, unseen - 1, schedule, most, classes, multiples, binom,
                     buffer, table, dead, work)
            acc += work[SECOND_VALUES]
            used[card] = False


@nb.njit(cache=True)
def _first_street(cards: Cards, known: int, used: Used, unseen: int, schedule: I64, most: int,
                  classes: I8, multiples: I64, binom: I64, buffer: I64, table: I64,
                  dead: Cards, work: I64) -> int:
    """The best value with 1 ante at risk at the first decision."""
    _after_street3(cards, known, schedule[1], used, unseen, schedule, most, classes, multiples,
                   binom, buffer, table, dead, work)
    _best_over_bets(work[FIRST_AFTER], ordered_ways(unseen, STREETS - known), most,
                    work[FIRST_VALUES])
    return int(work[FIRST_VALUES, 1])


@nb.njit(cache=True)
def state_value(cards: Cards, used: Used, schedule: I64, most: int, classes: I8,
                multiples: I64, binom: I64, table: I64, dead: Cards) -> int:
    """Sum over every ordered deal of the ``schedule[0]`` community cards known before the
    first decision of the best value with 1 ante at risk: the EV per ante of a player
    holding ``cards[:2]`` (with ``used`` marking every card out of the deck), times
    ``P(unseen, 3)``."""
    buffer = np.empty(5, dtype=np.int64)
    work = np.zeros((WORK_ROWS, 2 + most * STREETS), dtype=np.int64)
    unseen = _unseen(used)
    draws = schedule[0]
    total = 0
    first_range = 52 if draws >= 1 else 1
    for first in range(first_range):
        if draws >= 1:
            if used[first]:
                continue
            used[first] = True
            cards[2] = first
        second_range = 52 if draws >= 2 else 1
        for second in range(second_range):
            if draws >= 2:
                if used[second]:
                    continue
                used[second] = True
                cards[3] = second
            third_range = 52 if draws >= 3 else 1
            for third in range(third_range):
                if draws >= 3:
                    if used[third]:
                        continue
                    used[third] = True
                    cards[4] = third
                total += _first_street(cards, draws, used, unseen - draws, schedule, most, classes,
                                       multiples, binom, buffer, table, dead, work)
                if draws >= 3:
                    used[third] = False
            if draws >= 2:
                used[second] = False
        if draws >= 1:
            used[first] = False
    return total


@nb.njit(cache=True)
def decision_sums(level: int, cards: Cards, known: int, used: Used, schedule: I64,
                  at_risk: int, most: int, classes: I8, multiples: I64,
                  binom: I64, table: I64, dead: Cards) -> tuple[I64, int]:
    """(value of folding and of each bet 1..most, scale) at street ``level`` with
    ``known`` community cards known (``known == schedule[level]``)."""
    buffer = np.empty(5, dtype=np.int64)
    work = np.zeros((WORK_ROWS, 2 + most * STREETS), dtype=np.int64)
    unseen = _unseen(used)
    scale = ordered_ways(unseen, STREETS - known)
    if level == 0:
        _after_street3(cards, known, schedule[1], used, unseen, schedule, most, classes, multiples,
                       binom, buffer, table, dead, work)
        after = work[FIRST_AFTER]
    elif level == 1:
        _after_street4(cards, known, schedule[2], used, unseen, most, classes, multiples, binom,
                       buffer, table, dead, work)
        after = work[SECOND_AFTER]
    else:
        total = final_sum(cards, known, used, classes, multiples, binom, buffer, table, dead)
        _final_values(total, work[LAST_AFTER])
        after = work[LAST_AFTER]
    sums = np.zeros(most + 1, dtype=np.int64)
    sums[0] = -at_risk * scale
    for bet in range(1, most + 1):
        sums[bet] = after[at_risk + bet]
    return sums, scale


def final_table(rules: HoldemStudRules) -> I64:
    """Full-deck sums of net multiples over the last community card, by 4-card set."""
    solution = solution_for(rules)
    if solution.shape.last != STREETS - 1:
        return np.zeros(0, dtype=np.int64)
    return solution.final_sums


def net_multiples_array(rules: HoldemStudRules) -> I64:
    return np.array(net_multiples(rules), dtype=np.int64)


def check_schedule(schedule: I64) -> None:
    """The kernels learn at most one more community card between two decisions."""
    steps = np.diff(schedule)
    if (steps < 0).any() or (steps[:-1] > 1).any() or schedule[2] < 2:
        raise ValueError(f"unsupported knowledge schedule {schedule.tolist()}")


def advice_schedule(turned: int, seen: int) -> I64:
    """What is known at each street when ``seen`` cards beyond the ``turned`` ones are
    known now and nothing more is glimpsed later."""
    now = turned + seen
    return np.array([max(level, now) for level in range(STREETS)] + [STREETS],
                    dtype=np.int64)


def lookahead_schedule(ahead: int) -> I64:
    """A player who sees the next ``ahead`` community cards before every decision."""
    return np.array([min(STREETS, level + ahead) for level in range(STREETS)] + [STREETS],
                    dtype=np.int64)


def option_sums(rules: HoldemStudRules, player: Sequence[Card], community: Sequence[Card],
                seen: Sequence[Card] = (), dead: Sequence[Card] = (),
                at_risk: int = 1) -> tuple[I64, int]:
    """Fold and each bet's value (times ``scale``) for the player's 2 cards with the
    ``community`` cards turned, the next community cards ``seen`` (in turning order)
    and ``dead`` cards out of the deck: later decisions are played optimally with what
    is known by then. Returns ``(sums, scale)``."""
    known_cards = [*community, *seen]
    cards = np.zeros(5, dtype=np.int64)
    for position, card in enumerate([*player, *known_cards]):
        cards[position] = card.index
    used = np.zeros(52, dtype=np.bool_)
    for card in [*player, *known_cards, *dead]:
        used[card.index] = True
    schedule = advice_schedule(len(community), len(seen))
    sums, scale = decision_sums(len(community), cards, len(known_cards), used, schedule,
                                at_risk, rules.max_street_multiple, five_card_classes(),
                                net_multiples_array(rules), binomials(), final_table(rules),
                                np.array([card.index for card in dead], dtype=np.int64))
    return sums, int(scale)
