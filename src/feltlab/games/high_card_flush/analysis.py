"""Exact math of the High Card Flush family (any :class:`~feltlab.core.rules.FlushRules`).

How it is computed (see :mod:`feltlab.games.high_card_flush.counting`): every player hand is
enumerated up to a permutation of the suits (6,009,159 classes whose weights add up to
C(52,7) = 133,784,560), and for each the dealer hands are *counted*, not dealt: with the
player's cards removed, the number of the C(45,7) = 45,379,620 dealer hands whose flush
is below a threshold is one coefficient of a product of four small per-suit
polynomials. Three thresholds per hand (the qualifier, the player's value, the value
plus one) give the dealer hands that do not qualify, are beaten, tie, or win.

The optimal decision follows from those counts (EV of a raise of ``r`` antes is
``(not_qualified + (worse - better)(1 + r)) / C(45,7)``, EV of a fold is -1; exact ties
go to the larger wager). Hands are accumulated into cells by (flush value, longest
straight-flush run, decision category), which is all that the PAR sheet, any
flush-based strategy (:func:`evaluate_strategy`), the strategy card and the capped
returns (:func:`capped_returns`) need. The cells depend only on the qualifier, so they
are computed once per qualifier and process (and kept on disk). Only the dealer hands
that do not qualify depend on the qualifier: the dealer hands below and tied with each
class are counted once for every qualifier (:mod:`.qualifier_pass`), so a qualifier never
counted before takes one quick pass (a tenth of a second or so) rather than a new
enumeration.

The per-hand advisor is :mod:`.advisor` (re-exported here). For simulators,
:func:`optimal_decision_table` gives the optimal raise by flush value
and flags the few values where it depends on the other cards; for those, Numba code
calls :func:`feltlab.games.high_card_flush.counting.optimal_raise_of_masks` (exact, about a
microsecond).

>>> from feltlab.core.rules import load_rules
>>> from feltlab.core.cards import parse_cards
>>> advice = advise(load_rules("high-card-flush"), parse_cards("Th 8h 6h Js Ad Qd Jc"))
>>> advice.best, round(float(advice.options[1].ev), 6)
('raise 1x', -0.811515)
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Final, Literal

import numba as nb
import numpy as np
import numpy.typing as npt

import feltlab.core.cache as derived
from feltlab.core import registry
from feltlab.core.cards import RANKS, Card
from feltlab.core.kernels import RUN_LENGTH
from feltlab.core.memo import RecordCodec, StrategyMemo, fields_key
from feltlab.core.model import (
    OutcomeLine,
    ParSheet,
    Progress,
    StrategyCard,
    StrategyRow,
    WagerAnalysis,
    name_splits,
)
from feltlab.core.records import (
    Record,
    card_of_record,
    card_record,
    rows_of_record,
    rows_record,
    wager_of_record,
    wager_record,
)
from feltlab.core.rules import pays_for
from feltlab.core.settle import capped_shares, check_wagers
from feltlab.core.status import COMPILING, compiled, notice, step
from feltlab.games.high_card_flush import counting as fk
from feltlab.games.high_card_flush import qualifier_pass as qp
from feltlab.games.high_card_flush.advisor import advise as advise
from feltlab.games.high_card_flush.advisor import suit_masks
from feltlab.games.high_card_flush.rules import BONUSES as FLUSH_BONUSES
from feltlab.games.high_card_flush.rules import FlushRules
from feltlab.games.high_card_flush.settle import flush_bonus_result
from feltlab.games.high_card_flush.strategy import (
    Strategy,
    StrategyRule,
    format_ranks,
    load_strategy,
    parse_strategy,
)

Int64Array = npt.NDArray[np.int64]

BATCHES: Final = 12
CHUNKS_PER_THREAD: Final = 4
DEALS: Final = fk.PLAYER_HANDS * fk.DEALER_HANDS
LENGTHS: Final = range(2, fk.HAND_SIZE + 1)
VALUE_LENGTHS: Final = fk.VALUES >> fk.RANK_BITS

KEPT_QUALIFIERS: Final = 8
"""Qualifiers whose cells (5.6 MB each) stay in memory; others are read again from the
derived-data cache when asked for."""
_cells_by_qualifier: dict[int, Int64Array] = {}
_cells_lock = threading.RLock()
BonusName = Literal["flush", "straight_flush"]


def _of_length(length: int) -> npt.NDArray[np.bool_]:
    """Which entries of :data:`.counting.VALUES` are flushes of this length."""
    chosen: npt.NDArray[np.bool_] = np.equal(VALUE_LENGTHS, length)
    return chosen


# The enumeration ---------------------------------------------------------------------------

@cache
def _player_classes() -> tuple[npt.NDArray[np.uint16], npt.NDArray[np.uint8]]:
    return fk.player_classes()


def compute_cells(qualify: int, progress: Progress | None = None) -> Int64Array:
    """Count every player hand once: ``cells[value, run, category, quantity]``.

    ``value`` indexes :data:`.counting.VALUES`, ``run`` is the longest straight-flush
    run, ``category`` one of the kernel's decision categories, and the quantities are
    player hands and deals by dealer outcome (see :mod:`.counting`). What does not
    depend on the qualifier is counted once (:func:`_class_counts`); the qualifier's own
    pass is a few look-ups per hand class (:mod:`.qualifier_pass`), and equals
    :func:`reference_cells` exactly.
    """
    classes, weights = _player_classes()
    below, tie = _class_counts()
    acc = fk.new_accumulator(max(1, nb.get_num_threads()))  # even work: a chunk a thread
    length = qualify >> fk.RANK_BITS
    masks_below = np.ascontiguousarray(fk.qualifier_polynomials(qualify)[:, length])
    with step("counting every deal for the qualifier", note=derived.kept()):
        qp.accumulate_qualifier(classes, weights, below, tie, qualify, masks_below,
                                _subset_table(), fk.VALUE_INDEX, RUN_LENGTH, acc)
    if progress is not None:
        progress(1, 1)
    cells: Int64Array = acc.sum(axis=0)
    return cells


@cache
def _subset_table() -> Int64Array:
    return qp.subset_coefficients()


_class_counts_kept: list[tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]] = []
_class_counts_lock = threading.Lock()
_class_counts_prefetched = threading.Event()
CLASS_COUNTS: Final = ("flush-class-counts", "every player hand class")
"""The derived-data cache entry (kind, key) of :func:`_class_counts`."""


def _class_counts() -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
    """Per player class, the dealer hands below its value and tied with it (the same for
    every qualifier): from this process, else the derived-data cache, else counted."""
    with _class_counts_lock:
        if not _class_counts_kept:
            def build() -> dict[str, npt.NDArray[np.int32]]:
                with step("counting every deal by the player's own hand",
                          note=derived.kept()):
                    below, tie = qp.class_counts(_player_classes()[0])
                return {"below": below, "tie": tie}

            found = derived.load_or_build(*CLASS_COUNTS, build, notice)
            below, tie = found["below"], found["tie"]
            size = len(_player_classes()[0])
            if below.shape != (size,) or tie.shape != (size,) or below.dtype != np.int32 \
                    or tie.dtype != np.int32:
                built = build()
                below, tie = built["below"], built["tie"]
            _class_counts_kept.append((below, tie))
        return _class_counts_kept[0]


def _prefetch_class_counts() -> None:
    """Once per process, when the per-class counts are kept on disk, read them (and the
    player classes) in a background thread, so that a qualifier never counted before,
    asked for later (the designer's next edit), finds them in memory: its count is then
    one quick pass. The server's warming reads a rule set's cells first, so this runs
    there; in a command it is a read that the command does not wait for."""
    if _class_counts_prefetched.is_set():
        return
    _class_counts_prefetched.set()
    if _class_counts_kept or not derived.enabled() or \
            not derived.entry_path(*CLASS_COUNTS).is_file():
        return

    def read() -> None:
        with suppress(Exception):  # best effort: a new qualifier reads them anyway
            _class_counts()

    threading.Thread(target=read, name="feltlab-flush-class-counts", daemon=True).start()


def reference_cells(qualify: int, progress: Progress | None = None) -> Int64Array:
    """:func:`compute_cells` the first way: every class's three dealer counts from its
    polynomials (the reference the tests hold the quick pass to)."""
    classes, weights = _player_classes()
    acc = fk.new_accumulator(max(1, nb.get_num_threads()) * CHUNKS_PER_THREAD)
    load_counter(acc)
    qualifier_polys = fk.qualifier_polynomials(qualify)
    total = len(classes)
    with step("counting every deal", note=derived.kept(), total=total) as counting:
        for batch in range(BATCHES):
            start, stop = total * batch // BATCHES, total * (batch + 1) // BATCHES
            fk.accumulate(classes, weights, start, stop, qualify, qualifier_polys, fk.BINOM,
                          fk.VALUE_INDEX, RUN_LENGTH, acc)
            counting(stop, total)
            if progress is not None:
                progress(stop, total)
    cells: Int64Array = acc.sum(axis=0)
    return cells


def load_counter(acc: Int64Array) -> None:
    """Load the compiled counting kernel (compile it the first time), timed apart."""
    classes, weights = _player_classes()
    with step("loading the compiled exact analysis", note=COMPILING) as loading:
        fk.accumulate(classes, weights, 0, 0, 0, fk.qualifier_polynomials(0), fk.BINOM,
                      fk.VALUE_INDEX, RUN_LENGTH, acc)  # an empty range: counts nothing
        compiled(loading, fk.accumulate, "compiling the exact analysis")


def _cells(rules: FlushRules, progress: Progress | None = None) -> Int64Array:
    """The cells for the rule set's qualifier: from this process, else from the
    derived-data cache (:mod:`feltlab.core.cache`; they depend on the qualifier alone), else
    enumerated."""
    qualify = rules.qualifier.threshold
    with _cells_lock:  # one thread reads or counts a qualifier's cells; others wait
        cells = _cells_by_qualifier.pop(qualify, None)
        if cells is None:
            def build() -> dict[str, Int64Array]:
                return {"cells": compute_cells(qualify, progress)}

            found = derived.load_or_build("flush-cells", f"qualifier {qualify}", build, notice)
            cells = found["cells"]
            if cells.shape != cell_shape() or cells.dtype != np.int64:
                cells = build()["cells"]
        _cells_by_qualifier[qualify] = cells  # the most recently used last
        while len(_cells_by_qualifier) > KEPT_QUALIFIERS:
            del _cells_by_qualifier[next(iter(_cells_by_qualifier))]
    _prefetch_class_counts()
    if progress is not None:
        progress(1, 1)
    return cells


def cell_shape() -> tuple[int, ...]:
    return (len(fk.VALUES), fk.HAND_SIZE + 1, fk.CATEGORIES, fk.QUANTITIES)


def clear_cache() -> None:
    """Forget the enumerations done so far (for honest timings)."""
    _cells_by_qualifier.clear()
    _strategy_parts.clear()


# Decisions ---------------------------------------------------------------------------------

def max_raise_by_length(rules: FlushRules) -> Int64Array:
    """``most[length]``: the largest raise, in antes, for each flush length (index 0-7)."""
    return np.array([rules.max_raise_multiple(length) for length in range(fk.HAND_SIZE + 1)],
                    dtype=np.int64)


def optimal_decisions(rules: FlushRules) -> Int64Array:
    """Raise in antes (0 = fold) for each (value index, category) under optimal play."""
    most = max_raise_by_length(rules)[VALUE_LENGTHS]
    decisions = np.zeros((len(fk.VALUES), fk.CATEGORIES), dtype=np.int64)
    decisions[:, fk.RAISE_MIN] = np.minimum(most, 1)
    decisions[:, fk.RAISE_MAX] = most
    return decisions


def strategy_decisions(rules: FlushRules, strategy: Strategy) -> Int64Array:
    """Raise in antes for each (value index, category) under a flush-based strategy."""
    most = max_raise_by_length(rules)
    per_value = [strategy.raise_multiple(int(value), int(most[value >> fk.RANK_BITS]))
                 for value in fk.VALUES]
    return np.repeat(np.array(per_value, dtype=np.int64)[:, None], fk.CATEGORIES, axis=1)


# The main game -----------------------------------------------------------------------------

def _main_lines(cells: Int64Array, decisions: Int64Array) -> tuple[OutcomeLine, ...]:
    by_decision = cells.sum(axis=1)  # (value, category, quantity)
    folded = int(by_decision[decisions == 0][:, fk.HANDS].sum())
    lines = [OutcomeLine("Fold", -1, folded * fk.DEALER_HANDS, 1)]
    for size in sorted(int(r) for r in np.unique(decisions) if r > 0):
        counts = [int(c) for c in by_decision[decisions == size].sum(axis=0)]
        if counts[fk.HANDS] == 0:
            continue
        stake = 1 + size
        lines += [
            OutcomeLine(f"Raise {size}x, dealer does not qualify", 1,
                        counts[fk.NOT_QUALIFIED], stake),
            OutcomeLine(f"Raise {size}x, win", stake, counts[fk.DEALER_WORSE], stake),
            OutcomeLine(f"Raise {size}x, tie", 0, counts[fk.TIE], stake),
            OutcomeLine(f"Raise {size}x, lose", -stake, counts[fk.DEALER_BETTER], stake),
        ]
    return tuple(lines)


def _main_rates(cells: Int64Array, decisions: Int64Array) -> dict[str, Fraction]:
    by_decision = cells.sum(axis=1)
    totals = [int(c) for c in by_decision.sum(axis=(0, 1))]
    raised = by_decision[decisions > 0]
    rates = {
        "raise_rate": Fraction(int(raised[:, fk.HANDS].sum()), fk.PLAYER_HANDS),
        "dealer_qualifies": 1 - Fraction(totals[fk.NOT_QUALIFIED], DEALS),
        "tie": Fraction(totals[fk.TIE], DEALS),
        "push": Fraction(int(raised[:, fk.TIE].sum()), DEALS),
    }
    for size in sorted(int(r) for r in np.unique(decisions) if r > 0):
        hands = int(by_decision[decisions == size][:, fk.HANDS].sum())
        rates[f"raise_{size}x"] = Fraction(hands, fk.PLAYER_HANDS)
    return rates


def _main_wager(cells: Int64Array, decisions: Int64Array, title: str) -> WagerAnalysis:
    return WagerAnalysis("ante", title, _main_lines(cells, decisions), DEALS,
                         _main_rates(cells, decisions), decisions=True)


# Bonus wagers ------------------------------------------------------------------------------

def _hands_by_count(cells: Int64Array, decisions: Int64Array, straight: bool,
                    folded: bool) -> dict[int, int]:
    """Player hands by flush length (or straight-flush run), among folded or played."""
    chosen = ((decisions == 0) == folded)[:, None, :]  # (value, 1, category)
    hands = (cells[..., fk.HANDS] * chosen).sum(axis=2)  # (value, run)
    if straight:
        by_run = hands.sum(axis=0)
        return {run: int(by_run[run]) for run in range(len(by_run)) if by_run[run]}
    return {length: int(hands[_of_length(length)].sum()) for length in LENGTHS}


def _bonus_wager(rules: FlushRules, cells: Int64Array, decisions: Int64Array,
                 name: BonusName) -> WagerAnalysis:
    straight = name == "straight_flush"
    table = rules.straight_flush_pays if straight else rules.flush_pays
    folded = _hands_by_count(cells, decisions, straight, folded=True)
    played = _hands_by_count(cells, decisions, straight, folded=False)
    lines: list[OutcomeLine] = []
    if rules.settled_on_fold[name]:
        for count, hands in folded.items():
            played[count] = played.get(count, 0) + hands
    else:
        lines.append(OutcomeLine("Fold (bonus lost)", -1, sum(folded.values())))
    losing = 0
    by_line: dict[int, int] = {}
    for count, hands in played.items():
        pays = pays_for(table, count)
        if pays is None:
            losing += hands
        else:
            line = max(key for key in table if key <= count)
            by_line[line] = by_line.get(line, 0) + hands
    what = "straight flush" if straight else "flush"
    for line in sorted(table, reverse=True):
        lines.append(OutcomeLine(f"{line}-card {what}", table[line], by_line.get(line, 0),
                                 key=line))
    lines.append(OutcomeLine(f"No paying {what}", -1, losing))
    title = "Straight Flush bonus" if straight else "Flush bonus"
    return WagerAnalysis(name, title, tuple(lines), fk.PLAYER_HANDS)


# Strategy card and map ---------------------------------------------------------------------

def _threshold_card(rules: FlushRules, cells: Int64Array) -> tuple[Strategy, tuple[str, ...]]:
    """The best "raise at the maximum from this flush value up, fold below" strategy."""
    by_value = cells.sum(axis=(1, 2))  # (value, quantity)
    most = max_raise_by_length(rules)[VALUE_LENGTHS]
    fold = -by_value[:, fk.HANDS] * fk.DEALER_HANDS
    edge = by_value[:, fk.DEALER_WORSE] - by_value[:, fk.DEALER_BETTER]
    raise_ev = np.where(most > 0, by_value[:, fk.NOT_QUALIFIED] + edge * (1 + most), fold)
    folds_below = np.concatenate(([0], np.cumsum(fold)))
    raises_from = np.concatenate((np.cumsum(raise_ev[::-1])[::-1], [0]))
    best = int(np.argmax(folds_below + raises_from))
    name = f"{rules.name} strategy card"
    if best == len(fk.VALUES):  # raising never pays
        return Strategy(name=name, rules=rules.id), ("Fold every hand.",)
    threshold = int(fk.VALUES[best])
    length, mask = threshold >> fk.RANK_BITS, threshold & fk.FULL_SUIT
    ranks = tuple(rank for rank in range(12, -1, -1) if mask >> rank & 1)
    sizes = _raise_sizes_text(rules, length)
    rules_list: tuple[StrategyRule, ...]
    lines: tuple[str, ...]
    if mask == (1 << length) - 1:
        rules_list = (StrategyRule(min_length=length, action="max"),)
        lines = (f"Raise every flush of {length} or more cards at the maximum ({sizes}).",
                 "Fold everything else.")
    else:
        partial = (StrategyRule(min_length=length, at_least=format_ranks(ranks), action="max"),)
        partial_line = (f"Raise a {length}-card flush of {format_ranks(ranks)} or better "
                        f"({rules.max_raise_multiple(length)}x).")
        if length == fk.HAND_SIZE:
            rules_list, lines = partial, (partial_line, "Fold everything else.")
        else:
            rules_list = (StrategyRule(min_length=length + 1, action="max"), *partial)
            lines = (f"Raise every flush of {length + 1} or more cards at the maximum "
                     f"({_raise_sizes_text(rules, length + 1)}).",
                     partial_line, "Fold everything else.")
    strategy = Strategy(name=name, rules=rules.id, rule=rules_list)
    return strategy, lines


def _raise_sizes_text(rules: FlushRules, shortest: int) -> str:
    """``'1x with 4 cards, 2x with 5, 3x with 6 or 7'``."""
    groups: list[tuple[int, list[int]]] = []
    for length in range(shortest, fk.HAND_SIZE + 1):
        most = rules.max_raise_multiple(length)
        if groups and groups[-1][0] == most:
            groups[-1][1].append(length)
        else:
            groups.append((most, [length]))
    parts = []
    for position, (most, lengths) in enumerate(groups):
        span = " or ".join(str(n) for n in lengths) if len(lengths) < 3 else \
            f"{lengths[0]} to {lengths[-1]}"
        parts.append(f"{most}x with {span}" + (" cards" if position == 0 else ""))
    return ", ".join(parts)


def _hand_group(value: int) -> str:
    length = value >> fk.RANK_BITS
    if length == 3:
        high = (value & fk.FULL_SUIT).bit_length() - 1
        return f"3-card flush, high card {RANKS[high]}"
    return f"{length}-card flush"


def _split_groups(threshold: int | None) -> dict[int, str]:
    """Each flush value's row name: its hand group, and, in the group the strategy card
    cuts, which side of the card's hand it is on (``'3-card flush, high card T: T-8-6 or
    better'``, ``'...: below T-8-6'``)."""
    names = {int(value): _hand_group(int(value)) for value in fk.VALUES}
    if threshold is None:
        return names
    group = _hand_group(threshold)
    members = [value for value, name in names.items() if name == group]
    if min(members) < threshold:  # the card's hand cuts the group in two
        mask = threshold & fk.FULL_SUIT
        ranks = format_ranks(tuple(rank for rank in range(13) if mask >> rank & 1))
        for value in members:
            names[value] = (f"{group}: {ranks} or better" if value >= threshold
                            else f"{group}: below {ranks}")
    return names


def _other_cards(group: str) -> str:
    """``'other 4 cards'`` for a group of 3-card flushes."""
    return f"other {fk.HAND_SIZE - int(group.split('-', 1)[0])} cards"


def _strategy_map(cells: Int64Array, decisions: Int64Array,
                  threshold: int | None = None) -> tuple[StrategyRow, ...]:
    """Share of all deals by hand group and optimal decision, each row named by the hands
    it holds (``threshold``: the strategy card's hand, which names where a group splits)."""
    hands = cells[..., fk.HANDS].sum(axis=1)  # (value, category)
    names = _split_groups(threshold)
    groups: dict[str, dict[int, int]] = {}
    for index, value in enumerate(fk.VALUES):
        group = groups.setdefault(names[int(value)], {})
        for category in range(fk.CATEGORIES):
            count = int(hands[index, category])
            if count:
                size = int(decisions[index, category])
                group[size] = group.get(size, 0) + count
    all_hands = sum(sum(by_size.values()) for by_size in groups.values())
    rows = []
    for name, by_size in groups.items():
        for size in sorted(by_size):
            decision = "fold" if size == 0 else f"raise {size}x"
            rows.append((name, decision, Fraction(by_size[size], all_hands)))
    return name_splits(rows, _other_cards)


def card_threshold(strategy: Strategy) -> int | None:
    """The weakest hand a threshold strategy card raises (``None``: it never raises)."""
    return min((rule.threshold for rule in strategy.rule), default=None)


# Public API --------------------------------------------------------------------------------

@dataclass(frozen=True)
class _StrategyPart:
    """What the optimal strategy decides: the same for every rule set with the same
    qualifier and raise sizes, whatever its pays, limits or name."""

    decisions: Int64Array
    main: WagerAnalysis
    card: StrategyCard
    strategy_map: tuple[StrategyRow, ...]


def _part_record(part: _StrategyPart) -> Record:
    return {"decisions": part.decisions.tolist(), "main": wager_record(part.main),
            "card": card_record(part.card), "map": rows_record(part.strategy_map)}


def _part_of_record(record: Record) -> _StrategyPart:
    card = card_of_record(record["card"])
    assert card is not None
    return _StrategyPart(np.array(record["decisions"], dtype=np.int64),
                         wager_of_record(record["main"]), card,
                         rows_of_record(record["map"]))


_STRATEGY_FIELDS: Final = ("qualifier", "raise_multiples", "hand_size")
_strategy_parts: StrategyMemo[_StrategyPart] = StrategyMemo(
    kind="flush-strategy-part", codec=RecordCodec(_part_record, _part_of_record))


def _strategy_part(rules: FlushRules, progress: Progress | None) -> _StrategyPart:
    def build() -> _StrategyPart:
        cells = _cells(rules, progress)
        optimal = optimal_decisions(rules)
        main = _main_wager(cells, optimal,
                           "Ante and Raise (optimal strategy), per unit of Ante")
        card_strategy, card_lines = _threshold_card(rules, cells)
        card_wager = _main_wager(cells, strategy_decisions(rules, card_strategy),
                                 "strategy card")
        card = StrategyCard(card_lines, card_wager.house_edge, main.house_edge)
        return _StrategyPart(optimal, main, card,
                             _strategy_map(cells, optimal, card_threshold(card_strategy)))

    return _strategy_parts.get_or_build(fields_key(rules, _STRATEGY_FIELDS), build)


def analyze(rules: FlushRules, progress: Progress | None = None) -> ParSheet:
    """The exact PAR sheet: main game under optimal play and both bonus wagers."""
    part = _strategy_part(rules, progress)
    cells, optimal, main, card = _cells(rules, progress), part.decisions, part.main, part.card
    notes = [
        "Exact: every player hand (up to suit permutation) against all C(45,7) dealer hands.",
        "Optimal strategy breaks exact EV ties toward the larger wager.",
    ]
    if not rules.settled_on_fold["flush"]:
        notes.append("A fold loses the Flush bonus: it is analysed with the player following "
                     "the optimal main-game strategy (a folded hand loses the bonus).")
    if not rules.settled_on_fold["straight_flush"]:
        notes.append("A fold loses the Straight Flush bonus: it is analysed with the player "
                     "following the optimal main-game strategy.")
    if rules.max_aggregate_payout is not None:
        notes.append(f"Figures ignore the ${rules.max_aggregate_payout:,} aggregate payout "
                     "cap; see capped_returns for its effect at given bet sizes.")
    return ParSheet(
        rules_id=rules.id,
        rules_name=rules.name,
        wagers=(main, _bonus_wager(rules, cells, optimal, "flush"),
                _bonus_wager(rules, cells, optimal, "straight_flush")),
        strategy_card=card,
        strategy_map=part.strategy_map,
        notes=tuple(notes),
    )


def evaluate_strategy(rules: FlushRules, strategy: Strategy | str | Path) -> WagerAnalysis:
    """Exact main-game return (per ante) of a flush-based strategy (a model or a file)."""
    if not isinstance(strategy, Strategy):
        strategy = load_strategy(strategy)
    cells = _cells(rules)
    return _main_wager(cells, strategy_decisions(rules, strategy),
                       f"Ante and Raise ({strategy.name}), per unit of Ante")


def strategy_card_strategy(rules: FlushRules) -> Strategy:
    """The strategy card of a rule set, derived from the exact cells, as a strategy."""
    return _threshold_card(rules, _cells(rules))[0]


def shipped_strategy(rules_id: str) -> Strategy:
    """The strategy card shipped for a built-in rule set (``strategies/ID.toml`` in this
    family's folder)."""
    path = registry.strategy_file(rules_id)
    if path is None:
        raise ValueError(f"no strategy card is shipped for {rules_id!r}")
    return parse_strategy(path.read_text("utf-8"), f"{rules_id}.toml")


@dataclass(frozen=True)
class OptimalDecisionTable:
    """What a simulator needs to play exactly the optimal strategy.

    ``decision_by_flush_value[v]`` (``v = length << 13 | ranks``, 65,536 entries) is the
    optimal raise in antes (0 = fold) when every hand of flush value ``v`` has the same
    optimal decision, and -1 when it depends on the other cards (those values are listed
    in ``exceptions``). For a -1, call ``counting.optimal_raise_of_masks(masks,
    qualify, max_raise, counting.BINOM)`` with the hand's four suit masks (int64).
    """

    decision_by_flush_value: npt.NDArray[np.int8]
    exceptions: tuple[int, ...]
    exception_share: Fraction  # share of all player hands whose value is an exception
    qualify: int
    max_raise: Int64Array

    def decide(self, cards: Sequence[Card]) -> int:
        masks = suit_masks(cards)
        decision = int(self.decision_by_flush_value[fk.flush_value_of_masks(masks)])
        if decision >= 0:
            return decision
        return int(fk.optimal_raise_of_masks(masks, self.qualify, self.max_raise, fk.BINOM))


def optimal_decision_table(rules: FlushRules) -> OptimalDecisionTable:
    """The optimal strategy as a lookup table by flush value plus exact exceptions."""
    cells = _cells(rules)
    decisions = optimal_decisions(rules)
    hands = cells[..., fk.HANDS].sum(axis=1)  # (value, category)
    table = np.zeros(fk.VALUE_SPACE, dtype=np.int8)
    exceptions = []
    exception_hands = 0
    for index, value in enumerate(fk.VALUES):
        seen = {int(decisions[index, c]) for c in range(fk.CATEGORIES) if hands[index, c]}
        if len(seen) == 1:
            table[value] = seen.pop()
        else:
            table[value] = -1
            exceptions.append(int(value))
            exception_hands += int(hands[index].sum())
    return OptimalDecisionTable(table, tuple(exceptions),
                                Fraction(exception_hands, fk.PLAYER_HANDS),
                                rules.qualifier.threshold, max_raise_by_length(rules))


# Capped returns ----------------------------------------------------------------------------

def joint_distribution(rules: FlushRules) -> dict[tuple[int, str, int, int], int]:
    """Deals by (raise in antes, main outcome, flush length, straight-flush run) under the
    optimal strategy; outcome is ``fold``, ``not_qualified``, ``win``, ``tie``, ``lose``."""
    cells = _cells(rules)
    decisions = optimal_decisions(rules)
    joint: dict[tuple[int, str, int, int], int] = {}
    outcomes = (("not_qualified", fk.NOT_QUALIFIED), ("win", fk.DEALER_WORSE),
                ("tie", fk.TIE), ("lose", fk.DEALER_BETTER))
    for length in LENGTHS:
        rows = cells[_of_length(length)]  # (value, run, category, quantity)
        row_decisions = decisions[_of_length(length)]  # (value, category)
        for size in sorted({int(d) for d in np.unique(row_decisions)}):
            chosen = np.where((row_decisions == size)[:, None, :, None], rows, 0).sum(axis=(0, 2))
            for run in range(chosen.shape[0]):
                counts = chosen[run]
                if size == 0:
                    key = (0, "fold", length, run)
                    joint[key] = joint.get(key, 0) + int(counts[fk.HANDS]) * fk.DEALER_HANDS
                    continue
                for outcome, quantity in outcomes:
                    key = (size, outcome, length, run)
                    joint[key] = joint.get(key, 0) + int(counts[quantity])
    return {key: count for key, count in joint.items() if count}


def _main_net(size: int, outcome: str) -> int:
    return {"fold": -1, "not_qualified": 1, "win": 1 + size, "tie": 0,
            "lose": -(1 + size)}[outcome]


def capped_returns(rules: FlushRules, bets: Mapping[str, int]) -> dict[str, Fraction]:
    """House edge of each wager (per unit of it) at these bet sizes once the aggregate
    payout cap is applied, plus ``total`` (per unit of all the initial bets).

    A capped hand's reduction is shared by its winning wagers in proportion to their wins.
    ``ante`` is the whole main game (ante and raise) under the optimal strategy.
    """
    stakes = check_wagers(rules, bets)
    ante = stakes["ante"]
    expected = {name: Fraction(0) for name in stakes}
    for (size, outcome, length, run), count in joint_distribution(rules).items():
        folded = size == 0
        results = {"ante": ante * _main_net(size, outcome)}
        for name, hand_count in zip(FLUSH_BONUSES, (length, run), strict=True):
            if name in stakes:
                results[name] = flush_bonus_result(rules, name, hand_count, stakes[name],
                                                   folded)
        for wager, net in capped_shares(results, rules.max_aggregate_payout).items():
            expected[wager] += net * count
    edges = {name: -expected[name] / (DEALS * stakes[name]) for name in stakes}
    edges["total"] = -sum(expected.values(), Fraction(0)) / (DEALS * sum(stakes.values()))
    return edges
