"""The exact values and strategies the simulator takes from the analysis, checked against
independent computations (counts by suit composition, an independent backward induction,
published counts), and the unit of ``total``."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from math import comb

import numba as nb
import numpy as np
import pytest

from feltlab.core.cards import Card
from feltlab.core.evaluators import PokerHand, ThreeCardHand, flush_value_of
from feltlab.core.kernels import RUN_LENGTH, poker_class_of_row
from feltlab.core.rules import load_rules, pays_for
from feltlab.games.high_card_flush import kernel as flush
from feltlab.games.high_card_flush import wagers as flush_wagers
from feltlab.games.high_card_flush.rules import FlushRules
from feltlab.games.holdem_stud import analysis as holdem_analysis
from feltlab.games.holdem_stud import kernel as holdem
from feltlab.games.holdem_stud.rules import HoldemStudRules
from feltlab.games.holdem_stud.strategy import parse_strategy
from feltlab.games.nine_card_flush import analysis as nine_analysis
from feltlab.games.nine_card_flush import kernel as nine
from feltlab.games.nine_card_flush.rules import NineCardRules
from feltlab.simulate.runner import prepare

# High Card Flush family: bonus wagers by suit composition --------------------------------


def _lane_counts() -> dict[tuple[int, int], int]:
    """13-bit suit lanes by (cards in the suit, longest straight-flush run)."""
    counts: dict[tuple[int, int], int] = {}
    for lane in range(1 << 13):
        key = (bin(lane).count("1"), int(RUN_LENGTH[lane]))
        counts[key] = counts.get(key, 0) + 1
    return counts


@cache
def _seven_card_counts() -> tuple[dict[int, int], dict[int, int]]:
    """Seven-card hands by longest suit and by longest straight-flush run, built one suit
    at a time from the lane counts."""
    by_lane = _lane_counts()
    states: dict[tuple[int, int, int], int] = {(0, 0, 0): 1}  # (cards, longest, run)
    for _ in range(4):
        following: dict[tuple[int, int, int], int] = {}
        for (used, longest, run), ways in states.items():
            for (cards, lane_run), lanes in by_lane.items():
                if used + cards <= 7:
                    key = (used + cards, max(longest, cards), max(run, lane_run))
                    following[key] = following.get(key, 0) + ways * lanes
        states = following
    lengths: dict[int, int] = {}
    runs: dict[int, int] = {}
    for (used, longest, run), ways in states.items():
        if used == 7:
            lengths[longest] = lengths.get(longest, 0) + ways
            runs[run] = runs.get(run, 0) + ways
    return lengths, runs


def _bonus_edge(table: dict[int, int], distribution: dict[int, int]) -> Fraction:
    returned = 0
    for count, ways in distribution.items():
        pays = pays_for(table, count)
        returned += (-1 if pays is None else pays) * ways
    return -Fraction(returned, sum(distribution.values()))


def test_seven_card_distributions_count_every_hand() -> None:
    lengths, runs = _seven_card_counts()
    assert sum(lengths.values()) == sum(runs.values()) == comb(52, 7)
    assert lengths[7] == 4 * comb(13, 7)


@pytest.mark.parametrize("rules_id", ["high-card-flush", "high-card-flush-toledo",
                                      "nh-flush-poker"])
def test_flush_bonus_edges_by_suit_composition(rules_id: str) -> None:
    """Every bonus the simulator shows as exact equals the all-hands-settled count: the
    bonuses settled on a fold, and nh-flush-poker's Flush bonus for the optimal strategy
    and the strategy card, neither of which folds a paying flush."""
    rules = load_rules(rules_id)
    assert isinstance(rules, FlushRules)
    lengths, runs = _seven_card_counts()
    independent = {"flush": _bonus_edge(rules.flush_pays, lengths),
                   "straight_flush": _bonus_edge(rules.straight_flush_pays, runs)}
    for strategy in (flush.optimal_strategy(rules), flush.simple_strategy(rules)):
        edges = flush.exact_edges(rules, strategy, Fraction(0))
        for name in ("flush", "straight_flush"):
            if name in edges:
                assert edges[name] == independent[name], (rules_id, strategy.name, name)
        assert "flush" in edges and "ante" in edges
    with_mistakes = flush.exact_edges(rules, flush.optimal_strategy(rules), Fraction(1, 10))
    expected = {name for name in ("flush", "straight_flush") if rules.settled_on_fold[name]}
    assert set(with_mistakes) == expected


def test_flush_strategy_card_is_the_published_threshold() -> None:
    """high-card-flush's card: raise a 3-card flush of T-8-6 or better, 4+ at the most."""
    rules = load_rules("high-card-flush")
    assert isinstance(rules, FlushRules)
    table = flush.simple_strategy(rules).table
    least = flush_value_of(3, (8, 6, 4))
    from feltlab.games.high_card_flush import counting as fk

    for value in fk.VALUES:
        most = rules.max_raise_multiple(int(value) >> 13)
        assert table[value] == (most if value >= least else 0), int(value)


