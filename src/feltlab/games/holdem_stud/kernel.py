"""Hold'em Stud in the simulator: the compiled round and its strategy tables.

Wager slots: ``ante`` (Ante and every street bet together, per unit of Ante),
``bonus3`` and the capped hand ``total``.

The decisions are :func:`feltlab.games.holdem_stud.analysis.decision_tables` (the optimal strategy)
or the analysis's :func:`~feltlab.games.holdem_stud.strategy.strategy_choices` of a
strategy (the strategy card, a strategy file), in the same layout, flattened: at the
street with ``L`` community cards turned, row = colex rank of the sorted known cards
(the player's 2 and the ``L`` turned), column = street bets made so far minus ``L``.
Exact values come from :mod:`feltlab.games.holdem_stud.analysis`.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Final

import numba as nb
import numpy as np

from feltlab.core.evaluators import PokerHand, ThreeCardHand
from feltlab.core.kernels import poker_class_of_row, three_card_class_of_row
from feltlab.core.rng import Deck, State, chance, mistake
from feltlab.core.simkit import I8, I64, U64, Strategy, cap_value, capped
from feltlab.games.holdem_stud.rules import HoldemStudRules
from feltlab.games.holdem_stud.solver import binomials, set_colex_index

if TYPE_CHECKING:  # the analysis is imported when a strategy or an exact value is derived
    from feltlab.games.holdem_stud.strategy import StudStrategy

WAGERS: Final = ("ante", "bonus3", "total")
HOLE: Final = 2
COMMUNITY: Final = 3
STREETS: Final = 3
BINOM: Final = binomials()

P_ANTE, P_BONUS3, P_CAP, P_MISTAKE, P_MOST = range(5)
P_PAYS: Final = 8  # 12 entries by PokerHand
P_BONUS3_PAYS: Final = 20  # 6 entries by ThreeCardHand
PARAMS: Final = 32

C_FOLD1, C_FOLD2, C_FOLD3, C_SHOWDOWN, C_CAPPED, C_STREET_ANTES = range(6)
COUNTER_NAMES: Final = ("fold_street1", "fold_street2", "fold_street3", "showdown", "capped",
                        "street_bets_in_antes")


def pays_by_class(rules: HoldemStudRules) -> I64:
    return np.array([rules.net_multiple(hand) for hand in PokerHand], dtype=np.int64)


def params(rules: HoldemStudRules, bets: dict[str, int], mistake_threshold: int) -> I64:
    if rules.streets != STREETS:
        raise ValueError(f"the simulator plays {STREETS} streets; {rules.id} has "
                         f"{rules.streets}")
    p = np.zeros(PARAMS, dtype=np.int64)
    p[P_ANTE] = bets.get("ante", 0)
    p[P_BONUS3] = bets.get("bonus3", 0)
    p[P_CAP] = cap_value(rules.max_aggregate_payout)
    p[P_MISTAKE] = mistake_threshold
    p[P_MOST] = rules.max_street_multiple
    p[P_PAYS:P_PAYS + 12] = pays_by_class(rules)
    p[P_BONUS3_PAYS:P_BONUS3_PAYS + 6] = [rules.bonus3_net_multiple(h) for h in ThreeCardHand]
    return p


def cards_per_round(seats: int) -> int:
    return HOLE * seats + COMMUNITY


def table_shapes(most: int) -> tuple[tuple[int, int], ...]:
    """(rows, columns) of each street's table for a largest street bet of ``most`` antes.

    >>> table_shapes(3)
    ((1326, 1), (22100, 3), (270725, 5))
    """
    return tuple((int(BINOM[52, HOLE + level]), level * (most - 1) + 1)
                 for level in range(STREETS))


@nb.njit(inline="always")
def colex_rank(known: Deck, size: int) -> int:
    """Colex rank of the first ``size`` cards of ``known`` as a set (any order): the row
    of :func:`feltlab.games.holdem_stud.analysis.decision_row`.

    >>> colex_rank(np.array([51, 50, 49, 48], dtype=np.uint8), 4) == 270725 - 1
    True
    """
    return set_colex_index(known, 0, size, np.empty(4, dtype=np.int64), BINOM)


@nb.njit(inline="always")
def _bet(state: State, table: I8, at: int, most: int, threshold: int) -> int:
    bet = int(table[at])
    if chance(state, threshold):
        bet = mistake(state, bet, most + 1)
    return bet


@nb.njit(inline="always")
def play(deck: Deck, seats: int, p: I64, table: I8, table2: I8, table3: I8,
         keys: U64, values: I8, state: State, nets: I64, counters: I64) -> None:
    """Play and settle one dealt round: 2 cards a seat, then the 3 community cards."""
    base = HOLE * seats
    community_class = three_card_class_of_row(deck[base:base + COMMUNITY])
    bonus = p[P_BONUS3_PAYS + community_class] * p[P_BONUS3]
    most = p[P_MOST]
    ante = p[P_ANTE]
    five = np.empty(5, dtype=np.uint8)
    five[2:] = deck[base:base + COMMUNITY]
    for seat in range(seats):
        five[0], five[1] = deck[HOLE * seat], deck[HOLE * seat + 1]
        bets = _bet(state, table, colex_rank(five, 2), most, p[P_MISTAKE])
        street = 0
        if bets > 0:
            street = 1
            bet = _bet(state, table2, colex_rank(five, 3) * most + bets - 1, most,
                       p[P_MISTAKE])
            if bet > 0:
                street = 2
                bets += bet
                bet = _bet(state, table3, colex_rank(five, 4) * (2 * most - 1) + bets - 2,
                           most, p[P_MISTAKE])
                if bet > 0:
                    street = 3
                    bets += bet
        counters[C_FOLD1 + street] += 1
        counters[C_STREET_ANTES] += bets
        if street < 3:
            main = -(1 + bets) * ante
        else:
            main = p[P_PAYS + poker_class_of_row(five)] * (1 + bets) * ante
        won = max(main, 0) + max(bonus, 0)
        lost = min(main, 0) + min(bonus, 0)
        total = capped(won, lost, p[P_CAP])
        counters[C_CAPPED] += total != won + lost
        nets[seat, 0] = main
        nets[seat, 1] = bonus
        nets[seat, 2] = total


# Strategies: the analysis's decision tables as the kernel's arrays -----------------------

def _from_tables(name: str, tables: tuple[I8, ...], optimal: bool = False,
                 plan: StudStrategy | None = None) -> Strategy:
    flat = [np.ascontiguousarray(table, dtype=np.int8).ravel() for table in tables]
    return Strategy(name, flat[0], flat[1], flat[2], optimal=optimal, plan=plan)


def optimal_strategy(rules: HoldemStudRules) -> Strategy:
    """:func:`feltlab.games.holdem_stud.analysis.decision_tables` as the kernel's arrays."""
    from feltlab.games.holdem_stud import analysis as analysis

    return _from_tables("optimal", analysis.decision_tables(rules), optimal=True)


