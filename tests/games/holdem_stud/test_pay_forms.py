"""An edit of Hold'em Stud's main pay table that moves no optimal decision is answered from
the last solve's forms (:mod:`feltlab.games.holdem_stud.pay_forms`), without the solver:
the check finds a moved decision exactly when a full solve would, and the figures are a
full solve's to the last digit (the PAR sheet compared whole)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from feltlab.analysis import analyze
from feltlab.core.rules import load_rules
from feltlab.games.holdem_stud import analysis, outcomes, solver, strategy_card
from feltlab.games.holdem_stud.pay_forms import PayForms, pay_forms
from feltlab.games.holdem_stud.rules import HoldemStudRules
from feltlab.games.holdem_stud.strategy_card import street_totals


def _rules(most: int = 3, **pays: int | str) -> HoldemStudRules:
    rules = load_rules("nh-holdem-stud")
    assert isinstance(rules, HoldemStudRules)
    return rules.model_copy(update={"max_street_multiple": most,
                                    "pays": {**rules.pays, **pays}})


@pytest.fixture(autouse=True)
def _afresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Nothing kept from elsewhere: no derived-data cache, no memo, no kept play."""
    monkeypatch.setenv("FELTLAB_NO_CACHE", "1")
    analysis._strategy_parts.clear()
    outcomes.forget()
    yield
    analysis._strategy_parts.clear()
    outcomes.forget()


_bases: dict[int, tuple[solver.Solution, solver.Outcome, PayForms]] = {}


def _base(most: int) -> tuple[solver.Solution, solver.Outcome, PayForms]:
    """The built-in table solved with street bets of up to ``most``, played, its forms."""
    if most not in _bases:
        solution = solver.solution_for(_rules(most))
        played = solver.play_out(solution.shape, solution.choices)
        _bases[most] = (solution, played, pay_forms(solution.shape, solution.choices,
                                                    played.reach))
    return _bases[most]


def _equal(first: tuple[np.ndarray, ...], second: tuple[np.ndarray, ...]) -> bool:
    return all(np.array_equal(a, b) for a, b in zip(first, second, strict=True))


# Small changes of the built-in table's net multiples, mostly of the strong hands (which
# seldom move a decision), now and then of the pairs (which usually do).
CHANGES = st.lists(st.tuples(st.sampled_from([3, 5, 7, 8, 9, 9, 10, 10, 11, 11, 11, 11]),
                             st.integers(-2, 4)), min_size=1, max_size=3)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(most=st.sampled_from([1, 2, 3]), changes=CHANGES)
def test_the_forms_find_the_solver_s_decisions(most: int, changes: list[tuple[int, int]]
                                               ) -> None:
    """Where no decision on the path of play moves, the forms find every decision a full
    solve takes (off the path too) and the strategy card's totals to the last digit;
    where one does, they say so."""
    base, played, forms = _base(most)
    multiples = list(base.multiples)
    for hand_class, change in changes:
        multiples[hand_class] += change
    solved = solver.solve.__wrapped__(tuple(multiples), 3, most)
    on_path = any((played.reach[level][solved.choices[level] != base.choices[level]] > 0).any()
                  for level in range(3))
    found = forms.for_pays(tuple(multiples))
    assert (found is None) == on_path
    if found is None:
        event("a decision on the path of play moved")
        return
    event("no decision moved" if found[0] is forms else "a decision moved off the path")
    repriced, totals = found
    assert _equal(repriced.choices, solved.choices)
    solved_play = solver.play_out(solved.shape, solved.choices)
    assert _equal(totals, street_totals(solved, solved_play.reach))
    if repriced is not forms:  # repaired: as the forms made afresh from the solve
        afresh = pay_forms(solved.shape, solved.choices, solved_play.reach)
        assert _equal(repriced.sum_forms, afresh.sum_forms)
        assert _equal(repriced.total_forms, afresh.total_forms)


@pytest.mark.parametrize("most", [1, 3, 5])
def test_the_forms_are_the_solver_s_sums(most: int) -> None:
    """At the pays they were made from, the forms give the solver's own next-card sums
    and the strategy card's totals, and its decisions hold."""
    solution, played, forms = _base(most)
    point = np.array([*solution.multiples, 1], dtype=np.int64)
    for level, sums in enumerate(solution.next_sums):
        assert np.array_equal(forms.sum_forms[level] @ point, sums)
    found = forms.for_pays(solution.multiples)
    assert found is not None and found[0] is forms
    assert _equal(found[1], street_totals(solution, played.reach))


def _reference_sheet(rules: HoldemStudRules) -> dict[str, Any]:
    """The PAR sheet of a process that has solved nothing before (a full solve)."""
    analysis._strategy_parts.clear()
    outcomes.forget()
    solver.solve.cache_clear()
    sheet = analyze(rules).to_json()
    analysis._strategy_parts.clear()
    outcomes.forget()
    return json.loads(json.dumps(sheet))


# Straight flush 81 moves four decisions no optimal play reaches (5-6-7 suited after
# a 2x bet at 3rd street, 1x to 3x): repaired, not solved.
KEPT = [{"royal_flush": 126}, {"royal_flush": 200}, {"four_of_a_kind": 31},
        {"royal_flush": 150, "four_of_a_kind": 32}, {"straight_flush": 81}]
MOVED = [{"full_house": 9}, {"high_pair": 2}, {"flush": 7, "straight": 5}]


