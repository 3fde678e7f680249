"""High Card Flush family in the simulator: the compiled round, strategies, exact bonuses.

Wager slots: ``ante`` (Ante and Raise together, per unit of Ante), ``flush``,
``straight_flush`` and the capped hand ``total``.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Any, Final

import numba as nb
import numpy as np

from feltlab.evaluators import flush_value_of
from feltlab.kernels import LANE, LANE_BIT, LANE_MASK, POPCOUNT, RUN_LENGTH, flush_value_of_mask
from feltlab.rules import FlushRules
from feltlab.simulate.common import I8, I64, U64, Strategy, bonus_net, cap_value, capped, pay_array
from feltlab.simulate.rng import Deck, State, bounded, chance

WAGERS: Final = ("ante", "flush", "straight_flush", "total")
HAND: Final = 7
VALUES: Final = 8 << 13
"""Size of a table indexed by flush value (``length << 13 | ranks``)."""

# params layout
P_THRESHOLD, P_ANTE, P_FLUSH, P_STRAIGHT, P_FOLD_FLUSH, P_FOLD_STRAIGHT, P_CAP, P_MISTAKE = range(8)
P_RAISE: Final = 8  # 8 entries: largest raise multiple by flush length 0-7
P_FLUSH_PAYS: Final = 16  # 8 entries by flush length
P_STRAIGHT_PAYS: Final = 24  # 8 entries by straight-flush run
PARAMS: Final = 32

# counters
C_QUALIFIED, C_CAPPED, C_FOLD = 0, 1, 2  # C_FOLD + m: decisions of raise multiple m
COUNTER_NAMES: Final = ("dealer_qualified", "capped", "fold", "raise_1x", "raise_2x",
                        "raise_3x")


def params(rules: FlushRules, bets: dict[str, int], mistake_threshold: int) -> I64:
    """Every number the compiled round needs, read from the rule set."""
    p = np.zeros(PARAMS, dtype=np.int64)
    p[P_THRESHOLD] = rules.qualifier.threshold
    p[P_ANTE] = bets.get("ante", 0)
    p[P_FLUSH] = bets.get("flush", 0)
    p[P_STRAIGHT] = bets.get("straight_flush", 0)
    p[P_FOLD_FLUSH] = rules.settled_on_fold["flush"]
    p[P_FOLD_STRAIGHT] = rules.settled_on_fold["straight_flush"]
    p[P_CAP] = cap_value(rules.max_aggregate_payout)
    p[P_MISTAKE] = mistake_threshold
    for length in range(8):
        p[P_RAISE + length] = rules.max_raise_multiple(length)
    p[P_FLUSH_PAYS:P_FLUSH_PAYS + 8] = pay_array(rules.flush_pays, 7)
    p[P_STRAIGHT_PAYS:P_STRAIGHT_PAYS + 8] = pay_array(rules.straight_flush_pays, 7)
    return p


def cards_per_round(seats: int) -> int:
    return HAND * (seats + 1)


@nb.njit(cache=True, inline="always")
def _mask(deck: Deck, start: int) -> np.uint64:
    mask = np.uint64(0)
    for i in range(start, start + HAND):
        mask |= LANE_BIT[deck[i]]
    return mask


@nb.njit(cache=True, inline="always")
def _longest_run(mask: np.uint64) -> int:
    best = 0
    for suit in range(4):
        best = max(best, int(RUN_LENGTH[(mask >> np.uint64(LANE * suit)) & np.uint64(LANE_MASK)]))
    return best


@nb.njit(cache=True, inline="always")
def _ordered(a: np.uint64, b: np.uint64) -> tuple[np.uint64, np.uint64]:
    return (a, b) if a <= b else (b, a)


@nb.njit(cache=True, inline="always")
def canonical_key(mask: np.uint64) -> np.uint64:
    """The hand with its suits forgotten: its four 13-bit suit lanes sorted, packed.

    Two hands that differ only by a renaming of suits get the same key.
    """
    lane = np.uint64(LANE_MASK)
    a, b = _ordered(mask & lane, (mask >> np.uint64(16)) & lane)
    c, d = _ordered((mask >> np.uint64(32)) & lane, (mask >> np.uint64(48)) & lane)
    a, c = _ordered(a, c)
    b, d = _ordered(b, d)
    b, c = _ordered(b, c)
    return (((((a << np.uint64(13)) | b) << np.uint64(13)) | c) << np.uint64(13)) | d


@nb.njit(cache=True)
def _exception(key: np.uint64, keys: U64, values: I8) -> int:
    """Binary search of the sorted exception keys. Kept out of line: a loop inlined into
    the round loop makes the whole round several times slower."""
    low, high = 0, keys.shape[0]
    while low < high:
        middle = (low + high) >> 1
        if keys[middle] < key:
            low = middle + 1
        else:
            high = middle
    return int(values[low])


@nb.njit(cache=True, inline="always")
def _decide(mask: np.uint64, value: int, table: I8, keys: U64, values: I8) -> int:
    """The table's decision; -1 sends the hand to the sorted exception list."""
    multiple = int(table[value])
    return multiple if multiple >= 0 else _exception(canonical_key(mask), keys, values)


