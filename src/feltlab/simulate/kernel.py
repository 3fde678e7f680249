"""The compiled loops, built once for every game by one factory: whole rounds over chunks
of work, sessions from a bankroll, and a deck replayer.

A game family's kernel (:class:`~feltlab.core.family.SimulationKernel`) gives ``play``,
one compiled round. :func:`kernels_for` builds the loops around it from the templates
below: each template is copied with the family's round in its globals and compiled, so
Numba sees the round called by name and inlines it into the loop exactly as a loop
written by hand for that game would (a round passed in as a function value is not
inlined: 25% slower), and each copy is cached under its own name. Chunks run in parallel
(Numba ``prange``), each from its own seeded stream and into its own row of the
accumulators, so results do not depend on the number of threads.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import numba as nb
import numpy as np

from feltlab.core.cache import family_version
from feltlab.core.family import GameFamily
from feltlab.core.rng import Deck, State, draw_cards, draw_only, stream_state
from feltlab.core.simkit import (
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

CHUNK_ROUNDS: Final = 1 << 16
PLAY: Any = None
"""In a template: the family's compiled round (each built copy names its own)."""
ROUNDS: Any = None
SESSION: Any = None
RUN_CHUNK: Any = None


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


Books = tuple[int, int, int, int, int]
"""A session's books as it goes: the bankroll, its peak, the largest drawdown (peak to
trough), the hand at which the bankroll first doubled (-1: not yet) and the hands played.
Scalars, not an array, so that the compiled loop keeps them in registers."""


@nb.njit(inline="always")
def open_books(bankroll: int, trajectory: I64) -> Books:
    trajectory[0] = bankroll
    return bankroll, bankroll, 0, -1, 0


