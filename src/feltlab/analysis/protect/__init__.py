"""Game protection: what shared cards, a seen dealer card or a seen next card are worth.

For each *case* (an amount of information, :class:`Case`) the players' edge: expected
net per unit of the main wager, positive when the players win, each informed seat
playing the best strategy for what it knows. Each seat's decision in its information
state is always exact (every completion of what is unseen is counted); the states are
enumerated where they can be (suit symmetry) and sampled otherwise, with a standard
error, and every result says which. One seat with nothing extra reproduces the
analysis's house edge exactly.

>>> from feltlab.rules import load_rules
>>> [case.colluders for case in default_cases(load_rules("nine-card-flush"))][:3]
[1, 2, 3]
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from fractions import Fraction

from feltlab.analysis.protect.model import (
    Case,
    CaseResult,
    Countermeasure,
    Leak,
    ProtectReport,
    Signal,
)
from feltlab.rules import FlushRules, HoldemStudRules, NineCardRules, Rules

__all__ = ["DEFAULT_DEALS", "Case", "CaseResult", "ProtectReport", "check_case",
           "default_cases", "evaluate_case", "leaks", "protect"]

DEFAULT_DEALS = {"high-card-flush": 1_000_000, "holdem-stud": 10_000, "nine-card-flush": 0}
"""Monte Carlo deals per case by game (standard errors about 0.05% and 0.25%)."""

CaseProgress = Callable[[Case, int, int], None]


def max_dealer_seen(rules: Rules) -> int:
    return rules.hand_size if isinstance(rules, FlushRules) else 0


def max_next_seen(rules: Rules) -> int:
    if isinstance(rules, HoldemStudRules):
        return rules.streets
    if isinstance(rules, NineCardRules):
        return 6
    return 0


def leaks(rules: Rules) -> tuple[Leak, ...]:
    """The kinds of information and whether each can matter in this game, and why."""
    if isinstance(rules, FlushRules):
        return (
            Leak("colluders", "Colluding seats sharing their cards", True,
                 "every seat gets 7 cards: a full table of 6 knows 42 of the 52 and the "
                 "dealer's 7 come from the other 10"),
            Leak("dealer_seen", "Dealer's cards seen (hole-carding)", True,
                 "the only decision (fold or raise) is made against the dealer's hidden hand"),
            Leak("next_seen", "Next cards seen", False,
                 "there are no community cards: every card is dealt before the decision"),
        )
    if isinstance(rules, HoldemStudRules):
        return (
            Leak("colluders", "Colluding seats sharing their cards", True,
                 "other seats' 2-card hands are out of the deck the community comes from"),
            Leak("dealer_seen", "Dealer's cards seen", False,
                 "there is no dealer hand: the player's 5 cards are paid on a table"),
            Leak("next_seen", "Next community cards seen", True,
                 "three decisions, each made before a community card is turned"),
        )
    return (
        Leak("colluders", "Colluding seats sharing their cards", False,
             "the only decision (fold or Play) comes after the 3 community cards and before "
             "any player's own cards are dealt: other seats have nothing to share, so "
             "colluders gain exactly nothing"),
        Leak("dealer_seen", "Dealer's cards seen", False, "there is no dealer hand"),
        Leak("next_seen", "Player's own cards seen before the decision", True,
             "a card flashed off the stub before the decision is one of the cards the "
             "players are about to get"),
    )


def default_cases(rules: Rules) -> list[Case]:
    """Every amount of each leak alone: colluders 1 to the seats, then each number of
    dealer cards or next cards seen by one seat."""
    cases = [Case(colluders) for colluders in range(1, rules.seats + 1)]
    cases += [Case(1, seen) for seen in range(1, max_dealer_seen(rules) + 1)]
    cases += [Case(1, 0, seen) for seen in range(1, max_next_seen(rules) + 1)]
    return cases


def check_case(rules: Rules, case: Case) -> None:
    """Refuse a case the rule set cannot have, naming the option (``ValueError``)."""
    if not 1 <= case.colluders <= rules.seats:
        raise ValueError(f"--colluders: {rules.id} has {rules.seats} seats, so 1 to "
                         f"{rules.seats} colluders, got {case.colluders}")
    most = max_dealer_seen(rules)
    if not 0 <= case.dealer_seen <= most:
        reason = f"0 to {most}" if most else "0 (there is no dealer hand)"
        raise ValueError(f"--dealer-seen: {rules.id} allows {reason}, got {case.dealer_seen}")
    most = max_next_seen(rules)
    if not 0 <= case.next_seen <= most:
        reason = f"0 to {most}" if most else "0 (there are no cards still to come)"
        raise ValueError(f"--next-seen: {rules.id} allows {reason}, got {case.next_seen}")
    if isinstance(rules, NineCardRules) and case.colluders > 1 and case.next_seen:
        raise ValueError("--colluders with --next-seen: in 9 Card Flush colluders gain "
                         "nothing; give one of them")


def evaluate_case(rules: Rules, case: Case, deals: int, seed: int,
                  progress: Callable[[int, int], None] | None = None) -> CaseResult:
    """The players' edge in one case (see the module docstring)."""
    check_case(rules, case)
    if isinstance(rules, FlushRules):
        from feltlab.analysis.protect import flush

        return flush.evaluate(rules, case, deals, seed, progress)
    if isinstance(rules, HoldemStudRules):
        from feltlab.analysis.protect import stud

        return stud.evaluate(rules, case, deals, seed, progress)
    assert isinstance(rules, NineCardRules)
    from feltlab.analysis.protect import nine

    return nine.evaluate(rules, case)