@nb.njit(cache=True)
def _mistake(state: State, best: int, choices: int) -> int:
    """A uniformly chosen legal decision other than ``best`` (choices 0..choices-1).

    Out of line on purpose: a loop (the bounded draw's rejection) inlined into the round
    loop makes every round several times slower."""
    if choices < 2:
        return best
    other = bounded(state, choices - 1)
    return other + 1 if other >= best else other


@nb.njit(cache=True, inline="always")
def play(deck: Deck, seats: int, p: I64, table: I8, table2: I8, table3: I8,
         keys: U64, values: I8, state: State, nets: I64, counters: I64) -> None:
    """Play and settle one dealt round: seat ``s`` holds ``deck[7s:7s+7]``, then the dealer.

    Writes ``nets[s, w]`` per seat and wager slot (see :data:`WAGERS`).
    """
    dealer = flush_value_of_mask(_mask(deck, HAND * seats), POPCOUNT)
    qualified = dealer >= p[P_THRESHOLD]
    counters[C_QUALIFIED] += qualified
    ante = p[P_ANTE]
    for seat in range(seats):
        mask = _mask(deck, HAND * seat)
        mine = int(flush_value_of_mask(mask, POPCOUNT))
        length = mine >> 13
        multiple = _decide(mask, mine, table, keys, values)
        if chance(state, p[P_MISTAKE]):
            multiple = _mistake(state, multiple, p[P_RAISE + length] + 1)
        counters[C_FOLD + multiple] += 1
        if multiple == 0:
            main = -ante
        elif not qualified:
            main = ante
        else:
            main = (int(mine > dealer) - int(mine < dealer)) * (1 + multiple) * ante
        if multiple == 0 and p[P_FOLD_FLUSH] == 0:
            flush_net = -p[P_FLUSH]
        else:
            flush_net = bonus_net(p[P_FLUSH_PAYS + length], p[P_FLUSH])
        if multiple == 0 and p[P_FOLD_STRAIGHT] == 0:
            straight_net = -p[P_STRAIGHT]
        else:
            straight_net = bonus_net(p[P_STRAIGHT_PAYS + _longest_run(mask)], p[P_STRAIGHT])
        won = max(main, 0) + max(flush_net, 0) + max(straight_net, 0)
        lost = min(main, 0) + min(flush_net, 0) + min(straight_net, 0)
        total = capped(won, lost, p[P_CAP])
        counters[C_CAPPED] += total != won + lost
        nets[seat, 0] = main
        nets[seat, 1] = flush_net
        nets[seat, 2] = straight_net
        nets[seat, 3] = total


# Strategies -------------------------------------------------------------------------------

