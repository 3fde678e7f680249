"""Exact math of the High Card Flush family, each figure checked by an independent method."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import seven_card_hands_from
from feltlab.core import kernels
from feltlab.core.cards import Card, full_deck, parse_cards
from feltlab.core.evaluators import best_flush, longest_straight_flush
from feltlab.core.model import ParSheet
from feltlab.core.rules import load_rules, parse_rules, pays_for
from feltlab.games.high_card_flush import advisor, decisions, strategy_card, wagers
from feltlab.games.high_card_flush import analysis as flush
from feltlab.games.high_card_flush import counting as fk
from feltlab.games.high_card_flush.rules import FlushRules
from feltlab.games.high_card_flush.strategy import (
    Strategy,
    StrategyError,
    load_strategy,
    parse_strategy,
    ranks_of,
)
from shipped import rule_set_file

FAMILY = ("high-card-flush", "high-card-flush-toledo", "nh-flush-poker")
C45 = math.comb(45, 7)
C52 = math.comb(52, 7)
QUALIFY = (3 << 13) | (1 << 7)
WORKED = {"Th 8h 6h Js Ad Qd Jc": "-0.811515", "Th 8h 6h 7d 4d 2d 9c": "-1.069976"}
TRICKY = (
    "Ah 5h 2h Ks Qs 3s 7d",  # two 3-card suits
    "Ah Kh Qs Js Td 9d 8c",  # a 2-card flush
    "Ah Kh Qh Jh Th 9h 8h",  # a 7-card flush
    "Ah 2h 3h 4h 5h 9c Kd",  # a wheel straight flush
    "9c 8c 7c 2d 3d 4d 5s",  # two 3-card suits, one exactly at the qualifier
)


def rules_of(rules_id: str) -> FlushRules:
    rules = load_rules(rules_id)
    assert isinstance(rules, FlushRules)
    return rules


@pytest.fixture(scope="module")
def sheets() -> dict[str, ParSheet]:
    return {rules_id: flush.analyze(rules_of(rules_id)) for rules_id in FAMILY}


# --- brute force: every one of the 45,379,620 dealer hands ---------------------------------

def _popcounts() -> npt.NDArray[np.int64]:
    return np.array([bin(lane).count("1") for lane in range(1 << 13)], dtype=np.int64)


POPCOUNTS = _popcounts()


@nb.njit(cache=True)
def _classify(lanes: int, value: int, qualify: int, popcount: npt.NDArray[np.int64],
              out: npt.NDArray[np.int64]) -> None:
    dealer = 0
    for suit in range(4):
        lane = (lanes >> (16 * suit)) & 0x1FFF
        dealer = max(dealer, (popcount[lane] << 13) | lane)
    if dealer < qualify:
        out[0] += 1
    elif dealer < value:
        out[1] += 1
    elif dealer == value:
        out[2] += 1
    else:
        out[3] += 1


@nb.njit(cache=True)
def _brute_counts(free: npt.NDArray[np.int64], value: int, qualify: int,
                  popcount: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """(not qualified, dealer worse, tie, dealer better) by dealing every dealer hand;
    a dealer hand is a 64-bit mask with a 16-bit lane per suit."""
    out = np.zeros(4, dtype=np.int64)
    n = free.shape[0]
    bit = np.array([1 << (16 * (card // 13) + card % 13) for card in free], dtype=np.int64)
    for a in range(n):
        for b in range(a + 1, n):
            ab = bit[a] | bit[b]
            for c in range(b + 1, n):
                abc = ab | bit[c]
                for d in range(c + 1, n):
                    abcd = abc | bit[d]
                    for e in range(d + 1, n):
                        abcde = abcd | bit[e]
                        for f in range(e + 1, n):
                            abcdef = abcde | bit[f]
                            for g in range(f + 1, n):
                                _classify(abcdef | bit[g], value, qualify, popcount, out)
    return out


@cache
def brute_counts(cards: tuple[Card, ...], qualify: int = QUALIFY) -> tuple[int, ...]:
    used = {card.index for card in cards}
    free = np.array([index for index in range(52) if index not in used], dtype=np.int64)
    counts = _brute_counts(free, best_flush(cards).value, qualify, POPCOUNTS)
    return tuple(int(count) for count in counts)


def kernel_counts(cards: tuple[Card, ...], qualify: int = QUALIFY) -> tuple[int, ...]:
    return tuple(fk.dealer_counts(advisor.suit_masks(cards), qualify, fk.BINOM))


def test_any_qualifier_from_a_rules_file() -> None:
    """A rule-set file with another qualifier (4-card flush, queen high)."""
    text = rule_set_file("high-card-flush").read_text()
    text = text.replace("min_length = 3", "min_length = 4").replace('"9"', '"Q"')
    rules = parse_rules(text)
    assert isinstance(rules, FlushRules)
    cards = parse_cards("Qh 8h 6h 2h Ad Jd Jc")
    counts = brute_counts(cards, rules.qualifier.threshold)
    assert kernel_counts(cards, rules.qualifier.threshold) == counts
    advice = flush.advise(rules, cards)
    assert advice.details["dealer_not_qualifying"] == counts[0]


@pytest.mark.parametrize("text", [*WORKED, *TRICKY])
def test_dealer_counts_equal_brute_force(text: str) -> None:
    cards = parse_cards(text)
    assert kernel_counts(cards) == brute_counts(cards)


@pytest.mark.parametrize("seed", [*range(3), *(pytest.param(seed, marks=pytest.mark.slow)
                                                 for seed in range(3, 23))])
def test_dealer_counts_equal_brute_force_random(seed: int) -> None:
    rng = np.random.default_rng(seed)
    cards = tuple(Card(int(i)) for i in rng.choice(52, 7, replace=False))
    assert kernel_counts(cards) == brute_counts(cards)


@pytest.mark.parametrize("text", WORKED)
def test_worked_examples_by_brute_force_and_advise(text: str) -> None:
    cards = parse_cards(text)
    not_qualified, worse, _, better = brute_counts(cards)
    brute_ev = Fraction(not_qualified + 2 * (worse - better), C45)
    assert f"{float(brute_ev):.6f}" == WORKED[text]
    advice = flush.advise(rules_of("high-card-flush"), cards)
    assert dict((o.option, o.ev) for o in advice.options) == {"fold": -1, "raise 1x": brute_ev}
    assert advice.best == ("raise 1x" if brute_ev >= -1 else "fold")
    assert advice.details["dealer_better"] == better


# --- the counting routine on small problems (Hypothesis) -----------------------------------

@settings(max_examples=60, deadline=None)
@given(removed=st.lists(st.integers(0, 51), min_size=28, max_size=40, unique=True),
       dealt=st.integers(0, 3), length=st.integers(1, 4), limit=st.integers(0, (1 << 13) - 1))
def test_count_less_equals_subset_enumeration(removed: list[int], dealt: int, length: int,
                                              limit: int) -> None:
    masks = np.zeros(4, dtype=np.int64)
    for index in removed:
        masks[index // 13] |= 1 << (index % 13)
    threshold = (length << 13) | limit
    free = [index for index in range(52) if index not in set(removed)]
    expected = 0
    for dealer in itertools.combinations(free, dealt):
        lanes = [0, 0, 0, 0]
        for index in dealer:
            lanes[index // 13] |= 1 << (index % 13)
        value = max((bin(lane).count("1") << 13) | lane for lane in lanes)
        expected += value < threshold
    assert fk.count_less(masks, dealt, threshold, fk.BINOM) == expected


# --- the player-hand classes --------------------------------------------------------------

def _canonical_key(cards: tuple[Card, ...]) -> int:
    """The class's packed masks: longer suits first, equal lengths by rising mask."""
    masks = sorted(advisor.suit_masks(cards).tolist(), key=lambda m: (-bin(m).count("1"), m))
    key = 0
    for mask in masks:
        key = key << 13 | mask
    return key


