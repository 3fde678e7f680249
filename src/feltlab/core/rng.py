"""The simulator's seeded generator: xoshiro256** in Numba, one independent stream per chunk.

A run is split into fixed chunks of rounds; chunk ``k`` of seed ``s`` gets its own
256-bit state made by SplitMix64 from ``(s, k)``, so a chunk's cards depend on the seed
and the chunk number only, never on how many workers run the chunks or in which order.

Cards are drawn by a partial Fisher-Yates shuffle driven by Lemire's unbiased bounded
integer (multiply, then reject the few values that would bias the result).

>>> state = stream_state(7, 0)
>>> deck = new_deck()
>>> draw_cards(state, deck, 5)
>>> sorted(deck.tolist()) == list(range(52))
True
>>> first = deck[:5].copy()
>>> deck2 = new_deck()
>>> draw_cards(stream_state(7, 0), deck2, 5)
>>> bool((deck2[:5] == first).all())
True
"""

from __future__ import annotations

from typing import Final

import numba as nb
import numpy as np
import numpy.typing as npt

State = npt.NDArray[np.uint64]
Deck = npt.NDArray[np.uint8]

GOLDEN: Final = np.uint64(0x9E3779B97F4A7C15)
MIX1: Final = np.uint64(0xBF58476D1CE4E5B9)
MIX2: Final = np.uint64(0x94D049BB133111EB)
LOW32: Final = np.uint64(0xFFFFFFFF)
SESSION_STREAMS: Final = 1 << 48
"""Stream numbers from here on belong to sessions, below to table simulations."""


@nb.njit(inline="always")
def _mix(z: np.uint64) -> np.uint64:
    z = (z ^ (z >> np.uint64(30))) * MIX1
    z = (z ^ (z >> np.uint64(27))) * MIX2
    return z ^ (z >> np.uint64(31))


@nb.njit(cache=True)
def stream_state(seed: int, stream: int) -> State:
    """The xoshiro256** state of stream ``stream`` of ``seed`` (SplitMix64 seeding)."""
    state = np.empty(4, dtype=np.uint64)
    x = _mix(np.uint64(seed) ^ GOLDEN) ^ _mix(np.uint64(stream) * GOLDEN + np.uint64(1))
    for i in range(4):
        x += GOLDEN
        state[i] = _mix(x)
    return state


@nb.njit(inline="always")
def _rotl(x: np.uint64, k: int) -> np.uint64:
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@nb.njit(inline="always")
def next_u64(state: State) -> np.uint64:
    """Next 64-bit output of xoshiro256** (Blackman and Vigna)."""
    result = _rotl(state[1] * np.uint64(5), 7) * np.uint64(9)
    t = state[1] << np.uint64(17)
    state[2] ^= state[0]
    state[3] ^= state[1]
    state[1] ^= state[2]
    state[0] ^= state[3]
    state[2] ^= t
    state[3] = _rotl(state[3], 45)
    return result


@nb.njit(inline="always")
def next_u32(state: State) -> np.uint64:
    """The high 32 bits of the next output (the best bits of xoshiro256**)."""
    return next_u64(state) >> np.uint64(32)


@nb.njit(inline="always")
def _lemire(state: State, word: np.uint64, n: int) -> int:
    """Lemire's unbiased ``[0, n)`` from a 32-bit ``word``, redrawing in the rare biased
    case (about once in 2**27 draws for a deck)."""
    range_ = np.uint64(n)
    product = word * range_
    low = product & LOW32
    if low < range_:
        threshold = ((LOW32 + np.uint64(1)) - range_) % range_
        while low < threshold:
            product = next_u32(state) * range_
            low = product & LOW32
    return np.int64(product >> np.uint64(32))  # type: ignore[return-value]


@nb.njit(inline="always")
def bounded(state: State, n: int) -> int:
    """A uniform integer in ``[0, n)`` for ``1 <= n < 2**32``: Lemire's method."""
    return _lemire(state, next_u32(state), n)


@nb.njit(inline="always")
def _swap_in(deck: Deck, i: int, j: int) -> None:
    card = deck[i]
    deck[i] = deck[j]
    deck[j] = card


@nb.njit(inline="always")
def draw_cards(state: State, deck: Deck, count: int) -> None:
    """Move ``count`` uniformly chosen cards to the front of ``deck`` (partial Fisher-Yates).

    ``deck`` must hold a permutation of the 52 cards; any permutation will do, so a
    round can start from the order the previous round left. Each 64-bit output feeds
    two draws (both halves of xoshiro256** are full-quality bits).
    """
    size = deck.shape[0]
    i = 0
    while i + 1 < count:
        word = next_u64(state)
        _swap_in(deck, i, i + _lemire(state, word >> np.uint64(32), size - i))
        _swap_in(deck, i + 1, i + 1 + _lemire(state, word & LOW32, size - i - 1))
        i += 2
    if i < count:
        _swap_in(deck, i, i + bounded(state, size - i))


@nb.njit(inline="always")
def chance(state: State, threshold: int) -> bool:
    """True with probability ``threshold / 2**32`` (0 never draws from the stream)."""
    if threshold <= 0:
        return False
    return bool(np.int64(next_u32(state)) < threshold)


def new_deck() -> Deck:
    return np.arange(52, dtype=np.uint8)


def probability_threshold(probability: float) -> int:
    """A probability as the 32-bit threshold :func:`chance` takes.

    >>> probability_threshold(0.5), probability_threshold(0.0)
    (2147483648, 0)
    """
    if not 0.0 <= probability <= 1.0:
        raise ValueError(f"a probability must be between 0 and 1, got {probability}")
    return round(probability * (1 << 32))


@nb.njit(cache=True)
def draw_only(seed: int, stream: int, rounds: int, cards: int) -> int:
    """Draw ``cards`` cards for ``rounds`` rounds and do nothing else: the speed floor.

    Returns a checksum so the compiler cannot drop the work.
    """
    state = stream_state(seed, stream)
    deck = np.arange(52).astype(np.uint8)
    checksum = 0
    for _ in range(rounds):
        draw_cards(state, deck, cards)
        checksum += int(deck[0]) + int(deck[cards - 1])
    return checksum


@nb.njit(cache=True)
def mistake(state: State, best: int, choices: int) -> int:
    """A uniformly chosen legal decision other than ``best`` (choices 0..choices-1).

    Out of line on purpose: a loop (the bounded draw's rejection) inlined into the round
    loop makes every round several times slower."""
    if choices < 2:
        return best
    other = bounded(state, choices - 1)
    return other + 1 if other >= best else other
