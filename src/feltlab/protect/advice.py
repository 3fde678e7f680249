"""Practical strategies a team could signal, and what an operator can change, computed.

Countermeasures are computed by re-running the same cases on a modified copy of the rule
set (a raise cap, a pay table from the pay-table solver) or read off the cases already
computed (fewer seats, a burn card against a glimpsed card); each game family says which
apply (its protection model's ``countermeasures``), with the case evaluator and the
pay-table solver lent to it here (:class:`Tools`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from feltlab.analysis import analyze
from feltlab.analysis.paytable import PayKey, PayValue, solve
from feltlab.core.family import family_of
from feltlab.core.protection import Case, CaseResult, Countermeasure, Signal, find_result
from feltlab.core.rules import Rules
from feltlab.protect.cases import evaluate_case


@dataclass(frozen=True)
class Tools:
    """The case evaluator and the pay-table solver, for a family's countermeasures."""

    deals: int
    seed: int

    def evaluate(self, rules: Rules, case: Case) -> CaseResult:
        return evaluate_case(rules, case, self.deals, self.seed)

    def solve_line(self, rules: Rules, wager: str, target: Fraction, line: str
                   ) -> tuple[Rules, dict[PayKey, PayValue], Fraction]:
        solution = solve(rules, wager, target, line=line, analyzer=analyze)
        return solution.rules, solution.table, solution.house_edge


def signals_for(rules: Rules, results: Sequence[CaseResult], deals: int,
                seed: int) -> tuple[Signal, ...]:
    """The game's practical signals (for a full table of colluders, where there are any),
    then one seen card, which is its own signal, for the dealer-card and next-card leaks."""
    found = family_of(rules).protection.signals(rules, results, deals, seed)
    return (*found, *_one_card_signals(results))


def _one_card_signals(results: Sequence[CaseResult]) -> list[Signal]:
    found = []
    for case, leak, name in ((Case(1, 1), "dealer_seen", "one dealer card"),
                             (Case(1, 0, 1), "next_seen", "one next card")):
        result = find_result(results, case)
        if result is not None:
            found.append(Signal(leak, name, "the card seen is the whole signal: play the "
                                "exact best option knowing it (feltlab advise --dealer)",
                                result.edge, result.std_error, result.edge, result.states))
    return found


def countermeasures_for(rules: Rules, results: Sequence[CaseResult], deals: int,
                        seed: int) -> tuple[Countermeasure, ...]:
    return family_of(rules).protection.countermeasures(rules, results, deals, seed,
                                                       Tools(deals, seed))
