"""The simulator's compiled rounds against the reference settlement, round by round, and
its generator and exact helpers against independent counts."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import numpy as np
import pytest

from feltlab.cards import Card
from feltlab.evaluators import best_flush, longest_straight_flush, poker_hand, three_card_hand
from feltlab.kernels import LANE_BIT
from feltlab.rules import FlushRules, HoldemStudRules, NineCardRules, load_rules
from feltlab.settle import settle_flush, settle_holdem, settle_nine_card
from feltlab.simulate import flush, holdem, kernel, nine, rng
from feltlab.simulate.common import Strategy
from feltlab.simulate.runner import Setup, prepare

DECKS = 3000

# Compiling a round loop that takes a game's round as a function value warns.
pytestmark = pytest.mark.filterwarnings(
    "ignore::numba.core.errors.NumbaExperimentalFeatureWarning")


def _decks(seed: int, count: int = DECKS) -> np.ndarray:
    generator = np.random.default_rng(seed)
    return np.stack([generator.permutation(52) for _ in range(count)]).astype(np.uint8)


def _replay(setup: Setup, decks: np.ndarray) -> np.ndarray:
    return kernel.replay_decks(setup.game, decks, setup.seats, len(setup.wager_names),
                               *setup.arrays)


def _cards(indices: np.ndarray) -> list[Card]:
    return [Card(int(i)) for i in indices]


def _random_strategy(table_size: int, most: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, most + 1, table_size).astype(np.int8)


# Generator ---------------------------------------------------------------------------------

def test_draws_are_reproducible_and_streams_differ() -> None:
    first, again, other = rng.new_deck(), rng.new_deck(), rng.new_deck()
    rng.draw_cards(rng.stream_state(11, 3), first, 14)
    rng.draw_cards(rng.stream_state(11, 3), again, 14)
    rng.draw_cards(rng.stream_state(11, 4), other, 14)
    assert (first == again).all()
    assert not (first[:14] == other[:14]).all()
    assert sorted(first.tolist()) == list(range(52))


def test_bounded_draws_are_uniform() -> None:
    """Chi-square of 260,000 draws of the first card (51 degrees of freedom)."""
    counts = np.zeros(52, dtype=np.int64)
    state = rng.stream_state(5, 0)
    deck = rng.new_deck()
    for _ in range(260_000):
        rng.draw_cards(state, deck, 1)
        counts[deck[0]] += 1
    expected = 5000
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 100  # p < 1e-4 above 90 for 51 degrees of freedom


# High Card Flush family ---------------------------------------------------------------------

def _flush_decision(strategy: Strategy, player: list[Card]) -> int:
    value = best_flush(player).value
    decision = int(strategy.table[value])
    if decision >= 0:
        return decision
    mask = np.uint64(0)
    for card in player:
        mask |= LANE_BIT[card.index]
    key = flush.canonical_key(mask)
    return int(strategy.values[np.searchsorted(strategy.keys, key)])


def _check_flush(rules: FlushRules, setup: Setup, decks: np.ndarray) -> None:
    nets = _replay(setup, decks)
    for deck, round_nets in zip(decks, nets, strict=True):
        dealer = _cards(deck[7 * setup.seats:7 * setup.seats + 7])
        for seat in range(setup.seats):
            player = _cards(deck[7 * seat:7 * seat + 7])
            multiple = _flush_decision(setup.strategy, player)
            settled = settle_flush(rules, setup.bets, player, dealer,
                                   multiple * setup.bets["ante"])
            got = round_nets[seat]
            assert got[0] == settled.results["ante"] + settled.results.get("raise", 0)
            assert got[1] == settled.results.get("flush", 0)
            assert got[2] == settled.results.get("straight_flush", 0)
            assert got[3] == settled.total


@pytest.mark.parametrize("rules_id", ["high-card-flush", "high-card-flush-toledo",
                                      "nh-flush-poker"])
def test_flush_kernel_matches_settlement(rules_id: str) -> None:
    rules = load_rules(rules_id)
    assert isinstance(rules, FlushRules)
    most = max(rules.max_raise_multiple(n) for n in range(8))
    table = _random_strategy(flush.VALUES, most, 1)
    lengths = np.arange(flush.VALUES) >> 13
    allowed = np.array([rules.max_raise_multiple(int(n)) for n in range(8)])[lengths]
    table = np.minimum(table, allowed).astype(np.int8)
    bets = {"ante": 3, "flush": 2, "straight_flush": 2}
    setup = prepare(rules, seats=3, bets=bets, strategy=Strategy("random", table),
                    with_exact=False)
    _check_flush(rules, setup, _decks(2))


def test_flush_kernel_applies_the_cap() -> None:
    rules = load_rules("nh-flush-poker").model_copy(update={"max_aggregate_payout": 20})
    assert isinstance(rules, FlushRules)
    setup = prepare(rules, seats=6, bets={"ante": 10, "flush": 10, "straight_flush": 10},
                    strategy="simple", with_exact=False)
    decks = _decks(3, 1500)
    _check_flush(rules, setup, decks)
    nets = _replay(setup, decks)
    assert (nets[:, :, 3] == 20 + np.minimum(nets[:, :, :3], 0).sum(axis=2)).any()


def test_flush_optimal_exceptions_match_settlement() -> None:
    rules = load_rules("high-card-flush")
    setup = prepare(rules, seats=6, bets={"ante": 1, "flush": 1, "straight_flush": 1},
                    strategy="optimal", with_exact=False)
    if setup.strategy.keys.size == 0:
        pytest.skip("no exception hands in this strategy")
    _check_flush(rules, setup, _decks(4, 1000))


def test_canonical_key_forgets_suits() -> None:
    hand = [Card(i) for i in (0, 3, 14, 20, 27, 40, 51)]
    renamed = [Card.of(card.rank, (card.suit + 1) % 4) for card in hand]

    def key(cards: list[Card]) -> int:
        mask = np.uint64(0)
        for card in cards:
            mask |= LANE_BIT[card.index]
        return int(flush.canonical_key(mask))

    assert key(hand) == key(renamed)


def test_bonus_distributions_by_brute_force_on_few_suits() -> None:
    """The distributions count every 7-card hand once and agree with the evaluators on a
    sample."""
    assert sum(flush.flush_length_distribution().values()) == comb(52, 7)
    assert sum(flush.straight_run_distribution().values()) == comb(52, 7)
    generator = np.random.default_rng(9)
    lengths = flush.flush_length_distribution()
    runs = flush.straight_run_distribution()
    sample = [_cards(generator.permutation(52)[:7]) for _ in range(20000)]
    share_5_plus = sum(best_flush(h).length >= 5 for h in sample) / len(sample)
    exact_5_plus = sum(v for k, v in lengths.items() if k >= 5) / comb(52, 7)
    assert abs(share_5_plus - exact_5_plus) < 0.006
    share_run3 = sum(longest_straight_flush(h) >= 3 for h in sample) / len(sample)
    exact_run3 = sum(v for k, v in runs.items() if k >= 3) / comb(52, 7)
    assert abs(share_run3 - exact_run3) < 0.006


def test_exact_bonus_edges_agree_with_the_analysis() -> None:
    analysis = pytest.importorskip("feltlab.analysis.flush")
    for rules_id in ("high-card-flush", "high-card-flush-toledo"):
        rules = load_rules(rules_id)
        assert isinstance(rules, FlushRules)
        sheet = analysis.analyze(rules)
        for name, edge in flush.exact_bonus_edges(rules).items():
            assert sheet.wager(name).house_edge == edge


# 9 Card Flush ---------------------------------------------------------------------------------

@pytest.mark.parametrize("strategy", ["optimal", "simple"])
def test_nine_kernel_matches_settlement(strategy: str) -> None:
    rules = load_rules("nine-card-flush").model_copy(update={"max_aggregate_payout": 30})
    assert isinstance(rules, NineCardRules)
    bets = {"all9": 2, "bonus9": 1, "player6": 3, "first3": 1}
    setup = prepare(rules, seats=8, bets=bets, strategy=strategy, with_exact=False)
    decks = _decks(5, 1500)
    nets = _replay(setup, decks)
    table = setup.strategy.table
    for deck, round_nets in zip(decks, nets, strict=True):
        community = _cards(deck[:3])
        red = [sum(1 for c in community if c.suit == s) for s in (1, 2)]
        plays = bool(table[4 * max(red) + min(red)])
        for seat in range(8):
            player = _cards(deck[3 + 6 * seat:9 + 6 * seat])
            settled = settle_nine_card(rules, bets, "red", community, player, plays)
            got = round_nets[seat]
            assert got[0] == settled.results["all9"] + settled.results.get("play", 0)
            assert got[1] == settled.results["bonus9"]
            assert got[2] == settled.results["player6"]
            assert got[3] == settled.results["first3"]
            assert got[4] == settled.total


def test_nine_exact_values_agree_with_the_analysis() -> None:
    analysis = pytest.importorskip("feltlab.analysis.nine")
    rules = load_rules("nine-card-flush")
    assert isinstance(rules, NineCardRules)
    strategy = nine.optimal_strategy(rules)
    table = analysis.play_table(rules)
    for a in range(4):
        for b in range(4 - a):
            assert strategy.table[4 * max(a, b) + min(a, b)] == table[a, b]
    sheet = analysis.analyze(rules)
    for name, edge in nine.exact_edges(rules, strategy).items():
        assert sheet.wager(name).house_edge == edge


# Hold'em Stud ---------------------------------------------------------------------------------

def test_scalar_classes_match_the_reference() -> None:
    generator = np.random.default_rng(6)
    for _ in range(3000):
        cards = generator.permutation(52)[:5].astype(np.uint8)
        hand = _cards(cards)
        assert holdem.poker_class(cards) == poker_hand(hand)
        assert holdem.three_card_class(cards[:3]) == three_card_hand(hand[:3])


def _holdem_streets(strategy: Strategy, most: int, hole: list[Card],
                    community: list[Card], ante: int) -> list[int]:
    stride = 3 * most + 1
    h = holdem.pair_index(hole[0].index, hole[1].index)
    made = int(strategy.table[h])
    streets = [made]
    if made:
        bet = int(strategy.table2[(h * 52 + community[0].index) * stride + made])
        streets.append(bet)
        if bet:
            made += bet
            seen = holdem.pair_index(community[0].index, community[1].index)
            streets.append(int(strategy.table3[(h * holdem.PAIRS + seen) * stride + made]))
    return [bet * ante for bet in streets if bet]


def test_holdem_kernel_matches_settlement() -> None:
    rules = load_rules("nh-holdem-stud").model_copy(update={"max_aggregate_payout": 100})
    assert isinstance(rules, HoldemStudRules)
    most = rules.max_street_multiple
    stride = 3 * most + 1
    generator = np.random.default_rng(8)
    strategy = Strategy(
        "random",
        generator.integers(0, most + 1, holdem.PAIRS).astype(np.int8),
        generator.integers(0, most + 1, holdem.PAIRS * 52 * stride).astype(np.int8),
        generator.integers(0, most + 1, holdem.PAIRS * holdem.PAIRS * stride).astype(np.int8))
    bets = {"ante": 4, "bonus3": 2}
    setup = prepare(rules, seats=7, bets=bets, strategy=strategy, with_exact=False)
    decks = _decks(7, 1500)
    nets = _replay(setup, decks)
    for deck, round_nets in zip(decks, nets, strict=True):
        community = _cards(deck[14:17])
        for seat in range(7):
            hole = _cards(deck[2 * seat:2 * seat + 2])
            streets = _holdem_streets(strategy, most, hole, community, 4)
            settled = settle_holdem(rules, bets, hole, community, streets)
            got = round_nets[seat]
            assert got[0] == sum(v for k, v in settled.results.items() if k != "bonus3")
            assert got[1] == settled.results["bonus3"]
            assert got[2] == settled.total


def test_holdem_solution_agrees_with_the_analysis() -> None:
    """My backward induction and the analysis module's solver: same value, same tables."""
    analysis = pytest.importorskip("feltlab.analysis.holdem")
    rules = load_rules("nh-holdem-stud")
    assert isinstance(rules, HoldemStudRules)
    solution = holdem.solve(rules)
    assert analysis.analyze(rules).wager("ante").house_edge == solution.ante_edge
    first, second, third = analysis.decision_tables(rules)
    strategy = solution.strategy
    stride = 3 * rules.max_street_multiple + 1
    generator = np.random.default_rng(10)
    for _ in range(2000):
        cards = [int(c) for c in generator.permutation(52)[:4]]
        hole = holdem.pair_index(cards[0], cards[1])
        assert strategy.table[hole] == first[analysis.decision_row(_cards(
            np.array(cards[:2]))), 0]
        for made in range(1, rules.max_street_multiple + 1):
            row = analysis.decision_row(_cards(np.array(cards[:3])))
            assert strategy.table2[(hole * 52 + cards[2]) * stride + made] == second[row, made - 1]
        seen = holdem.pair_index(cards[2], cards[3])
        for made in range(2, 2 * rules.max_street_multiple + 1):
            row = analysis.decision_row(_cards(np.array(cards)))
            assert strategy.table3[(hole * holdem.PAIRS + seen) * stride + made] == third[
                row, made - 2]


