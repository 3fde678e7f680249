"""The compiled loops: whole rounds over chunks of work, sessions, and a deck replayer.

A game is a small integer (:data:`FLUSH`, :data:`NINE`, :data:`HOLDEM`) and every game's
``play`` has the same signature, so one loop serves all three. Chunks run in parallel
(Numba ``prange``), each from its own seeded stream and into its own row of the
accumulators, so results do not depend on the number of threads.
"""

from __future__ import annotations

import warnings
from typing import Any, Final

import numba as nb
import numpy as np
from numba.core.errors import NumbaExperimentalFeatureWarning

from feltlab.simulate import flush, holdem, nine
from feltlab.simulate.common import (
    COUNTERS,
    I8,
    I64,
    S_SMALL,
    S_SUM,
    S_WINS,
    SMALL_NET,
    STATS,
    U64,
    add_big_square,
)
from feltlab.simulate.rng import Deck, State, draw_cards, draw_only, stream_state

# Each game's round is handed to the round loop as a compiled function value.
warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning)

FLUSH, NINE, HOLDEM = 0, 1, 2
CHUNK_ROUNDS: Final = 1 << 16


@nb.njit(cache=True, inline="always")
def _cards(game: int, seats: int) -> int:
    if game == FLUSH:
        return 7 * (seats + 1)
    if game == NINE:
        return 3 + 6 * seats
    return 2 * seats + 3


@nb.njit(cache=True, inline="always")
def _play(game: int, deck: Deck, seats: int, p: I64, table: I8, table2: I8, table3: I8,
          keys: U64, values: I8, state: State, nets: I64, counters: I64) -> None:
    if game == FLUSH:
        flush.play(deck, seats, p, table, table2, table3, keys, values, state, nets, counters)
    elif game == NINE:
        nine.play(deck, seats, p, table, table2, table3, keys, values, state, nets, counters)
    else:
        holdem.play(deck, seats, p, table, table2, table3, keys, values, state, nets, counters)


@nb.njit(cache=True)
def _rounds(play: Any, cards: int, state: State, rounds: int, seats: int, p: I64,
            table: I8, table2: I8, table3: I8, keys: U64, values: I8, stats: I64,
            counters: I64) -> None:
    """``rounds`` rounds of one game (``play`` is the game's compiled round), serially."""
    wagers = stats.shape[0]
    deck = np.arange(52).astype(np.uint8)
    nets = np.zeros((seats, wagers), dtype=np.int64)
    for _ in range(rounds):
        draw_cards(state, deck, cards)
        play(deck, seats, p, table, table2, table3, keys, values, state, nets, counters)
        for w in range(wagers):
            round_net = 0
            for seat in range(seats):
                net = nets[seat, w]
                round_net += net
                stats[w, S_WINS + (net <= 0) + (net < 0)] += 1
            stats[w, S_SUM] += round_net
            magnitude = abs(round_net)
            if magnitude < SMALL_NET:
                stats[w, S_SMALL] += magnitude * magnitude
            else:
                add_big_square(stats[w], magnitude)


@nb.njit(cache=True)
def _run_chunk(game: int, seed: int, chunk: int, rounds: int, seats: int, p: I64, table: I8,
               table2: I8, table3: I8, keys: U64, values: I8, stats: I64,
               counters: I64) -> None:
    """One chunk's rounds. Each game gets its own compiled loop: with all three games'
    code in one loop, or compiled inside a ``prange`` body, rounds run several times
    slower."""
    state = stream_state(seed, chunk)
    count = min(CHUNK_ROUNDS, rounds - chunk * CHUNK_ROUNDS)
    cards = _cards(game, seats)
    args = (p, table, table2, table3, keys, values, stats, counters)
    if game == FLUSH:
        _rounds(flush.play, cards, state, count, seats, *args)
    elif game == NINE:
        _rounds(nine.play, cards, state, count, seats, *args)
    else:
        _rounds(holdem.play, cards, state, count, seats, *args)


@nb.njit(cache=True, parallel=True)
def simulate_chunks(game: int, seed: int, first_chunk: int, chunks: int, rounds: int,
                    seats: int, wagers: int, p: I64, table: I8, table2: I8, table3: I8,
                    keys: U64, values: I8) -> tuple[I64, I64]:
    """Run chunks ``first_chunk .. first_chunk + chunks - 1`` of a ``rounds``-round run.

    Returns per chunk ``stats[chunk, wager, :]`` (sum of the round's net over all seats,
    sum of its square in parts, seat-hands won, pushed, lost: see
    :data:`~feltlab.simulate.common.STATS`) and ``counters[chunk, :]``.
    """
    stats = np.zeros((chunks, wagers, STATS), dtype=np.int64)
    counters = np.zeros((chunks, COUNTERS), dtype=np.int64)
    for offset in nb.prange(chunks):
        _run_chunk(game, seed, first_chunk + offset, rounds, seats, p, table, table2, table3,
                   keys, values, stats[offset], counters[offset])
    return stats, counters


