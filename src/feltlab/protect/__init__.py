"""Game protection: what shared cards, a seen dealer card or a seen next card are worth.

For each *case* (an amount of information, :class:`Case`) the players' edge: expected
net per unit of the main wager, positive when the players win, each informed seat
playing the best strategy for what it knows. Each seat's decision in its information
state is always exact (every completion of what is unseen is counted); the states are
enumerated where they can be (suit symmetry) and sampled otherwise, with a standard
error, and every result says which. One seat with nothing extra reproduces the
analysis's house edge exactly.

>>> from feltlab.core.rules import load_rules
>>> [case.colluders for case in default_cases(load_rules("nine-card-flush"))][:3]
[1, 2, 3]
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from feltlab.core.protection import Case, CaseResult, Countermeasure, ProtectReport, Signal
from feltlab.core.rules import Rules
from feltlab.protect.advice import countermeasures_for, signals_for
from feltlab.protect.cases import (
    check_case,
    default_cases,
    default_deals,
    evaluate_case,
    house_edge,
    leaks,
    notes,
)

__all__ = ["Case", "CaseResult", "ProtectReport", "check_case", "default_cases",
           "default_deals", "evaluate_case", "house_edge", "leaks", "protect"]

CaseProgress = Callable[[Case, int, int], None]


def protect(rules: Rules, cases: Sequence[Case] | None = None, deals: int | None = None,
            seed: int = 0, progress: CaseProgress | None = None,
            extras: bool = True) -> ProtectReport:
    """The protection report: each case's edge and, with ``extras``, the practical
    signalling strategies and the countermeasures (:mod:`.advice`)."""
    start = time.perf_counter()
    chosen = list(cases) if cases is not None else default_cases(rules)
    for case in chosen:
        check_case(rules, case)
    sampled = default_deals(rules) > 0
    count = default_deals(rules) if deals is None else deals
    if count < 1 and sampled:
        raise ValueError(f"--deals must be at least 1, got {count}")
    results = []
    for case in chosen:
        report = None if progress is None else _case_progress(progress, case)
        results.append(evaluate_case(rules, case, count, seed, report))
    signals: tuple[Signal, ...] = ()
    countermeasures: tuple[Countermeasure, ...] = ()
    if extras:
        signals = signals_for(rules, results, count, seed)
        countermeasures = countermeasures_for(rules, results, count, seed)
    return ProtectReport(rules.id, rules.name, rules.fingerprint, rules.modified,
                         house_edge(rules), tuple(results), leaks(rules), signals,
                         countermeasures, notes(rules), seed, count,
                         time.perf_counter() - start)


def _case_progress(progress: CaseProgress, case: Case) -> Callable[[int, int], None]:
    return lambda done, total: progress(case, done, total)