def plan_strategy(rules: HoldemStudRules, plan: StudStrategy, name: str) -> Strategy:
    """A :class:`StudStrategy` through the analysis's ``strategy_choices``."""
    from feltlab.games.holdem_stud.shape import Shape
    from feltlab.games.holdem_stud.strategy import strategy_choices

    choices = strategy_choices(plan, Shape(rules.streets, rules.max_street_multiple))
    return _from_tables(name, choices, plan=plan)


def simple_strategy(rules: HoldemStudRules) -> Strategy:
    """The analysis's strategy card (:func:`feltlab.games.holdem_stud.analysis.card_strategy`)."""
    from feltlab.games.holdem_stud import analysis as analysis

    return plan_strategy(rules, analysis.card_strategy(rules), "simple")


def file_strategy(rules: HoldemStudRules, path: Path) -> Strategy:
    """A strategy file in the format of :mod:`feltlab.games.holdem_stud.strategy`."""
    from feltlab.games.holdem_stud.strategy import parse_strategy

    return plan_strategy(rules, parse_strategy(path.read_text("utf-8")), path.stem)


def check_strategy(rules: HoldemStudRules, strategy: Strategy) -> None:
    """Refuse arrays of the wrong size or with a bet the rules do not allow."""
    most = rules.max_street_multiple
    arrays = (strategy.table, strategy.table2, strategy.table3)
    for street, (array, (rows, columns)) in enumerate(zip(arrays, table_shapes(most),
                                                          strict=True)):
        if array.shape != (rows * columns,):
            raise ValueError(f"street {street + 1} table needs {rows * columns} entries, "
                             f"got shape {array.shape}")
        if array.min() < 0 or array.max() > most:
            raise ValueError(f"street {street + 1} table has a bet outside 0-{most}")


# Exact values, from the analysis ----------------------------------------------------------

def exact_edges(rules: HoldemStudRules, strategy: Strategy,
                rate: Fraction) -> dict[str, Fraction]:
    """The house edges the analysis gives exactly (uncapped, per unit of each wager): the
    3 Card Bonus always (no decision changes it); the main game without mistakes, for the
    optimal strategy or a strategy model (``evaluate_strategy``)."""
    from feltlab.games.holdem_stud import analysis as analysis
    from feltlab.games.holdem_stud.strategy import StudStrategy

    mistakes = rate > 0
    sheet = analysis.analyze(rules)
    edges = {wager.name: wager.house_edge for wager in sheet.wagers if wager.name == "bonus3"}
    if not mistakes and strategy.optimal:
        edges["ante"] = sheet.wager("ante").house_edge
    elif not mistakes and isinstance(strategy.plan, StudStrategy):
        edges["ante"] = analysis.evaluate_strategy(rules, strategy.plan).house_edge
    return edges


def capped_total(rules: HoldemStudRules, bets: dict[str, int]) -> Fraction:
    """Exact ``total`` under the optimal strategy: per unit of all the initial wagers."""
    from feltlab.games.holdem_stud import analysis as analysis

    return analysis.capped_returns(rules, bets)["total"]

