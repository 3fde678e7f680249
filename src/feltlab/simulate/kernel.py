"""The compiled loops: whole rounds over chunks of work, sessions, and a deck replayer.

A game is a small integer (:data:`FLUSH`, :data:`NINE`, :data:`HOLDEM`) and every game's
``play`` has the same signature; each game has its own round and session loop calling
it by name, so Numba inlines the round into the loop. Chunks run in parallel
(Numba ``prange``), each from its own seeded stream and into its own row of the
accumulators, so results do not depend on the number of threads.
"""

from __future__ import annotations

from typing import Final

import numba as nb
import numpy as np

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

FLUSH, NINE, HOLDEM = 0, 1, 2
CHUNK_ROUNDS: Final = 1 << 16


@nb.njit(inline="always")
def _cards(game: int, seats: int) -> int:
    if game == FLUSH:
        return 7 * (seats + 1)
    if game == NINE:
        return 3 + 6 * seats
    return 2 * seats + 3


@nb.njit(inline="always")
def _play(game: int, deck: Deck, seats: int, p: I64, table: I8, table2: I8, table3: I8,
          keys: U64, values: I8, state: State, nets: I64, counters: I64) -> None:
    if game == FLUSH:
        flush.play(deck, seats, p, table, table2, table3, keys, values, state, nets, counters)
    elif game == NINE:
        nine.play(deck, seats, p, table, table2, table3, keys, values, state, nets, counters)
    else:
        holdem.play(deck, seats, p, table, table2, table3, keys, values, state, nets, counters)


@nb.njit(inline="always")
def _round_buffers(seats: int, wagers: int) -> tuple[Deck, I64]:
    return np.arange(52).astype(np.uint8), np.zeros((seats, wagers), dtype=np.int64)


@nb.njit(inline="always")
def _tally(nets: I64, seats: int, stats: I64) -> None:
    """Add one round's nets (per seat and wager) to a chunk's statistics."""
    for w in range(stats.shape[0]):
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


# One round loop per game, each calling its game's round by name: Numba inlines a round
# called by name, but not one passed in as a function value (25% slower), and a loop
# holding all three games' code runs several times slower.

@nb.njit(cache=True)
def _flush_rounds(state: State, rounds: int, seats: int, p: I64, table: I8, table2: I8,
                  table3: I8, keys: U64, values: I8, stats: I64, counters: I64) -> None:
    deck, nets = _round_buffers(seats, stats.shape[0])
    cards = _cards(FLUSH, seats)
    for _ in range(rounds):
        draw_cards(state, deck, cards)
        flush.play(deck, seats, p, table, table2, table3, keys, values, state, nets, counters)
        _tally(nets, seats, stats)


@nb.njit(cache=True)
def _nine_rounds(state: State, rounds: int, seats: int, p: I64, table: I8, table2: I8,
                 table3: I8, keys: U64, values: I8, stats: I64, counters: I64) -> None:
    deck, nets = _round_buffers(seats, stats.shape[0])
    cards = _cards(NINE, seats)
    for _ in range(rounds):
        draw_cards(state, deck, cards)
        nine.play(deck, seats, p, table, table2, table3, keys, values, state, nets, counters)
        _tally(nets, seats, stats)


@nb.njit(cache=True)
def _holdem_rounds(state: State, rounds: int, seats: int, p: I64, table: I8, table2: I8,
                   table3: I8, keys: U64, values: I8, stats: I64, counters: I64) -> None:
    deck, nets = _round_buffers(seats, stats.shape[0])
    cards = _cards(HOLDEM, seats)
    for _ in range(rounds):
        draw_cards(state, deck, cards)
        holdem.play(deck, seats, p, table, table2, table3, keys, values, state, nets, counters)
        _tally(nets, seats, stats)


@nb.njit(cache=True)
def _run_chunk(game: int, seed: int, chunk: int, rounds: int, seats: int, p: I64, table: I8,
               table2: I8, table3: I8, keys: U64, values: I8, stats: I64,
               counters: I64) -> None:
    """One chunk's rounds, serially (a round loop compiled inside the ``prange`` body runs
    several times slower)."""
    state = stream_state(seed, chunk)
    count = min(CHUNK_ROUNDS, rounds - chunk * CHUNK_ROUNDS)
    args = (p, table, table2, table3, keys, values, stats, counters)
    if game == FLUSH:
        _flush_rounds(state, count, seats, *args)
    elif game == NINE:
        _nine_rounds(state, count, seats, *args)
    else:
        _holdem_rounds(state, count, seats, *args)


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


Books = tuple[int, int, int, int, int]
"""A session's books as it goes: the bankroll, its peak, the largest drawdown (peak to
trough), the hand at which the bankroll first doubled (-1: not yet) and the hands played.
Scalars, not an array, so that the compiled loop keeps them in registers."""


