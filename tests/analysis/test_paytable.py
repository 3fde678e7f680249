"""The pay-table solver, against brute force over every integer pay and hand computations."""

from __future__ import annotations

import importlib.util
from fractions import Fraction
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.test_report import SEVEN_CARD_HANDS, flush_bonus_wager, longest_suit_counts
from feltlab.analysis.paytable import (
    SolverError,
    edge_with_table,
    line_key,
    line_range,
    pay_table,
    scaled_table,
    solve,
    with_pay_table,
)
from feltlab.core.model import OutcomeLine, ParSheet, WagerAnalysis
from feltlab.core.rules import Rules, RulesError, load_rules
from feltlab.games.high_card_flush.rules import FlushRules
from feltlab.games.holdem_stud.rules import HoldemStudRules

FIVE_CARD_HANDS = {"royal_flush": 4, "straight_flush": 36, "four_of_a_kind": 624,
                   "full_house": 3744, "flush": 5108, "straight": 10200,
                   "three_of_a_kind": 54912, "two_pair": 123552, "high_pair": 337920,
                   "mid_pair": 422400, "low_pair": 337920, "high_card": 1302540}


def flush_analyzer(rules: Rules) -> ParSheet:
    """Analysis of the Flush bonus alone, with the real 7-card counts."""
    assert isinstance(rules, FlushRules)
    return ParSheet(rules.id, rules.name, (flush_bonus_wager(dict(rules.flush_pays)),))


def flush_edge_by_hand(pays: dict[int, int]) -> Fraction:
    counts = longest_suit_counts()
    won = sum(pays.get(length, -1) * count for length, count in counts.items())
    return Fraction(-won, SEVEN_CARD_HANDS)


def toy_holdem_analyzer(rules: Rules) -> ParSheet:
    """A toy Hold'em Stud whose 'strategy' moves with the pays: the player sees the final
    hand, bets 3x on each street when it pays 2 to 1 or more, 1x when it pays less, and
    folds at once when it loses. Counts are the real 5-card poker frequencies."""
    assert isinstance(rules, HoldemStudRules)
    lines = []
    for hand, count in FIVE_CARD_HANDS.items():
        value = rules.pays.get(hand)
        if value is None:
            lines.append(OutcomeLine(hand, -1, count, 1))
            continue
        pays = 0 if value == "push" else int(value)
        wagered = 10 if pays >= 2 else 4
        lines.append(OutcomeLine(hand, pays * wagered, count, wagered, key=hand))
    ante = WagerAnalysis("ante", "Ante", tuple(lines), sum(FIVE_CARD_HANDS.values()),
                         decisions=True)
    return ParSheet(rules.id, rules.name, (ante,))


def nearest_by_brute_force(edge_at: dict[int, Fraction], target: Fraction) -> int:
    return min(sorted(edge_at), key=lambda pay: abs(edge_at[pay] - target))


# The linear case -------------------------------------------------------------------------

def test_five_card_counts_add_up() -> None:
    assert sum(FIVE_CARD_HANDS.values()) == 2_598_960


@pytest.mark.parametrize("target", [Fraction(0), Fraction(2, 100), Fraction(5, 100),
                                    Fraction(1, 10), Fraction(-3, 100)])
def test_linear_line_matches_brute_force(target: Fraction) -> None:
    rules = load_rules("high-card-flush")
    solution = solve(rules, "flush", target, line="5", analyzer=flush_analyzer)
    original = dict(rules.flush_pays)
    edges = {pay: flush_edge_by_hand({**original, 5: pay}) for pay in range(0, 400)}
    best = nearest_by_brute_force(edges, target)
    assert solution.method == "linear" and solution.line == 5
    assert solution.table == {**original, 5: best}
    assert solution.house_edge == edges[best]
    assert isinstance(solution.rules, FlushRules) and solution.rules.flush_pays[5] == best


def test_linear_line_by_hand() -> None:
    """The exact pay for a 5% edge on line 5: solve -t*N = sum(pays x counts) - losers."""
    rules = load_rules("high-card-flush")
    counts = longest_suit_counts()
    target = Fraction(5, 100)
    others = 300 * counts[7] + 100 * counts[6] + 1 * counts[4] - counts[3] - counts[2]
    exact = (-target * SEVEN_CARD_HANDS - others) / counts[5]
    solution = solve(rules, "flush", target, line=5, analyzer=flush_analyzer)
    assert solution.exact == exact
    assert solution.table[5] in (int(exact), int(exact) + 1)
    assert flush_edge_by_hand({int(length): int(pays) for length, pays in solution.table.items()}
                              ) == solution.house_edge