def test_an_edit_that_moves_no_decision_neither_solves_nor_plays_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    references = [_reference_sheet(_rules(**pays)) for pays in KEPT]
    analyze(_rules())  # the built-in table, solved: its play is kept

    def refused(*args: object) -> None:
        raise AssertionError("solved, or the optimal strategy played out, again")

    monkeypatch.setattr(solver, "solve", refused)
    monkeypatch.setattr(analysis, "solution_for", refused)
    monkeypatch.setattr(outcomes, "strategy_map", refused)
    monkeypatch.setattr(outcomes, "pay_forms", refused)
    for pays, reference in zip(KEPT, references, strict=True):
        rules = _rules(**pays)
        assert json.loads(json.dumps(analyze(rules).to_json())) == reference, pays
        assert analysis.card_strategy(rules) is not None


def test_an_edit_that_moves_a_decision_is_solved_afresh(
        monkeypatch: pytest.MonkeyPatch) -> None:
    references = [_reference_sheet(_rules(**pays)) for pays in MOVED]
    analyze(_rules())
    solved: list[tuple[int, ...]] = []
    original = analysis.solution_for

    def counted(rules: HoldemStudRules) -> solver.Solution:
        solved.append(solver.net_multiples(rules))
        return original(rules)

    monkeypatch.setattr(analysis, "solution_for", counted)
    for pays, reference in zip(MOVED, references, strict=True):
        rules = _rules(**pays)
        assert json.loads(json.dumps(analyze(rules).to_json())) == reference, pays
        assert solved[-1] == solver.net_multiples(rules)
    assert len(solved) == len(MOVED)


def test_back_and_forth_edits_equal_full_solves() -> None:
    """A designer's session: edits that move decisions and edits that do not, in turn,
    some coming back to a table seen before; every sheet a full solve's."""
    session = [{}, {"royal_flush": 126}, {"full_house": 9}, {"full_house": 9, "royal_flush": 200},
               {"royal_flush": 127}, {"two_pair": 3}, {}, {"four_of_a_kind": 40}]
    references = [_reference_sheet(_rules(**pays)) for pays in session]
    for pays, reference in zip(session, references, strict=True):
        assert json.loads(json.dumps(analyze(_rules(**pays)).to_json())) == reference, pays


def test_street_bets_of_another_size_are_never_priced_from_these() -> None:
    analyze(_rules(3))
    assert outcomes.still_optimal(solver.Shape(3, 3), solver.net_multiples(_rules(3)))
    assert outcomes.still_optimal(solver.Shape(3, 2), solver.net_multiples(_rules(2))) is None


@pytest.mark.parametrize("most", [2, 3])
def test_the_forms_of_any_decisions_are_their_values(most: int) -> None:
    """Forms of decisions no solver took (random ones) against those decisions' values
    worked out directly: next-card sums and group totals, at two pay tables."""
    shape = solver.Shape(3, most)
    rng = np.random.default_rng(most)
    choices = tuple(rng.integers(0, most + 1, size=(math.comb(52, 2 + level),
                                                     shape.width(level))).astype(np.int8)
                    for level in range(3))
    played = solver.play_out(shape, choices)
    forms = pay_forms(shape, choices, played.reach)
    for multiples in (_base(most)[0].multiples, (-1, -1, 0, 2, 3, 4, 5, 9, 11, 40, 70, 500)):
        point = np.array([*multiples, 1], dtype=np.int64)
        totals = forms.street_totals(multiples)
        final = solver.completion_histograms(4) @ np.array(multiples, dtype=np.int64)
        assert np.array_equal(totals[2], strategy_card._group_totals_last(
            played.reach[2], shape.low(2), shape.scale(2), _groups(shape, 2), len(totals[2]),
            final, most))
        values = _values(shape, 2, choices[2], final[:, None], 0)
        for level in (1, 0):
            sums = np.zeros((math.comb(52, 2 + level), shape.width(level + 1)), dtype=np.int64)
            for position in range(3 + level):
                np.add.at(sums, solver.parents(3 + level)[:, position], values)
            assert np.array_equal(forms.sum_forms[level] @ point, sums)
            assert np.array_equal(totals[level], strategy_card._group_totals_middle(
                played.reach[level], shape.low(level), shape.scale(level),
                _groups(shape, level), len(totals[level]), sums, shape.low(level + 1), most))
            values = _values(shape, level, choices[level], sums, shape.low(level + 1))


def _groups(shape: solver.Shape, level: int) -> np.ndarray:
    return strategy_card.node_groups(level, shape.width(level), shape.low(level))[1]


def _values(shape: solver.Shape, level: int, choices: np.ndarray, sums: np.ndarray,
            next_low: int) -> np.ndarray:
    """Each node's value under ``choices``: a fold's, or at the last street (``sums``
    one column of final sums, ``next_low`` 0) the final sum times the antes then at
    risk, or before it the sum over the next card at those antes."""
    rows, columns = np.indices(choices.shape)
    bets = choices.astype(np.int64)
    at_risk = shape.low(level) + columns
    if next_low == 0:
        betting = sums[rows, 0] * (at_risk + bets)
    else:
        betting = sums[rows, at_risk - next_low + np.maximum(bets, 1)]
    return np.where(bets > 0, betting, -shape.scale(level) * at_risk)  # type: ignore[no-any-return]
