"""The cases of game protection, each an amount of information, and what one is worth:
the game's family (its protection model) says which leaks can matter, bounds the cases
and evaluates them; the checks and defaults are the same for every game.

>>> from feltlab.core.rules import load_rules
>>> [case.colluders for case in default_cases(load_rules("nine-card-flush"))][:3]
[1, 2, 3]
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from feltlab.core.family import family_of
from feltlab.core.protection import Case, CaseResult, Leak
from feltlab.core.rules import Rules

COMMON_NOTES = (
    "Player edge: expected net per unit of the main wager (Ante, or All 9), counting every "
    "raise, Play or street bet; positive when the players win. Bonus wagers are left out: "
    "information cannot change them.",
    "Colluders: each seat decides knowing all the colluders' cards; the edge is the mean "
    "over the colluding seats.")


def default_deals(rules: Rules) -> int:
    """Monte Carlo deals per case by default for the rule set's game (0: every case is
    exact)."""
    return family_of(rules).protection.default_deals


def leaks(rules: Rules) -> tuple[Leak, ...]:
    """The kinds of information and whether each can matter in this game, and why."""
    return family_of(rules).protection.leaks(rules)


def default_cases(rules: Rules) -> list[Case]:
    """Every amount of each leak alone: colluders 1 to the seats, then each number of
    dealer cards or next cards seen by one seat."""
    model = family_of(rules).protection
    cases = [Case(colluders) for colluders in range(1, rules.seats + 1)]
    cases += [Case(1, seen) for seen in range(1, model.max_dealer_seen(rules) + 1)]
    cases += [Case(1, 0, seen) for seen in range(1, model.max_next_seen(rules) + 1)]
    return cases


def check_case(rules: Rules, case: Case) -> None:
    """Refuse a case the rule set cannot have, naming the option (``ValueError``)."""
    model = family_of(rules).protection
    if not 1 <= case.colluders <= rules.seats:
        raise ValueError(f"--colluders: {rules.id} has {rules.seats} seats, so 1 to "
                         f"{rules.seats} colluders, got {case.colluders}")
    most = model.max_dealer_seen(rules)
    if not 0 <= case.dealer_seen <= most:
        reason = f"0 to {most}" if most else "0 (there is no dealer hand)"
        raise ValueError(f"--dealer-seen: {rules.id} allows {reason}, got {case.dealer_seen}")
    most = model.max_next_seen(rules)
    if not 0 <= case.next_seen <= most:
        reason = f"0 to {most}" if most else "0 (there are no cards still to come)"
        raise ValueError(f"--next-seen: {rules.id} allows {reason}, got {case.next_seen}")
    model.check_case(rules, case)


def evaluate_case(rules: Rules, case: Case, deals: int, seed: int,
                  progress: Callable[[int, int], None] | None = None) -> CaseResult:
    """The players' edge in one case (see the module docstring)."""
    check_case(rules, case)
    return family_of(rules).protection.evaluate(rules, case, deals, seed, progress)


def house_edge(rules: Rules) -> Fraction:
    """The analysis's house edge of the main game."""
    return family_of(rules).protection.house_edge(rules)


def notes(rules: Rules) -> tuple[str, ...]:
    return (*COMMON_NOTES, *family_of(rules).protection.notes(rules))
