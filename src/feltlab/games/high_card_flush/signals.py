"""Signals a team of colluders could really pass at a High Card Flush table, and their
edge: each seat knows its own 7 cards and one short signal about its partners' cards.

A strategy for a signal is derived from the exact decisions: on one set of sampled deals
every seat's exact EV of folding, raising 1x and raising the most is added up by
(own-hand class, signal value); the strategy takes the best option for each pair (the
optimal play for that much information, up to sampling). It is then played on an
independent set of deals, each decision valued exactly, so its edge is unbiased.

Own-hand class: flush length, its highest and second-highest card (what a player reads
at a glance). Signals:

* ``suit count``: teammates show how many cards of the seat's flush suit they hold;
* ``suit counts``: teammates show their count of every suit, so the seat knows how
  many cards of each suit are unseen: the class of the signal is (unseen cards of its
  flush suit, most unseen cards of any other suit).
"""

from __future__ import annotations

import math
from typing import Final

import numba as nb
import numpy as np
import numpy.typing as npt

from feltlab.core.protection import McSums, Signal
from feltlab.core.rng import draw_cards, stream_state
from feltlab.games.high_card_flush import counting as fk
from feltlab.games.high_card_flush.decisions import max_raise_by_length
from feltlab.games.high_card_flush.protect import add_masks
from feltlab.games.high_card_flush.rules import FlushRules

Int64Array = npt.NDArray[np.int64]
Float64Array = npt.NDArray[np.float64]
OWN_CLASSES: Final = 6 * 13 * 13
SIGNAL_VALUES: Final = 14 * 14
OPTIONS: Final = 3  # fold, raise 1x, raise the most
CHUNK_DEALS: Final = 20_000
LEARN_STREAMS: Final = 1 << 40
"""Learning deals use streams from here on, so they never overlap the evaluation's."""
SUIT_COUNT, SUIT_COUNTS = 0, 1
SIGNALS: Final = {SUIT_COUNT: ("suit count", "each teammate shows how many cards of your "
                               "flush suit he holds"),
                  SUIT_COUNTS: ("suit counts", "each teammate shows his count of every suit")}


@nb.njit(cache=True)
def own_class(player: Int64Array) -> tuple[int, int]:
    """(class index, suit of the flush): length, highest and second-highest rank."""
    value = fk.flush_value_of_masks(player)
    suit = 0
    for candidate in range(4):
        if (fk.POPCOUNT64[player[candidate]] << fk.RANK_BITS) | player[candidate] == value:
            suit = candidate
    mask = value & fk.FULL_SUIT
    high = 0
    second = 0
    found = 0
    for rank in range(fk.RANK_BITS - 1, -1, -1):
        if mask >> rank & 1:
            if found == 0:
                high = rank
            elif found == 1:
                second = rank
            found += 1
            if found == 2:
                break
    length = value >> fk.RANK_BITS
    return (length - 2) * 169 + high * 13 + second, suit


@nb.njit(cache=True)
def signal_value(kind: int, player: Int64Array, out: Int64Array, suit: int) -> int:
    """The signal a seat gets (``out``: every colluder's cards, its own among them)."""
    in_suit: int = fk.POPCOUNT64[out[suit]] - fk.POPCOUNT64[player[suit]]
    if kind == SUIT_COUNT:
        return in_suit
    unseen_mine: int = 13 - fk.POPCOUNT64[out[suit]]
    unseen_other: int = 0
    for other in range(4):
        if other != suit:
            unseen_other = max(unseen_other, 13 - fk.POPCOUNT64[out[other]])
    return unseen_mine * 14 + unseen_other


@nb.njit(cache=True)
def _option_values(player: Int64Array, out: Int64Array, seen: Int64Array, qualify: int,
                   most: int, binom: Int64Array, values: Float64Array) -> None:
    """Exact EV per ante of fold, raise 1x and raise the most (fold where none is legal)."""
    not_qualified, worse, _, better, total = fk.dealer_counts_known(player, out, seen,
                                                                    qualify, binom)
    values[0] = -1.0
    values[1] = (not_qualified + (worse - better) * 2) / total if most >= 1 else -1.0
    values[2] = (not_qualified + (worse - better) * (1 + most)) / total if most >= 1 else -1.0


@nb.njit(cache=True, parallel=True)
def learn(kind: int, seed: int, chunks: int, slots: int, deals: int, colluders: int,
          qualify: int, max_raise: Int64Array, binom: Int64Array) -> Float64Array:
    """Sums of each option's exact EV by (own class, signal), one slice per slot (chunks
    ``slot, slot + slots, ...``), summed afterwards."""
    sums = np.zeros((slots, OWN_CLASSES, SIGNAL_VALUES, OPTIONS), dtype=np.float64)
    for slot in nb.prange(slots):
        for chunk in range(slot, chunks, slots):
            _learn_chunk(kind, seed, chunk, deals, colluders, qualify, max_raise, binom,
                         sums[slot])
    return sums