@nb.njit(cache=True)
def replay_decks(game: int, decks: Deck, seats: int, wagers: int, p: I64, table: I8,
                 table2: I8, table3: I8, keys: U64, values: I8) -> I64:
    """Per-deck, per-seat, per-wager nets of rounds dealt from the given deck orders
    (for checking the kernels against ``feltlab.settle``; no mistakes are drawn)."""
    out = np.zeros((decks.shape[0], seats, wagers), dtype=np.int64)
    counters = np.zeros(COUNTERS, dtype=np.int64)
    state = stream_state(0, 0)
    for i in range(decks.shape[0]):
        deck = decks[i].copy()
        _play(game, deck, seats, p, table, table2, table3, keys, values, state, out[i],
              counters)
    return out


@nb.njit(cache=True)
def _session(play: Any, cards: int, state: State, hands: int, bankroll: int, need: int,
             p: I64, table: I8, table2: I8, table3: I8, keys: U64, values: I8, wagers: int,
             outcome: I64, trajectory: I64) -> None:
    """One session, serially; ``outcome`` gets final bankroll, largest drawdown, hand of
    ruin, hand of doubling and hands played; ``trajectory`` the bankroll at checkpoints."""
    checkpoints = trajectory.shape[0] - 1
    step = max(1, hands // checkpoints)
    deck = np.arange(52).astype(np.uint8)
    nets = np.zeros((1, wagers), dtype=np.int64)
    counters = np.zeros(COUNTERS, dtype=np.int64)
    money = peak = bankroll
    drawdown, ruined, doubled, played = 0, -1, -1, 0
    trajectory[0] = money
    for hand in range(hands):
        if money < need:
            ruined = hand
            break
        draw_cards(state, deck, cards)
        play(deck, 1, p, table, table2, table3, keys, values, state, nets, counters)
        money += nets[0, wagers - 1]
        played = hand + 1
        peak = max(peak, money)
        drawdown = max(drawdown, peak - money)
        if money >= 2 * bankroll and doubled < 0:
            doubled = played
        if played % step == 0 and played // step <= checkpoints:
            trajectory[played // step] = money
    trajectory[played // step + 1:] = money
    outcome[0], outcome[1], outcome[2], outcome[3], outcome[4] = (money, drawdown, ruined,
                                                                  doubled, played)


@nb.njit(cache=True, parallel=True)
def sessions(game: int, seed: int, first: int, count: int, hands: int, bankroll: int,
             need: int, checkpoints: int, keep: int, wagers: int, p: I64, table: I8,
             table2: I8, table3: I8, keys: U64, values: I8) -> tuple[I64, I64]:
    """Sessions ``first .. first + count - 1`` of one player alone at the table, session
    ``k`` from stream ``k`` of the seed.

    A session stops at ruin: when the bankroll cannot cover the next hand's wagers with
    the largest raise (``need``). Returns ``outcome[session, :]``: the final bankroll,
    the largest drawdown (peak to trough), the hand of ruin (-1: none), the hand at which
    the bankroll first reached double (-1: never) and the hands played; and for the
    first ``keep`` sessions of the range the bankroll after every
    ``hands // checkpoints``-th hand (``trajectory[session, k]``).
    """
    outcome = np.zeros((count, 5), dtype=np.int64)
    trajectory = np.zeros((min(keep, count), checkpoints + 1), dtype=np.int64)
    cards = _cards(game, 1)
    for offset in nb.prange(count):
        state = stream_state(seed, first + offset)
        track = trajectory[offset] if offset < keep else np.zeros(checkpoints + 1, np.int64)
        args = (p, table, table2, table3, keys, values, wagers, outcome[offset], track)
        if game == FLUSH:
            _session(flush.play, cards, state, hands, bankroll, need, *args)
        elif game == NINE:
            _session(nine.play, cards, state, hands, bankroll, need, *args)
        else:
            _session(holdem.play, cards, state, hands, bankroll, need, *args)
    return outcome, trajectory


@nb.njit(cache=True, parallel=True)
def draw_floor(seed: int, chunks: int, rounds: int, cards: int) -> int:
    """Only draw the cards of ``rounds`` rounds, chunked like a simulation: the speed a
    simulator cannot beat. Returns a checksum so the work cannot be dropped."""
    checksums = np.zeros(chunks, dtype=np.int64)
    for chunk in nb.prange(chunks):
        count = min(CHUNK_ROUNDS, rounds - chunk * CHUNK_ROUNDS)
        checksums[chunk] = draw_only(seed, chunk, count, cards)
    return int(checksums.sum())
