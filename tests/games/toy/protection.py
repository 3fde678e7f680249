"""Game protection for the toy game: what colluders' shared cards and a seen dealer card
are worth. Every case is exact, counted by ranks (suits never matter):

- colluders: ``k`` seats pool their ``k`` cards; the dealer's card is any of the other
  ``52 - k``. Every way the ``k`` cards fall into ranks (at most 4 of a rank) is counted
  with its number of card sets, and each seat takes the better of folding and raising
  against the cards left;
- a seen dealer card: the seat raises every card that wins or ties and folds the rest.

>>> rules = ToyRules.model_validate(EXAMPLE)
>>> colluders_edge(rules, 1), dealer_seen_edge(rules)
(Fraction(29, 221), Fraction(8, 17))
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from typing import Final

from feltlab.core.cards import RANKS
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

from .rules import EXAMPLE, ToyRules

SUIT_CARDS: Final = 4
"""Cards of each rank."""

__all__ = ["EXAMPLE", "colluders_edge", "dealer_seen_edge", "protection"]


def rank_counts(cards: int, ranks: int = len(RANKS)) -> Iterator[tuple[int, ...]]:
    """Every way ``cards`` cards fall into ``ranks`` ranks, at most 4 of a rank.

    >>> sum(1 for _ in rank_counts(2, 3))
    6
    """
    if ranks == 1:
        if cards <= SUIT_CARDS:
            yield (cards,)
        return
    for here in range(min(cards, SUIT_CARDS) + 1):
        for rest in rank_counts(cards - here, ranks - 1):
            yield (here, *rest)


def colluders_edge(rules: ToyRules, colluders: int) -> Fraction:
    """The players' edge, per Ante and mean over the colluding seats, when ``colluders``
    seats decide knowing all their cards (1: the lone player, minus the house edge)."""
    unseen = 52 - colluders
    both = 1 + rules.raise_multiple
    numerator = 0
    for counts in rank_counts(colluders):
        ways = math.prod(math.comb(SUIT_CARDS, count) for count in counts)
        left = [SUIT_CARDS - count for count in counts]
        lower, higher, best = 0, sum(left), 0
        for rank, count in enumerate(counts):
            higher -= left[rank]
            if count:  # each card of this rank: the better of fold (-1) and raise
                best += count * max(-unseen, both * (lower - higher))
            lower += left[rank]
        numerator += ways * best
    return Fraction(numerator, math.comb(52, colluders) * colluders * unseen)


def dealer_seen_edge(rules: ToyRules) -> Fraction:
    """The players' edge when the dealer's card is seen: raise a win or a tie, fold a loss
    (colluders' cards add nothing to a known dealer card)."""
    both = 1 + rules.raise_multiple
    wins = sum(SUIT_CARDS * SUIT_CARDS * rank for rank in range(len(RANKS)))
    ties = 52 * (SUIT_CARDS - 1)
    losses = 52 * 51 - wins - ties
    return Fraction(both * wins - losses, 52 * 51)


class ToyProtection(ProtectionModel[ToyRules]):
    default_deals = 0

    def leaks(self, rules: ToyRules) -> tuple[Leak, ...]:
        return (
            Leak("colluders", "Colluding seats sharing their cards", True,
                 "the dealer's card comes from the cards the team has not seen: every card "
                 "a colluder shows tells the others which ranks are left"),
            Leak("dealer_seen", "Dealer's card seen (hole-carding)", True,
                 "the only decision is made against the dealer's one hidden card: seeing it "
                 "is knowing the result"),
            Leak("next_seen", "Next cards seen", False,
                 "every card is dealt before the decision"),
        )

    def max_dealer_seen(self, rules: ToyRules) -> int:
        return 1

    def max_next_seen(self, rules: ToyRules) -> int:
        return 0

    def check_case(self, rules: ToyRules, case: Case) -> None:
        return None

    def evaluate(self, rules: ToyRules, case: Case, deals: int, seed: int,
                 progress: Callable[[int, int], None] | None) -> CaseResult:
        start = time.perf_counter()
        if case.dealer_seen:
            return CaseResult(case, dealer_seen_edge(rules), 0.0, True, 52 * 51,
                              "exact: every player card against every dealer card, seen",
                              time.perf_counter() - start)
        states = sum(1 for _ in rank_counts(case.colluders))
        return CaseResult(case, colluders_edge(rules, case.colluders), 0.0, True, states,
                          f"exact: every way {case.colluders} seats' cards fall into ranks, "
                          "against every dealer card left", time.perf_counter() - start)

    def house_edge(self, rules: ToyRules) -> Fraction:
        """Minus the lone player's exact edge (counted by ranks, apart from the analysis)."""
        return -colluders_edge(rules, 1)

    def notes(self, rules: ToyRules) -> tuple[str, ...]:
        return ("Dealer card seen: the seat knows the dealer's one card before deciding.",)

    def signals(self, rules: ToyRules, results: Sequence[CaseResult], deals: int,
                seed: int) -> tuple[Signal, ...]:
        return ()

    def countermeasures(self, rules: ToyRules, results: Sequence[CaseResult], deals: int,
                        seed: int, tools: ProtectTools) -> tuple[Countermeasure, ...]:
        measures = fewer_seats(rules.seats, results)
        seen, lone = find_result(results, Case(1, 1)), find_result(results, Case())
        if seen is not None and lone is not None:
            measures.append(Countermeasure(
                "dealer_seen", "deal the dealer's card face down last and unexposed (no card "
                "seen)", seen.edge, lone.edge, 0.0, True, "what a flashed dealer card is "
                "worth is the whole gap"))
        return tuple(measures)


protection = ToyProtection()
