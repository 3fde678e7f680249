"""Practical strategies a team could signal, and what an operator can change, computed.

Countermeasures are computed by re-running the same cases on a modified copy of the rule
set (a raise cap, a pay table from the pay-table solver) or read off the cases already
computed (fewer seats, a burn card against a glimpsed card). Dealing order and burn cards
change nothing against colluders, and the report says why.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from feltlab.analysis.protect.model import Case, CaseResult, Countermeasure, Signal
from feltlab.rules import FlushRules, HoldemStudRules, NineCardRules, Rules

ORDER_NOTE = ("the dealer's hand is a uniformly random set of the cards the team has not "
              "seen whatever the order of the deal, and a burn card is one more unseen card: "
              "the team's edge is exactly the same")


def signals_for(rules: Rules, results: Sequence[CaseResult], deals: int,
                seed: int) -> tuple[Signal, ...]:
    """Practical signals: for a full table of colluders (High Card Flush family), and
    one seen card, which is its own signal, for the dealer-card and next-card leaks."""
    found = list(_one_card_signals(results))
    full = _find(results, Case(rules.seats))
    lone = _find(results, Case())
    if isinstance(rules, FlushRules) and full is not None and lone is not None:
        from feltlab.analysis.protect.signals import flush_signals

        found[:0] = flush_signals(rules, full.edge, lone.edge, deals, seed)
    return tuple(found)


def _one_card_signals(results: Sequence[CaseResult]) -> list[Signal]:
    found = []
    for case, leak, name in ((Case(1, 1), "dealer_seen", "one dealer card"),
                             (Case(1, 0, 1), "next_seen", "one next card")):
        result = _find(results, case)
        if result is not None:
            found.append(Signal(leak, name, "the card seen is the whole signal: play the "
                                "exact best option knowing it (feltlab advise --dealer)",
                                result.edge, result.std_error, result.edge, result.states))
    return found


def countermeasures_for(rules: Rules, results: Sequence[CaseResult], deals: int,
                        seed: int) -> tuple[Countermeasure, ...]:
    if isinstance(rules, FlushRules):
        return _flush_measures(rules, results, deals, seed)
    if isinstance(rules, HoldemStudRules):
        return _stud_measures(rules, results, deals, seed)
    assert isinstance(rules, NineCardRules)
    return _nine_measures(results)


def _find(results: Sequence[CaseResult], case: Case) -> CaseResult | None:
    return next((result for result in results if result.case == case), None)


def _fewer_seats(rules: Rules, results: Sequence[CaseResult]) -> list[Countermeasure]:
    full = _find(results, Case(rules.seats))
    if full is None:
        return []
    measures = []
    for seats in range(rules.seats - 1, max(1, rules.seats - 3), -1):
        fewer = _find(results, Case(seats))
        if fewer is not None:
            measures.append(Countermeasure(
                "colluders", f"{seats} seats instead of {rules.seats}", full.edge, fewer.edge,
                fewer.std_error, fewer.exact, f"a full table of {seats} colluders"))
    return measures


def _evaluate(rules: Rules, case: Case, deals: int, seed: int) -> CaseResult:
    from feltlab.analysis.protect import evaluate_case

    return evaluate_case(rules, case, deals, seed)


def _flush_measures(rules: FlushRules, results: Sequence[CaseResult], deals: int,
                    seed: int) -> tuple[Countermeasure, ...]:
    measures = _fewer_seats(rules, results)
    full = _find(results, Case(rules.seats))
    if full is not None:
        capped = rules.model_copy(update={"raise_multiples": {
            length: min(1, most) for length, most in rules.raise_multiples.items()}})
        after = _evaluate(capped, Case(rules.seats), deals, seed)
        lone = _evaluate(capped, Case(), deals, seed)
        measures.append(Countermeasure(
            "colluders", "every raise capped at 1x", full.edge, after.edge, after.std_error,
            after.exact, f"the lone player's edge becomes {100 * lone.edge:+.4f}% (exact)"))
        measures.append(Countermeasure(
            "colluders", "deal the dealer's hand first, or burn cards", full.edge, full.edge,
            full.std_error, full.exact, ORDER_NOTE))
    seen, alone = _find(results, Case(1, 1)), _find(results, Case())
    if seen is not None:
        capped = rules.model_copy(update={"raise_multiples": {
            length: min(1, most) for length, most in rules.raise_multiples.items()}})
        after = _evaluate(capped, Case(1, 1), deals, seed)
        measures.append(Countermeasure(
            "dealer_seen", "every raise capped at 1x", seen.edge, after.edge,
            after.std_error, after.exact, "one dealer card seen, against the capped game"))
    if seen is not None and alone is not None:
        measures.append(Countermeasure(
            "dealer_seen", "deal the dealer's hand face down last and unexposed (no card "
            "seen)", seen.edge, alone.edge, 0.0, True, "what one flashed dealer card is worth "
            "is the whole gap"))
    measures.append(Countermeasure(
        "colluders", "a pay-table change", full.edge if full else 0.0,
        full.edge if full else 0.0, full.std_error if full else 0.0,
        bool(full and full.exact), "the main game pays even money and has no pay table; the "
        "bonus pay tables are untouched by information, so no pay-table change reaches this "
        "leak"))
    return tuple(measures)


def _stud_measures(rules: HoldemStudRules, results: Sequence[CaseResult], deals: int,
                   seed: int) -> tuple[Countermeasure, ...]:
    measures = _fewer_seats(rules, results)
    full = _find(results, Case(rules.seats))
    lone = _find(results, Case())
    if full is not None and lone is not None:
        capped = rules.model_copy(update={"max_street_multiple": 1})
        after = _evaluate(capped, Case(rules.seats), deals, seed)
        capped_lone = _evaluate(capped, Case(), deals, seed)
        measures.append(Countermeasure(
            "colluders", "street bets capped at 1x", full.edge, after.edge, after.std_error,
            after.exact, f"the lone player's edge becomes {100 * capped_lone.edge:+.4f}% "
            "(exact)"))
        measures.append(_stud_pay_table(rules, full, lone, deals, seed))
    glimpse = _find(results, Case(1, 0, 1))
    if glimpse is not None and lone is not None:
        measures.append(Countermeasure(
            "next_seen", "burn a card before turning each community card, and take it from "
            "under the stub", glimpse.edge, lone.edge, 0.0, True,
            "a glimpse of the top card then shows a card that is never played"))
    return tuple(measures)


def _stud_pay_table(rules: HoldemStudRules, full: CaseResult, lone: CaseResult, deals: int,
                    seed: int) -> Countermeasure:
    """The flush line solved so that the lone house edge grows by what a full table of
    colluders gains, then the colluders' edge recomputed with that table."""
    from feltlab.analysis.commands import run_analysis
    from feltlab.analysis.paytable import SolverError, solve

    gain = Fraction(full.edge) - Fraction(lone.edge)
    target = -Fraction(lone.edge) + gain
    try:
        solution = solve(rules, "ante", target.limit_denominator(10**9), line="flush",
                         analyzer=lambda candidate: run_analysis(candidate, False))
    except (SolverError, ValueError) as error:
        return Countermeasure("colluders", "a pay-table change", full.edge, full.edge,
                              full.std_error, False, f"not found: {error}")
    assert isinstance(solution.rules, HoldemStudRules)
    after = _evaluate(solution.rules, Case(rules.seats), deals, seed)
    pays = solution.table.get("flush")
    return Countermeasure(
        "colluders", f"flush pays {pays} to 1 instead of {rules.pays.get('flush')} "
        "(pay-table solver)", full.edge, after.edge, after.std_error, after.exact,
        f"the pay-table solver's nearest lone house edge to {100 * float(target):.4f}% "
        "(the current edge plus what the colluders gain) is "
        f"{100 * float(solution.house_edge):.4f}%")


def _nine_measures(results: Sequence[CaseResult]) -> tuple[Countermeasure, ...]:
    seen = _find(results, Case(1, 0, 1))
    lone = _find(results, Case())
    if seen is None or lone is None:
        return ()
    return (Countermeasure(
        "next_seen", "deal the players' cards from a shuffler or shoe, burning the top card",
        seen.edge, lone.edge, 0.0, True, "a flashed top card then belongs to no one"),)
