"""Game protection for Hold'em Stud as the protocol asks for it: colluders' hands are out
of the deck the community comes from, and a glimpse of the next community card is worth
most; cases are evaluated in :mod:`.protect`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

from feltlab.core.family import ProtectionModel, ProtectTools
from feltlab.core.protection import (
    Case,
    CaseResult,
    Countermeasure,
    Leak,
    Signal,
    fewer_seats,
    find_result,
)
from feltlab.games.holdem_stud.rules import HoldemStudRules


class StudProtection(ProtectionModel[HoldemStudRules]):
    default_deals = 10_000

    def leaks(self, rules: HoldemStudRules) -> tuple[Leak, ...]:
        return (
            Leak("colluders", "Colluding seats sharing their cards", True,
                 "other seats' 2-card hands are out of the deck the community comes from"),
            Leak("dealer_seen", "Dealer's cards seen", False,
                 "there is no dealer hand: the player's 5 cards are paid on a table"),
            Leak("next_seen", "Next community cards seen", True,
                 "three decisions, each made before a community card is turned"),
        )

    def max_dealer_seen(self, rules: HoldemStudRules) -> int:
        return 0

    def max_next_seen(self, rules: HoldemStudRules) -> int:
        return rules.streets

    def check_case(self, rules: HoldemStudRules, case: Case) -> None:
        return None

    def evaluate(self, rules: HoldemStudRules, case: Case, deals: int, seed: int,
                 progress: Callable[[int, int], None] | None) -> CaseResult:
        from feltlab.games.holdem_stud import protect

        return protect.evaluate(rules, case, deals, seed, progress)

    def house_edge(self, rules: HoldemStudRules) -> Fraction:
        from feltlab.games.holdem_stud.analysis import analyze_main_edge

        return analyze_main_edge(rules)

    def notes(self, rules: HoldemStudRules) -> tuple[str, ...]:
        return ("Next cards seen: before every decision the player also knows the next N "
                "community cards (a glimpse of the top of the stub each time).",)

    def signals(self, rules: HoldemStudRules, results: Sequence[CaseResult], deals: int,
                seed: int) -> tuple[Signal, ...]:
        return ()

    def countermeasures(self, rules: HoldemStudRules, results: Sequence[CaseResult],
                        deals: int, seed: int, tools: ProtectTools
                        ) -> tuple[Countermeasure, ...]:
        measures = fewer_seats(rules.seats, results)
        full = find_result(results, Case(rules.seats))
        lone = find_result(results, Case())
        if full is not None and lone is not None:
            capped = rules.model_copy(update={"max_street_multiple": 1})
            after = tools.evaluate(capped, Case(rules.seats))
            capped_lone = tools.evaluate(capped, Case())
            measures.append(Countermeasure(
                "colluders", "street bets capped at 1x", full.edge, after.edge,
                after.std_error, after.exact, f"the lone player's edge becomes "
                f"{100 * capped_lone.edge:+.4f}% (exact)"))
            measures.append(_pay_table_measure(rules, full, lone, tools))
        glimpse = find_result(results, Case(1, 0, 1))
        if glimpse is not None and lone is not None:
            measures.append(Countermeasure(
                "next_seen", "burn a card before turning each community card, and take it "
                "from under the stub", glimpse.edge, lone.edge, 0.0, True,
                "a glimpse of the top card then shows a card that is never played"))
        return tuple(measures)


def _pay_table_measure(rules: HoldemStudRules, full: CaseResult, lone: CaseResult,
                       tools: ProtectTools) -> Countermeasure:
    """The flush line solved so that the lone house edge grows by what a full table of
    colluders gains, then the colluders' edge recomputed with that table."""
    gain = Fraction(full.edge) - Fraction(lone.edge)
    target = -Fraction(lone.edge) + gain
    try:
        solved, table, edge = tools.solve_line(rules, "ante", target.limit_denominator(10**9),
                                               "flush")
    except ValueError as error:
        return Countermeasure("colluders", "a pay-table change", full.edge, full.edge,
                              full.std_error, False, f"not found: {error}")
    after = tools.evaluate(solved, Case(rules.seats))
    return Countermeasure(
        "colluders", f"flush pays {table.get('flush')} to 1 instead of "
        f"{rules.pays.get('flush')} (pay-table solver)", full.edge, after.edge,
        after.std_error, after.exact,
        f"the pay-table solver's nearest lone house edge to {100 * float(target):.4f}% "
        "(the current edge plus what the colluders gain) is "
        f"{100 * float(edge):.4f}%")


protection = StudProtection()
