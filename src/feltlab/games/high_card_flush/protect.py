"""Game protection for the High Card Flush family: colluding seats and a seen dealer card.

A seat's information state is the cards it knows: its own 7, the other colluders' 7 each
(dead cards: the dealer's hand comes from the rest) and any dealer cards seen. Its best
decision and EV in that state are exact (the dealer hands are counted by
:func:`feltlab.games.high_card_flush.counting.dealer_counts_known`, never sampled); what is
sampled, where the states are too many to enumerate, is the state itself.

Exact cases: one seat with no extra information (every player hand by suit class: the
analysis's house edge) and a fully seen dealer hand (any number of colluders: once the
dealer's 7 cards are known the other seats' cards tell nothing more), from the
analysis's exact outcome counts.
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
from feltlab.games.high_card_flush import counting as fk
from feltlab.games.high_card_flush.cells import VALUE_LENGTHS, player_classes, qualifier_cells
from feltlab.games.high_card_flush.decisions import max_raise_by_length
from feltlab.games.high_card_flush.rules import FlushRules

Int64Array = npt.NDArray[np.int64]
CHUNK_DEALS: Final = 20_000
"""Deals per seeded stream: a seed gives the same result on any number of workers."""


# Exact --------------------------------------------------------------------------------

@nb.njit(cache=True, parallel=True)
def _baseline_sums(classes: npt.NDArray[np.uint16], weights: npt.NDArray[np.uint8],
                   qualify: int, max_raise: Int64Array, binom: Int64Array,
                   chunks: int) -> Int64Array:
    """Per chunk of player classes: sum of weight x best EV x C(45, 7)."""
    sums = np.zeros(chunks, dtype=np.int64)
    total = classes.shape[0]
    for chunk in nb.prange(chunks):
        masks = np.zeros(4, dtype=np.int64)
        acc = 0
        for i in range(total * chunk // chunks, total * (chunk + 1) // chunks):
            for suit in range(4):
                masks[suit] = classes[i, suit]
            not_qualified, worse, _, better = fk.dealer_counts(masks, qualify, binom)
            most = max_raise[fk.flush_value_of_masks(masks) >> fk.RANK_BITS]
            acc += int(weights[i]) * fk.best_ev_numerator(
                not_qualified, worse, better, fk.DEALER_HANDS, most)
        sums[chunk] = acc
    return sums


_baselines: dict[tuple[int, tuple[int, ...]], CaseResult] = {}


def forget_baselines() -> None:
    """Forget the lone seat's exact results kept in this process (to time them again)."""
    _baselines.clear()


def baseline_edge(rules: FlushRules) -> Fraction:
    """The lone seat's exact edge (minus the house edge), computed once per process."""
    result = baseline(rules)
    assert isinstance(result.player_edge, Fraction)
    return result.player_edge


def baseline(rules: FlushRules) -> CaseResult:
    key = (rules.qualifier.threshold, tuple(rules.raise_multiples[n] for n in range(2, 8)))
    if key not in _baselines:
        _baselines[key] = _baseline(rules)
    return _baselines[key]


def _baseline(rules: FlushRules) -> CaseResult:
    """One seat, nothing extra known: every player hand up to suit permutation."""
    start = time.perf_counter()
    classes, weights = player_classes()
    sums = _baseline_sums(classes, weights, rules.qualifier.threshold,
                          max_raise_by_length(rules), fk.BINOM,
                          4 * max(1, nb.get_num_threads()))
    edge = Fraction(int(sums.sum()), fk.PLAYER_HANDS * fk.DEALER_HANDS)
    return CaseResult(Case(), edge, 0.0, True, fk.PLAYER_HANDS,
                      f"exact: every player hand ({len(classes):,} suit classes), every "
                      "dealer hand counted", time.perf_counter() - start)


def dealer_known(rules: FlushRules, case: Case) -> CaseResult:
    """The dealer's whole hand seen: raise the most on a win, 1x when the dealer does not
    qualify, 1x on a tie, fold a loss; exact from the analysis's outcome counts."""
    start = time.perf_counter()
    cells = qualifier_cells(rules).sum(axis=(1, 2))  # (value, quantity)
    most = max_raise_by_length(rules)[VALUE_LENGTHS]
    total = 0
    for index in range(cells.shape[0]):
        counts = [int(count) for count in cells[index]]
        if most[index] == 0:
            total -= counts[fk.HANDS] * fk.DEALER_HANDS
            continue
        total += (counts[fk.NOT_QUALIFIED] + counts[fk.DEALER_WORSE] * (1 + int(most[index]))
                  - counts[fk.DEALER_BETTER])
    deals = fk.PLAYER_HANDS * fk.DEALER_HANDS
    return CaseResult(case, Fraction(total, deals), 0.0, True, deals,
                      "exact: every deal of player and dealer hands (the dealer's whole hand "
                      "known, other seats' cards add nothing)", time.perf_counter() - start)