def test_classes_cover_every_hand_once() -> None:
    masks, weights = fk.player_classes()
    assert int(weights.astype(np.int64).sum()) == C52
    packed = np.zeros(len(masks), dtype=np.int64)
    for suit in range(4):
        packed = packed << 13 | masks[:, suit].astype(np.int64)
    order = np.argsort(packed)
    packed = packed[order]
    assert np.all(np.diff(packed) > 0), "a class appears twice"
    rng = np.random.default_rng(11)
    deck = full_deck()
    for _ in range(300):
        cards = tuple(deck[int(i)] for i in rng.choice(52, 7, replace=False))
        key = _canonical_key(cards)
        position = int(np.searchsorted(packed, key))
        assert packed[position] == key
        suit_masks = advisor.suit_masks(cards).tolist()
        distinct = len(set(itertools.permutations(suit_masks)))
        assert int(weights[order[position]]) == distinct


def flush_length_counts() -> dict[int, int]:
    """Hands by longest suit, from the suit-length compositions of 7."""
    counts = dict.fromkeys(range(2, 8), 0)
    for shape in itertools.product(range(8), repeat=4):
        if sum(shape) == 7:
            counts[max(shape)] += math.prod(math.comb(13, n) for n in shape)
    return counts


def straight_run_counts() -> dict[int, int]:
    """Hands by longest straight-flush run, from per-suit generating functions."""
    runs = []
    for mask in range(1 << 13):
        cards = [Card.of(rank, 0) for rank in range(13) if mask >> rank & 1]
        runs.append((len(cards), longest_straight_flush(cards)))
    at_most = {}
    for limit in range(8):
        suit = [0] * 8
        for size, run in runs:
            if run <= limit and size <= 7:
                suit[size] += 1
        poly = [1] + [0] * 7
        for _ in range(4):
            poly = [sum(poly[t - k] * suit[k] for k in range(t + 1)) for t in range(8)]
        at_most[limit] = poly[7]
    return {run: at_most[run] - at_most[run - 1] for run in range(1, 8)
            if at_most[run] - at_most[run - 1]}


