"""9 Card Flush in the simulator: the compiled round and its strategy table.

Wager slots: ``all9`` (All 9 and Play together, per unit of All 9), ``bonus9``,
``player6``, ``first3`` and the capped hand ``total``. Every seat bets the same colour
(the colours are symmetric, so the choice changes no figure).

The decision sees only how many of the 3 community cards fall in each suit of the
colour: ``table[4 * a + b]`` is :func:`.decisions.play_table` flattened (``a``
and ``b`` the cards of the colour's first and second suit). Strategies and exact values
come from the analysis (:mod:`.decisions`, :mod:`.strategy_card`, :mod:`.wagers`,
:mod:`.analysis`).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Final

import numba as nb
import numpy as np

from feltlab.core.cards import COLOUR_SUITS
from feltlab.core.kernels import LANE, LANE_BIT, LANE_MASK, POPCOUNT
from feltlab.core.rng import Deck, State, chance
from feltlab.core.simkit import I8, I64, U64, Strategy, bonus_net, cap_value, capped, pay_array
from feltlab.games.nine_card_flush.rules import NineCardRules

if TYPE_CHECKING:  # the analysis is imported when a strategy or an exact value is derived
    from feltlab.games.nine_card_flush.strategy import NineStrategy

WAGERS: Final = ("all9", "bonus9", "player6", "first3", "total")
COMMUNITY: Final = 3
HAND: Final = 6

P_ALL9, P_BONUS9, P_PLAYER6, P_FIRST3, P_CAP, P_MISTAKE, P_SUIT_A, P_SUIT_B = range(8)
P_WIN_AT, P_PUSH_AT = 8, 9
P_BONUS9_PAYS: Final = 10  # 10 entries by count 0-9
P_PLAYER6_PAYS: Final = 20  # 7 entries by count 0-6
P_FIRST3_PAYS: Final = 27  # 4 entries by count 0-3
PARAMS: Final = 32

C_PLAY, C_FOLD, C_CAPPED = 0, 1, 2
COUNTER_NAMES: Final = ("play", "fold", "capped")


def params(rules: NineCardRules, bets: dict[str, int], mistake_threshold: int,
           colour: str = "red") -> I64:
    p = np.zeros(PARAMS, dtype=np.int64)
    p[P_ALL9] = bets.get("all9", 0)
    p[P_BONUS9] = bets.get("bonus9", 0)
    p[P_PLAYER6] = bets.get("player6", 0)
    p[P_FIRST3] = bets.get("first3", 0)
    p[P_CAP] = cap_value(rules.max_aggregate_payout)
    p[P_MISTAKE] = mistake_threshold
    p[P_SUIT_A], p[P_SUIT_B] = COLOUR_SUITS[colour]
    p[P_WIN_AT] = rules.all9_win_at
    p[P_PUSH_AT] = rules.all9_push_at if rules.all9_push_at is not None else rules.all9_win_at
    p[P_BONUS9_PAYS:P_BONUS9_PAYS + 10] = pay_array(rules.bonus9_pays, 9)
    p[P_PLAYER6_PAYS:P_PLAYER6_PAYS + 7] = pay_array(rules.player6_pays, 6)
    p[P_FIRST3_PAYS:P_FIRST3_PAYS + 4] = pay_array(rules.first3_pays, 3)
    return p


def cards_per_round(seats: int) -> int:
    return COMMUNITY + HAND * seats


@nb.njit(inline="always")
def _suit_count(mask: np.uint64, suit: int) -> int:
    return int(POPCOUNT[(mask >> np.uint64(LANE * suit)) & np.uint64(LANE_MASK)])


@nb.njit(inline="always")
def _mask(deck: Deck, start: int, count: int) -> np.uint64:
    mask = np.uint64(0)
    for i in range(start, start + count):
        mask |= LANE_BIT[deck[i]]
    return mask


@nb.njit(inline="always")
def play(deck: Deck, seats: int, p: I64, table: I8, table2: I8, table3: I8,
         keys: U64, values: I8, state: State, nets: I64, counters: I64) -> None:
    """Play and settle one dealt round: ``deck[:3]`` community, then 6 cards a seat."""
    community = _mask(deck, 0, COMMUNITY)
    a = _suit_count(community, p[P_SUIT_A])
    b = _suit_count(community, p[P_SUIT_B])
    three = max(a, b)
    decision = int(table[4 * a + b])
    all9 = p[P_ALL9]
    for seat in range(seats):
        plays = decision
        if chance(state, p[P_MISTAKE]):
            plays = 1 - plays
        counters[C_FOLD - plays] += 1
        mine = _mask(deck, COMMUNITY + HAND * seat, HAND)
        x = _suit_count(mine, p[P_SUIT_A])
        y = _suit_count(mine, p[P_SUIT_B])
        nine = max(a + x, b + y)
        if plays == 0:
            main = -all9
        elif nine >= p[P_WIN_AT]:
            main = 2 * all9
        elif nine >= p[P_PUSH_AT]:
            main = 0
        else:
            main = -2 * all9
        bonus9 = bonus_net(p[P_BONUS9_PAYS + nine], p[P_BONUS9])
        player6 = bonus_net(p[P_PLAYER6_PAYS + max(x, y)], p[P_PLAYER6])
        first3 = bonus_net(p[P_FIRST3_PAYS + three], p[P_FIRST3])
        won = max(main, 0) + max(bonus9, 0) + max(player6, 0) + max(first3, 0)
        lost = min(main, 0) + min(bonus9, 0) + min(player6, 0) + min(first3, 0)
        total = capped(won, lost, p[P_CAP])
        counters[C_CAPPED] += total != won + lost
        nets[seat, 0] = main
        nets[seat, 1] = bonus9
        nets[seat, 2] = player6
        nets[seat, 3] = first3
        nets[seat, 4] = total


# Strategies: the analysis's decisions as the kernel's table -------------------------------

def optimal_strategy(rules: NineCardRules) -> Strategy:
    """:func:`.decisions.play_table` as the kernel's table."""
    from feltlab.games.nine_card_flush.decisions import play_table

    table = np.ascontiguousarray(play_table(rules), dtype=np.int8).ravel()
    return Strategy("optimal", table, optimal=True)


