"""The toy game in the simulator: the compiled round and its strategy table.

Wager slots: ``ante`` (Ante and Raise together, per unit of Ante) and the capped hand
``total``. A strategy is ``table[rank]``: 1 raises, 0 folds (13 entries, a deuce first).
Every exact value comes from :mod:`.exact`; this module only turns it into arrays.

>>> rules = ToyRules.model_validate(EXAMPLE)
>>> optimal_strategy(rules).table.tolist()
[0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
>>> exact_edges(rules, optimal_strategy(rules), Fraction(0))
{'ante': Fraction(-29, 221)}
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import Final

import numba as nb
import numpy as np

from feltlab.core.cards import RANKS
from feltlab.core.rng import Deck, State, chance, mistake
from feltlab.core.simkit import I8, I64, U64, Strategy, cap_value, capped

from . import exact
from .rules import EXAMPLE, ToyRules
from .strategy import ToyStrategy, parse_toy_strategy

WAGERS: Final = ("ante", "total")
COUNTER_NAMES: Final = ("fold", "raise", "capped")
C_FOLD, C_RAISE, C_CAPPED = 0, 1, 2
P_ANTE, P_MULTIPLE, P_CAP, P_MISTAKE = range(4)
PARAMS: Final = 4
RANK_COUNT: Final = len(RANKS)

__all__ = ["COUNTER_NAMES", "EXAMPLE", "WAGERS", "capped_total", "cards_per_round",
           "check_strategy", "exact_edges", "file_strategy", "most_at_risk",
           "optimal_strategy", "params", "play", "simple_strategy"]


def params(rules: ToyRules, bets: dict[str, int], mistake_threshold: int) -> I64:
    """Every number the compiled round needs, read from the rule set."""
    p = np.zeros(PARAMS, dtype=np.int64)
    p[P_ANTE] = bets.get("ante", 0)
    p[P_MULTIPLE] = rules.raise_multiple
    p[P_CAP] = cap_value(rules.max_aggregate_payout)
    p[P_MISTAKE] = mistake_threshold
    return p


def cards_per_round(seats: int) -> int:
    return seats + 1


@nb.njit(inline="always")
def play(deck: Deck, seats: int, p: I64, table: I8, table2: I8, table3: I8,
         keys: U64, values: I8, state: State, nets: I64, counters: I64) -> None:
    """Play and settle one dealt round: seat ``s`` holds ``deck[s]``, the dealer
    ``deck[seats]``. Writes ``nets[s, w]`` per seat and wager slot (see :data:`WAGERS`)."""
    dealer = int(deck[seats]) % 13
    ante = p[P_ANTE]
    for seat in range(seats):
        rank = int(deck[seat]) % 13
        raises = int(table[rank])
        if chance(state, p[P_MISTAKE]):
            raises = mistake(state, raises, 2)
        counters[C_FOLD + raises] += 1
        if raises == 0:
            main = -ante
        else:
            main = (int(rank > dealer) - int(rank < dealer)) * (1 + p[P_MULTIPLE]) * ante
        total = capped(max(main, 0), min(main, 0), p[P_CAP])
        counters[C_CAPPED] += total != main
        nets[seat, 0] = main
        nets[seat, 1] = total


def plan_strategy(plan: ToyStrategy, name: str) -> Strategy:
    """A :class:`~.strategy.ToyStrategy` as the kernel's table."""
    table = np.array([plan.raises(rank) for rank in range(RANK_COUNT)], dtype=np.int8)
    return Strategy(name, table, plan=plan)


def optimal_strategy(rules: ToyRules) -> Strategy:
    """:func:`.exact.optimal_raises` as the kernel's table."""
    return Strategy("optimal", np.array(exact.optimal_raises(rules), dtype=np.int8),
                    optimal=True)


def simple_strategy(rules: ToyRules) -> Strategy:
    """The PAR sheet's strategy card (:func:`.exact.strategy_card_plan`)."""
    return plan_strategy(exact.strategy_card_plan(rules), "simple")


def file_strategy(rules: ToyRules, path: Path) -> Strategy:
    """A strategy file in the format of :mod:`.strategy`."""
    return plan_strategy(parse_toy_strategy(path.read_text("utf-8")), path.stem)


def check_strategy(rules: ToyRules, strategy: Strategy) -> None:
    """Refuse a table of the wrong size or with an entry other than 1 (raise) or 0 (fold)."""
    table = strategy.table
    if table.shape != (RANK_COUNT,):
        raise ValueError(f"a toy strategy table needs {RANK_COUNT} entries, got shape "
                         f"{table.shape}")
    if table.min() < 0 or table.max() > 1:
        raise ValueError("a toy strategy table holds 0 (fold) or 1 (raise) only")


def exact_edges(rules: ToyRules, strategy: Strategy, mistakes: Fraction
                ) -> dict[str, Fraction]:
    """The Ante's exact house edge under any table and mistake rate: a mistake plays the
    other decision, so the edge is ``(1 - rate)`` of the table's plus ``rate`` of the
    opposite table's, both counted over every deal by :func:`.exact.main_wager`."""
    table = [int(entry) for entry in strategy.table]
    chosen = exact.main_wager(rules, lambda rank: bool(table[rank]), "table").house_edge
    flipped = exact.main_wager(rules, lambda rank: not table[rank], "flipped").house_edge
    return {"ante": (1 - mistakes) * chosen + mistakes * flipped}


def capped_total(rules: ToyRules, bets: dict[str, int]) -> Fraction:
    """Exact ``total`` under the optimal strategy: per unit of all the initial wagers."""
    return exact.capped_returns(rules, bets)["total"]


def most_at_risk(rules: ToyRules, bets: Mapping[str, int]) -> int:
    """Ante and Raise, both lost."""
    return rules.most_at_risk(bets["ante"])