@settings(max_examples=30, deadline=None)
@given(st.fractions(min_value=-1, max_value=Fraction(1, 2), max_denominator=10_000))
def test_linear_scale_hits_the_target_exactly(target: Fraction) -> None:
    rules = load_rules("high-card-flush")
    solution = solve(rules, "flush", target, scale=True, analyzer=flush_analyzer)
    assert solution.exact is not None and solution.exact >= 0
    counts = longest_suit_counts()
    original = dict(rules.flush_pays)
    unrounded = sum(solution.exact * pays * counts[length] for length, pays in original.items())
    lost = counts[2] + counts[3]
    if solution.exact > 0:
        assert Fraction(lost, SEVEN_CARD_HANDS) - unrounded / SEVEN_CARD_HANDS == target
    assert solution.scale is not None
    assert solution.table == scaled_table(original, solution.scale)
    assert solution.house_edge == flush_edge_by_hand(
        {int(length): int(pays) for length, pays in solution.table.items()})


def test_scaled_whole_number_table_is_the_nearest_on_a_fine_grid() -> None:
    """Brute force: no scale on a grid of step 1/2000 gives a table nearer the target."""
    rules = load_rules("high-card-flush")
    target = Fraction(4, 100)
    solution = solve(rules, "flush", target, scale=True, analyzer=flush_analyzer)
    original = dict(rules.flush_pays)
    best = abs(solution.house_edge - target)
    for step in range(0, 4001):
        table = scaled_table(original, Fraction(step, 2000))
        edge = flush_edge_by_hand({int(k): int(v) for k, v in table.items()})
        assert abs(edge - target) >= best


def test_edge_with_table_is_the_analysis_of_that_table() -> None:
    table = {7: 500, 6: 80, 5: 9, 4: 2}
    assert edge_with_table(flush_bonus_wager(), table) == flush_bonus_wager(table).house_edge


def test_a_wager_that_is_not_linear_is_refused() -> None:
    wager = flush_bonus_wager()
    broken = WagerAnalysis("flush", "Flush", (OutcomeLine("4", 2, wager.lines[3].count, key=4),
                                              *wager.lines[:3], *wager.lines[4:]), wager.total)
    rules = load_rules("high-card-flush")
    with pytest.raises(SolverError, match="not linear"):
        solve(rules, "flush", Fraction(1, 20), line=5,
              analyzer=lambda _: ParSheet(rules.id, rules.name, (broken,)))


# The search ------------------------------------------------------------------------------

@pytest.mark.parametrize(("line", "target"), [("flush", Fraction(2, 100)),
                                              ("flush", Fraction(-1, 10)),
                                              ("high_pair", Fraction(3, 100)),
                                              ("two_pair", Fraction(1, 2)),
                                              ("mid_pair", Fraction(0))])
def test_search_matches_brute_force(line: str, target: Fraction) -> None:
    rules = load_rules("nh-holdem-stud")
    calls: list[int] = []
    solution = solve(rules, "ante", target, line=line, analyzer=toy_holdem_analyzer,
                     on_analysis=calls.append)
    original = pay_table(rules, "ante")
    low, high = line_range(rules, "ante", line)
    edges = {pay: toy_holdem_analyzer(with_pay_table(rules, "ante", {**original, line: pay}))
             .wager("ante").house_edge for pay in range(low, high + 1)}
    best = nearest_by_brute_force(edges, target)
    assert solution.method == "search"
    assert solution.table[line] == best and solution.house_edge == edges[best]
    assert solution.analyses == len(calls) + 1 < 30  # the first analysis is reused


def test_search_on_the_scale_lands_near_the_target() -> None:
    rules = load_rules("nh-holdem-stud")
    target = Fraction(2, 100)
    solution = solve(rules, "ante", target, scale=True, analyzer=toy_holdem_analyzer)
    assert solution.scale is not None
    again = toy_holdem_analyzer(solution.rules).wager("ante").house_edge
    assert again == solution.house_edge
    # no scale on a fine grid around it does better
    grid = [solution.scale * Fraction(k, 200) for k in range(150, 251)]
    original = pay_table(rules, "ante")
    for scale in grid:
        candidate = with_pay_table(rules, "ante", scaled_table(original, scale))
        edge = toy_holdem_analyzer(candidate).wager("ante").house_edge
        assert abs(edge - target) >= abs(solution.house_edge - target) or abs(
            edge - target) < Fraction(1, 100)


# Errors and helpers ----------------------------------------------------------------------

def test_questions_the_solver_refuses() -> None:
    rules = load_rules("high-card-flush")
    with pytest.raises(SolverError, match="no pay table"):
        solve(rules, "ante", Fraction(0), line="5", analyzer=flush_analyzer)
    with pytest.raises(SolverError, match="no pay-table line '3'"):
        solve(rules, "flush", Fraction(0), line="3", analyzer=flush_analyzer)
    with pytest.raises(SolverError, match="either"):
        solve(rules, "flush", Fraction(0), line="5", scale=True, analyzer=flush_analyzer)
    with pytest.raises(SolverError, match="either"):
        solve(rules, "flush", Fraction(0), analyzer=flush_analyzer)


