"""Exact math of Hold'em Stud (``HoldemStudRules``): PAR sheet, optimal strategy,
strategy card, per-hand advice and capped returns.

The main game is counted over every ORDERED deal: the player's 2 cards (C(52,2) = 1,326
sets) and the 3 community cards in the order they are turned (50 x 49 x 48), so the
``ante`` wager's counts add up to 1,326 x 117,600 = 155,937,600. The 3 Card Bonus is
counted over the C(52,3) = 22,100 sets of community cards.

The optimal strategy is found by backward induction (:mod:`.solver`); ties go
to the larger bet. A pay table that moves no decision optimal play meets is not solved:
the last solve's play and its values as forms of the pays answer it
(:mod:`.outcomes`, :mod:`.pay_forms`), to the last digit. Strategies as data live in
:mod:`.strategy`, the strategy card in :mod:`.strategy_card`, the per-hand advisor in
:mod:`.advisor` (re-exported here).

>>> from feltlab.core.cards import parse_cards
>>> from feltlab.core.rules import load_rules
>>> advice = advise(load_rules("nh-holdem-stud"), parse_cards("Ah Ad"), (), ())
>>> advice.best
'3x'
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from functools import cache

import numba as nb
import numpy as np
import numpy.typing as npt

import feltlab.core.cache as derived
from feltlab.core.evaluators import PokerHand, ThreeCardHand
from feltlab.core.kernels import three_card_hands
from feltlab.core.memo import RecordCodec, StrategyMemo, fields_key
from feltlab.core.model import (
    OutcomeLine,
    ParSheet,
    Progress,
    StrategyCard,
    StrategyRow,
    WagerAnalysis,
)
from feltlab.core.records import (
    Record,
    card_of_record,
    card_record,
    rows_of_record,
    rows_record,
    wager_of_record,
    wager_record,
)
from feltlab.core.settle import WagerError, capped_shares
from feltlab.games.holdem_stud.advisor import STRATEGY_FIELDS
from feltlab.games.holdem_stud.advisor import advise as advise
from feltlab.games.holdem_stud.advisor import decision_row as decision_row
from feltlab.games.holdem_stud.outcomes import (
    OptimalPlay,
    optimal_play,
    still_optimal,
    strategy_outcome,
)
from feltlab.games.holdem_stud.rules import HoldemStudRules
from feltlab.games.holdem_stud.shape import Shape
from feltlab.games.holdem_stud.solver import (
    I8,
    I64,
    Outcome,
    all_sets,
    binomials,
    five_card_classes,
    net_multiples,
    set_colex_index,
    solution_for,
    solve,
)
from feltlab.games.holdem_stud.strategy import STREET_LABELS, StudStrategy
from feltlab.games.holdem_stud.strategy_card import card_lines, fit_card

HAND_TITLES = {PokerHand.LOW_PAIR: "Pair of 2s-5s", PokerHand.MID_PAIR: "Pair of 6s-10s",
               PokerHand.HIGH_PAIR: "Pair of jacks or better"}


def _title(hand: PokerHand | ThreeCardHand) -> str:
    if isinstance(hand, PokerHand) and hand in HAND_TITLES:
        return HAND_TITLES[hand]
    return hand.name.replace("_", " ").capitalize()


def decision_tables(rules: HoldemStudRules) -> tuple[I8, ...]:
    """The optimal decisions as arrays, one per street, for fast play (e.g. in Numba).

    ``tables[L]`` is the decision with ``L`` community cards turned (L = 0 before the
    first). Row: :func:`decision_row` of the known cards, i.e. the colex rank of the
    SORTED card indices of the player's 2 and the turned community cards together (the
    optimal decision depends only on that set). Column: ``B - (1 + L)`` where ``B`` is
    the antes at risk (1 + the street bets made, in antes). Entry: the bet in antes,
    0 to fold. Ties went to the larger bet.

    >>> from feltlab.core.rules import load_rules
    >>> tables = decision_tables(load_rules("nh-holdem-stud"))
    >>> [table.shape for table in tables]
    [(1326, 1), (22100, 3), (270725, 5)]
    """
    return solution_for(rules).choices


# The PAR sheet ------------------------------------------------------------------------

def _main_lines(rules: HoldemStudRules, outcome: Outcome) -> list[OutcomeLine]:
    lines = []
    for hand in reversed(PokerHand):
        multiple = rules.net_multiple(hand)
        for total_bet in range(outcome.final.shape[1] - 1, 0, -1):
            count = int(outcome.final[hand, total_bet])
            if count:
                lines.append(OutcomeLine(f"{_title(hand)}, {total_bet}x bet in all",
                                         multiple * total_bet, count, total_bet,
                                         hand.name.lower()))
    for level, folded in enumerate(outcome.folded):
        for at_risk in range(len(folded)):
            count = int(folded[at_risk])
            if count:
                after = "" if level == 0 else f" after {at_risk - 1}x"
                lines.append(OutcomeLine(f"Fold at {STREET_LABELS[level]}{after}", -at_risk,
                                         count, at_risk))
    return lines


def _main_rates(outcome: Outcome) -> dict[str, Fraction]:
    rates: dict[str, Fraction] = {}
    for level, folded in enumerate(outcome.folded):
        rates[f"folded at {STREET_LABELS[level]}"] = Fraction(int(folded.sum()), outcome.total)
    for level, bet in enumerate(outcome.bets):
        rates[f"average bet at {STREET_LABELS[level]}"] = Fraction(bet, outcome.total)
    played = int(outcome.final.sum())
    rates["played to the end"] = Fraction(played, outcome.total)
    for hand in reversed(PokerHand):
        count = int(outcome.final[hand].sum())
        rates[f"final hand {hand.name.lower()}"] = Fraction(count, outcome.total)
    return rates


def _main_wager(rules: HoldemStudRules, outcome: Outcome, title: str) -> WagerAnalysis:
    return WagerAnalysis("ante", title, tuple(_main_lines(rules, outcome)), outcome.total,
                         _main_rates(outcome), decisions=True)


def evaluate_strategy(rules: HoldemStudRules, strategy: StudStrategy) -> WagerAnalysis:
    """Exact return of the main game (per ante) when ``strategy`` is played.

    >>> from feltlab.core.rules import load_rules
    >>> from feltlab.games.holdem_stud.strategy import parse_strategy
    >>> never = evaluate_strategy(load_rules("nh-holdem-stud"), parse_strategy(""))
    >>> never.house_edge
    Fraction(1, 1)
    """
    outcome = strategy_outcome(Shape(rules.streets, rules.max_street_multiple), strategy)
    return _main_wager(rules, outcome, "Ante and street bets (given strategy)")


@cache
def three_card_classes() -> I64:
    """How many of the 22,100 sets of three community cards make each
    :class:`ThreeCardHand` (whatever the pays: counted once, kept on disk)."""
    def count() -> dict[str, I64]:
        return {"counts": np.bincount(three_card_hands(all_sets(3)),
                                      minlength=len(ThreeCardHand)).astype(np.int64)}

    return derived.load_or_build("three-card-classes", "community", count)["counts"]


def bonus3_wager(rules: HoldemStudRules) -> WagerAnalysis:
    """The 3 Card Bonus over the 22,100 sets of three community cards."""
    classes = three_card_classes()
    lines = [OutcomeLine(_title(hand), rules.bonus3_net_multiple(hand), int(classes[hand]),
                         key=hand.name.lower())
             for hand in reversed(ThreeCardHand)]
    return WagerAnalysis("bonus3", "3 Card Bonus", tuple(lines), math.comb(52, 3))


def _optimal_and_card(rules: HoldemStudRules) -> tuple[OptimalPlay, StudStrategy]:
    """The optimal strategy's play (a kept one's when the pays move no decision on its
    path: no solve) and the strategy card fitted to its option values."""
    multiples = net_multiples(rules)
    shape = Shape(rules.streets, rules.max_street_multiple)
    found = still_optimal(shape, multiples)
    if found is None:
        play = optimal_play(solution_for(rules))
        priced = play.forms.for_pays(multiples)  # loads what a later edit's check runs
        assert priced is not None and priced[0] is play.forms, "the solver's own decisions"
        totals = priced[1]
    else:
        play, totals = found
    return play, fit_card(shape, totals, play.outcome.total)


def card_strategy(rules: HoldemStudRules) -> StudStrategy:
    """The strategy card of :func:`analyze` as a playable strategy (see
    :func:`feltlab.games.holdem_stud.strategy.strategy_choices` for its decision tables)."""
    return _optimal_and_card(rules)[1]


_StrategyPart = tuple[WagerAnalysis, StrategyCard, tuple[StrategyRow, ...], int]


def _part_record(part: _StrategyPart) -> Record:
    main, card, strategy_map, total = part
    return {"main": wager_record(main), "card": card_record(card),
            "map": rows_record(strategy_map), "total": total}


def _part_of_record(record: Record) -> _StrategyPart:
    card = card_of_record(record["card"])
    assert card is not None
    return (wager_of_record(record["main"]), card, rows_of_record(record["map"]),
            record["total"])


_strategy_parts: StrategyMemo[_StrategyPart] = StrategyMemo(
    kind="stud-strategy-part", codec=RecordCodec(_part_record, _part_of_record))


def _strategy_part(rules: HoldemStudRules, report: Progress, steps: int) -> _StrategyPart:
    """The main game, strategy card, strategy map and deal count: what the pay table and
    street bets decide (the same for any 3 Card Bonus, limits or name)."""
    def build() -> _StrategyPart:
        play, card = _optimal_and_card(rules)
        report(2, steps)
        main = _main_wager(rules, play.outcome, "Ante and street bets (optimal strategy)")
        card_wager = evaluate_strategy(rules, card)  # the card's exact return
        report(3, steps)
        strategy_card = StrategyCard(card_lines(card, rules.streets), card_wager.house_edge,
                                     main.house_edge)
        return main, strategy_card, play.strategy_map, play.outcome.total

    return _strategy_parts.get_or_build(fields_key(rules, STRATEGY_FIELDS), build)


def analyze(rules: HoldemStudRules, progress: Progress | None = None) -> ParSheet:
    """The exact PAR sheet: the main game under the optimal strategy, the 3 Card Bonus,
    the derived strategy card and the strategy map."""
    steps = 4
    report = progress or (lambda done, total: None)
    report(0, steps)
    main, strategy_card, strategy_map, total = _strategy_part(rules, report, steps)
    notes = (
        "Main game counted over every ordered deal: C(52,2) player hands x 50 x 49 x 48 "
        f"community cards in the order turned = {total:,}.",
        "3 Card Bonus (when the rule set offers it) counted over the C(52,3) = 22,100 "
        "sets of community cards.",
        "Ante figures are per unit of Ante and count the Ante and every street bet; "
        "exact ties between options go to the larger bet.",
    )
    wagers = (main, bonus3_wager(rules)) if "bonus3" in rules.limits else (main,)
    sheet = ParSheet(rules.id, rules.name, wagers, strategy_card, strategy_map, notes)
    report(steps, steps)
    return sheet


# Capped returns -----------------------------------------------------------------------

@nb.njit(cache=True)
def _joint_counts(starts: npt.NDArray[np.uint8], weights: I64, choices0: I8, choices1: I8,
                  choices2: I8, streets: int, top: int, five: I8, three: I8,
                  binom: I64) -> I64:
    """[total bet or antes lost, class (12 = folded), 3-card class]: ordered deals."""
    counts = np.zeros((top + 1, 13, 6), dtype=np.int64)
    hand = np.empty(5, dtype=np.int64)
    buffer = np.empty(5, dtype=np.int64)
    for start in range(starts.shape[0]):
        hand[0], hand[1] = starts[start, 0], starts[start, 1]
        for first in range(52):
            if first in (hand[0], hand[1]):
                continue
            for second in range(52):
                if second in (hand[0], hand[1], first):
                    continue
                for third in range(52):
                    if third in (hand[0], hand[1], first, second):
                        continue
                    hand[2], hand[3], hand[4] = first, second, third
                    at_risk = 1
                    folded = False
                    for level in range(streets):
                        row = set_colex_index(hand, 0, 2 + level, buffer, binom)
                        column = at_risk - 1 - level
                        table = choices0 if level == 0 else (choices1 if level == 1
                                                             else choices2)
                        bet = table[row, column]
                        if bet == 0:
                            folded = True
                            break
                        at_risk += bet
                    bonus = three[set_colex_index(hand, 2, 5, buffer, binom)]
                    final = 12 if folded else five[set_colex_index(hand, 0, 5, buffer, binom)]
                    counts[at_risk, final, bonus] += weights[start]
    return counts


def starting_classes() -> tuple[npt.NDArray[np.uint8], I64]:
    """One two-card hand per suit-pattern class (169) and how many hands it stands for."""
    starts, weights = [], []
    for high in range(13):
        for low in range(high + 1):
            if high == low:
                starts.append((high, 13 + high))
                weights.append(6)
            else:
                starts += [(high, low), (high, 13 + low)]
                weights += [4, 12]
    return np.array(starts, dtype=np.uint8), np.array(weights, dtype=np.int64)


def joint_counts(rules: HoldemStudRules) -> I64:
    """Ordered deals under the optimal strategy by (antes at risk, final :class:`PokerHand`
    or 12 for a fold, :class:`ThreeCardHand` of the community cards)."""
    return _joint_counts_for(net_multiples(rules), rules.streets, rules.max_street_multiple)


@cache
def _joint_counts_for(multiples: tuple[int, ...], streets: int, most: int) -> I64:
    solution = solve(multiples, streets, most)
    choices = list(solution.choices) + [np.zeros((1, 1), dtype=np.int8)] * 3
    starts, weights = starting_classes()
    three = three_card_hands(all_sets(3))
    return _joint_counts(starts, weights, choices[0], choices[1], choices[2], streets,
                         solution.shape.top, five_card_classes(), three, binomials())


def capped_returns(rules: HoldemStudRules, bets: Mapping[str, int]) -> dict[str, Fraction]:
    """House edge per unit of each wager (``ante``: the main game under the optimal,
    uncapped strategy, per unit of Ante; ``bonus3``) at these bet sizes once
    ``rules.max_aggregate_payout`` caps a hand's winnings, plus ``total``: the expected
    loss per unit of Ante + 3 Card Bonus. A capped hand's excess is taken from the
    winning wagers in proportion to their wins.

    >>> from feltlab.core.rules import load_rules
    >>> edges = capped_returns(load_rules("nh-holdem-stud"), {"ante": 5})
    >>> edges["ante"] == analyze_main_edge(load_rules("nh-holdem-stud"))
    True
    """
    for name in bets:
        if name not in rules.limits:
            raise WagerError(f"unknown wager {name!r} for {rules.id}")
    ante, bonus = bets.get("ante", 0), bets.get("bonus3", 0)
    if ante <= 0:
        raise WagerError("capped_returns needs an ante above 0")
    counts = joint_counts(rules)
    sums = {"ante": Fraction(0), "bonus3": Fraction(0)}
    total = int(counts.sum())
    multiples = net_multiples(rules)
    for at_risk, final, three in zip(*np.nonzero(counts), strict=True):
        main = -int(at_risk) if final == 12 else multiples[final] * int(at_risk)
        results = {"ante": main * ante}
        if bonus:
            results["bonus3"] = rules.bonus3_net_multiple(ThreeCardHand(int(three))) * bonus
        for name, value in capped_shares(results, rules.max_aggregate_payout).items():
            sums[name] += value * int(counts[at_risk, final, three])
    edges = {"ante": -sums["ante"] / (total * ante)}
    if bonus:
        edges["bonus3"] = -sums["bonus3"] / (total * bonus)
    edges["total"] = -(sums["ante"] + sums["bonus3"]) / (total * (ante + bonus))
    return edges


def analyze_main_edge(rules: HoldemStudRules) -> Fraction:
    """House edge of the main game under the optimal strategy, from the solved values.

    >>> from feltlab.core.rules import load_rules
    >>> round(float(analyze_main_edge(load_rules("nh-holdem-stud"))), 4)
    0.094
    """
    solution = solution_for(rules)
    value = int(solution.values[0][:, 0].sum())
    return -Fraction(value, math.comb(52, 2) * solution.shape.scale(0))