PUBLISHED_5_CARD_COUNTS = {
    "royal_flush": 4, "straight_flush": 36, "four_of_a_kind": 624, "full_house": 3744,
    "flush": 5108, "straight": 10200, "three_of_a_kind": 54912, "two_pair": 123552,
    "high_pair": 4 * 84480, "mid_pair": 5 * 84480, "low_pair": 4 * 84480,
    "high_card": 1302540,
}


def test_simple_holdem_edge_from_published_counts() -> None:
    """Bet 1x on every street: 4 antes on every deal at the final hand's odds; the
    five-card class counts are the published ones."""
    rules = load_rules("nh-holdem-stud")
    assert isinstance(rules, HoldemStudRules)
    assert sum(PUBLISHED_5_CARD_COUNTS.values()) == comb(52, 5)
    returned = sum(4 * _net(rules, name) * count for name, count in
                   PUBLISHED_5_CARD_COUNTS.items())
    assert holdem.simple_ante_edge(rules) == -Fraction(returned, comb(52, 5))


def _net(rules: HoldemStudRules, name: str) -> int:
    from feltlab.evaluators import PokerHand

    return rules.net_multiple(PokerHand[name.upper()])


def test_bonus3_edge_from_counts() -> None:
    """3 Card Bonus over the 22,100 three-card sets; published counts: 48 straight
    flushes, 52 trips, 720 straights, 1096 flushes, 3744 pairs."""
    rules = load_rules("nh-holdem-stud")
    assert isinstance(rules, HoldemStudRules)
    counts = {"straight_flush": 48, "three_of_a_kind": 52, "straight": 720, "flush": 1096,
              "pair": 3744}
    losing = 22100 - sum(counts.values())
    from feltlab.evaluators import ThreeCardHand

    returned = sum(rules.bonus3_net_multiple(ThreeCardHand[name.upper()]) * count
                   for name, count in counts.items()) - losing
    assert holdem.bonus3_edge(rules) == -Fraction(returned, 22100)
