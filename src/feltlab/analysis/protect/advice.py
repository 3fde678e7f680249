"""Practical signalling strategies and countermeasures (filled in below)."""

from __future__ import annotations

from collections.abc import Sequence

from feltlab.analysis.protect.model import CaseResult, Countermeasure, Signal
from feltlab.rules import Rules


def signals_for(rules: Rules, results: Sequence[CaseResult], deals: int,
                seed: int) -> tuple[Signal, ...]:
    return ()


def countermeasures_for(rules: Rules, results: Sequence[CaseResult], deals: int,
                        seed: int) -> tuple[Countermeasure, ...]:
    return ()