@nb.njit(inline="always")
def _open_books(bankroll: int, trajectory: I64) -> Books:
    trajectory[0] = bankroll
    return bankroll, bankroll, 0, -1, 0


@nb.njit(inline="always")
def _book(books: Books, net: int, bankroll: int, step: int, trajectory: I64) -> Books:
    """The books after one hand's net, with the trajectory's checkpoint written."""
    money, peak, drawdown, doubled, played = books
    money += net
    played += 1
    peak = max(peak, money)
    drawdown = max(drawdown, peak - money)
    if money >= 2 * bankroll and doubled < 0:
        doubled = played
    if played % step == 0 and played // step < trajectory.shape[0]:
        trajectory[played // step] = money
    return money, peak, drawdown, doubled, played


@nb.njit(inline="always")
def _close_books(books: Books, ruined: int, step: int, outcome: I64, trajectory: I64) -> None:
    money, _, drawdown, doubled, played = books
    trajectory[played // step + 1:] = money
    outcome[0], outcome[1], outcome[2], outcome[3], outcome[4] = (money, drawdown, ruined,
                                                                  doubled, played)


@nb.njit(inline="always")
def _session_buffers(wagers: int) -> tuple[Deck, I64, I64]:
    return (np.arange(52).astype(np.uint8), np.zeros((1, wagers), dtype=np.int64),
            np.zeros(COUNTERS, dtype=np.int64))


@nb.njit(inline="always")
def _step(hands: int, trajectory: I64) -> int:
    """Hands between checkpoints of the trajectory."""
    return max(1, hands // (trajectory.shape[0] - 1))  # type: ignore[no-any-return]


# One session loop per game, for the reason given above the round loops.

@nb.njit(cache=True)
def _flush_session(state: State, hands: int, bankroll: int, need: int, p: I64, table: I8,
                   table2: I8, table3: I8, keys: U64, values: I8, wagers: int,
                   outcome: I64, trajectory: I64) -> None:
    deck, nets, counters = _session_buffers(wagers)
    books, step = _open_books(bankroll, trajectory), _step(hands, trajectory)
    cards = _cards(FLUSH, 1)
    ruined = -1
    for hand in range(hands):
        if books[0] < need:  # the bankroll cannot cover this hand: ruin
            ruined = hand
            break
        draw_cards(state, deck, cards)
        flush.play(deck, 1, p, table, table2, table3, keys, values, state, nets, counters)
        books = _book(books, nets[0, wagers - 1], bankroll, step, trajectory)
    _close_books(books, ruined, step, outcome, trajectory)


@nb.njit(cache=True)
def _nine_session(state: State, hands: int, bankroll: int, need: int, p: I64, table: I8,
                  table2: I8, table3: I8, keys: U64, values: I8, wagers: int,
                  outcome: I64, trajectory: I64) -> None:
    deck, nets, counters = _session_buffers(wagers)
    books, step = _open_books(bankroll, trajectory), _step(hands, trajectory)
    cards = _cards(NINE, 1)
    ruined = -1
    for hand in range(hands):
        if books[0] < need:  # the bankroll cannot cover this hand: ruin
            ruined = hand
            break
        draw_cards(state, deck, cards)
        nine.play(deck, 1, p, table, table2, table3, keys, values, state, nets, counters)
        books = _book(books, nets[0, wagers - 1], bankroll, step, trajectory)
    _close_books(books, ruined, step, outcome, trajectory)


@nb.njit(cache=True)
def _holdem_session(state: State, hands: int, bankroll: int, need: int, p: I64, table: I8,
                    table2: I8, table3: I8, keys: U64, values: I8, wagers: int,
                    outcome: I64, trajectory: I64) -> None:
    deck, nets, counters = _session_buffers(wagers)
    books, step = _open_books(bankroll, trajectory), _step(hands, trajectory)
    cards = _cards(HOLDEM, 1)
    ruined = -1
    for hand in range(hands):
        if books[0] < need:  # the bankroll cannot cover this hand: ruin
            ruined = hand
            break
        draw_cards(state, deck, cards)
        holdem.play(deck, 1, p, table, table2, table3, keys, values, state, nets, counters)
        books = _book(books, nets[0, wagers - 1], bankroll, step, trajectory)
    _close_books(books, ruined, step, outcome, trajectory)


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
    for offset in nb.prange(count):
        state = stream_state(seed, first + offset)
        track = trajectory[offset] if offset < keep else np.zeros(checkpoints + 1, np.int64)
        args = (p, table, table2, table3, keys, values, wagers, outcome[offset], track)
        if game == FLUSH:
            _flush_session(state, hands, bankroll, need, *args)
        elif game == NINE:
            _nine_session(state, hands, bankroll, need, *args)
        else:
            _holdem_session(state, hands, bankroll, need, *args)
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
