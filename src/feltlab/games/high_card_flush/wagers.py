"""What each wager of the High Card Flush family returns, counted from the cells of
:mod:`.cells` under given decisions (:mod:`.decisions`): the main game (Ante and Raise),
the Flush and Straight Flush bonuses, the exact return of any flush-based strategy
(:func:`evaluate_strategy`) and the returns under the aggregate payout cap
(:func:`capped_returns`, from the joint distribution of the main outcome and both
bonus counts).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import Final, Literal

import numpy as np
import numpy.typing as npt

from feltlab.core.model import OutcomeLine, WagerAnalysis
from feltlab.core.rules import pays_for
from feltlab.core.settle import capped_shares, check_wagers
from feltlab.games.high_card_flush import counting as fk
from feltlab.games.high_card_flush.cells import LENGTHS, of_length, qualifier_cells
from feltlab.games.high_card_flush.decisions import optimal_decisions, strategy_decisions
from feltlab.games.high_card_flush.rules import BONUSES as FLUSH_BONUSES
from feltlab.games.high_card_flush.rules import FlushRules
from feltlab.games.high_card_flush.settle import flush_bonus_result
from feltlab.games.high_card_flush.strategy import Strategy, load_strategy

Int64Array = npt.NDArray[np.int64]
BonusName = Literal["flush", "straight_flush"]

DEALS: Final = fk.PLAYER_HANDS * fk.DEALER_HANDS


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


def main_wager(cells: Int64Array, decisions: Int64Array, title: str) -> WagerAnalysis:
    """The Ante and Raise (per unit of Ante) when each cell is played as ``decisions``."""
    return WagerAnalysis("ante", title, _main_lines(cells, decisions), DEALS,
                         _main_rates(cells, decisions), decisions=True)


def evaluate_strategy(rules: FlushRules, strategy: Strategy | str | Path) -> WagerAnalysis:
    """Exact main-game return (per ante) of a flush-based strategy (a model or a file)."""
    if not isinstance(strategy, Strategy):
        strategy = load_strategy(strategy)
    cells = qualifier_cells(rules)
    return main_wager(cells, strategy_decisions(rules, strategy),
                      f"Ante and Raise ({strategy.name}), per unit of Ante")


# Bonus wagers ------------------------------------------------------------------------------

def _hands_by_count(cells: Int64Array, decisions: Int64Array, straight: bool,
                    folded: bool) -> dict[int, int]:
    """Player hands by flush length (or straight-flush run), among folded or played."""
    chosen = ((decisions == 0) == folded)[:, None, :]  # (value, 1, category)
    hands = (cells[..., fk.HANDS] * chosen).sum(axis=2)  # (value, run)
    if straight:
        by_run = hands.sum(axis=0)
        return {run: int(by_run[run]) for run in range(len(by_run)) if by_run[run]}
    return {length: int(hands[of_length(length)].sum()) for length in LENGTHS}


def bonus_wager(rules: FlushRules, cells: Int64Array, decisions: Int64Array,
                name: BonusName) -> WagerAnalysis:
    """The Flush or Straight Flush bonus, the main game played as ``decisions`` (a fold
    loses the bonus unless the rules settle it on a fold)."""
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


# Capped returns ----------------------------------------------------------------------------

def joint_distribution(rules: FlushRules) -> dict[tuple[int, str, int, int], int]:
    """Deals by (raise in antes, main outcome, flush length, straight-flush run) under the
    optimal strategy; outcome is ``fold``, ``not_qualified``, ``win``, ``tie``, ``lose``."""
    cells = qualifier_cells(rules)
    decisions = optimal_decisions(rules)
    joint: dict[tuple[int, str, int, int], int] = {}
    outcomes = (("not_qualified", fk.NOT_QUALIFIED), ("win", fk.DEALER_WORSE),
                ("tie", fk.TIE), ("lose", fk.DEALER_BETTER))
    for length in LENGTHS:
        rows = cells[of_length(length)]  # (value, run, category, quantity)
        row_decisions = decisions[of_length(length)]  # (value, category)
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