def plan_strategy(plan: NineStrategy, name: str) -> Strategy:
    """A :class:`~feltlab.games.nine_card_flush.strategy.NineStrategy` as the kernel's table.

    >>> from feltlab.games.nine_card_flush.strategy import NineStrategy
    >>> plan_strategy(NineStrategy(play_when=({"flush_cards": 2},)), "two").table.tolist()
    [0, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 0, 1, 0, 0, 0]
    """
    table = np.zeros(16, dtype=np.int8)
    for a in range(COMMUNITY + 1):
        for b in range(COMMUNITY + 1 - a):
            table[4 * a + b] = plan.plays((a, b, COMMUNITY - a - b))
    return Strategy(name, table, plan=plan)


def simple_strategy(rules: NineCardRules) -> Strategy:
    """The analysis's strategy card (:func:`.strategy_card.strategy_card`)."""
    from feltlab.games.nine_card_flush import analysis as analysis
    from feltlab.games.nine_card_flush.strategy_card import strategy_card

    main = analysis.analyze(rules).wager("all9")
    return plan_strategy(strategy_card(rules, main)[0], "simple")


def file_strategy(rules: NineCardRules, path: Path) -> Strategy:
    """A strategy file in the format of :func:`.strategy.parse_nine_strategy`."""
    from feltlab.games.nine_card_flush.strategy import parse_nine_strategy

    return plan_strategy(parse_nine_strategy(path.read_text("utf-8")), path.stem)


def check_strategy(rules: NineCardRules, strategy: Strategy) -> None:
    """Refuse a table of the wrong size or with an entry other than play (1) or fold (0)."""
    table = strategy.table
    if table.shape != (16,):
        raise ValueError(f"a 9 Card Flush table needs 16 entries, got shape {table.shape}")
    if table.min() < 0 or table.max() > 1:
        raise ValueError("a 9 Card Flush table holds 0 (fold) or 1 (play) only")


# Exact values, from the analysis ----------------------------------------------------------

def _main_edge(rules: NineCardRules, strategy: Strategy) -> Fraction | None:
    from feltlab.games.nine_card_flush import analysis as analysis
    from feltlab.games.nine_card_flush import wagers as wagers
    from feltlab.games.nine_card_flush.strategy import NineStrategy

    if strategy.optimal:
        return analysis.analyze(rules).wager("all9").house_edge
    if isinstance(strategy.plan, NineStrategy):
        return wagers.evaluate_strategy(rules, strategy.plan).house_edge
    return None


def exact_edges(rules: NineCardRules, strategy: Strategy,
                rate: Fraction) -> dict[str, Fraction]:
    """The house edges the analysis gives exactly (uncapped, per unit of each wager).

    The optional wagers do not depend on the decision. A mistake (probability
    ``rate``) plays a fold or folds a play: per community, the decision and its
    opposite add up to playing plus folding, so the opposite strategy's edge is
    ``always + never - strategy``, all three from ``evaluate_strategy``.
    """
    from feltlab.games.nine_card_flush import analysis as analysis
    from feltlab.games.nine_card_flush import wagers as wagers
    from feltlab.games.nine_card_flush.strategy import NineStrategy

    sheet = analysis.analyze(rules)
    edges = {wager.name: wager.house_edge for wager in sheet.wagers if wager.name != "all9"}
    main = _main_edge(rules, strategy)
    if main is not None:
        always, never = NineStrategy(play_when=({},)), NineStrategy()
        flipped = (wagers.evaluate_strategy(rules, always).house_edge
                   + wagers.evaluate_strategy(rules, never).house_edge - main)
        edges["all9"] = (1 - rate) * main + rate * flipped
    return edges


def capped_total(rules: NineCardRules, bets: dict[str, int]) -> Fraction:
    """Exact ``total`` under the optimal strategy: per unit of all the initial wagers."""
    from feltlab.games.nine_card_flush import wagers as wagers

    return wagers.capped_returns(rules, bets)["total"]

