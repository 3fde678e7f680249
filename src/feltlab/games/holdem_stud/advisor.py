"""Hold'em Stud's per-hand advisor: the exact EV of every option at one decision.

What it reads of the optimal strategy's solution (:mod:`.solver`) is small: at a street
before the last, each decision row's sums of the next street's values over the next card
(:attr:`~.solver.Solution.next_sums`), and at the last street each row's final sum. Those
tables (2.4 MB for the built-in rule set) are kept in the derived-data cache
(:mod:`feltlab.core.cache`), so that a process with a filled cache advises without solving,
compiling or even importing Numba (``feltlab advise`` in a third of a second); the solver
runs only to fill the cache.

>>> from feltlab.core.cards import parse_cards
>>> from feltlab.core.rules import load_rules
>>> advise(load_rules("nh-holdem-stud"), parse_cards("Ah Ad"), (), ()).best
'3x'
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

import numpy as np
import numpy.typing as npt

from feltlab.core import cache
from feltlab.core.cards import Card, CardError, ensure_count, ensure_distinct, format_cards
from feltlab.core.memo import StrategyMemo, fields_key
from feltlab.core.model import Advice, OptionValue
from feltlab.core.settle import WagerError
from feltlab.games.holdem_stud.rules import HoldemStudRules
from feltlab.games.holdem_stud.settle import STREET_NAMES, check_street_bet
from feltlab.games.holdem_stud.shape import Shape

I64 = npt.NDArray[np.int64]

STRATEGY_FIELDS: Final = ("pays", "max_street_multiple", "streets")
"""The rule-set fields the optimal strategy reads: the main pay table and the street bets
(not the 3 Card Bonus, the limits or the name)."""


def decision_row(cards: Sequence[Card]) -> int:
    """Row of the solver's tables for the known cards, in any order: the colex rank of
    their sorted indices among the sets of as many cards.

    >>> from feltlab.core.cards import parse_cards
    >>> decision_row(parse_cards("3s 2s")), decision_row(parse_cards("Ac Kc"))
    (0, 1325)
    """
    ordered = sorted(card.index for card in cards)
    return sum(math.comb(index, position + 1) for position, index in enumerate(ordered))


@dataclass(frozen=True)
class AdvisorTable:
    """Per decision row, what each option is worth, scaled (see the module's text)."""

    shape: Shape
    next_sums: tuple[I64, ...]  # per street before the last: [row, antes at risk next]
    final_sums: I64  # per row of the last street: sum of net multiples, ordered deals

    def option_sums(self, row: int, level: int, at_risk: int) -> list[int]:
        """Scaled value of each street bet 1..most (index 0 unused) at ``row`` of street
        ``level`` with ``at_risk`` antes bet so far: the next street's values summed over
        the next card at the antes then at risk, or at the last street the final sum times
        the antes then at risk."""
        most = self.shape.most
        if level == self.shape.last:
            final = int(self.final_sums[row])
            return [final * (at_risk + bet) for bet in range(most + 1)]
        summed = self.next_sums[level][row]
        offset = at_risk - self.shape.low(level + 1)
        return [0] + [int(summed[offset + bet]) for bet in range(1, most + 1)]


_KIND: Final = "stud-advisor"
_tables: StrategyMemo[AdvisorTable] = StrategyMemo(8)


def _solved_arrays(rules: HoldemStudRules) -> dict[str, I64]:
    from feltlab.games.holdem_stud.solver import solution_for  # Numba: only to fill the cache

    solution = solution_for(rules)
    arrays = {"final_sums": solution.final_sums}
    arrays |= {f"next_sums_{level}": sums for level, sums in enumerate(solution.next_sums)}
    return arrays


def advisor_table(rules: HoldemStudRules) -> AdvisorTable:
    """The advisor's table of ``rules``: kept in this process, read from the derived-data
    cache, or solved (and stored there) when neither has it."""
    key = fields_key(rules, STRATEGY_FIELDS)

    def build() -> AdvisorTable:
        arrays = cache.load_or_build(_KIND, key, lambda: _solved_arrays(rules))
        shape = Shape(rules.streets, rules.max_street_multiple)
        next_sums = tuple(arrays[f"next_sums_{level}"] for level in range(shape.last))
        return AdvisorTable(shape, next_sums, arrays["final_sums"])

    return _tables.get_or_build(key, build)


def advise(rules: HoldemStudRules, player: Sequence[Card], community: Sequence[Card],
           bets: Sequence[int], dead: Sequence[Card] = (),
           seen: Sequence[Card] = ()) -> Advice:
    """Exact EV per ante (Ante and every bet counted, optimal play afterwards) of folding
    and of each street bet, with ``len(community)`` cards turned and ``bets`` (antes)
    already bet, one per street passed. ``dead`` cards are out of the deck (other seats'
    hands); ``seen`` are the next community cards, seen before they are turned, in the
    order they will be turned (later decisions know them and what is turned by then)."""
    ensure_count(player, 2, "player")
    level = len(community)
    if level >= rules.streets:
        raise CardError(f"community: a decision comes with at most {rules.streets - 1} "
                        f"community cards turned, got {level}")
    if level + len(seen) > rules.streets:
        raise CardError(f"dealer (cards seen): at most {rules.streets - level} community cards are "
                        f"still to come, got {len(seen)}")
    ensure_distinct([*player, *community, *seen, *dead])
    if 52 - 2 - level - len(seen) - len(dead) < rules.streets - level - len(seen):
        raise CardError(f"dead: {len(dead)} dead cards leave too few for the community")
    if len(bets) != level:
        raise WagerError(f"bets: one street bet per community card turned ({level}), "
                         f"got {len(bets)}")
    for street, amount in enumerate(bets):
        check_street_bet(rules, 1, street, amount)
    at_risk = 1 + sum(bets)
    if dead or seen:
        from feltlab.games.holdem_stud.known import option_sums  # Numba: a rarer question

        known_sums, scale = option_sums(rules, player, community, seen, dead, at_risk)
        sums = [int(value) for value in known_sums]
    else:
        table = advisor_table(rules)
        sums = table.option_sums(decision_row([*player, *community]), level, at_risk)
        scale = table.shape.scale(level)
    options = [OptionValue("fold", Fraction(-at_risk))]
    options += [OptionValue(f"{bet}x", Fraction(int(sums[bet]), scale))
                for bet in range(1, rules.max_street_multiple + 1)]
    best = max(reversed(options), key=lambda option: option.ev)
    details: dict[str, object] = {"street": STREET_NAMES[level], "at_risk": at_risk,
                                  "community": format_cards(community)}
    if dead or seen:
        details |= {"dead": format_cards(dead), "seen": format_cards(seen)}
    return Advice(rules.id, format_cards(player), tuple(options), best.option, details)