def threshold_strategy(rules: FlushRules, least: int, name: str) -> Strategy:
    """Raise the most allowed with a flush value of ``least`` or better, else fold."""
    table = np.zeros(VALUES, dtype=np.int8)
    for value in range(VALUES):
        most = rules.max_raise_multiple(value >> 13)
        table[value] = most if value >= least and most > 0 else 0
    return Strategy(name, table)


SIMPLE_LEAST: Final = flush_value_of(3, (8, 6, 4))  # 3-card flush T-8-6


def simple_strategy(rules: FlushRules) -> Strategy:
    """The published card: raise a 3-card flush of T-8-6 or better, 4+ cards at the most.

    >>> from feltlab.rules import load_rules
    >>> s = simple_strategy(load_rules("high-card-flush"))
    >>> int(s.table[flush_value_of(3, (8, 6, 4))]), int(s.table[flush_value_of(3, (8, 6, 3))])
    (1, 0)
    >>> int(s.table[flush_value_of(6, (12, 11, 10, 9, 8, 7))])
    3
    """
    return threshold_strategy(rules, SIMPLE_LEAST, "simple")


def check_strategy(rules: FlushRules, strategy: Strategy) -> None:
    """Refuse a table that raises more than a flush length allows."""
    table = strategy.table
    if table.shape != (VALUES,):
        raise ValueError(f"a flush strategy table needs {VALUES} entries, got {table.shape}")
    lengths = np.arange(VALUES) >> 13
    most = np.array([rules.max_raise_multiple(int(n)) for n in lengths])
    bad = np.nonzero(table > most)[0]
    if bad.size:
        raise ValueError(f"strategy raises {int(table[bad[0]])}x with flush value "
                         f"{int(bad[0])}, above the {int(most[bad[0]])}x allowed")
    if (table < 0).any() and strategy.keys.size != strategy.values.size:
        raise ValueError("strategy exceptions need one value per key")


# Exact bonus returns (independent of the kernels: counts by suit composition) ------------

def _lane_counts() -> dict[tuple[int, int], int]:
    """Number of 13-bit suit lanes by (cards in the suit, longest straight-flush run)."""
    counts: dict[tuple[int, int], int] = {}
    for lane in range(1 << 13):
        key = (bin(lane).count("1"), int(RUN_LENGTH[lane]))
        counts[key] = counts.get(key, 0) + 1
    return counts


def straight_run_distribution() -> dict[int, int]:
    """Seven-card hands by longest straight-flush run (exact counts of C(52, 7))."""
    by_cards = _lane_counts()
    # states: (cards used, longest run) -> hands, built one suit at a time
    states: dict[tuple[int, int], int] = {(0, 0): 1}
    for _ in range(4):
        following: dict[tuple[int, int], int] = {}
        for (used, run), ways in states.items():
            for (cards, lane_run), lanes in by_cards.items():
                if used + cards <= HAND:
                    key = (used + cards, max(run, lane_run))
                    following[key] = following.get(key, 0) + ways * lanes
        states = following
    return {run: ways for (used, run), ways in states.items() if used == HAND}


def flush_length_distribution() -> dict[int, int]:
    """Seven-card hands by the length of their longest suit (exact counts)."""
    counts: dict[int, int] = {}
    for a in range(8):
        for b in range(8 - a):
            for c in range(8 - a - b):
                d = HAND - a - b - c
                ways = comb(13, a) * comb(13, b) * comb(13, c) * comb(13, d)
                counts[max(a, b, c, d)] = counts.get(max(a, b, c, d), 0) + ways
    return counts


def _bonus_edge(pays: I64, distribution: dict[int, int]) -> Fraction:
    total = sum(distribution.values())
    returned = sum(int(bonus_net(int(pays[count]), 1)) * ways
                   for count, ways in distribution.items())
    return -Fraction(returned, total)


