"""The quick paths of the Hold'em Stud solver and card search against the first ways
(one next-card pass per column and bet, one masked sum per card line, a sort of every
decision node), on several street-bet sizes and pay tables: the same numbers exactly."""

from __future__ import annotations

import math

import numpy as np
import pytest

from feltlab.core.rules import load_rules
from feltlab.games.holdem_stud import solver, strategy_card
from feltlab.games.holdem_stud import strategy as stud
from feltlab.games.holdem_stud.analysis import net_multiples
from feltlab.games.holdem_stud.rules import HoldemStudRules


def _variant(most: int, flush: int | None = None) -> HoldemStudRules:
    rules = load_rules("nh-holdem-stud")
    assert isinstance(rules, HoldemStudRules)
    pays = dict(rules.pays) if flush is None else {**rules.pays, "flush": flush}
    return rules.model_copy(update={"max_street_multiple": most, "pays": pays})


VARIANTS = [(1, None), (3, None), (4, 7), (10, None)]


@pytest.fixture(scope="module", params=VARIANTS, ids=[f"most{m}-flush{f}" for m, f in VARIANTS])
def solution(request: pytest.FixtureRequest) -> solver.Solution:
    most, flush = request.param
    rules = _variant(most, flush)
    return solver.solve(net_multiples(rules), rules.streets, most)


def _option_sums(cards: np.ndarray, next_values: np.ndarray, offset: int, most: int
                 ) -> list[int]:
    """Each bet's value summed over the next card, one child set at a time."""
    held = [int(card) for card in cards]
    children = [sum(math.comb(card, position + 1)
                    for position, card in enumerate(sorted([*held, extra])))
                for extra in range(52) if extra not in held]
    return [int(next_values[children, offset + bet].sum()) for bet in range(1, most + 1)]


def test_middle_levels_equal_the_option_sums_node_by_node(solution: solver.Solution) -> None:
    shape = solution.shape
    rng = np.random.default_rng(shape.most)
    for level in range(shape.last):
        sets = solver.all_sets(2 + level)
        for row in rng.choice(len(sets), 150, replace=False):
            for column in range(shape.width(level)):
                at_risk = shape.low(level) + column
                sums = _option_sums(sets[row], solution.values[level + 1],
                                    at_risk - shape.low(level + 1), shape.most)
                options = [-shape.scale(level) * at_risk, *sums]
                best = max(range(shape.most, -1, -1), key=lambda bet: options[bet])
                assert solution.values[level][row, column] == options[best]
                assert solution.choices[level][row, column] == best


def test_forward_counts_equal_a_gather_from_each_parent(solution: solver.Solution) -> None:
    shape, binom = solution.shape, solver.binomials()
    outcome = solver.play_out(solution.shape, solution.choices)
    for level in range(shape.last):
        reach, choices = outcome.reach[level], solution.choices[level]
        children = solver.all_sets(3 + level).astype(np.int64)
        expected = np.zeros_like(outcome.reach[level + 1])
        for dropped in range(children.shape[1]):  # each child's parent without one card
            kept = np.delete(children, dropped, axis=1)
            parents = sum(binom[kept[:, position], position + 1]
                          for position in range(kept.shape[1]))
            for column in range(reach.shape[1]):
                bets = choices[parents, column].astype(np.int64)
                played = bets > 0
                target = shape.low(level) + column + bets - shape.low(level + 1)
                np.add.at(expected, (np.nonzero(played)[0], target[played]),
                          reach[parents[played], column])
        assert np.array_equal(expected, outcome.reach[level + 1])


def _sorted_node_groups(level: int, width: int, low: int) -> tuple[np.ndarray, np.ndarray]:
    features = stud.card_features(2 + level)
    codes = np.zeros_like(features["made"])
    for name in stud.CARD_FEATURES:
        codes = codes * 16 + features[name]
    codes2d = codes[:, None] * width + np.arange(width)
    keys, inverse = np.unique(codes2d, return_inverse=True)
    return keys, inverse.reshape(codes2d.shape)