def test_line_keys_and_revalidation() -> None:
    assert line_key({"full_house": 8, "flush": 6}, "Full house") == "full_house"
    rules = load_rules("nh-holdem-stud")
    with pytest.raises(RulesError, match="does not validate"):
        with_pay_table(rules, "ante", {"five_aces": 3})
    copy = with_pay_table(rules, "bonus3", {**rules.bonus3_pays, "pair": 2})
    assert isinstance(copy, HoldemStudRules) and copy.bonus3_pays["pair"] == 2
    assert rules.bonus3_pays["pair"] == 1  # the original is untouched


# On the real analysis, once it exists ----------------------------------------------------

REAL_FLUSH = importlib.util.find_spec("feltlab.games.high_card_flush.analysis") is not None


@pytest.mark.slow
@pytest.mark.skipif(not REAL_FLUSH, reason="the flush analysis is not there yet")
def test_real_flush_bonus_solved_and_reanalysed() -> None:
    from feltlab.analysis import analyze

    rules = load_rules("high-card-flush")
    target = Fraction(5, 100)
    solution = solve(rules, "flush", target, line=5)
    assert solution.method == "linear"
    assert solution.house_edge == flush_edge_by_hand(
        {int(length): int(pays) for length, pays in solution.table.items()})
    assert analyze(solution.rules).wager("flush").house_edge == solution.house_edge


REAL_NINE = importlib.util.find_spec("feltlab.games.nine_card_flush.analysis") is not None
REAL_HOLDEM = importlib.util.find_spec("feltlab.games.holdem_stud.analysis") is not None
NINE_CARD_DEALS = comb(52, 3) * comb(49, 6)


def nine_card_counts() -> dict[int, int]:
    """Deals (3 community + 6 player cards) by the flush cards of one colour in the nine:
    a 9-card set with h hearts and d diamonds comes in C(9,3) = 84 deals."""
    counts: dict[int, int] = {}
    for hearts in range(10):
        for diamonds in range(10 - hearts):
            sets = comb(13, hearts) * comb(13, diamonds) * comb(26, 9 - hearts - diamonds)
            longest = max(hearts, diamonds)
            counts[longest] = counts.get(longest, 0) + sets * comb(9, 3)
    return counts


def nine_bonus_edge_by_hand(pays: dict[int, int]) -> Fraction:
    won = 0
    for count, deals in nine_card_counts().items():
        lines = [line for line in pays if line <= count]
        won += deals * (pays[max(lines)] if lines else -1)
    return Fraction(-won, NINE_CARD_DEALS)


@pytest.mark.skipif(not REAL_NINE, reason="feltlab.games.nine_card_flush.analysis is not there yet")
@pytest.mark.parametrize(("line", "scale"), [("6", False), (None, True)])
def test_real_nine_card_bonus_solved_and_reanalysed(line: str | None, scale: bool) -> None:
    from feltlab.analysis import analyze

    rules = load_rules("nine-card-flush")
    assert sum(nine_card_counts().values()) == NINE_CARD_DEALS
    assert analyze(rules).wager("bonus9").house_edge == nine_bonus_edge_by_hand(
        dict(rules.bonus9_pays))
    target = Fraction(4, 100)
    solution = solve(rules, "bonus9", target, line=line, scale=scale)
    assert solution.method == "linear"
    table = {int(count): int(pays) for count, pays in solution.table.items()}
    assert solution.house_edge == nine_bonus_edge_by_hand(table)
    assert analyze(solution.rules).wager("bonus9").house_edge == solution.house_edge
    if line is not None:  # brute force over the open line
        edges = {pay: nine_bonus_edge_by_hand({**table, 6: pay}) for pay in range(200)}
        assert table[6] == nearest_by_brute_force(edges, target)


@pytest.mark.slow
@pytest.mark.skipif(not REAL_HOLDEM, reason="feltlab.games.holdem_stud.analysis is not there yet")
def test_real_holdem_pay_table_search_and_bonus() -> None:
    """The search on the real Hold'em Stud: the neighbours of the solved pay are no nearer
    (the analysis is re-run for each); the 3 Card Bonus is linear."""
    from feltlab.analysis import analyze

    rules = load_rules("nh-holdem-stud")
    target = Fraction(8, 100)
    solution = solve(rules, "ante", target, line="flush")
    assert solution.method == "search"
    pay = int(solution.table["flush"])
    for neighbour in (pay - 1, pay + 1):
        other = with_pay_table(rules, "ante", {**solution.table, "flush": neighbour})
        edge = analyze(other).wager("ante").house_edge
        assert abs(edge - target) >= abs(solution.house_edge - target)
    bonus = solve(rules, "bonus3", Fraction(3, 100), line="flush")
    assert bonus.method == "linear"
    assert analyze(bonus.rules).wager("bonus3").house_edge == bonus.house_edge
