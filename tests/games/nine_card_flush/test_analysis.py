"""9 Card Flush exact analysis against brute force and independently derived counts."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numba as nb
import numpy as np
import numpy.typing as npt
import pytest

from feltlab.core.cards import Card, CardError, full_deck, parse_cards
from feltlab.core.evaluators import colour_flush_count
from feltlab.core.kernels import colour_flush_counts
from feltlab.core.model import ParSheet
from feltlab.core.rules import load_rules, pays_for
from feltlab.core.settle import WagerError
from feltlab.games.nine_card_flush import analysis as nine
from feltlab.games.nine_card_flush import decisions, wagers
from feltlab.games.nine_card_flush.deals import all_deals
from feltlab.games.nine_card_flush.rules import NineCardRules
from feltlab.games.nine_card_flush.settle import settle_nine_card
from feltlab.games.nine_card_flush.strategy import parse_nine_strategy
from feltlab.games.nine_card_flush.strategy_card import strategy_card
from shipped import strategy_file

DEALS = math.comb(52, 3) * math.comb(49, 6)


@pytest.fixture(scope="module")
def rules() -> NineCardRules:
    loaded = load_rules("nine-card-flush")
    assert isinstance(loaded, NineCardRules)
    return loaded


@pytest.fixture(scope="module")
def sheet(rules: NineCardRules) -> ParSheet:
    return nine.analyze(rules)


@nb.njit(cache=True)
def _six_card_hands(deck: npt.NDArray[np.uint8], community: npt.NDArray[np.uint8]
                    ) -> npt.NDArray[np.uint8]:
    """Every 6 of ``deck`` (as rows), each followed by the community cards."""
    size = len(deck)
    count = 1
    for index in range(6):
        count = count * (size - index) // (index + 1)
    out = np.empty((count, 9), dtype=np.uint8)
    row = 0
    for a in range(size):
        for b in range(a + 1, size):
            for c in range(b + 1, size):
                for d in range(c + 1, size):
                    for e in range(d + 1, size):
                        for f in range(e + 1, size):
                            out[row, 0] = deck[a]
                            out[row, 1] = deck[b]
                            out[row, 2] = deck[c]
                            out[row, 3] = deck[d]
                            out[row, 4] = deck[e]
                            out[row, 5] = deck[f]
                            out[row, 6:] = community
                            row += 1
    return out


def _brute_play_ev(rules: NineCardRules, community: str, colour: str) -> Fraction:
    """EV of playing, per unit of All 9, over all C(49,6) player hands."""
    cards = parse_cards(community)
    deck = np.array([c.index for c in full_deck() if c not in cards], dtype=np.uint8)
    hands = _six_card_hands(deck, np.array([c.index for c in cards], dtype=np.uint8))
    counts = np.bincount(colour_flush_counts(hands, colour), minlength=10)
    total = 0
    for flush_cards, deals in enumerate(counts):
        # The settlement decides each count's result (one sample hand with that count).
        total += int(deals) * _settled_play(rules, flush_cards) * 2
    assert sum(int(x) for x in counts) == math.comb(49, 6)
    return Fraction(total, math.comb(49, 6))


def _settled_play(rules: NineCardRules, flush_cards: int) -> int:
    hearts = [Card.of(rank, 1) for rank in range(flush_cards)]
    spades = [Card.of(rank, 0) for rank in range(9 - flush_cards)]
    cards = hearts + spades
    return settle_nine_card(rules, {"all9": 1}, "red", cards[:3], cards[3:], True).results["all9"]


@pytest.mark.parametrize(("community", "colour"), [("Ah 7d 2s", "red"), ("Kc 4c 9c", "black")])
def test_play_ev_by_brute_force(rules: NineCardRules, community: str, colour: str) -> None:
    advice = decisions.advise(rules, parse_cards(community), colour)
    assert dict((o.option, o.ev) for o in advice.options) == {
        "fold": -1, "play": _brute_play_ev(rules, community, colour)}


@pytest.mark.slow
@pytest.mark.parametrize(("community", "colour"), [
    ("2s 3s 4c", "red"), ("Ah Kh 2s", "red"), ("Ah Kh Qh", "red"), ("5d 6h 7h", "red"),
    ("2s 9d Tc", "black"), ("Js Qs 3h", "black")])
def test_play_ev_by_brute_force_more(rules: NineCardRules, community: str, colour: str) -> None:
    advice = decisions.advise(rules, parse_cards(community), colour)
    assert advice.options[1].ev == _brute_play_ev(rules, community, colour)


def _distribution(sizes: tuple[int, int, int], cards: int) -> dict[int, int]:
    """Sets of ``cards`` from suits of ``sizes`` (two of the colour, the rest) by the
    larger of the two colour suits, enumerated directly over the suit counts."""
    found: dict[int, int] = {}
    for first in range(cards + 1):
        for second in range(cards + 1 - first):
            ways = (math.comb(sizes[0], first) * math.comb(sizes[1], second)
                    * math.comb(sizes[2], cards - first - second))
            found[max(first, second)] = found.get(max(first, second), 0) + ways
    return found


def test_player6_and_bonus9_by_unconditional_counts(sheet: ParSheet) -> None:
    # Each 6-card player hand goes with C(46,3) communities; each 9-card hand splits
    # into community and player in C(9,3) ways.
    player6 = {n: ways * math.comb(46, 3) for n, ways in _distribution((13, 13, 26), 6).items()}
    bonus9 = {n: ways * math.comb(9, 3) for n, ways in _distribution((13, 13, 26), 9).items()}
    assert {int(line.label.split()[0]): line.count for line in sheet.wager("player6").lines} \
        == {n: c for n, c in player6.items() if c}
    assert {int(line.label.split()[0]): line.count for line in sheet.wager("bonus9").lines} \
        == {n: c for n, c in bonus9.items() if c}


def test_first3_by_reference_evaluator(rules: NineCardRules, sheet: ParSheet) -> None:
    counts: dict[int, int] = {}
    for community in itertools.combinations(full_deck(), 3):
        count = colour_flush_count(community, "red")
        counts[count] = counts.get(count, 0) + math.comb(49, 6)
    first3 = sheet.wager("first3")
    assert {int(line.label.split()[0]): line.count for line in first3.lines} == counts
    expected = sum((Fraction((pays_for(rules.first3_pays, n) or -1) * c, DEALS)
                    for n, c in counts.items()), Fraction(0))
    assert first3.expected_return == expected
    assert {line.key for line in first3.lines} == {3, 2, None}


def test_all9_counts_and_optimum(rules: NineCardRules, sheet: ParSheet) -> None:
    main = sheet.wager("all9")
    assert main.total == DEALS and main.decisions
    # Folding exactly the communities with no card of the colour: C(26,3) of C(52,3).
    assert main.rates["play rate"] == 1 - Fraction(math.comb(26, 3), math.comb(52, 3))
    fold = next(line for line in main.lines if line.label == "Fold")
    assert fold.count == math.comb(26, 3) * math.comb(49, 6)
    assert round(float(main.house_edge) * 100, 2) == 2.17
    table = decisions.play_table(rules)
    assert table[0, 0] == 0 and table[1, 0] == table[0, 1] == table[3, 0] == 1


def test_all9_edge_from_advice(rules: NineCardRules, sheet: ParSheet) -> None:
    """Average the best option of every community set (reference evaluator for the
    suit counts) and compare with the PAR sheet."""
    cache: dict[tuple[int, int], Fraction] = {}
    total = Fraction(0)
    for community in itertools.combinations(full_deck(), 3):
        key = tuple(sorted((sum(c.suit == 1 for c in community),
                            sum(c.suit == 2 for c in community))))
        if key not in cache:
            advice = decisions.advise(rules, community, "red")
            cache[key] = max(o.ev for o in advice.options)  # type: ignore[index]
        total += cache[key]  # type: ignore[index]
    assert -total / math.comb(52, 3) == sheet.wager("all9").house_edge


def test_strategy_card_and_strategies(rules: NineCardRules, sheet: ParSheet) -> None:
    card = sheet.strategy_card
    assert card is not None and card.cost == 0
    assert card.lines == ("Play with at least 1 community card of your colour; otherwise fold.",)
    always = parse_nine_strategy("play_when = [{}]")
    assert wagers.evaluate_strategy(rules, always).rates["play rate"] == 1
    two = parse_nine_strategy("play_when = [{flush_cards = 2}]")
    assert wagers.evaluate_strategy(rules, two).house_edge > card.house_edge
    with pytest.raises(ValueError, match="invalid"):
        parse_nine_strategy("play_when = [{suits = 2}]")
    shares = sum(share for _, _, share in sheet.strategy_map)
    assert shares == 1


def test_capped_returns(rules: NineCardRules, sheet: ParSheet) -> None:
    bets = {"all9": 2, "bonus9": 1, "player6": 1, "first3": 1}
    edges = wagers.capped_returns(rules, bets)
    for name in ("bonus9", "player6", "first3", "all9"):
        assert edges[name] == sheet.wager(name).house_edge
    capped = rules.model_copy(update={"max_aggregate_payout": 60})
    capped_edges = wagers.capped_returns(capped, bets)
    assert capped_edges["bonus9"] > edges["bonus9"]
    # A capped hand's excess comes off every winning wager in proportion.
    assert all(capped_edges[name] >= edges[name] for name in edges)
    # The total against settle_nine_card's own cap on one sample deal per class.
    plays = decisions.optimal_plays(rules)
    total = Fraction(0)
    for deal in all_deals():
        community = _sample(deal.community, 0)
        player = _sample(deal.player, 3)
        settled = settle_nine_card(capped, bets, "red", community, player,
                                   plays[deal.community])
        total += settled.total * deal.count
    assert capped_edges["total"] == -total / (DEALS * sum(bets.values()))


def _sample(split: tuple[int, int, int], first_rank: int) -> list[Card]:
    """Cards with ``split`` hearts, diamonds and spades, ranks from ``first_rank`` up."""
    return [Card.of(first_rank + rank, suit) for suit, count in zip((1, 2, 0), split, strict=True)
            for rank in range(count)]


def test_advise_refuses_bad_input(rules: NineCardRules) -> None:
    with pytest.raises(WagerError):
        decisions.advise(rules, parse_cards("Ah 2h 3h"), "green")
    with pytest.raises(CardError):
        decisions.advise(rules, parse_cards("Ah 2h"), "red")


def test_shipped_strategy_card_matches_derived() -> None:

    rules = load_rules("nine-card-flush")
    path = strategy_file("nine-card-flush")
    shipped = parse_nine_strategy(path.read_text("utf-8"))
    card, stated = strategy_card(rules, nine.analyze(rules).wager("all9"))
    assert shipped == card
    assert wagers.evaluate_strategy(rules, shipped).house_edge == stated.house_edge
