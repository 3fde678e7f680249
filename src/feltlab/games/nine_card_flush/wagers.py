"""What each wager of 9 Card Flush returns, summed over the deal classes of
:mod:`.deals`: All 9 with its Play under any decision (the optimal one, or a strategy's:
:func:`evaluate_strategy`), the three optional wagers (9 Card Bonus, Player 6, First 3),
and every wager under the aggregate payout cap (:func:`capped_returns`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction

from feltlab.core.model import OutcomeLine, WagerAnalysis
from feltlab.core.rules import PayTable, pays_for
from feltlab.core.settle import WagerError, bonus_result, capped_shares
from feltlab.core.text import plural
from feltlab.games.nine_card_flush.deals import DEALS, Deal, all9_signs, all_deals
from feltlab.games.nine_card_flush.decisions import optimal_plays
from feltlab.games.nine_card_flush.rules import NineCardRules
from feltlab.games.nine_card_flush.strategy import NineStrategy


def all9_wager(rules: NineCardRules, plays: Callable[[tuple[int, int, int]], bool],
               title: str) -> WagerAnalysis:
    """All 9 with its Play (per unit of All 9) when ``plays`` decides each community."""
    signs = all9_signs(rules)
    folded, results = 0, {1: 0, 0: 0, -1: 0}
    for deal in all_deals():
        if plays(deal.community):
            results[signs[deal.nine]] += deal.count
        else:
            folded += deal.count
    win_at, push_at = rules.all9_win_at, rules.all9_push_at
    push_text = (f"{push_at}" if push_at is not None and win_at - 1 == push_at else
                 f"{push_at}-{win_at - 1}")
    lines = [OutcomeLine(f"Play, {win_at}+ flush cards (win)", 2, results[1], 2),
             OutcomeLine(f"Play, {push_text} flush cards (push)", 0, results[0], 2),
             OutcomeLine("Play, lose", -2, results[-1], 2),
             OutcomeLine("Fold", -1, folded, 1)]
    lines = [line for line in lines if line.count]
    rates = {"play rate": Fraction(DEALS - folded, DEALS)}
    return WagerAnalysis("all9", title, tuple(lines), DEALS, rates, decisions=True)


def evaluate_strategy(rules: NineCardRules, strategy: NineStrategy) -> WagerAnalysis:
    """Exact return of All 9 and Play (per unit of All 9) when ``strategy`` is played.

    >>> from feltlab.core.rules import load_rules
    >>> evaluate_strategy(load_rules("nine-card-flush"), NineStrategy()).house_edge
    Fraction(1, 1)
    """
    return all9_wager(rules, strategy.plays, "All 9 and Play (given strategy)")


def _count_wager(name: str, title: str, table: PayTable,
                 count_of: Callable[[Deal], int]) -> WagerAnalysis:
    by_count: dict[int, int] = {}
    for deal in all_deals():
        by_count[count_of(deal)] = by_count.get(count_of(deal), 0) + deal.count
    lines = []
    for count in sorted(by_count, reverse=True):
        pays = pays_for(table, count)
        key = None if pays is None else max(line for line in table if line <= count)
        lines.append(OutcomeLine(plural(count, "flush card"), bonus_result(table, count, 1),
                                 by_count[count], key=key))
    return WagerAnalysis(name, title, tuple(lines), DEALS)


def bonus_wagers(rules: NineCardRules) -> tuple[WagerAnalysis, ...]:
    return (_count_wager("bonus9", "9 Card Bonus", rules.bonus9_pays, lambda d: d.nine),
            _count_wager("player6", "Player 6", rules.player6_pays, lambda d: d.six),
            _count_wager("first3", "First 3", rules.first3_pays, lambda d: d.three))


# Capped returns -------------------------------------------------------------------------

def capped_returns(rules: NineCardRules, bets: Mapping[str, int]) -> dict[str, Fraction]:
    """House edge per unit of each wager bet (``all9`` with its Play, per unit of All 9,
    under the optimal uncapped decision) once ``rules.max_aggregate_payout`` caps a hand's
    winnings, plus ``total``: the expected loss per unit of all the wagers placed. A
    capped hand's excess is taken from the winning wagers in proportion to their wins.

    >>> from feltlab.core.rules import load_rules
    >>> edges = capped_returns(load_rules("nine-card-flush"), {"all9": 10, "first3": 5})
    >>> sorted(edges)
    ['all9', 'first3', 'total']
    """
    stakes = {name: amount for name, amount in bets.items() if amount}
    for name in stakes:
        if name not in rules.limits:
            raise WagerError(f"unknown wager {name!r} for {rules.id}")
    if stakes.get("all9", 0) <= 0:
        raise WagerError("capped_returns needs an all9 wager above 0")
    plays, signs = optimal_plays(rules), all9_signs(rules)
    tables = {"bonus9": rules.bonus9_pays, "player6": rules.player6_pays,
              "first3": rules.first3_pays}
    sums = dict.fromkeys(stakes, Fraction(0))
    for deal in all_deals():
        counts = {"bonus9": deal.nine, "player6": deal.six, "first3": deal.three}
        all9 = stakes["all9"]
        results = {"all9": 2 * signs[deal.nine] * all9 if plays[deal.community] else -all9}
        for name, amount in stakes.items():
            if name != "all9":
                results[name] = bonus_result(tables[name], counts[name], amount)
        for name, value in capped_shares(results, rules.max_aggregate_payout).items():
            sums[name] += value * deal.count
    edges = {name: -sums[name] / (DEALS * stakes[name]) for name in stakes}
    edges["total"] = -sum(sums.values(), Fraction(0)) / (DEALS * sum(stakes.values()))
    return edges