def _line_counts(sheet: ParSheet, name: str) -> dict[str | int, int]:
    return {line.key: line.count for line in sheet.wager(name).lines if line.key is not None}


def test_flush_bonus_distribution_equals_formula(sheets: dict[str, ParSheet]) -> None:
    lengths = flush_length_counts()
    assert sum(lengths.values()) == C52
    assert _line_counts(sheets["high-card-flush"], "flush") == {n: lengths[n] for n in (4, 5, 6, 7)}


def test_straight_flush_distribution_equals_generating_function(
        sheets: dict[str, ParSheet]) -> None:
    runs = straight_run_counts()
    assert _line_counts(sheets["high-card-flush"], "straight_flush") == {
        n: runs[n] for n in (3, 4, 5, 6, 7)}


@pytest.mark.parametrize("rules_id", FAMILY)
def test_bonus_house_edges_from_independent_distributions(rules_id: str,
                                                          sheets: dict[str, ParSheet]) -> None:
    rules = rules_of(rules_id)
    for name, table, counts in (("flush", rules.flush_pays, flush_length_counts()),
                                ("straight_flush", rules.straight_flush_pays,
                                 straight_run_counts())):
        # Under optimal play only hands of 3 or fewer suited cards fold, and those lose the
        # Flush bonus anyway, so losing it on a fold changes nothing.
        won = sum(count * (pays_for(table, n) or -1) for n, count in counts.items())
        assert sheets[rules_id].wager(name).house_edge == Fraction(-won, C52)


def test_sampled_hands_agree_with_batch_kernels() -> None:
    """Kernel flush values and runs of sampled hands land in the cells they should."""
    rng = np.random.default_rng(5)
    hands = np.array([rng.choice(52, 7, replace=False) for _ in range(2000)], dtype=np.uint8)
    values = kernels.flush_values(hands)
    runs = kernels.straight_flush_lengths(hands)
    for row, value, run in zip(hands, values, runs, strict=True):
        cards = tuple(Card(int(i)) for i in row)
        masks = advisor.suit_masks(cards)
        assert fk.flush_value_of_masks(masks) == int(value)
        assert max(int(kernels.RUN_LENGTH[m]) for m in masks) == int(run)


# --- published figures and the strategy card ------------------------------------------------

def test_published_high_card_flush_figures(sheets: dict[str, ParSheet]) -> None:
    ante = sheets["high-card-flush"].wager("ante")
    assert round(float(ante.rates["dealer_qualifies"]) * 100, 2) == 75.36
    assert round(float(ante.rates["raise_rate"]) * 100, 2) == 67.86
    assert round(float(ante.rates["push"]) * 100, 2) == 0.08  # ties on raised hands
    assert round(float(ante.rates["tie"]) * 100, 2) == 0.09  # ties among all deals
    card = sheets["high-card-flush"].strategy_card
    assert card is not None
    assert round(float(card.cost) * 100, 2) == 0.05
    assert card.lines[1].startswith("Raise a 3-card flush of T-8-6 or better")