def exact_bonus_edges(rules: FlushRules) -> dict[str, Fraction]:
    """House edges of the bonus wagers that no decision changes.

    In ``nh-flush-poker`` a fold loses the Flush bonus, so its value depends on the
    strategy and is left out here.

    >>> from feltlab.rules import load_rules
    >>> edges = exact_bonus_edges(load_rules("high-card-flush"))
    >>> sorted(edges)
    ['flush', 'straight_flush']
    """
    edges: dict[str, Fraction] = {}
    if rules.settled_on_fold["flush"]:
        edges["flush"] = _bonus_edge(pay_array(rules.flush_pays, 7), flush_length_distribution())
    if rules.settled_on_fold["straight_flush"]:
        edges["straight_flush"] = _bonus_edge(pay_array(rules.straight_flush_pays, 7),
                                              straight_run_distribution())
    return edges


# The optimal strategy and its exact value, from the exact analysis when it is there ------

def _analysis() -> Any:
    try:
        from feltlab.analysis import flush as analysis
    except ImportError:
        return None
    return analysis if hasattr(analysis, "optimal_decision_table") else None


def optimal_strategy(rules: FlushRules) -> Strategy:
    """The exact optimal strategy (``feltlab.analysis.flush``): a raise per flush value,
    and for the flush values whose best play depends on the other suits, every such hand
    up to suit renaming with its own decision. Without the analysis module, the simple
    card stands in (named so)."""
    analysis = _analysis()
    if analysis is None:
        return threshold_strategy(rules, SIMPLE_LEAST, "simple (no exact analysis)")
    return _optimal_from(rules, analysis)


def _optimal_from(rules: FlushRules, analysis: Any) -> Strategy:
    from feltlab.analysis import flush_kernels as fk

    decisions = analysis.optimal_decision_table(rules)
    table = np.asarray(decisions.decision_by_flush_value, dtype=np.int8).copy()
    if not decisions.exceptions:
        return Strategy("optimal", table)
    masks, _ = fk.player_classes()
    keys, values = _exception_decisions(masks.astype(np.int64), table, decisions.qualify,
                                        decisions.max_raise, fk.BINOM,
                                        fk.optimal_raise_of_masks)
    order = np.argsort(keys)
    return Strategy("optimal", table, keys=keys[order], values=values[order])


def _exception_decisions(masks: I64, table: I8, qualify: int, max_raise: I64, binom: I64,
                         decide: Any) -> tuple[U64, I8]:
    return _exceptions_kernel(masks, table, qualify, max_raise, binom, decide)


@nb.njit(cache=False)
def _exceptions_kernel(masks: I64, table: I8, qualify: int, max_raise: I64, binom: I64,
                       decide: Any) -> tuple[U64, I8]:
    count = 0
    flags = np.zeros(masks.shape[0], dtype=np.bool_)
    for i in range(masks.shape[0]):
        value = 0
        for suit in range(4):
            lane = masks[i, suit]
            value = max(value, (POPCOUNT[lane] << 13) | lane)
        if table[value] < 0:
            flags[i] = True
            count += 1
    keys = np.empty(count, dtype=np.uint64)
    values = np.empty(count, dtype=np.int8)
    at = 0
    for i in range(masks.shape[0]):
        if flags[i]:
            mask = np.uint64(0)
            for suit in range(4):
                mask |= np.uint64(masks[i, suit]) << np.uint64(LANE * suit)
            keys[at] = canonical_key(mask)
            values[at] = decide(masks[i], qualify, max_raise, binom)
            at += 1
    return keys, values


def exact_strategy_edges(rules: FlushRules, strategy: Strategy) -> dict[str, Fraction]:
    """Exact house edges that depend on the decisions (the main game; the Flush bonus when
    a fold loses it), from the exact analysis, for its optimal strategy."""
    analysis = _analysis()
    if analysis is None or strategy.name != "optimal":
        return {}
    sheet = analysis.analyze(rules)
    return {wager.name: wager.house_edge for wager in sheet.wagers
            if wager.name in ("ante", "flush")}
