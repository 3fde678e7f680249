"""Game protection for Hold'em Stud: colluding seats and a glimpsed next community card.

There is no dealer hand: the player's 5 cards are paid on a table, so what leaks is the
community. ``next_seen = N``: before every decision the player also knows the next ``N``
community cards (a glimpse of the top of the stub each time; ``N = 3`` knows the whole
board before the first bet). Colluders pool their 2-card hands: those cards are out of
the deck for every seat's decisions. Each seat's value in its information state is
exact (backward induction over every order of the unseen community cards,
:mod:`feltlab.games.holdem_stud.known`).

One seat: exact over the 169 starting-hand classes (any ``N``). More seats: Monte Carlo
over the deals of the colluders' cards, each seat's strategy exact.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Final

import numba as nb
import numpy as np
import numpy.typing as npt

from feltlab.core.protection import Case, CaseResult, McSums, Progress
from feltlab.core.rng import draw_cards, stream_state
from feltlab.games.holdem_stud.analysis import analyze_main_edge, starting_classes
from feltlab.games.holdem_stud.known import (
    I8,
    STREETS,
    Cards,
    final_table,
    lookahead_schedule,
    net_multiples_array,
    state_value,
)
from feltlab.games.holdem_stud.rules import HoldemStudRules
from feltlab.games.holdem_stud.solver import I64, binomials, five_card_classes, solution_for

CHUNK_DEALS: Final = 50
"""Deals per seeded stream (each deal solves every colluding seat's game exactly)."""


@nb.njit(cache=True)
def seat_value(own: Cards, dead: Cards, schedule: I64, most: int, classes: I8,
               multiples: I64, binom: I64, table: I64) -> int:
    """A seat's best EV per ante, times ``P(unseen, 3)``, holding ``own`` (2 cards) with
    the ``dead`` cards out of the deck."""
    cards = np.zeros(5, dtype=np.int64)
    cards[0], cards[1] = own[0], own[1]
    used = np.zeros(52, dtype=np.bool_)
    used[own[0]] = used[own[1]] = True
    for card in dead:
        used[card] = True
    return state_value(cards, used, schedule, most, classes, multiples, binom, table, dead)


@nb.njit(cache=True, parallel=True)
def _class_sums(starts: npt.NDArray[np.uint8], weights: I64, schedule: I64, most: int,
                classes: I8, multiples: I64, binom: I64, table: I64) -> I64:
    sums = np.zeros(starts.shape[0], dtype=np.int64)
    dead = np.zeros(0, dtype=np.int64)
    for start in nb.prange(starts.shape[0]):
        own = np.zeros(2, dtype=np.int64)
        own[0], own[1] = starts[start, 0], starts[start, 1]
        sums[start] = weights[start] * seat_value(own, dead, schedule, most, classes,
                                                  multiples, binom, table)
    return sums


def _kernel_arguments(rules: HoldemStudRules) -> tuple[int, I8, I64, I64, I64]:
    return (rules.max_street_multiple, five_card_classes(), net_multiples_array(rules),
            binomials(), final_table(rules))


def exact_single(rules: HoldemStudRules, case: Case) -> CaseResult:
    """One seat: every starting hand (by suit class) and every order of the community."""
    start = time.perf_counter()
    starts, weights = starting_classes()
    sums = _class_sums(starts, weights, lookahead_schedule(case.next_seen),
                       *_kernel_arguments(rules))
    deals = math.comb(52, 2) * math.perm(50, STREETS)
    return CaseResult(case, Fraction(int(sums.sum()), deals), 0.0, True, deals,
                      "exact: every starting hand (169 suit classes) and every ordered "
                      "community", time.perf_counter() - start)


@nb.njit(cache=True, parallel=True)
def _sample_chunks(seed: int, first: int, count: int, deals: int, colluders: int,
                   schedule: I64, alone: I64, alone_scale: int, most: int, classes: I8,
                   multiples: I64, binom: I64, table: I64) -> npt.NDArray[np.float64]:
    """Per chunk (deals, sum, sum of squares) of the colluders' mean gain per ante over
    what each seat's own 2 cards are worth alone (``alone``: full-deck values by the
    colex rank of the 2 cards, scaled by ``alone_scale``)."""
    result = np.zeros((count, 3), dtype=np.float64)
    known = 2 * colluders
    scale = 1.0
    for i in range(STREETS):
        scale *= 52 - known - i
    for offset in nb.prange(count):
        chunk = first + offset
        state = stream_state(seed, chunk)
        deck = np.arange(52).astype(np.uint8)
        size = min(CHUNK_DEALS, deals - chunk * CHUNK_DEALS)
        own = np.zeros(2, dtype=np.int64)
        dead = np.zeros(known - 2, dtype=np.int64)
        total = squares = 0.0
        for _ in range(size):
            draw_cards(state, deck, known)
            value = 0.0
            for seat in range(colluders):
                own[0], own[1] = deck[2 * seat], deck[2 * seat + 1]
                position = 0
                for other in range(known):
                    if other // 2 != seat:
                        dead[position] = deck[other]
                        position += 1
                value += seat_value(own, dead, schedule, most, classes, multiples, binom,
                                    table) / scale
                low, high = min(own[0], own[1]), max(own[0], own[1])
                value -= alone[low + high * (high - 1) // 2] / alone_scale
            value /= colluders
            total += value
            squares += value * value
        result[offset, 0] = size
        result[offset, 1] = total
        result[offset, 2] = squares
    return result


def sample(rules: HoldemStudRules, case: Case, deals: int, seed: int,
           progress: Progress | None = None) -> CaseResult:
    start = time.perf_counter()
    sums = McSums()
    chunks = math.ceil(deals / CHUNK_DEALS)
    batch = 4 * max(1, nb.get_num_threads())
    schedule = lookahead_schedule(case.next_seen)
    solution = solution_for(rules)
    alone = np.ascontiguousarray(solution.values[0][:, 0])
    for first in range(0, chunks, batch):
        count = min(batch, chunks - first)
        part = _sample_chunks(seed, first, count, deals, case.colluders, schedule, alone,
                              solution.shape.scale(0), *_kernel_arguments(rules))
        sums.add(int(part[:, 0].sum()), float(part[:, 1].sum()), float(part[:, 2].sum()))
        if progress is not None:
            progress(sums.count, deals)
    lone = -analyze_main_edge(rules)
    return CaseResult(case, float(lone) + sums.mean, sums.std_error, False, sums.count,
                      f"Monte Carlo: {sums.count:,} deals of the colluders' cards, seed "
                      f"{seed}; each seat's strategy exact by backward induction; estimated "
                      "as the exact lone-seat edge plus the sampled gain over it",
                      time.perf_counter() - start)


def evaluate(rules: HoldemStudRules, case: Case, deals: int, seed: int,
             progress: Progress | None = None) -> CaseResult:
    if case.colluders == 1:
        return exact_single(rules, case)
    return sample(rules, case, deals, seed, progress)