def test_main_game_consistency(sheets: dict[str, ParSheet]) -> None:
    for sheet in sheets.values():
        ante = sheet.wager("ante")
        assert ante.total == C52 * C45
        assert ante.element_of_risk == ante.house_edge / ante.average_total_wager
        raised = sum(value for key, value in ante.rates.items() if key.startswith("raise_")
                     and key != "raise_rate")
        assert raised == ante.rates["raise_rate"]
        assert sheet.strategy_card is not None and sheet.strategy_card.cost >= 0


@pytest.mark.parametrize("rules_id", FAMILY)
def test_shipped_strategy_cards_match_derived(rules_id: str,
                                              sheets: dict[str, ParSheet]) -> None:
    rules = rules_of(rules_id)
    shipped = strategy_card.shipped_strategy(rules_id)
    assert shipped == strategy_card.strategy_card_strategy(rules)
    card = sheets[rules_id].strategy_card
    assert card is not None
    assert wagers.evaluate_strategy(rules, shipped).house_edge == card.house_edge


@pytest.mark.parametrize("ranks", ["T85", "T87", "T92", "J32", "T"])
def test_card_threshold_beats_its_neighbours(ranks: str) -> None:
    rules = rules_of("high-card-flush")
    card = wagers.evaluate_strategy(rules, strategy_card.shipped_strategy("high-card-flush"))
    text = ('[[rule]]\nmin_length = 4\naction = "max"\n'
            f'[[rule]]\nmin_length = 3\nat_least = "{ranks}"\naction = "max"\n')
    other = wagers.evaluate_strategy(rules, parse_strategy(text))
    assert other.house_edge > card.house_edge


def test_optimal_beats_every_simple_strategy(sheets: dict[str, ParSheet]) -> None:
    rules = rules_of("high-card-flush")
    optimal = sheets["high-card-flush"].wager("ante").house_edge
    for text in ['default = "max"', 'default = "fold"',
                 '[[rule]]\nmin_length = 3\naction = "1x"']:
        assert wagers.evaluate_strategy(rules, parse_strategy(text)).house_edge > optimal
    always_fold = wagers.evaluate_strategy(rules, Strategy())
    assert always_fold.house_edge == 1


# --- the strategy format -----------------------------------------------------------------

@pytest.mark.parametrize(("text", "field"), [
    ('[[rule]]\nmin_length = 3\naction = "raise"', "rule.0.action"),
    ('[[rule]]\nmin_length = 1\naction = "max"', "rule.0.min_length"),
    ('[[rule]]\nmin_length = 3\nat_least = "TX"\naction = "max"', "rule.0.at_least"),
    ('[[rule]]\nmin_length = 3\nmax_length = 2\naction = "max"', "rule.0"),
    ('[[rule]]\nmin_length = 3\naction = "max"\ncolour = "red"', "rule.0.colour"),
    ('defualt = "fold"', "defualt"),
])
def test_bad_strategies_name_the_field(text: str, field: str) -> None:
    with pytest.raises(StrategyError, match=f"field {field}"):
        parse_strategy(text, "mine.toml")


def test_strategy_round_trip(tmp_path: Path) -> None:
    strategy = parse_strategy('name = "a \\"quoted\\" name"\n[[rule]]\nmin_length = 5\n'
                              'max_length = 6\nat_least = "A K"\naction = "2x"')
    path = tmp_path / "s.toml"
    path.write_text(strategy.to_toml(), "utf-8")
    assert load_strategy(path) == strategy
    assert ranks_of("10-9-8") == (8, 7, 6)
    with pytest.raises(StrategyError, match="cannot read"):
        load_strategy(tmp_path / "missing.toml")


# --- the advisor and the decision table ---------------------------------------------------

def test_advise_options_follow_the_raise_rules() -> None:
    nh, hcf = rules_of("nh-flush-poker"), rules_of("high-card-flush")
    two_card = parse_cards("Ah Kh Qs Js Td 9d 8c")
    assert [o.option for o in flush.advise(nh, two_card).options] == ["fold"]
    assert flush.advise(nh, two_card).best == "fold"
    six_card = parse_cards("Ah Kh Qh Jh 9h 2h 3c")
    assert [o.option for o in flush.advise(hcf, six_card).options] == [
        "fold", "raise 1x", "raise 2x", "raise 3x"]
    assert flush.advise(hcf, six_card).best == "raise 3x"
    assert [o.option for o in flush.advise(nh, six_card).options] == [
        "fold", "raise 1x", "raise 2x"]


