"""Game protection for 9 Card Flush.

The one decision (fold, or Play equal to All 9) is made after the 3 community cards and
before any player's own six are dealt, so other seats have no cards to share and there
is no dealer hand: colluding seats gain exactly nothing. What can leak is the player's
own cards: ``next_seen = N`` is N of the player's six seen before the decision (a
flashed card off the top of the stub). Every case is exact: only the suit counts of
the chosen colour matter (red is analysed; black is the same by symmetry).
"""

from __future__ import annotations

import math
import time
from fractions import Fraction

from feltlab.core.protection import Case, CaseResult
from feltlab.games.nine_card_flush.analysis import analyze as analyze_nine
from feltlab.games.nine_card_flush.deals import (
    COMMUNITY,
    DEALS,
    OTHER_SIZE,
    SUIT_SIZE,
    community_classes,
    split_ways,
    suit_splits,
)
from feltlab.games.nine_card_flush.decisions import optimal_plays, play_ev_known
from feltlab.games.nine_card_flush.rules import NineCardRules

NO_GAIN = ("the only decision comes after the 3 community cards and before any player's "
           "own cards are dealt, so other seats have nothing to share: colluders gain "
           "exactly nothing")


def house_edge(rules: NineCardRules) -> Fraction:
    return analyze_nine(rules).wagers[0].house_edge


def colluders(rules: NineCardRules, case: Case) -> CaseResult:
    """Any number of colluders: exactly the lone player's edge (see :data:`NO_GAIN`)."""
    start = time.perf_counter()
    plays = optimal_plays(rules)
    assert plays  # the decision depends on the community only
    return CaseResult(case, -house_edge(rules), 0.0, True, math.comb(52, COMMUNITY),
                      f"exact: {NO_GAIN}", time.perf_counter() - start)


def own_cards_seen(rules: NineCardRules, case: Case) -> CaseResult:
    """``case.next_seen`` of the player's own six seen before the decision: every
    community and every seen set, by suit counts of the colour."""
    start = time.perf_counter()
    seen_count = case.next_seen
    total = Fraction(0)
    for community, ways in community_classes():
        sizes = (SUIT_SIZE - community[0], SUIT_SIZE - community[1], OTHER_SIZE - community[2])
        for seen in suit_splits(seen_count, sizes):
            play = play_ev_known(rules, community, (0, 0, 0), seen)
            total += max(Fraction(-1), play) * ways * split_ways(seen, sizes)
    states = math.comb(52, COMMUNITY) * math.comb(52 - COMMUNITY, seen_count)
    edge = total / states
    return CaseResult(case, edge, 0.0, True, states,
                      "exact: every community and every set of the player's cards seen, by "
                      "suit counts", time.perf_counter() - start)


def evaluate(rules: NineCardRules, case: Case) -> CaseResult:
    if case.next_seen:
        return own_cards_seen(rules, case)
    return colluders(rules, case)


__all__ = ["DEALS", "NO_GAIN", "colluders", "evaluate", "house_edge", "own_cards_seen"]
