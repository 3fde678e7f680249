"""High Card Flush family in the simulator: the compiled round and its strategy tables.

Wager slots: ``ante`` (Ante and Raise together, per unit of Ante), ``flush``,
``straight_flush`` and the capped hand ``total``. Strategies and exact values come from
the analysis (:mod:`.decisions`, :mod:`.strategy_card`, :mod:`.wagers`,
:mod:`.analysis`); this module only turns them into the kernel's arrays.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Final

import numba as nb
import numpy as np

from feltlab.core.kernels import (
    LANE,
    LANE_BIT,
    LANE_MASK,
    POPCOUNT,
    RUN_LENGTH,
    flush_value_of_mask,
)
from feltlab.core.rng import Deck, State, chance, mistake
from feltlab.core.simkit import I8, I64, U64, Strategy, bonus_net, cap_value, capped, pay_array
from feltlab.games.high_card_flush import counting as fk
from feltlab.games.high_card_flush.rules import FlushRules

if TYPE_CHECKING:  # the analysis is imported when a strategy or an exact value is derived
    from feltlab.games.high_card_flush.decisions import OptimalDecisionTable
    from feltlab.games.high_card_flush.strategy import Strategy as FlushStrategy

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


@nb.njit(inline="always")
def _mask(deck: Deck, start: int) -> np.uint64:
    mask = np.uint64(0)
    for i in range(start, start + HAND):
        mask |= LANE_BIT[deck[i]]
    return mask


@nb.njit(inline="always")
def _longest_run(mask: np.uint64) -> int:
    best = 0
    for suit in range(4):
        best = max(best, int(RUN_LENGTH[(mask >> np.uint64(LANE * suit)) & np.uint64(LANE_MASK)]))
    return best


@nb.njit(inline="always")
def _ordered(a: np.uint64, b: np.uint64) -> tuple[np.uint64, np.uint64]:
    return (a, b) if a <= b else (b, a)


@nb.njit(inline="always")
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


GOLDEN: Final = np.uint64(0x9E3779B97F4A7C15)
VALUE_SHIFT: Final = np.uint64(56)
"""An exception entry is ``key | (decision + 1) << 56`` (a key takes 52 bits; 0 = empty)."""


@nb.njit(cache=True)
def exception_decision(key: np.uint64, entries: U64) -> int:
    """The decision stored for ``key`` in the open-addressing table ``entries`` (see
    :func:`hash_exceptions`), -1 when absent. Kept out of line: a loop inlined into the
    round loop makes the whole round several times slower."""
    mask = np.uint64(entries.shape[0] - 1)
    slot = ((key * GOLDEN) >> np.uint64(32)) & mask
    while True:
        entry = entries[slot]
        if entry == 0:
            return -1
        if (entry & ((np.uint64(1) << VALUE_SHIFT) - np.uint64(1))) == key:
            return int(entry >> VALUE_SHIFT) - 1
        slot = (slot + np.uint64(1)) & mask


@nb.njit(cache=True)
def _fill_entries(keys: U64, values: I8, entries: U64) -> None:
    mask = np.uint64(entries.shape[0] - 1)
    for i in range(keys.shape[0]):
        slot = ((keys[i] * GOLDEN) >> np.uint64(32)) & mask
        while entries[slot] != 0:
            slot = (slot + np.uint64(1)) & mask
        entries[slot] = keys[i] | (np.uint64(values[i] + 1) << VALUE_SHIFT)


def hash_exceptions(keys: U64, values: I8) -> U64:
    """The exception hands as an open-addressing hash table (linear probing, at most 2/3
    full, a power of two in size): one cache line read per lookup where a binary search
    of 300,000 sorted keys reads about ten.

    >>> entries = hash_exceptions(np.array([5, 9], dtype=np.uint64), np.array([0, 3], np.int8))
    >>> [exception_decision(np.uint64(k), entries) for k in (5, 9, 7)]
    [0, 3, -1]
    """
    size = 1 << max(1, int(np.ceil(np.log2(max(1, keys.size) * 1.5))))
    entries = np.zeros(size, dtype=np.uint64)
    _fill_entries(keys, values, entries)
    return entries


@nb.njit(inline="always")
def decide(mask: np.uint64, value: int, table: I8, keys: U64, values: I8) -> int:
    """The strategy's raise multiple (0: fold) for a hand given as its mask and flush value.

    ``table[value]`` is the decision, or ``-(d + 1)`` for a flush value whose best play
    depends on the other suits: then the hand's own decision is in the exception table
    ``keys`` (see :func:`hash_exceptions`) when it differs from the value's usual ``d``.
    ``values`` is unused."""
    multiple = int(table[value])
    return multiple if multiple >= 0 else _exception_or_usual(canonical_key(mask), multiple, keys)


@nb.njit(inline="always")
def decide_key(key: np.uint64, value: int, table: I8, keys: U64) -> int:
    """:func:`decide` for a hand given as its :func:`canonical_key`."""
    multiple = int(table[value])
    return multiple if multiple >= 0 else _exception_or_usual(key, multiple, keys)


@nb.njit(inline="always")
def _exception_or_usual(key: np.uint64, code: int, keys: U64) -> int:
    """The hand's own decision from the exception table, else its value's usual one
    (``code`` is the table's ``-(usual + 1)``)."""
    found = exception_decision(key, keys)
    return found if found >= 0 else -code - 1


@nb.njit(inline="always")
def play(deck: Deck, seats: int, p: I64, table: I8, table2: I8, table3: I8,
         keys: U64, values: I8, state: State, nets: I64, counters: I64) -> None:
    """Play and settle one dealt round: seat ``s`` holds ``deck[7s:7s+7]``, then the dealer.

    Writes ``nets[s, w]`` per seat and wager slot (see :data:`WAGERS`).
    """
    dealer = int(flush_value_of_mask(_mask(deck, HAND * seats), POPCOUNT))
    qualified = dealer >= p[P_THRESHOLD]
    counters[C_QUALIFIED] += qualified
    ante = p[P_ANTE]
    for seat in range(seats):
        mask = _mask(deck, HAND * seat)
        mine = int(flush_value_of_mask(mask, POPCOUNT))
        length = mine >> 13
        multiple = decide(mask, mine, table, keys, values)
        if chance(state, p[P_MISTAKE]):
            multiple = mistake(state, multiple, p[P_RAISE + length] + 1)
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


# Strategies: the analysis's decisions as the kernel's arrays ------------------------------

def plan_strategy(rules: FlushRules, plan: FlushStrategy, name: str) -> Strategy:
    """A flush-based strategy of :mod:`feltlab.games.high_card_flush.strategy` as a table by flush
    value (decisions from :func:`.decisions.strategy_decisions`)."""
    from feltlab.games.high_card_flush.decisions import strategy_decisions

    decisions = strategy_decisions(rules, plan)
    table = np.zeros(VALUES, dtype=np.int8)
    table[fk.VALUES] = decisions[:, 0]
    return Strategy(name, table, plan=plan)


def simple_strategy(rules: FlushRules) -> Strategy:
    """The analysis's strategy card (:func:`.strategy_card.strategy_card_strategy`).

    >>> from feltlab.core.evaluators import flush_value_of
    >>> from feltlab.core.rules import load_rules
    >>> s = simple_strategy(load_rules("high-card-flush"))
    >>> int(s.table[flush_value_of(3, (8, 6, 4))]), int(s.table[flush_value_of(3, (8, 6, 3))])
    (1, 0)
    >>> int(s.table[flush_value_of(6, (12, 11, 10, 9, 8, 7))])
    3
    """
    from feltlab.games.high_card_flush.strategy_card import strategy_card_strategy

    return plan_strategy(rules, strategy_card_strategy(rules), "simple")


def file_strategy(rules: FlushRules, path: Path) -> Strategy:
    """A strategy file in the format of :mod:`feltlab.games.high_card_flush.strategy`."""
    from feltlab.games.high_card_flush.strategy import load_strategy

    return plan_strategy(rules, load_strategy(path), path.stem)


def check_strategy(rules: FlushRules, strategy: Strategy) -> None:
    """Refuse a table that raises more than a flush length allows."""
    table = strategy.table
    if table.shape != (VALUES,):
        raise ValueError(f"a flush strategy table needs {VALUES} entries, got {table.shape}")
    most_by_length = np.array([rules.max_raise_multiple(length) for length in range(8)])
    most = most_by_length[np.arange(VALUES) >> 13]
    bad = np.nonzero(table > most)[0]
    if bad.size:
        raise ValueError(f"strategy raises {int(table[bad[0]])}x with flush value "
                         f"{int(bad[0])}, above the {int(most[bad[0]])}x allowed")
    usual = -table.astype(np.int64) - 1  # the usual decision of a value with exceptions
    bad = np.nonzero((table < 0) & (usual > most))[0]
    if bad.size:
        raise ValueError(f"strategy raises {int(usual[bad[0]])}x with flush value "
                         f"{int(bad[0])}, above the {int(most[bad[0]])}x allowed")


_OPTIMAL: dict[str, Strategy] = {}


def optimal_strategy(rules: FlushRules) -> Strategy:
    """The exact optimal strategy (:func:`.decisions.optimal_decision_table`):
    a raise per flush value, and for the flush values whose best play depends on the other
    suits, every such hand up to suit renaming with its own decision (the analysis's
    ``optimal_raise_of_masks``). Computed once per rule set and process."""
    from feltlab.games.high_card_flush.decisions import optimal_decision_table

    key = rules.model_dump_json()
    if key not in _OPTIMAL:
        _OPTIMAL[key] = _optimal_from(optimal_decision_table(rules))
    return _OPTIMAL[key]


def _optimal_from(decisions: OptimalDecisionTable) -> Strategy:
    table = np.asarray(decisions.decision_by_flush_value, dtype=np.int8).copy()
    if not decisions.exceptions:
        return Strategy("optimal", table, optimal=True)
    masks, _ = fk.player_classes()
    keys, values, flush_values = _exceptions_kernel(masks.astype(np.int64), table,
                                                    decisions.qualify, decisions.max_raise,
                                                    fk.BINOM)
    return Strategy("optimal", table, keys=compact_exceptions(table, keys, values, flush_values),
                    optimal=True)


def compact_exceptions(table: I8, keys: U64, values: I8, flush_values: I64) -> U64:
    """Mark each flush value of the exception hands with its usual decision ``d`` as
    ``-(d + 1)`` in ``table`` and return the exception table of the other hands only (a
    quarter of them for High Card Flush, so the table stays in the processor's cache).

    >>> table = np.zeros(4, dtype=np.int8)
    >>> keys = np.array([11, 12, 13, 21], dtype=np.uint64)
    >>> entries = compact_exceptions(table, keys, np.array([1, 1, 0, 2], np.int8),
    ...                              np.array([1, 1, 1, 2]))
    >>> table.tolist(), [decide_key(np.uint64(k), 1, table, entries) for k in (11, 12, 13)]
    ([0, -2, -3, 0], [1, 1, 0])
    """
    unusual = np.zeros(keys.size, dtype=np.bool_)
    for value in np.unique(flush_values):
        hands = flush_values == value
        usual = int(np.bincount(values[hands]).argmax())
        table[value] = -(usual + 1)
        unusual |= hands & (values != usual)
    return hash_exceptions(keys[unusual], values[unusual])


@nb.njit(cache=True)
def _exceptions_kernel(masks: I64, table: I8, qualify: int, max_raise: I64,
                       binom: I64) -> tuple[U64, I8, I64]:
    """Every hand (up to suit renaming) of a flush value marked -1 in ``table``: its key,
    its optimal decision and its flush value."""
    count = 0
    flags = np.zeros(masks.shape[0], dtype=np.bool_)
    hand_values = np.zeros(masks.shape[0], dtype=np.int64)
    for i in range(masks.shape[0]):
        value = 0
        for suit in range(4):
            lane = masks[i, suit]
            value = max(value, (POPCOUNT[lane] << 13) | lane)
        hand_values[i] = value
        if table[value] < 0:
            flags[i] = True
            count += 1
    keys = np.empty(count, dtype=np.uint64)
    values = np.empty(count, dtype=np.int8)
    flush_values = np.empty(count, dtype=np.int64)
    at = 0
    for i in range(masks.shape[0]):
        if flags[i]:
            mask = np.uint64(0)
            for suit in range(4):
                mask |= np.uint64(masks[i, suit]) << np.uint64(LANE * suit)
            keys[at] = canonical_key(mask)
            values[at] = fk.optimal_raise_of_masks(masks[i], qualify, max_raise, binom)
            flush_values[at] = hand_values[i]
            at += 1
    return keys, values, flush_values


# Exact values, from the analysis ----------------------------------------------------------

def _never_folds_a_paying_flush(rules: FlushRules, table: I8) -> bool:
    """Whether no hand whose flush the Flush bonus pays is (or may be, -1) folded."""
    from feltlab.games.high_card_flush.cells import VALUE_LENGTHS

    if not rules.flush_pays:
        return True
    paying = fk.VALUES[np.greater_equal(VALUE_LENGTHS, min(rules.flush_pays))]
    return bool((table[paying] > 0).all())


def exact_edges(rules: FlushRules, strategy: Strategy,
                rate: Fraction) -> dict[str, Fraction]:
    """The house edges the analysis gives exactly for this strategy (uncapped, per unit).

    A bonus settled on a fold does not depend on the decisions. ``nh-flush-poker``'s Flush
    bonus is lost on a fold: its PAR-sheet value (for the optimal strategy) also holds for
    any strategy that, like the optimal one, never folds a hand the bonus pays. With
    mistakes (random decisions) the main game has no exact value here.
    """
    from feltlab.games.high_card_flush import analysis as analysis
    from feltlab.games.high_card_flush import wagers as wagers
    from feltlab.games.high_card_flush.strategy import Strategy as FlushStrategy

    mistakes = rate > 0
    sheet = analysis.analyze(rules)
    edges: dict[str, Fraction] = {}
    for name in ("flush", "straight_flush"):
        settled = rules.settled_on_fold[name] or (strategy.optimal and not mistakes)
        if not settled and name == "flush" and not mistakes:
            settled = _never_folds_a_paying_flush(rules, strategy.table) and \
                _never_folds_a_paying_flush(rules, optimal_strategy(rules).table)
        if settled:
            edges[name] = sheet.wager(name).house_edge
    if not mistakes and strategy.optimal:
        edges["ante"] = sheet.wager("ante").house_edge
    elif not mistakes and isinstance(strategy.plan, FlushStrategy):
        edges["ante"] = wagers.evaluate_strategy(rules, strategy.plan).house_edge
    return edges


def capped_total(rules: FlushRules, bets: dict[str, int]) -> Fraction:
    """Exact ``total`` under the optimal strategy: per unit of all the initial wagers."""
    from feltlab.games.high_card_flush import wagers as wagers

    return wagers.capped_returns(rules, bets)["total"]

