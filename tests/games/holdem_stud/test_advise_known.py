"""The advisor with dead cards and cards seen before the decision, checked against brute
force over every completion of the unseen cards, each completion settled by
:mod:`feltlab.core.settle` (the one place a wager is settled)."""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from fractions import Fraction

import pytest
from typer.testing import CliRunner

from feltlab.analysis import advise
from feltlab.cli import app
from feltlab.core.cards import Card, CardError, full_deck, parse_cards
from feltlab.core.rules import load_rules
from feltlab.games.high_card_flush.rules import FlushRules
from feltlab.games.high_card_flush.settle import settle_flush
from feltlab.games.holdem_stud.rules import HoldemStudRules
from feltlab.games.holdem_stud.settle import settle_holdem
from feltlab.games.nine_card_flush.rules import NineCardRules
from feltlab.games.nine_card_flush.settle import settle_nine_card

FLUSH_IDS = ("high-card-flush", "high-card-flush-toledo", "nh-flush-poker")


def shuffled(seed: int) -> list[Card]:
    deck = list(full_deck())
    random.Random(seed).shuffle(deck)
    return deck


def options(advice_options: Sequence[object]) -> dict[str, Fraction]:
    return {option.option: option.ev for option in advice_options}  # type: ignore[attr-defined]


# High Card Flush family ------------------------------------------------------------------

def flush_brute_force(rules: FlushRules, player: Sequence[Card], dead: Sequence[Card],
                      seen: Sequence[Card]) -> dict[str, Fraction]:
    unseen = [card for card in full_deck() if card not in {*player, *dead, *seen}]
    completions = [(*seen, *rest) for rest in itertools.combinations(unseen, 7 - len(seen))]
    from feltlab.core.evaluators import best_flush

    most = rules.max_raise_multiple(best_flush(player).length)
    result = {"fold": Fraction(-1)}
    for size in range(1, most + 1):
        total = sum(settle_flush(rules, {"ante": 1}, player, dealer, size).total
                    for dealer in completions)
        result[f"raise {size}x"] = Fraction(total, len(completions))
    return result


@pytest.mark.parametrize("rules_id", FLUSH_IDS)
@pytest.mark.parametrize("seed", range(6))
def test_flush_advice_with_dead_and_seen_cards_equals_brute_force(rules_id: str,
                                                                  seed: int) -> None:
    rules = load_rules(rules_id)
    assert isinstance(rules, FlushRules)
    deck = shuffled(seed)
    dead_count, seen_count = (35, 0) if seed < 2 else (30 + seed, seed - 1)
    player, dead = deck[:7], deck[7:7 + dead_count]
    seen = deck[7 + dead_count:7 + dead_count + seen_count]
    advice = advise(rules, player, dead=dead, seen=seen)
    assert options(advice.options) == flush_brute_force(rules, player, dead, seen)


def test_flush_advice_without_extra_cards_is_unchanged() -> None:
    rules = load_rules("high-card-flush")
    hand = parse_cards("Th 8h 6h Js Ad Qd Jc")
    assert str(advise(rules, hand).options[1].ev) == "-36826253/45379620"
    assert advise(rules, hand, dead=(), seen=()) == advise(rules, hand)


# Hold'em Stud ---------------------------------------------------------------------------

def stud_value(rules: HoldemStudRules, player: Sequence[Card], turned: list[Card],
               seen: list[Card], unseen: list[Card], bets: list[int]) -> Fraction:
    """Plain expectimax: the best option's EV per ante, every completion settled."""
    return max(stud_options(rules, player, turned, seen, unseen, bets).values())


def stud_options(rules: HoldemStudRules, player: Sequence[Card], turned: list[Card],
                 seen: list[Card], unseen: list[Card], bets: list[int]) -> dict[str, Fraction]:
    result = {"fold": Fraction(-1 - sum(bets))}
    for bet in range(1, rules.max_street_multiple + 1):
        result[f"{bet}x"] = stud_next(rules, player, turned, seen, unseen, [*bets, bet])
    return result


def stud_next(rules: HoldemStudRules, player: Sequence[Card], turned: list[Card],
              seen: list[Card], unseen: list[Card], bets: list[int]) -> Fraction:
    """After a bet the next card is turned: the first seen one, or any unseen one."""
    if seen:
        return stud_after_turn(rules, player, [*turned, seen[0]], seen[1:], unseen, bets)
    total = Fraction(0)
    for card in unseen:
        rest = [other for other in unseen if other != card]
        total += stud_after_turn(rules, player, [*turned, card], [], rest, bets)
    return total / len(unseen)


def stud_after_turn(rules: HoldemStudRules, player: Sequence[Card], turned: list[Card],
                    seen: list[Card], unseen: list[Card], bets: list[int]) -> Fraction:
    if len(turned) == 3:
        ante = rules.limits["ante"].min
        settled = settle_holdem(rules, {"ante": ante}, player, turned,
                                [bet * ante for bet in bets])
        return Fraction(settled.total, ante)
    return stud_value(rules, player, turned, seen, unseen, bets)