def test_an_advice_is_one_call_of_the_counter(monkeypatch: pytest.MonkeyPatch) -> None:
    """Advice is quick by its structure: one call of the dealer's counter over suit masks,
    whatever the hand, the dead cards and the dealer's cards seen (the plain-Python
    counter: no compiling; how long an advice takes is measured by
    benchmarks/bench_analysis_flush.py)."""
    rules = rules_of("high-card-flush")
    hands = [("Th 8h 6h Js Ad Qd Jc", "", ""), ("2c 3d 4h 5s 7c 8d 9h", "Ac Kc", ""),
             ("Ah Kh Qh Jh 9s 8s 2d", "", "3c 4c"), ("As Ks 7s 6s 5s 4d 3d", "2h", "Th")]
    counter = advisor.dealer_counter()
    calls: list[int] = []

    def counting(*args: Any) -> tuple[int, int, int, int, int]:
        calls.append(len(args))
        return counter(*args)

    monkeypatch.setattr(advisor, "dealer_counter", lambda: counting)
    for cards, dead, dealer in hands:
        advisor.advise(rules, parse_cards(cards), parse_cards(dead), parse_cards(dealer))
    assert len(calls) == len(hands)


@pytest.mark.parametrize("rules_id", FAMILY)
def test_decision_table_plays_like_advise(rules_id: str) -> None:
    rules = rules_of(rules_id)
    table = decisions.optimal_decision_table(rules)
    rng = np.random.default_rng(3)
    deck = full_deck()
    samples = [tuple(deck[int(i)] for i in rng.choice(52, 7, replace=False))
               for _ in range(400)]
    samples += [parse_cards(text) for text in (*WORKED, *TRICKY)]
    for cards in samples:
        best = flush.advise(rules, cards).best
        expected = 0 if best == "fold" else int(best.split()[1][:-1])
        assert table.decide(cards) == expected
    for value in table.exceptions:  # only ten-high three-card flushes depend on other cards
        assert value >> 13 == 3 and (value & 0x1FFF).bit_length() - 1 == 8


# --- capped returns ----------------------------------------------------------------------

def test_capped_returns_without_cap_equal_the_sheet(sheets: dict[str, ParSheet]) -> None:
    sheet = sheets["high-card-flush"]
    edges = wagers.capped_returns(rules_of("high-card-flush"),
                                 {"ante": 10, "flush": 5, "straight_flush": 5})
    for name in ("ante", "flush", "straight_flush"):
        assert edges[name] == sheet.wager(name).house_edge
    assert edges["total"] == (10 * edges["ante"] + 5 * edges["flush"]
                              + 5 * edges["straight_flush"]) / 20


def _long_run_hands() -> set[frozenset[int]]:
    """Every hand with a straight-flush run of 6 or 7 cards."""
    hands = set()
    for suit in range(4):
        for low in range(-1, 8):
            run = [suit * 13 + (rank % 13) for rank in range(low, low + 6)]
            for extra in range(52):
                if extra not in run:
                    hands.add(frozenset([*run, extra]))
    return hands


def test_capped_returns_by_direct_enumeration_of_capped_hands(
        sheets: dict[str, ParSheet]) -> None:
    """Toledo, ante 1 and straight flush 100: only 6- and 7-card runs reach the cap."""
    rules = rules_of("high-card-flush-toledo")
    cap = rules.max_aggregate_payout
    assert cap is not None
    edges = wagers.capped_returns(rules, {"ante": 1, "straight_flush": 100})
    reduction = {"ante": Fraction(0), "straight_flush": Fraction(0)}
    for indices in _long_run_hands():
        cards = tuple(Card(i) for i in sorted(indices))
        sf_win = 100 * rules.straight_flush_pays[longest_straight_flush(cards)]
        advice = flush.advise(rules, cards)
        size = int(advice.best.split()[1][:-1])
        details = advice.details
        for main, count in ((1, details["dealer_not_qualifying"]),
                            (1 + size, details["dealer_worse"]), (0, details["tie"]),
                            (-1 - size, details["dealer_better"])):
            won = sf_win + max(main, 0)
            assert won > cap
            reduction["straight_flush"] += Fraction((won - cap) * sf_win, won) * count
            reduction["ante"] += Fraction((won - cap) * max(main, 0), won) * count
    sheet = sheets["high-card-flush-toledo"]
    deals = C52 * C45
    assert edges["ante"] == sheet.wager("ante").house_edge + reduction["ante"] / deals
    assert edges["straight_flush"] == (sheet.wager("straight_flush").house_edge
                                       + reduction["straight_flush"] / (100 * deals))