@pytest.mark.parametrize("most", [2, 3, 10])
def test_node_groups_equal_a_sort_of_every_node(most: int) -> None:
    shape = solver.Shape(3, most)
    for level in range(3):
        width, low = shape.width(level), shape.low(level)
        keys, groups, features = strategy_card.node_groups(level, width, low)
        expected_keys, expected_groups = _sorted_node_groups(level, width, low)
        assert np.array_equal(keys, expected_keys)
        assert np.array_equal(groups, expected_groups)
        card = stud.card_features(2 + level)
        for name in stud.CARD_FEATURES:
            assert np.array_equal(features[name][groups], np.repeat(card[name][:, None],
                                                                    width, axis=1))
        assert np.array_equal(features["bets"][groups], low - 1 + np.arange(width)[None, :]
                              + np.zeros_like(groups))


def _group_totals_last_by_scatter(reach: np.ndarray, low: int, scale: int, groups: np.ndarray,
                                  group_count: int, final_sums: np.ndarray,
                                  most: int) -> np.ndarray:
    totals = np.zeros((group_count, most + 1), dtype=np.int64)
    at_risk = low + np.arange(reach.shape[1])
    for bet in range(most + 1):
        value = (final_sums[:, None] * (at_risk + bet) if bet else
                 -scale * np.broadcast_to(at_risk, reach.shape))
        np.add.at(totals[:, bet], groups.ravel(), (reach * value).ravel())
    return totals


def test_strategy_card_equals_one_found_with_masked_sums(
        solution: solver.Solution, monkeypatch: pytest.MonkeyPatch) -> None:
    outcome = solver.play_out(solution.shape, solution.choices)
    quick = strategy_card.derive_card(solution, outcome.reach, outcome.total)

    def masked(table: strategy_card.ConditionTable, values: np.ndarray) -> np.ndarray:
        rows = table.features
        first = rows[:, table.first] >= table.first_min
        second = np.where(table.second >= 0, rows[:, np.maximum(table.second, 0)]
                          >= table.second_min, True)
        return (first & second).astype(np.int64).T @ values  # type: ignore[no-any-return]

    monkeypatch.setattr(strategy_card.ConditionTable, "sums", masked)
    monkeypatch.setattr(strategy_card, "_group_totals_last", _group_totals_last_by_scatter)
    assert strategy_card.derive_card(solution, outcome.reach, outcome.total) == quick


def _choices_column_by_column(strategy: stud.StudStrategy,
                              solution: solver.Solution) -> tuple[np.ndarray, ...]:
    shape = solution.shape
    tables = []
    for level in range(shape.streets):
        features = stud.card_features(2 + level)
        columns = []
        for column in range(shape.width(level)):
            bets_made = shape.low(level) + column - 1
            choice = np.zeros(len(features["made"]), dtype=np.int8)
            for rule in strategy.street(level):
                match = np.ones_like(choice, dtype=bool)
                for name, minimum in rule.when.items():
                    have = features[name] if name != "bets" else np.full_like(match, bets_made)
                    match &= have >= minimum
                choice = np.where(match, np.maximum(choice, rule.bet), choice).astype(np.int8)
            columns.append(choice)
        tables.append(np.stack(columns, axis=1))
    return tuple(tables)


def test_strategy_choices_equal_a_match_column_by_column(solution: solver.Solution) -> None:
    most = solution.shape.most
    plan = stud.parse_strategy(f"""
street3 = [{{bet = {most}, when = {{made = 2}}}}, {{bet = 1, when = {{points = 3}}}}]
street4 = [{{bet = 1, when = {{bets = 1, suited = 3}}}}, {{bet = {most}, when = {{made = 1}}}},
           {{bet = 1, when = {{bets = 2}}}}]
street5 = [{{bet = {most}, when = {{made = 3, bets = 3}}}}, {{bet = 1, when = {{straight = 4}}}},
           {{bet = 1, when = {{bets = 0}}}}]
""")
    outcome = solver.play_out(solution.shape, solution.choices)
    for strategy in (plan, strategy_card.derive_card(solution, outcome.reach, outcome.total)):
        quick = stud.strategy_choices(strategy, solution.shape)
        expected = _choices_column_by_column(strategy, solution)
        assert all(np.array_equal(a, b) for a, b in zip(quick, expected, strict=True))
