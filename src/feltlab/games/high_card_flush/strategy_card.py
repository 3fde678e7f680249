"""The High Card Flush family's strategy card and strategy map, from the cells of
:mod:`.cells`.

The strategy card is the best "raise at the maximum from this flush value up, fold
below" strategy (:func:`threshold_card`), said in a few lines and kept as a
:class:`~feltlab.games.high_card_flush.strategy.Strategy` (the built-in rule sets ship
theirs as ``strategies/ID.toml``, :func:`shipped_strategy`). The strategy map is each
hand group's share of all hands by optimal decision, a group cut in two where the
card's hand falls inside it (:func:`strategy_map`).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import numpy.typing as npt

from feltlab.core import registry
from feltlab.core.cards import RANKS
from feltlab.core.model import StrategyRow, name_splits
from feltlab.games.high_card_flush import counting as fk
from feltlab.games.high_card_flush.cells import VALUE_LENGTHS, qualifier_cells
from feltlab.games.high_card_flush.decisions import max_raise_by_length
from feltlab.games.high_card_flush.rules import FlushRules
from feltlab.games.high_card_flush.strategy import (
    Strategy,
    StrategyRule,
    format_ranks,
    parse_strategy,
)

Int64Array = npt.NDArray[np.int64]


# The strategy card -------------------------------------------------------------------------

def threshold_card(rules: FlushRules, cells: Int64Array) -> tuple[Strategy, tuple[str, ...]]:
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


def card_threshold(strategy: Strategy) -> int | None:
    """The weakest hand a threshold strategy card raises (``None``: it never raises)."""
    return min((rule.threshold for rule in strategy.rule), default=None)


def strategy_card_strategy(rules: FlushRules) -> Strategy:
    """The strategy card of a rule set, derived from the exact cells, as a strategy."""
    return threshold_card(rules, qualifier_cells(rules))[0]


def shipped_strategy(rules_id: str) -> Strategy:
    """The strategy card shipped for a built-in rule set (``strategies/ID.toml`` in this
    family's folder)."""
    path = registry.strategy_file(rules_id)
    if path is None:
        raise ValueError(f"no strategy card is shipped for {rules_id!r}")
    return parse_strategy(path.read_text("utf-8"), f"{rules_id}.toml")


# The strategy map --------------------------------------------------------------------------

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


def strategy_map(cells: Int64Array, decisions: Int64Array,
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