def test_capped_returns_check_the_bets() -> None:
    with pytest.raises(ValueError, match="must be equal"):
        wagers.capped_returns(rules_of("nh-flush-poker"),
                             {"ante": 5, "flush": 5, "straight_flush": 10})


def test_progress_is_reported() -> None:
    calls: list[tuple[int, int]] = []
    flush.analyze(rules_of("high-card-flush"), lambda done, total: calls.append((done, total)))
    assert calls and calls[-1][0] == calls[-1][1]


# --- slow: full enumerations ------------------------------------------------------------

@pytest.mark.slow
def test_bonus_distributions_by_full_enumeration(sheets: dict[str, ParSheet]) -> None:
    lengths: dict[int, int] = {}
    runs: dict[int, int] = {}
    buffer = np.empty((math.comb(51, 6), 7), dtype=np.uint8)
    for first in range(46):
        rows = seven_card_hands_from(first, buffer)
        hands = buffer[:rows]
        for n, count in zip(*np.unique(kernels.flush_values(hands) >> 13, return_counts=True),
                            strict=True):
            lengths[int(n)] = lengths.get(int(n), 0) + int(count)
        for n, count in zip(*np.unique(kernels.straight_flush_lengths(hands),
                                       return_counts=True), strict=True):
            runs[int(n)] = runs.get(int(n), 0) + int(count)
    sheet = sheets["high-card-flush"]
    assert _line_counts(sheet, "flush") == {n: lengths[n] for n in (4, 5, 6, 7)}
    assert _line_counts(sheet, "straight_flush") == {n: runs[n] for n in (3, 4, 5, 6, 7)}


@nb.njit(cache=True, parallel=True)
def _main_game_all_hands(qualify: int, binom: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Without the suit reduction: every one of the C(52,7) player hands, optimal play with
    raises of 1x (2-4 cards), 2x (5) and 3x (6-7); totals of (ev numerator, not qualified,
    ties, raised hands)."""
    totals = np.zeros((46, 4), dtype=np.int64)
    for a in nb.prange(46):
        masks = np.zeros(4, dtype=np.int64)
        hand = np.zeros(7, dtype=np.int64)
        hand[0] = a
        for b in range(a + 1, 52):
            for c in range(b + 1, 52):
                for d in range(c + 1, 52):
                    for e in range(d + 1, 52):
                        for f in range(e + 1, 52):
                            for g in range(f + 1, 52):
                                hand[1], hand[2], hand[3] = b, c, d
                                hand[4], hand[5], hand[6] = e, f, g
                                masks[:] = 0
                                for card in hand:
                                    masks[card // 13] |= 1 << (card % 13)
                                nq, worse, tie, better = fk.dealer_counts(masks, qualify, binom)
                                length = fk.flush_value_of_masks(masks) >> 13
                                most = 1 if length <= 4 else (2 if length == 5 else 3)
                                best = -fk.DEALER_HANDS
                                raised = 0
                                for size in range(1, most + 1):
                                    ev = nq + (worse - better) * (1 + size)
                                    if ev >= best:
                                        best = ev
                                        raised = size
                                totals[a, 0] += best
                                totals[a, 1] += nq
                                totals[a, 2] += tie
                                totals[a, 3] += raised > 0
    summed: npt.NDArray[np.int64] = totals.sum(axis=0)
    return summed


@pytest.mark.slow
def test_main_game_by_enumeration_without_suit_reduction(sheets: dict[str, ParSheet]) -> None:
    ev, not_qualified, ties, raised = (int(x) for x in _main_game_all_hands(QUALIFY, fk.BINOM))
    ante = sheets["high-card-flush"].wager("ante")
    assert Fraction(ev, C52 * C45) == -ante.house_edge
    assert 1 - Fraction(not_qualified, C52 * C45) == ante.rates["dealer_qualifies"]
    assert Fraction(ties, C52 * C45) == ante.rates["tie"]
    assert Fraction(raised, C52) == ante.rates["raise_rate"]