@nb.njit(inline="always")
def book(books: Books, net: int, bankroll: int, step: int, trajectory: I64) -> Books:
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
def close_books(books: Books, ruined: int, step: int, outcome: I64, trajectory: I64) -> None:
    money, _, drawdown, doubled, played = books
    trajectory[played // step + 1:] = money
    outcome[0], outcome[1], outcome[2], outcome[3], outcome[4] = (money, drawdown, ruined,
                                                                  doubled, played)


@nb.njit(inline="always")
def _session_buffers(wagers: int) -> tuple[Deck, I64, I64]:
    return (np.arange(52).astype(np.uint8), np.zeros((1, wagers), dtype=np.int64),
            np.zeros(COUNTERS, dtype=np.int64))


@nb.njit(inline="always")
def checkpoint_step(hands: int, trajectory: I64) -> int:
    """Hands between checkpoints of the trajectory."""
    return max(1, hands // (trajectory.shape[0] - 1))  # type: ignore[no-any-return]



# The templates: plain functions, compiled only as copies naming a game's round ---------

def _rounds(state: State, rounds: int, seats: int, cards: int, p: I64, table: I8, table2: I8,
            table3: I8, keys: U64, values: I8, stats: I64, counters: I64) -> None:
    deck, nets = _round_buffers(seats, stats.shape[0])
    for _ in range(rounds):
        draw_cards(state, deck, cards)
        PLAY(deck, seats, p, table, table2, table3, keys, values, state, nets, counters)
        _tally(nets, seats, stats)


def _run_chunk(seed: int, chunk: int, rounds: int, seats: int, cards: int, p: I64, table: I8,
               table2: I8, table3: I8, keys: U64, values: I8, stats: I64,
               counters: I64) -> None:
    """One chunk's rounds, serially (a round loop compiled inside the ``prange`` body runs
    several times slower)."""
    state = stream_state(seed, chunk)
    count = min(CHUNK_ROUNDS, rounds - chunk * CHUNK_ROUNDS)
    ROUNDS(state, count, seats, cards, p, table, table2, table3, keys, values, stats,
           counters)


def _simulate_chunks(seed: int, first_chunk: int, chunks: int, rounds: int, seats: int,
                     cards: int, wagers: int, p: I64, table: I8, table2: I8, table3: I8,
                     keys: U64, values: I8) -> tuple[I64, I64]:
    """Run chunks ``first_chunk .. first_chunk + chunks - 1`` of a ``rounds``-round run.

    Returns per chunk ``stats[chunk, wager, :]`` (sum of the round's net over all seats,
    sum of its square in parts, seat-hands won, pushed, lost: see
    :data:`~feltlab.core.simkit.STATS`) and ``counters[chunk, :]``.
    """
    stats = np.zeros((chunks, wagers, STATS), dtype=np.int64)
    counters = np.zeros((chunks, COUNTERS), dtype=np.int64)
    for offset in nb.prange(chunks):
        RUN_CHUNK(seed, first_chunk + offset, rounds, seats, cards, p, table, table2, table3,
                  keys, values, stats[offset], counters[offset])
    return stats, counters


def _replay_decks(decks: Deck, seats: int, wagers: int, p: I64, table: I8, table2: I8,
                  table3: I8, keys: U64, values: I8) -> I64:
    """Per-deck, per-seat, per-wager nets of rounds dealt from the given deck orders
    (for checking the kernels against the settlement; no mistakes are drawn)."""
    out = np.zeros((decks.shape[0], seats, wagers), dtype=np.int64)
    counters = np.zeros(COUNTERS, dtype=np.int64)
    state = stream_state(0, 0)
    for i in range(decks.shape[0]):
        deck = decks[i].copy()
        PLAY(deck, seats, p, table, table2, table3, keys, values, state, out[i], counters)
    return out


def _session(state: State, hands: int, bankroll: int, need: int, cards: int, p: I64,
             table: I8, table2: I8, table3: I8, keys: U64, values: I8, wagers: int,
             outcome: I64, trajectory: I64) -> None:
    deck, nets, counters = _session_buffers(wagers)
    books, step = open_books(bankroll, trajectory), checkpoint_step(hands, trajectory)
    ruined = -1
    for hand in range(hands):
        if books[0] < need:  # the bankroll cannot cover this hand: ruin
            ruined = hand
            break
        draw_cards(state, deck, cards)
        PLAY(deck, 1, p, table, table2, table3, keys, values, state, nets, counters)
        books = book(books, nets[0, wagers - 1], bankroll, step, trajectory)
    close_books(books, ruined, step, outcome, trajectory)


def _sessions(seed: int, first: int, count: int, hands: int, bankroll: int, need: int,
              cards: int, checkpoints: int, keep: int, wagers: int, p: I64, table: I8,
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
        SESSION(state, hands, bankroll, need, cards, p, table, table2, table3, keys, values,
                wagers, outcome[offset], track)
    return outcome, trajectory


# The factory ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Kernels:
    """One game's compiled loops (see the templates for their arguments)."""

    simulate_chunks: Any
    sessions: Any
    replay_decks: Any


_built: dict[tuple[str, int], Kernels] = {}


def _copy(template: Callable[..., Any], tag: str, **names: Any) -> Callable[..., Any]:
    """``template`` with ``names`` in its globals, under a name of its own: Numba caches a
    compiled function by its module and qualified name, so each game's copy has its own
    entry."""
    scope = {**template.__globals__, **names}
    copy = types.FunctionType(template.__code__, scope, template.__name__,
                              template.__defaults__, template.__closure__)
    copy.__qualname__ = f"{template.__qualname__}__{tag}"
    copy.__doc__ = template.__doc__
    return copy


def kernels_for(family: GameFamily) -> Kernels:
    """The compiled loops around the family's ``kernel.play`` (built once per process and
    game, and compiled on first call, or loaded from Numba's cache, where each version of
    the family's code has its own entries)."""
    kernel = family.kernel
    key = (family.game, id(kernel.play))
    if key not in _built:
        tag = f"{family.game.replace('-', '_')}_{family_version(family)}"
        rounds = nb.njit(cache=True)(_copy(_rounds, tag, PLAY=kernel.play))
        run_chunk = nb.njit(cache=True)(_copy(_run_chunk, tag, ROUNDS=rounds))
        chunks = nb.njit(cache=True, parallel=True)(
            _copy(_simulate_chunks, tag, RUN_CHUNK=run_chunk))
        session = nb.njit(cache=True)(_copy(_session, tag, PLAY=kernel.play))
        sessions = nb.njit(cache=True, parallel=True)(_copy(_sessions, tag, SESSION=session))
        replay = nb.njit(cache=True)(_copy(_replay_decks, tag, PLAY=kernel.play))
        _built[key] = Kernels(chunks, sessions, replay)
    return _built[key]


@nb.njit(cache=True, parallel=True)
def draw_floor(seed: int, chunks: int, rounds: int, cards: int) -> int:
    """Only draw the cards of ``rounds`` rounds, chunked like a simulation: the speed a
    simulator cannot beat. Returns a checksum so the work cannot be dropped."""
    checksums = np.zeros(chunks, dtype=np.int64)
    for chunk in nb.prange(chunks):
        count = min(CHUNK_ROUNDS, rounds - chunk * CHUNK_ROUNDS)
        checksums[chunk] = draw_only(seed, chunk, count, cards)
    return int(checksums.sum())