# Monte Carlo over information states --------------------------------------------------

@nb.njit(inline="always")
def add_masks(masks: Int64Array, deck: npt.NDArray[np.uint8], start: int, stop: int) -> None:
    """Add the cards at ``deck[start:stop]`` to the per-suit rank masks."""
    for position in range(start, stop):
        card = deck[position]
        masks[card // 13] |= 1 << (card % 13)


@nb.njit(cache=True)
def deal_value(deck: npt.NDArray[np.uint8], colluders: int, dealer_seen: int, qualify: int,
               max_raise: Int64Array, binom: Int64Array) -> float:
    """Mean over the colluding seats of each seat's best EV per ante, the seats holding
    ``deck[7 s : 7 s + 7]`` and the dealer cards seen following them, less the same
    seats' best EV knowing only their own cards (a control variate: its mean is exactly
    the analysis's value, minus the house edge)."""
    out = np.zeros(4, dtype=np.int64)
    seen = np.zeros(4, dtype=np.int64)
    player = np.zeros(4, dtype=np.int64)
    known = fk.HAND_SIZE * colluders
    add_masks(out, deck, 0, known)
    add_masks(seen, deck, known, known + dealer_seen)
    value = 0.0
    for seat in range(colluders):
        player[:] = 0
        add_masks(player, deck, fk.HAND_SIZE * seat, fk.HAND_SIZE * (seat + 1))
        not_qualified, worse, _, better, total = fk.dealer_counts_known(
            player, out, seen, qualify, binom)
        most = max_raise[fk.flush_value_of_masks(player) >> fk.RANK_BITS]
        value += fk.best_ev_numerator(not_qualified, worse, better, total, most) / total
        alone_nq, alone_worse, _, alone_better = fk.dealer_counts(player, qualify, binom)
        value -= fk.best_ev_numerator(alone_nq, alone_worse, alone_better, fk.DEALER_HANDS,
                                      most) / fk.DEALER_HANDS
    return value / colluders


@nb.njit(cache=True, parallel=True)
def _sample_chunks(seed: int, first: int, count: int, deals: int, colluders: int,
                   dealer_seen: int, qualify: int, max_raise: Int64Array,
                   binom: Int64Array) -> npt.NDArray[np.float64]:
    """Chunks ``first .. first + count - 1``: (deals, sum, sum of squares) each."""
    result = np.zeros((count, 3), dtype=np.float64)
    for offset in nb.prange(count):
        chunk = first + offset
        state = stream_state(seed, chunk)
        deck = np.arange(52).astype(np.uint8)
        size = min(CHUNK_DEALS, deals - chunk * CHUNK_DEALS)
        total = squares = 0.0
        for _ in range(size):
            draw_cards(state, deck, fk.HAND_SIZE * colluders + dealer_seen)
            value = deal_value(deck, colluders, dealer_seen, qualify, max_raise, binom)
            total += value
            squares += value * value
        result[offset, 0] = size
        result[offset, 1] = total
        result[offset, 2] = squares
    return result


def sample(rules: FlushRules, case: Case, deals: int, seed: int,
           progress: Progress | None = None) -> CaseResult:
    """Monte Carlo over ``deals`` deals of the colluders' (and seen dealer) cards, each
    seat's decision exact: the exact baseline plus the mean gain over it."""
    start = time.perf_counter()
    sums = McSums()
    chunks = math.ceil(deals / CHUNK_DEALS)
    batch = 4 * max(1, nb.get_num_threads())
    arguments = (case.colluders, case.dealer_seen, rules.qualifier.threshold,
                 max_raise_by_length(rules), fk.BINOM)
    for first in range(0, chunks, batch):
        count = min(batch, chunks - first)
        part = _sample_chunks(seed, first, count, deals, *arguments)
        sums.add(int(part[:, 0].sum()), float(part[:, 1].sum()), float(part[:, 2].sum()))
        if progress is not None:
            progress(sums.count, deals)
    alone = float(baseline_edge(rules))
    return CaseResult(case, alone + sums.mean, sums.std_error, False, sums.count,
                      f"Monte Carlo: {sums.count:,} deals of the known cards, seed {seed}; "
                      "each seat's decision exact over every dealer hand; estimated as the "
                      "exact lone-seat edge plus the sampled gain over it",
                      time.perf_counter() - start)


def evaluate(rules: FlushRules, case: Case, deals: int, seed: int,
             progress: Progress | None = None) -> CaseResult:
    """Exact where the states can be enumerated, else Monte Carlo."""
    if case.dealer_seen == fk.HAND_SIZE:
        return dealer_known(rules, case)
    if case.is_baseline:
        return baseline(rules)
    return sample(rules, case, deals, seed, progress)
