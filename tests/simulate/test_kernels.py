"""The simulator's compiled rounds against the reference settlement, round by round, its
generator, and its strategy arrays against the analysis's tables."""

from __future__ import annotations

import numpy as np
import pytest

from feltlab.core import rng
from feltlab.core.cards import COLOUR_SUITS, Card
from feltlab.core.evaluators import best_flush, poker_hand, three_card_hand
from feltlab.core.kernels import LANE_BIT, poker_class_of_row, three_card_class_of_row
from feltlab.core.rules import load_rules
from feltlab.core.simkit import Strategy
from feltlab.games.high_card_flush import kernel as flush
from feltlab.games.high_card_flush.rules import FlushRules
from feltlab.games.high_card_flush.settle import settle_flush
from feltlab.games.holdem_stud import analysis as holdem_analysis
from feltlab.games.holdem_stud import kernel as holdem
from feltlab.games.holdem_stud.rules import HoldemStudRules
from feltlab.games.holdem_stud.settle import settle_holdem
from feltlab.games.nine_card_flush import decisions as nine_decisions
from feltlab.games.nine_card_flush import kernel as nine
from feltlab.games.nine_card_flush.rules import NineCardRules
from feltlab.games.nine_card_flush.settle import settle_nine_card
from feltlab.simulate.runner import Setup, prepare

DECKS = 3000

# Compiling a round loop that takes a game's round as a function value warns.
pytestmark = pytest.mark.filterwarnings(
    "ignore::numba.core.errors.NumbaExperimentalFeatureWarning")


def _decks(seed: int, count: int = DECKS) -> np.ndarray:
    generator = np.random.default_rng(seed)
    return np.stack([generator.permutation(52) for _ in range(count)]).astype(np.uint8)


def _replay(setup: Setup, decks: np.ndarray) -> np.ndarray:
    return setup.kernels.replay_decks(decks, setup.seats, len(setup.wager_names),
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
    mask = np.uint64(0)
    for card in player:
        mask |= LANE_BIT[card.index]
    return int(flush.decide(mask, best_flush(player).value, strategy.table, strategy.keys,
                            strategy.values))


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
        red = [sum(1 for c in community if c.suit == s) for s in COLOUR_SUITS["red"]]
        plays = bool(table[4 * red[0] + red[1]])
        for seat in range(8):
            player = _cards(deck[3 + 6 * seat:9 + 6 * seat])
            settled = settle_nine_card(rules, bets, "red", community, player, plays)
            got = round_nets[seat]
            assert got[0] == settled.results["all9"] + settled.results.get("play", 0)
            assert got[1] == settled.results["bonus9"]
            assert got[2] == settled.results["player6"]
            assert got[3] == settled.results["first3"]
            assert got[4] == settled.total


def test_nine_tables_are_the_analysis_play_table() -> None:
    rules = load_rules("nine-card-flush")
    assert isinstance(rules, NineCardRules)
    table = nine_decisions.play_table(rules)
    assert (nine.optimal_strategy(rules).table.reshape(4, 4) == table).all()


# Hold'em Stud ---------------------------------------------------------------------------------

def test_scalar_classes_match_the_reference() -> None:
    generator = np.random.default_rng(6)
    for _ in range(3000):
        cards = generator.permutation(52)[:5].astype(np.uint8)
        hand = _cards(cards)
        assert poker_class_of_row(cards) == poker_hand(hand)
        assert three_card_class_of_row(cards[:3]) == three_card_hand(hand[:3])


def test_colex_rank_is_the_analysis_decision_row() -> None:
    generator = np.random.default_rng(11)
    for _ in range(2000):
        cards = generator.permutation(52)[:4].astype(np.uint8)
        for size in (2, 3, 4):
            assert holdem.colex_rank(cards, size) == holdem_analysis.decision_row(
                _cards(cards[:size]))


def _holdem_streets(strategy: Strategy, most: int, hole: list[Card],
                    community: list[Card], ante: int) -> list[int]:
    """The street bets the tables give, read the analysis's way (``decision_row``)."""
    tables = [strategy.table.reshape(-1, 1), strategy.table2.reshape(-1, most),
              strategy.table3.reshape(-1, 2 * most - 1)]
    streets: list[int] = []
    for level, table in enumerate(tables):
        row = holdem_analysis.decision_row(hole + community[:level])
        bet = int(table[row, sum(streets) - level])
        if bet == 0:
            break
        streets.append(bet)
    return [bet * ante for bet in streets]


def _random_holdem_strategy(most: int, seed: int) -> Strategy:
    generator = np.random.default_rng(seed)
    tables = [generator.integers(0, most + 1, rows * columns).astype(np.int8)
              for rows, columns in holdem.table_shapes(most)]
    return Strategy("random", *tables)


@pytest.mark.parametrize("strategy", ["random", "optimal", "simple"])
def test_holdem_kernel_matches_settlement(strategy: str) -> None:
    rules = load_rules("nh-holdem-stud").model_copy(update={"max_aggregate_payout": 100})
    assert isinstance(rules, HoldemStudRules)
    most = rules.max_street_multiple
    chosen = _random_holdem_strategy(most, 8) if strategy == "random" else strategy
    bets = {"ante": 4, "bonus3": 2}
    setup = prepare(rules, seats=7, bets=bets, strategy=chosen, with_exact=False)
    decks = _decks(7, 1000)
    nets = _replay(setup, decks)
    for deck, round_nets in zip(decks, nets, strict=True):
        community = _cards(deck[14:17])
        for seat in range(7):
            hole = _cards(deck[2 * seat:2 * seat + 2])
            streets = _holdem_streets(setup.strategy, most, hole, community, 4)
            settled = settle_holdem(rules, bets, hole, community, streets)
            got = round_nets[seat]
            assert got[0] == sum(v for k, v in settled.results.items() if k != "bonus3")
            assert got[1] == settled.results["bonus3"]
            assert got[2] == settled.total


def test_holdem_tables_are_the_analysis_tables() -> None:
    rules = load_rules("nh-holdem-stud")
    assert isinstance(rules, HoldemStudRules)
    strategy = holdem.optimal_strategy(rules)
    for mine, theirs in zip((strategy.table, strategy.table2, strategy.table3),
                            holdem_analysis.decision_tables(rules), strict=True):
        assert (mine == theirs.ravel()).all()


def test_flush_optimal_decisions_are_the_analysis_decisions() -> None:
    """Table and exception list give ``OptimalDecisionTable.decide`` on every hand tried,
    the hands of exception values included."""
    from feltlab.games.high_card_flush.decisions import optimal_decision_table

    rules = load_rules("high-card-flush")
    assert isinstance(rules, FlushRules)
    strategy = flush.optimal_strategy(rules)
    table = optimal_decision_table(rules)
    generator = np.random.default_rng(12)
    hands = [_cards(generator.permutation(52)[:7]) for _ in range(3000)]
    exceptional = [hand for hand in hands if best_flush(hand).value in table.exceptions]
    for hand in hands:
        assert _flush_decision(strategy, hand) == table.decide(hand)
    assert exceptional or not table.exceptions
