"""A settled seat's figures against what the test computes itself: the handle and the win
from the seat's stakes and settlement, the theoretical win from the PAR sheet's exact
edges, the expected win of a seat that folds at once (every main wager lost, each bonus
at its edge), and no EV given away by a seat that always takes the advisor's best
option; for random rounds of every built-in rule set, with every legal raise amount."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from feltlab.analysis import advise, analyze
from feltlab.analysis.figures import (
    DECISIONS,
    DecisionCost,
    SeatFigures,
    _as_request,
    _between,
    round_figures,
    seat_figures,
    wager_math,
)
from feltlab.core.cards import full_deck
from feltlab.core.engine import Action, Deal, HandState, Phase, PlaceWager, Reveal, Settle
from feltlab.core.family import AdviceInputs, family_of
from feltlab.core.rules import load_rules
from games.test_conformance import play_round
from shipped import own_ids

ROUNDS = 25


def edges(rules_id: str) -> dict[str, Fraction]:
    return {wager.name: wager.house_edge for wager in analyze(load_rules(rules_id)).wagers}


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


@pytest.mark.parametrize("rules_id", own_ids())
def test_random_rounds(rules_id: str) -> None:
    rules = load_rules(rules_id)
    edge = edges(rules_id)
    rng = random.Random(rules_id)
    for _ in range(ROUNDS):
        state = play_round(rules, rng, rng.randint(1, min(3, rules.seats)))
        for seat, hand in state.seats.items():
            assert hand.settlement is not None
            figures = seat_figures(state, seat)
            assert figures.handle == sum(hand.wagers.values()) + sum(hand.decisions)
            assert figures.win == -hand.settlement.total
            theo = sum((stake * edge[name] for name, stake in hand.wagers.items()),
                       Fraction(0))
            assert close(figures.theo_win, float(theo))
            assert len(figures.decisions) == len(hand.decisions)
            assert all(cost.cost >= 0 for cost in figures.decisions)
            assert figures.variance >= 0


def _dealt(rules_id: str, rng: random.Random) -> HandState:
    """One seat with every wager at its minimum, dealt."""
    rules = load_rules(rules_id)
    state = HandState(rules, rng.sample(full_deck(), 52))
    colours = family_of(rules).engine.colours
    if colours:
        from feltlab.core.engine import ChooseColour

        state.apply(ChooseColour(1, colours[0]))
    stakes = rules.matched_stakes({name: limit.min for name, limit in rules.limits.items()})
    for name, amount in stakes.items():
        state.apply(PlaceWager(1, name, amount))
    state.apply(Deal())
    return state


def _finish(state: HandState) -> None:
    while state.phase in (Phase.REVEAL, Phase.SETTLE):
        state.apply(Reveal() if state.phase is Phase.REVEAL else Settle())


@pytest.mark.parametrize("rules_id", own_ids())
def test_a_seat_that_folds_at_once(rules_id: str) -> None:
    edge = edges(rules_id)
    rng = random.Random(22)
    for _ in range(10):
        state = _dealt(rules_id, rng)
        state.apply(state.decision_action(1, 0))
        _finish(state)
        figures = seat_figures(state, 1)
        wagers = state.seats[1].wagers
        main = state.rules.main_wager
        expected = wagers[main] + sum((stake * edge[name] for name, stake in wagers.items()
                                       if name != main), Fraction(0))
        assert close(figures.expected_win, float(expected))
        assert figures.handle == sum(wagers.values())


@pytest.mark.parametrize("rules_id", own_ids())
def test_a_seat_that_plays_the_advisors_best_gives_nothing_away(rules_id: str) -> None:
    rng = random.Random(7)
    words = family_of(load_rules(rules_id)).words
    for _ in range(10):
        state = _dealt(rules_id, rng)
        hand = state.seats[1]
        ante = hand.wagers[state.rules.main_wager]
        while state.phase is Phase.DECISIONS:
            bets = [amount // ante for amount in hand.decisions] \
                if words.advice_takes_bets else []
            advice = advise(state.rules, hand.cards, state.visible_community, hand.colour,
                            bets)
            _, request = words.option_action(advice.best, ante)
            amount = request.get("amount", 0 if request["action"] == "fold" else
                                 hand.wagers[state.rules.main_wager])
            state.apply(state.decision_action(1, amount))
            _finish(state)
        figures = seat_figures(state, 1)
        assert figures.decisions and all(cost.cost == 0 for cost in figures.decisions)
        assert all("is best)" in cost.pattern for cost in figures.decisions)


def test_edges_are_read_once_per_fingerprint() -> None:
    rules = load_rules("high-card-flush")
    assert wager_math(rules) is wager_math(load_rules("high-card-flush"))


# --- the figures as first written: a Fraction for every sum, a replay for every decision -----

def reference_figures(state: HandState, seat: int) -> SeatFigures:
    """What :func:`seat_figures` answered before it kept the sums of a seat's stakes and
    replayed a round once for all its decisions (held equal below, to the last bit)."""
    hand = state.seats[seat]
    assert hand.settlement is not None
    known, main = wager_math(state.rules), state.rules.main_wager
    main_stake = hand.wagers.get(main, 0)
    theo = variance = bonuses = Fraction(0)
    for name, stake in hand.wagers.items():
        theo += stake * known.edges[name]
        if name != main:
            bonuses += stake * known.edges[name]
            variance += stake * stake * known.variances[name]
    evs = [reference_judge(HandState.replay(state.rules, state.deck, state.log[:index],
                                            verified=True), seat, action, main_stake)
           for index, action in enumerate(state.log)
           if isinstance(action, DECISIONS) and action.seat == seat] if main_stake else []
    if evs:
        later = sum((best - chosen for best, chosen, _ in evs[1:]), Fraction(0))
        expected = bonuses + main_stake * (later - evs[0][1])
    else:
        expected = theo
    if main_stake and not (hand.decisions and hand.decisions[0] == 0):
        variance += main_stake * main_stake * known.variances[main]
    costs = tuple(DecisionCost(pattern, float(best - chosen)) for best, chosen, pattern in evs)
    return SeatFigures(sum(hand.wagers.values()) + sum(hand.decisions),
                       -hand.settlement.total, float(theo), float(expected), float(variance),
                       main_stake, costs)


def reference_judge(replay: HandState, seat: int, action: Action, main_stake: int
                    ) -> tuple[Fraction, Fraction, str]:
    rules = replay.rules
    words = family_of(rules).words
    hand = replay.seats[seat]
    bets = [amount // main_stake for amount in hand.decisions] \
        if words.advice_takes_bets else []
    advice = advise(rules, tuple(hand.cards), tuple(replay.visible_community), hand.colour,
                    bets)
    taken = _as_request(action)
    labels, requests = {}, {}
    for option in advice.options:
        labels[option.option], requests[option.option] = words.option_action(
            option.option, main_stake)
    best = next(option for option in advice.options if option.option == advice.best)
    chosen = next((option for option in advice.options
                   if requests[option.option] == taken), None)
    if chosen is not None:
        chosen_ev, chosen_label = chosen.ev, labels[chosen.option]
    else:
        chosen_ev, chosen_label = _between(advice.options, requests, taken, main_stake)
    group = family_of(rules).math.hand_group(rules, AdviceInputs(
        tuple(hand.cards), tuple(replay.visible_community), hand.colour, tuple(bets)))
    return best.ev, chosen_ev, f"{chosen_label} with {group} ({labels[best.option]} is best)"


@pytest.mark.parametrize("rules_id", own_ids())
def test_the_figures_are_those_of_the_reference_to_the_last_bit(rules_id: str) -> None:
    """Random rounds of up to every seat, random stakes and decisions (raises of every
    size): each seat's figures, alone or with the round's others, are the reference's."""
    rules = load_rules(rules_id)
    rng = random.Random(f"reference {rules_id}")
    for _ in range(40):
        state = play_round(rules, rng, rng.randint(1, rules.seats))
        together = round_figures(state)
        assert set(together) == set(state.seats)
        for seat in state.seats:
            expected = reference_figures(state, seat)
            assert together[seat] == expected
            assert seat_figures(state, seat) == expected
        some = sorted(state.seats)[::2]
        assert round_figures(state, some) == {seat: together[seat] for seat in some}