def house_edge(rules: Rules) -> Fraction:
    """The analysis's house edge of the main game (for the flush family the lone seat's
    exact enumeration, proven equal to the PAR sheet's in the tests)."""
    if isinstance(rules, FlushRules):
        from feltlab.analysis.protect import flush

        return -flush.baseline_edge(rules)
    if isinstance(rules, HoldemStudRules):
        from feltlab.analysis.holdem import analyze_main_edge

        return analyze_main_edge(rules)
    assert isinstance(rules, NineCardRules)
    from feltlab.analysis.protect import nine

    return nine.house_edge(rules)


def protect(rules: Rules, cases: Sequence[Case] | None = None, deals: int | None = None,
            seed: int = 0, progress: CaseProgress | None = None,
            extras: bool = True) -> ProtectReport:
    """The protection report: each case's edge and, with ``extras``, the practical
    signalling strategies and the countermeasures (:mod:`.advice`)."""
    start = time.perf_counter()
    chosen = list(cases) if cases is not None else default_cases(rules)
    for case in chosen:
        check_case(rules, case)
    count = DEFAULT_DEALS[rules.game] if deals is None else deals
    if count < 1 and rules.game != "nine-card-flush":
        raise ValueError(f"--deals must be at least 1, got {count}")
    results = []
    for case in chosen:
        report = None if progress is None else _case_progress(progress, case)
        results.append(evaluate_case(rules, case, count, seed, report))
    signals: tuple[Signal, ...] = ()
    countermeasures: tuple[Countermeasure, ...] = ()
    if extras:
        from feltlab.analysis.protect.advice import countermeasures_for, signals_for

        signals = signals_for(rules, results, count, seed)
        countermeasures = countermeasures_for(rules, results, count, seed)
    return ProtectReport(rules.id, rules.name, rules.fingerprint, rules.modified,
                         house_edge(rules), tuple(results), leaks(rules), signals,
                         countermeasures, notes(rules), seed, count,
                         time.perf_counter() - start)


def _case_progress(progress: CaseProgress, case: Case) -> Callable[[int, int], None]:
    return lambda done, total: progress(case, done, total)


def notes(rules: Rules) -> tuple[str, ...]:
    common = ("Player edge: expected net per unit of the main wager (Ante, or All 9), "
              "counting every raise, Play or street bet; positive when the players win. "
              "Bonus wagers are left out: information cannot change them.",
              "Colluders: each seat decides knowing all the colluders' cards; the edge is "
              "the mean over the colluding seats.")
    if isinstance(rules, FlushRules):
        return (*common, "Dealer cards seen: the seat knows that many of the dealer's 7 "
                "before deciding (the rest are unseen).")
    if isinstance(rules, HoldemStudRules):
        return (*common, "Next cards seen: before every decision the player also knows the "
                "next N community cards (a glimpse of the top of the stub each time).")
    return (*common, "Next cards seen: N of the player's own six cards seen before the "
            "decision.")