def test_flush_strategy_that_folds_paying_flushes_has_no_exact_flush_bonus() -> None:
    rules = load_rules("nh-flush-poker")
    assert isinstance(rules, FlushRules)
    from feltlab.games.high_card_flush.strategy import parse_strategy as parse_flush

    plan = parse_flush('[[rule]]\nmin_length = 5\naction = "max"')
    strategy = flush.plan_strategy(rules, plan, "five")
    edges = flush.exact_edges(rules, strategy, Fraction(0))
    assert "flush" not in edges
    assert edges["ante"] == flush_wagers.evaluate_strategy(rules, plan).house_edge


# 9 Card Flush: enumeration by suit counts ------------------------------------------------

def _compositions(total: int) -> list[tuple[int, int, int]]:
    return [(a, b, total - a - b) for a in range(total + 1) for b in range(total + 1 - a)]


def _player_ways(community: tuple[int, int, int], player: tuple[int, int, int]) -> int:
    (a, b, o), (x, y, z) = community, player
    return comb(13 - a, x) * comb(13 - b, y) * comb(26 - o, z)


def _main_sign(rules: NineCardRules, count: int) -> int:
    if count >= rules.all9_win_at:
        return 1
    return 0 if rules.all9_push_at is not None and count >= rules.all9_push_at else -1


def _nine_edges(rules: NineCardRules, plays: dict[tuple[int, int, int], bool]
                ) -> dict[str, Fraction]:
    tables = {"bonus9": rules.bonus9_pays, "player6": rules.player6_pays,
              "first3": rules.first3_pays}
    returned = dict.fromkeys(("all9", *tables), 0)
    for community in _compositions(3):
        a, b, o = community
        community_ways = comb(13, a) * comb(13, b) * comb(26, o)
        for player in _compositions(6):
            ways = community_ways * _player_ways(community, player)
            count = max(a + player[0], b + player[1])
            returned["all9"] += ways * (2 * _main_sign(rules, count) if plays[community]
                                        else -1)
            counts = {"bonus9": count, "player6": max(player[:2]), "first3": max(a, b)}
            for name, table in tables.items():
                pays = pays_for(table, counts[name])
                returned[name] += ways * (-1 if pays is None else pays)
    total = comb(52, 3) * comb(49, 6)
    return {name: -Fraction(value, total) for name, value in returned.items()}


def _independent_optimal(rules: NineCardRules) -> dict[tuple[int, int, int], bool]:
    plays = {}
    for community in _compositions(3):
        a, b, _ = community
        value = sum(2 * _main_sign(rules, max(a + x, b + y)) * _player_ways(community, (x, y, z))
                    for x, y, z in _compositions(6))
        plays[community] = Fraction(value, comb(49, 6)) >= -1
    return plays


@pytest.mark.parametrize("mistake", [Fraction(0), Fraction(1, 4)])
def test_nine_exact_values_by_suit_counts(mistake: Fraction) -> None:
    rules = load_rules("nine-card-flush")
    assert isinstance(rules, NineCardRules)
    plays = _independent_optimal(rules)
    table = nine.optimal_strategy(rules).table
    assert all(table[4 * a + b] == plays[(a, b, o)] for a, b, o in plays)
    right = _nine_edges(rules, plays)
    wrong = _nine_edges(rules, {community: not play for community, play in plays.items()})
    edges = nine.exact_edges(rules, nine.optimal_strategy(rules), mistake)
    assert edges["all9"] == (1 - mistake) * right["all9"] + mistake * wrong["all9"]
    for name in ("bonus9", "player6", "first3"):
        assert edges[name] == right[name]


def test_nine_strategy_card_value_by_suit_counts() -> None:
    rules = load_rules("nine-card-flush")
    assert isinstance(rules, NineCardRules)
    simple = nine.simple_strategy(rules)
    plays = {(a, b, o): bool(simple.table[4 * a + b]) for a, b, o in _compositions(3)}
    edges = nine.exact_edges(rules, simple, Fraction(0))
    assert edges["all9"] == _nine_edges(rules, plays)["all9"]


# Hold'em Stud: an independent backward induction -------------------------------------------

PAIRS = 52 * 51 // 2


