"""The raise decisions of the High Card Flush family, per cell of :mod:`.cells`: the
optimal strategy's, a flush-based strategy's, and the optimal strategy as a table a
simulator can play.

The optimal decision follows from the dealer counts (EV of a raise of ``r`` antes is
``(not_qualified + (worse - better)(1 + r)) / C(45,7)``, EV of a fold is -1; exact ties
go to the larger wager). The counting kernel sorts each hand into a decision category
by its counts (fold, raise 1x, raise the most: see :mod:`.counting`), so a strategy's
decisions are one raise per (flush value, category).

For simulators, :func:`optimal_decision_table` gives the optimal raise by flush value
and flags the few values where it depends on the other cards; for those, Numba code
calls :func:`feltlab.games.high_card_flush.counting.optimal_raise_of_masks` (exact, about a
microsecond).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from feltlab.core.cards import Card
from feltlab.games.high_card_flush import counting as fk
from feltlab.games.high_card_flush.advisor import suit_masks
from feltlab.games.high_card_flush.cells import VALUE_LENGTHS, qualifier_cells
from feltlab.games.high_card_flush.rules import FlushRules
from feltlab.games.high_card_flush.strategy import Strategy

Int64Array = npt.NDArray[np.int64]


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
    cells = qualifier_cells(rules)
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