@nb.njit(cache=True)
def _learn_chunk(kind: int, seed: int, chunk: int, deals: int, colluders: int, qualify: int,
                 max_raise: Int64Array, binom: Int64Array, sums: Float64Array) -> None:
    state = stream_state(seed, LEARN_STREAMS + chunk)
    deck = np.arange(52).astype(np.uint8)
    out = np.zeros(4, dtype=np.int64)
    seen = np.zeros(4, dtype=np.int64)
    player = np.zeros(4, dtype=np.int64)
    values = np.zeros(OPTIONS, dtype=np.float64)
    for _ in range(min(CHUNK_DEALS, deals - chunk * CHUNK_DEALS)):
        draw_cards(state, deck, fk.HAND_SIZE * colluders)
        out[:] = 0
        add_masks(out, deck, 0, fk.HAND_SIZE * colluders)
        for seat in range(colluders):
            player[:] = 0
            add_masks(player, deck, fk.HAND_SIZE * seat, fk.HAND_SIZE * (seat + 1))
            index, suit = own_class(player)
            most = max_raise[fk.flush_value_of_masks(player) >> fk.RANK_BITS]
            _option_values(player, out, seen, qualify, most, binom, values)
            sums[index, signal_value(kind, player, out, suit)] += values


@nb.njit(cache=True, parallel=True)
def play(kind: int, table: npt.NDArray[np.int8], seed: int, first: int, count: int,
         deals: int, colluders: int, qualify: int, max_raise: Int64Array,
         binom: Int64Array) -> Float64Array:
    """(deals, sum, sum of squares) per chunk of the mean gain per seat over the lone
    optimal play, playing ``table[own class, signal]`` (-1: the lone optimal decision)."""
    result = np.zeros((count, 3), dtype=np.float64)
    for offset in nb.prange(count):
        chunk = first + offset
        state = stream_state(seed, chunk)
        deck = np.arange(52).astype(np.uint8)
        out = np.zeros(4, dtype=np.int64)
        seen = np.zeros(4, dtype=np.int64)
        player = np.zeros(4, dtype=np.int64)
        values = np.zeros(OPTIONS, dtype=np.float64)
        alone = np.zeros(OPTIONS, dtype=np.float64)
        size = min(CHUNK_DEALS, deals - chunk * CHUNK_DEALS)
        total = squares = 0.0
        for _ in range(size):
            draw_cards(state, deck, fk.HAND_SIZE * colluders)
            out[:] = 0
            add_masks(out, deck, 0, fk.HAND_SIZE * colluders)
            gain = 0.0
            for seat in range(colluders):
                player[:] = 0
                add_masks(player, deck, fk.HAND_SIZE * seat, fk.HAND_SIZE * (seat + 1))
                index, suit = own_class(player)
                most = max_raise[fk.flush_value_of_masks(player) >> fk.RANK_BITS]
                _option_values(player, out, seen, qualify, most, binom, values)
                _option_values(player, player, seen, qualify, most, binom, alone)
                lone = 0
                for option in range(1, OPTIONS):
                    if alone[option] >= alone[lone]:
                        lone = option
                choice = table[index, signal_value(kind, player, out, suit)]
                if choice < 0:
                    choice = lone
                gain += values[choice] - alone[lone]
            gain /= colluders
            total += gain
            squares += gain * gain
        result[offset, 0] = size
        result[offset, 1] = total
        result[offset, 2] = squares
    return result


def decision_table(sums: Float64Array) -> npt.NDArray[np.int8]:
    """Best option per (own class, signal); -1 where no deal was seen."""
    reversed_best = np.argmax(sums[..., ::-1], axis=-1)  # ties: the larger wager
    table: npt.NDArray[np.int8] = (OPTIONS - 1 - reversed_best).astype(np.int8)
    table[np.all(sums == 0, axis=-1)] = -1
    return table


def signal_edge(rules: FlushRules, kind: int, colluders: int, deals: int,
                seed: int) -> McSums:
    """The gain per seat over the lone optimal play of a team playing signal ``kind``."""
    threads = 4 * max(1, nb.get_num_threads())
    arguments = (colluders, rules.qualifier.threshold,
                 max_raise_by_length(rules), fk.BINOM)
    learn_deals = deals
    chunks = math.ceil(learn_deals / CHUNK_DEALS)
    slots = max(1, nb.get_num_threads())
    sums = learn(kind, seed, chunks, slots, learn_deals, *arguments).sum(axis=0)
    table = decision_table(sums)
    result = McSums()
    chunks = math.ceil(deals / CHUNK_DEALS)
    for first in range(0, chunks, threads):
        count = min(threads, chunks - first)
        part = play(kind, table, seed, first, count, deals, *arguments)
        result.add(int(part[:, 0].sum()), float(part[:, 1].sum()), float(part[:, 2].sum()))
    return result


def flush_signals(rules: FlushRules, full_information: float, lone: float, deals: int,
                  seed: int) -> tuple[Signal, ...]:
    """Both signals for a full table of colluders."""
    found = []
    for kind, (name, rule) in SIGNALS.items():
        gain = signal_edge(rules, kind, rules.seats, deals, seed)
        found.append(Signal("colluders", name, f"{rule}; the seat then plays the exact best "
                            "option for its hand class and the signal",
                            lone + gain.mean, gain.std_error, full_information, gain.count))
    return tuple(found)