@nb.njit(cache=True)
def _pair_index(first: int, second: int) -> int:
    low, high = min(first, second), max(first, second)
    return high * (high - 1) // 2 + low


@nb.njit(cache=True)
def _pair_cards() -> tuple[np.ndarray, np.ndarray]:
    low = np.empty(PAIRS, dtype=np.int64)
    high = np.empty(PAIRS, dtype=np.int64)
    for h in range(1, 52):
        for c in range(h):
            at = _pair_index(c, h)
            low[at], high[at] = c, h
    return low, high


@nb.njit(cache=True, parallel=True)
def _third_street_sums(pays: np.ndarray) -> np.ndarray:
    """Sum over the 48 unseen fifth cards of the pay multiple, per (hole, two community)."""
    low, high = _pair_cards()
    sums = np.zeros((PAIRS, PAIRS), dtype=np.int64)
    for hole in nb.prange(PAIRS):
        h0, h1 = low[hole], high[hole]
        five = np.empty(5, dtype=np.uint8)
        five[0], five[1] = h0, h1
        for seen in range(PAIRS):
            c1, c2 = low[seen], high[seen]
            if c1 in (h0, h1) or c2 in (h0, h1):
                continue
            five[2], five[3] = c1, c2
            total = 0
            for card in range(52):
                if card in (h0, h1, c1, c2):
                    continue
                five[4] = card
                total += pays[poker_class_of_row(five)]
            sums[hole, seen] = total
    return sums


@nb.njit(cache=True)
def _choose(fold: int, per_antes: int, made: int, most: int) -> tuple[int, int]:
    best, value = 0, fold
    for bet in range(1, most + 1):
        worth = per_antes * (1 + made + bet)
        if worth >= value:
            best, value = bet, worth
    return best, value


@nb.njit(cache=True, parallel=True)
def _solve(sums: np.ndarray, most: int) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                 np.ndarray]:
    """Tables by (hole), (hole, first card, bets made), (hole, two cards, bets made) and
    the first street's value per hole in units of 1 / (48 * 49 * 50)."""
    low, high = _pair_cards()
    stride = 3 * most + 1
    table1 = np.zeros(PAIRS, dtype=np.int8)
    table2 = np.zeros(PAIRS * 52 * stride, dtype=np.int8)
    table3 = np.zeros(PAIRS * PAIRS * stride, dtype=np.int8)
    value1 = np.zeros(PAIRS, dtype=np.int64)
    for hole in nb.prange(PAIRS):
        h0, h1 = low[hole], high[hole]
        value2 = np.zeros((52, stride), dtype=np.int64)
        for c1 in range(52):
            if c1 in (h0, h1):
                continue
            for made in range(1, most + 1):
                best_bet, best_value = 0, -(1 + made) * 48 * 49
                for bet in range(1, most + 1):
                    worth = 0
                    for c2 in range(52):
                        if c2 in (h0, h1, c1):
                            continue
                        seen = _pair_index(c1, c2)
                        choice, value = _choose(-(1 + made + bet) * 48, sums[hole, seen],
                                                made + bet, most)
                        table3[(hole * PAIRS + seen) * stride + made + bet] = choice
                        worth += value
                    if worth >= best_value:
                        best_bet, best_value = bet, worth
                table2[(hole * 52 + c1) * stride + made] = best_bet
                value2[c1, made] = best_value
        best_bet, best_value = 0, -48 * 49 * 50
        for bet in range(1, most + 1):
            worth = 0
            for c1 in range(52):
                if c1 != h0 and c1 != h1:
                    worth += value2[c1, bet]
            if worth >= best_value:
                best_bet, best_value = bet, worth
        table1[hole] = best_bet
        value1[hole] = best_value
    return table1, table2, table3, value1


def test_holdem_optimum_by_independent_backward_induction() -> None:
    """Same optimal house edge, and the same decisions on sampled deals, as the tables
    the simulator takes from the analysis."""
    rules = load_rules("nh-holdem-stud")
    assert isinstance(rules, HoldemStudRules)
    most = rules.max_street_multiple
    pays = np.array([rules.net_multiple(hand) for hand in PokerHand], dtype=np.int64)
    table1, table2, table3, value1 = _solve(_third_street_sums(pays), most)
    edge = -Fraction(int(value1.sum()), PAIRS * 48 * 49 * 50)
    assert holdem.exact_edges(rules, holdem.optimal_strategy(rules), Fraction(0))["ante"] \
        == edge
    strategy = holdem.optimal_strategy(rules)
    first, second = strategy.table, strategy.table2.reshape(-1, most)
    third = strategy.table3.reshape(-1, 2 * most - 1)
    stride = 3 * most + 1
    generator = np.random.default_rng(10)
    for _ in range(3000):
        cards = [int(c) for c in generator.permutation(52)[:4]]
        hole, seen = _pair_index(cards[0], cards[1]), _pair_index(cards[2], cards[3])
        rows = [holdem_analysis.decision_row([Card(c) for c in cards[:n]]) for n in (2, 3, 4)]
        assert table1[hole] == first[rows[0]]
        for made in range(1, most + 1):
            assert table2[(hole * 52 + cards[2]) * stride + made] == second[rows[1], made - 1]
        for made in range(2, 2 * most + 1):
            assert table3[(hole * PAIRS + seen) * stride + made] == third[rows[2], made - 2]