@pytest.mark.parametrize(("seed", "turned", "seen"), [(0, 0, 0), (1, 0, 1), (2, 1, 0),
                                                      (3, 1, 1), (4, 2, 0), (5, 0, 2)])
def test_stud_advice_with_dead_and_seen_cards_equals_brute_force(seed: int, turned: int,
                                                                 seen: int) -> None:
    rules = load_rules("nh-holdem-stud")
    assert isinstance(rules, HoldemStudRules)
    deck = shuffled(100 + seed)
    player, community = deck[:2], deck[2:2 + turned]
    glimpsed = deck[2 + turned:2 + turned + seen]
    dead = deck[10:50 - 2 * seed]
    unseen = [card for card in deck if card not in {*player, *community, *glimpsed, *dead}]
    bets = [1 + street % 3 for street in range(turned)]
    advice = advise(rules, player, community, bets=bets, dead=dead, seen=glimpsed)
    assert options(advice.options) == stud_options(rules, player, list(community),
                                                   list(glimpsed), unseen, bets)


def test_stud_advice_without_extra_cards_is_unchanged() -> None:
    from feltlab.games.holdem_stud.known import option_sums

    rules = load_rules("nh-holdem-stud")
    assert isinstance(rules, HoldemStudRules)
    for seed in range(3):
        deck = shuffled(200 + seed)
        player, turned = deck[:2], deck[2:2 + seed]
        bets = [1] * seed
        solved = advise(rules, player, turned, bets=bets)
        sums, scale = option_sums(rules, player, turned, (), (), 1 + seed)
        fresh = [Fraction(int(value), scale) for value in sums[1:]]
        assert [option.ev for option in solved.options[1:]] == fresh


# 9 Card Flush ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(5))
def test_nine_advice_with_dead_and_seen_cards_equals_brute_force(seed: int) -> None:
    rules = load_rules("nine-card-flush")
    assert isinstance(rules, NineCardRules)
    deck = shuffled(300 + seed)
    community, seen, dead = deck[:3], deck[3:3 + seed], deck[10:10 + 28]
    unseen = [card for card in deck[3 + seed:] if card not in dead]
    colour = "red" if seed % 2 else "black"
    hands = [(*seen, *rest) for rest in itertools.combinations(unseen, 6 - seed)]
    total = sum(settle_nine_card(rules, {"all9": 1}, colour, community, hand, True).total
                for hand in hands)
    advice = advise(rules, (), community, colour, dead=dead, seen=seen)
    assert options(advice.options) == {"fold": -1, "play": Fraction(total, len(hands))}


def test_nine_advice_without_extra_cards_is_unchanged() -> None:
    from feltlab.games.nine_card_flush.deals import all9_signs
    from feltlab.games.nine_card_flush.decisions import _colour_split, play_ev, play_ev_known

    rules = load_rules("nine-card-flush")
    assert isinstance(rules, NineCardRules)
    for seed in range(8):
        community = shuffled(400 + seed)[:3]
        split = _colour_split(community, "red")
        assert play_ev_known(rules, split, (0, 0, 0), (0, 0, 0)) == play_ev(
            all9_signs(rules), split)


# Refusals -------------------------------------------------------------------------------

def test_api_refuses_repeated_and_impossible_cards() -> None:
    flush = load_rules("high-card-flush")
    hand = parse_cards("Th 8h 6h Js Ad Qd Jc")
    with pytest.raises(CardError, match="appears twice"):
        advise(flush, hand, dead=parse_cards("Th"))
    with pytest.raises(CardError, match="dealer"):
        advise(flush, hand, seen=[card for card in full_deck() if card not in hand][:8])
    with pytest.raises(CardError, match="too few"):
        advise(flush, hand, dead=[card for card in full_deck() if card not in hand][:40])


@pytest.mark.parametrize(("args", "message"), [
    (["high-card-flush", "Th 8h 6h Js Ad Qd Jc", "--dead", "2h 2h"], "2h appears twice"),
    (["high-card-flush", "Th 8h 6h Js Ad Qd Jc", "--dealer", "Th"], "Th appears twice"),
    (["high-card-flush", "Th 8h 6h Js Ad Qd Jc", "--dead", "2x"], "cannot read card"),
    (["high-card-flush", "Th 8h 6h Js Ad Qd Jc", "--dead", "2h", "--dead", "3h"],
     "given more than once"),
    (["nh-holdem-stud", "Ah Kh", "--dealer", "Qh Jh Th 9h"], "at most 3"),
    (["nine-card-flush", "Ah Kh 2s", "--dealer", "2h 3h 4h 5h 6h 7h 8h"], "6 cards"),
])
def test_cli_refuses_bad_cards_in_one_line(args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, ["advise", *args])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr


def test_cli_advice_with_dead_cards_as_json() -> None:
    import json

    result = CliRunner().invoke(app, ["advise", "high-card-flush", "Th 8h 6h Js Ad Qd Jc",
                                      "--dead", "2h 3h", "--dealer", "Ah", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["best"] == "raise 1x" and data["dead"] == "2h 3h"
    assert data["dealer_seen"] == "Ah" and data["options"][1]["ev_exact"] == "-223565/276094"