PUBLISHED_5_CARD_COUNTS = {
    "royal_flush": 4, "straight_flush": 36, "four_of_a_kind": 624, "full_house": 3744,
    "flush": 5108, "straight": 10200, "three_of_a_kind": 54912, "two_pair": 123552,
    "high_pair": 4 * 84480, "mid_pair": 5 * 84480, "low_pair": 4 * 84480,
    "high_card": 1302540,
}


def test_holdem_file_strategy_value_from_published_counts() -> None:
    """Bet 1x on every street: 4 antes on every deal at the final hand's odds."""
    rules = load_rules("nh-holdem-stud")
    assert isinstance(rules, HoldemStudRules)
    assert sum(PUBLISHED_5_CARD_COUNTS.values()) == comb(52, 5)
    returned = sum(4 * rules.net_multiple(PokerHand[name.upper()]) * count
                   for name, count in PUBLISHED_5_CARD_COUNTS.items())
    plan = parse_strategy("street3 = [{bet = 1}]\nstreet4 = [{bet = 1}]\n"
                          "street5 = [{bet = 1}]")
    strategy = holdem.plan_strategy(rules, plan, "always-1x")
    assert (strategy.table == 1).all() and (strategy.table3 == 1).all()
    edges = holdem.exact_edges(rules, strategy, Fraction(0))
    assert edges["ante"] == -Fraction(returned, comb(52, 5))


def test_holdem_bonus3_from_published_counts() -> None:
    """22,100 three-card sets: 48 straight flushes, 52 trips, 720 straights, 1,096
    flushes, 3,744 pairs."""
    rules = load_rules("nh-holdem-stud")
    assert isinstance(rules, HoldemStudRules)
    counts = {"straight_flush": 48, "three_of_a_kind": 52, "straight": 720, "flush": 1096,
              "pair": 3744}
    losing = 22100 - sum(counts.values())
    returned = sum(rules.bonus3_net_multiple(ThreeCardHand[name.upper()]) * count
                   for name, count in counts.items()) - losing
    for mistake in (Fraction(0), Fraction(1, 3)):
        edges = holdem.exact_edges(rules, holdem.simple_strategy(rules), mistake)
        assert edges["bonus3"] == -Fraction(returned, 22100)
        assert ("ante" in edges) == (mistake == 0)


# The unit of total ---------------------------------------------------------------------

@pytest.mark.parametrize("rules_id", ["high-card-flush", "nine-card-flush"])
def test_exact_total_is_per_unit_of_all_initial_wagers(rules_id: str) -> None:
    """Without a cap, the total is the stake-weighted mean of the wagers' edges."""
    rules = load_rules(rules_id)
    assert rules.max_aggregate_payout is None
    bets = ({"ante": 3, "flush": 1, "straight_flush": 2} if rules_id == "high-card-flush"
            else {"all9": 3, "bonus9": 1, "player6": 2, "first3": 1})
    for strategy in ("optimal", "simple"):
        setup = prepare(rules, bets=bets, strategy=strategy)
        weighted = sum((stake * setup.exact[name] for name, stake in bets.items()),
                       Fraction(0)) / sum(bets.values())
        assert setup.exact["total"] == weighted
        assert setup.stakes[-1] == sum(bets.values())


def test_capped_total_is_exact_only_for_the_optimal_strategy() -> None:
    rules = load_rules("high-card-flush-toledo")
    assert rules.max_aggregate_payout is not None
    bets = {"ante": 100, "flush": 100, "straight_flush": 100}
    optimal = prepare(rules, bets=bets)
    assert optimal.exact["total"] == flush_wagers.capped_returns(rules, bets)["total"]
    assert "total" not in prepare(rules, bets=bets, strategy="simple").exact
    nine_rules = load_rules("nine-card-flush")
    assert "total" in prepare(nine_rules, mistakes=0.1).exact
    assert nine_analysis.analyze(nine_rules).wager("all9").house_edge \
        == prepare(nine_rules).exact["all9"]
