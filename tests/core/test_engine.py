"""The hand engine: whole rounds, refused actions that change nothing, replay, fuzzing."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feltlab.core.cards import Card, full_deck, parse_cards
from feltlab.core.engine import (
    Action,
    ActionError,
    ChooseColour,
    Deal,
    Decide,
    Fold,
    HandState,
    Phase,
    PlaceWager,
    Reveal,
    Settle,
    action_from_json,
    action_to_json,
)
from feltlab.core.rules import Rules, load_rules
from feltlab.games.high_card_flush.rules import FlushRules
from feltlab.games.high_card_flush.settle import settle_flush
from feltlab.games.holdem_stud.rules import HoldemStudRules
from feltlab.games.holdem_stud.settle import settle_holdem
from feltlab.games.nine_card_flush.rules import NineCardRules
from feltlab.games.nine_card_flush.settle import settle_nine_card

GAMES = ["high-card-flush", "high-card-flush-toledo", "nh-flush-poker", "nine-card-flush",
         "nh-holdem-stud"]


def snapshot(state: HandState) -> dict[str, Any]:
    return copy.deepcopy(vars(state))


def assert_refused(state: HandState, action: Action, *fragments: str) -> None:
    """``action`` is refused with a message naming ``fragments`` and changes nothing."""
    before = snapshot(state)
    assert not state.can(action)
    with pytest.raises(ActionError) as error:
        state.apply(action)
    for fragment in fragments:
        assert fragment in str(error.value), str(error.value)
    assert vars(state) == before


def play_all(state: HandState, actions: Sequence[Action]) -> HandState:
    for action in actions:
        state.apply(action)
    return state


def new_hand(rules_id: str, deck: Sequence[Card] | None = None) -> HandState:
    return HandState(load_rules(rules_id), full_deck() if deck is None else deck)


# --- whole rounds -------------------------------------------------------------------

def test_flush_round_matches_settle() -> None:
    state = play_all(new_hand("high-card-flush"), [
        PlaceWager(1, "ante", 10), PlaceWager(1, "flush", 5), PlaceWager(3, "ante", 4),
        Deal(), Decide(1, "raise", 30), Fold(3), Reveal(), Settle()])
    assert state.phase is Phase.COMPLETE
    deck = full_deck()
    assert state.seats[1].cards == list(deck[:7]) and state.seats[3].cards == list(deck[7:14])
    assert state.dealer_cards == list(deck[14:21])
    rules = load_rules("high-card-flush")
    assert isinstance(rules, FlushRules)
    expected = settle_flush(rules, {"ante": 10, "flush": 5}, deck[:7], deck[14:21], 30)
    assert state.seats[1].settlement == expected
    # 2s-8s loses to the dealer's 3h-9h; the 7-card Flush bonus pays 300 to 1.
    assert expected.results == {"ante": -10, "raise": -30, "flush": 5 * 300}
    assert state.seats[3].settlement is not None
    assert state.seats[3].settlement.results == {"ante": -4}


def test_bonus_without_the_ante_does_not_play() -> None:
    state = play_all(new_hand("high-card-flush"), [
        PlaceWager(1, "ante", 10), PlaceWager(2, "flush", 5), Deal()])
    assert state.active_seats == [1] and 2 not in state.seats


def test_nine_card_round_matches_settle() -> None:
    state = play_all(new_hand("nine-card-flush"), [
        PlaceWager(2, "all9", 10), ChooseColour(2, "black"), PlaceWager(2, "player6", 3),
        PlaceWager(5, "all9", 4), ChooseColour(5, "red"),
        Deal(), Decide(2, "play"), Fold(5), Reveal(), Settle()])
    deck = full_deck()
    rules = load_rules("nine-card-flush")
    assert isinstance(rules, NineCardRules)
    assert state.community == list(deck[:3])
    assert state.seats[2].settlement == settle_nine_card(
        rules, {"all9": 10, "player6": 3}, "black", deck[:3], deck[3:9], True)
    assert state.seats[5].settlement == settle_nine_card(
        rules, {"all9": 4}, "red", deck[:3], deck[9:15], False)


def test_holdem_round_matches_settle() -> None:
    state = play_all(new_hand("nh-holdem-stud"), [
        PlaceWager(1, "ante", 5), PlaceWager(1, "bonus3", 2), PlaceWager(2, "ante", 4),
        Deal(), Decide(1, "bet", 5), Decide(2, "bet", 12), Reveal(), Decide(1, "bet", 15),
        Fold(2), Reveal(), Decide(1, "bet", 10), Reveal(), Settle()])
    deck = full_deck()
    rules = load_rules("nh-holdem-stud")
    assert isinstance(rules, HoldemStudRules)
    assert state.revealed == 3 and state.visible_community == list(deck[4:7])
    assert state.seats[1].settlement == settle_holdem(
        rules, {"ante": 5, "bonus3": 2}, deck[:2], deck[4:7], [5, 15, 10])
    assert state.seats[2].settlement == settle_holdem(
        rules, {"ante": 4}, deck[2:4], deck[4:7], [12])
    assert state.seats[2].settlement.total == -16


def test_holdem_community_is_turned_one_card_at_a_time() -> None:
    state = play_all(new_hand("nh-holdem-stud"), [PlaceWager(1, "ante", 5), Deal()])
    assert state.visible_community == []
    play_all(state, [Decide(1, "bet", 5), Reveal()])
    assert len(state.visible_community) == 1
    assert state.legal_street_bets(1) == [5, 10, 15]


def test_legal_raises() -> None:
    deck = parse_cards("As Ks Qs Js 9s 3d 4c") + tuple(
        card for card in full_deck() if card not in parse_cards("As Ks Qs Js 9s 3d 4c"))
    hcf = play_all(new_hand("high-card-flush", deck), [PlaceWager(1, "ante", 10), Deal()])
    assert hcf.legal_raises(1) == range(10, 21)
    nh = play_all(new_hand("nh-flush-poker", deck), [PlaceWager(1, "ante", 5), Deal()])
    assert list(nh.legal_raises(1)) == [5, 10]
    two = parse_cards("As Ks Ah Kh Ad Kd 2c")
    rest = tuple(card for card in full_deck() if card not in two)
    only_fold = play_all(new_hand("nh-flush-poker", two + rest),
                         [PlaceWager(1, "ante", 5), Deal()])
    assert list(only_fold.legal_raises(1)) == []
    assert_refused(only_fold, Decide(1, "raise", 5), "2-card flush may not raise")
    only_fold.apply(Fold(1))


# --- refusals ------------------------------------------------------------------------

def dealt_flush_hand() -> HandState:
    return play_all(new_hand("high-card-flush"),
                    [PlaceWager(1, "ante", 10), PlaceWager(2, "ante", 10), Deal()])


def test_out_of_turn() -> None:
    state = dealt_flush_hand()
    assert state.to_act == 1
    assert_refused(state, Fold(2), "seat 2 is acting out of turn", "seat 1 acts next")
    state.apply(Fold(1))
    assert_refused(state, Fold(1), "seat 1 is acting out of turn")
    assert_refused(state, Decide(3, "raise", 10), "seat 3 has no hand")


def test_wrong_phase() -> None:
    state = new_hand("high-card-flush")
    assert_refused(state, Decide(1, "raise", 10), "a raise is not allowed in the wagers phase")
    assert_refused(state, Reveal(), "revealing")
    assert_refused(state, Settle(), "settling")
    assert_refused(state, Deal(), "no seat has placed the required ante")
    state = dealt_flush_hand()
    assert_refused(state, PlaceWager(1, "flush", 5),
                   "placing a wager is not allowed in the decisions phase")
    assert_refused(state, Deal(), "dealing")
    play_all(state, [Decide(1, "raise", 10), Fold(2)])
    assert_refused(state, Fold(1), "folding is not allowed in the reveal phase")
    play_all(state, [Reveal(), Settle()])
    for action in (Settle(), Fold(1), Decide(1, "raise", 10), Reveal(), PlaceWager(1, "ante", 5)):
        assert_refused(state, action, "complete phase")


@pytest.mark.parametrize("seat", [0, 7, -1, True])
def test_seats_outside_the_table(seat: int) -> None:
    assert_refused(new_hand("high-card-flush"), PlaceWager(seat, "ante", 10),
                   "does not exist", "seats 1-6")


def test_seat_eight_exists_only_at_nine_card_flush() -> None:
    new_hand("nine-card-flush").apply(PlaceWager(8, "all9", 10))
    assert_refused(new_hand("nine-card-flush"), PlaceWager(9, "all9", 10), "seats 1-8")


@pytest.mark.parametrize(("rules_id", "wager", "amount", "fragment"), [
    ("nh-flush-poker", "ante", 11, "above the maximum of 10"),
    ("nh-holdem-stud", "ante", 1, "below the minimum of 2"),
    ("high-card-flush", "flush", 101, "above the maximum of 100"),
    ("high-card-flush", "tip", 5, "unknown wager 'tip'"),
    ("high-card-flush", "tip", 0, "unknown wager 'tip'"),
    ("high-card-flush", "ante", -3, "below the minimum"),
    ("high-card-flush", "ante", 2.5, "whole number"),
    ("nine-card-flush", "ante", 5, "unknown wager 'ante'"),
])
def test_wagers_outside_the_limits(rules_id: str, wager: str, amount: Any,
                                   fragment: str) -> None:
    assert_refused(new_hand(rules_id), PlaceWager(1, wager, amount), fragment)


def test_unequal_bonuses_refused_in_nh() -> None:
    state = play_all(new_hand("nh-flush-poker"), [PlaceWager(1, "ante", 5),
                                                  PlaceWager(1, "flush", 5)])
    assert_refused(state, PlaceWager(1, "straight_flush", 4), "must be equal")
    state.apply(PlaceWager(1, "straight_flush", 5))


def test_wrong_game_actions() -> None:
    flush = dealt_flush_hand()
    assert_refused(flush, Decide(1, "play"), "has no 'play' decision")
    assert_refused(flush, Decide(1, "bet", 10), "has no 'bet' decision", "fold, raise")
    assert_refused(flush, Decide(1, "raise", 0), "fold instead")
    assert_refused(flush, Decide(1, "raise", 31), "above the maximum of 3x")  # 2s-8s: 7 cards
    assert_refused(new_hand("high-card-flush"), ChooseColour(1, "red"), "no colours")
    nine = play_all(new_hand("nine-card-flush"), [PlaceWager(1, "all9", 10)])
    assert_refused(nine, ChooseColour(1, "green"), "colour must be 'red' or 'black'")
    assert_refused(nine, Deal(), "seat 1 has not chosen red or black")
    play_all(nine, [ChooseColour(1, "red"), Deal()])
    assert_refused(nine, Decide(1, "raise", 10), "has no 'raise' decision")
    assert_refused(nine, Decide(1, "play", 10), "action play takes no amount")
    stud = play_all(new_hand("nh-holdem-stud"), [PlaceWager(1, "ante", 5), Deal()])
    assert_refused(stud, Decide(1, "bet", 7), "street3 bet of 7")
    assert_refused(stud, Decide(1, "bet", 20), "not 1x to 3x")
    assert_refused(stud, Reveal(), "revealing is not allowed in the decisions phase")


def test_short_or_repeated_deck() -> None:
    state = play_all(HandState(load_rules("high-card-flush"), full_deck()[:20]),
                     [PlaceWager(1, "ante", 5), PlaceWager(2, "ante", 5)])
    assert_refused(state, Deal(), "the deck has 20 cards; this round needs 21")
    with pytest.raises(ActionError, match="appears twice"):
        HandState(load_rules("high-card-flush"), full_deck()[:5] * 2)


# --- random play ---------------------------------------------------------------------

def wager_amounts(rules: Rules, name: str) -> st.SearchStrategy[int]:
    limit = rules.limits.get(name)
    if limit is None:
        return st.sampled_from([0, 1, 5])
    return st.one_of(st.sampled_from([0, limit.min - 1, limit.max + 1, limit.min, limit.max]),
                     st.integers(limit.min, limit.max))


def any_action(data: st.DataObject, state: HandState) -> Action:
    """Any action at all, legal or not, with plausible seats and amounts."""
    rules = state.rules
    seat = data.draw(st.integers(0, rules.seats + 1), "seat")
    ante = 0
    if seat in state.seats:
        ante = state.seats[seat].wagers.get("ante", 0) or state.seats[seat].wagers.get("all9", 0)
    amount = data.draw(st.sampled_from([0, 1, ante, 2 * ante, 3 * ante, 4 * ante]), "amount")
    wager = data.draw(st.sampled_from([*rules.wager_names, "tip"]), "wager")
    actions: list[Action] = [
        PlaceWager(seat, wager, data.draw(wager_amounts(rules, wager), "wager amount")),
        ChooseColour(seat, data.draw(st.sampled_from(["red", "black", "green"]))),
        Deal(), Fold(seat), Decide(seat, "raise", amount), Decide(seat, "play"),
        Decide(seat, "bet", amount), Decide(seat, "pull_back"), Reveal(), Settle()]
    return data.draw(st.sampled_from(actions), "action")


def progress(data: st.DataObject, state: HandState) -> Action | None:
    """A legal action that moves the round on, or ``None`` when it is over."""
    rules = state.rules
    if state.phase is Phase.WAGERS:
        deal_now = data.draw(st.booleans(), "deal now")
        if state.active_seats and deal_now:
            for seat in state.active_seats:
                if isinstance(rules, NineCardRules) and state.seats[seat].colour is None:
                    return ChooseColour(seat, data.draw(st.sampled_from(["red", "black"])))
            return Deal()
        seat = data.draw(st.integers(1, rules.seats), "new seat")
        required = rules.required_wagers[0]
        if required not in state.seats.get(seat, _EMPTY).wagers:
            limit = rules.limits[required]
            return PlaceWager(seat, required, data.draw(st.integers(limit.min, limit.max)))
        name = data.draw(st.sampled_from(rules.optional_wagers), "optional wager")
        limit = rules.limits[name]
        return PlaceWager(seat, name, data.draw(st.integers(limit.min, limit.max)))
    if state.phase is Phase.DECISIONS:
        acting = state.to_act
        assert acting is not None
        return data.draw(st.sampled_from(decisions(state, acting)), "decision")
    if state.phase is Phase.REVEAL:
        return Reveal()
    if state.phase is Phase.SETTLE:
        return Settle()
    return None


class _Empty:
    wagers: dict[str, int] = {}  # noqa: RUF012


_EMPTY = _Empty()


def decisions(state: HandState, seat: int) -> list[Action]:
    return state.choices(seat)


def test_choices_are_the_legal_decisions() -> None:
    flush = play_all(new_hand("high-card-flush"), [PlaceWager(1, "ante", 10), Deal()])
    assert flush.choices(1) == [Fold(1), *(Decide(1, "raise", amount)
                                           for amount in flush.legal_raises(1))]
    nine = play_all(new_hand("nine-card-flush"), [
        PlaceWager(1, "all9", 5), ChooseColour(1, "red"), Deal()])
    assert nine.choices(1) == [Fold(1), Decide(1, "play")]


def finish(state: HandState) -> Action | None:
    """The simplest legal action that moves the round on (fold every hand)."""
    rules = state.rules
    if state.phase is Phase.WAGERS:
        if not state.active_seats:
            required = rules.required_wagers[0]
            return PlaceWager(1, required, rules.limits[required].min)
        for seat in state.active_seats:
            if isinstance(rules, NineCardRules) and state.seats[seat].colour is None:
                return ChooseColour(seat, "red")
        return Deal()
    if state.phase is Phase.DECISIONS:
        assert state.to_act is not None
        return Fold(state.to_act)
    last_steps: dict[Phase, Action] = {Phase.REVEAL: Reveal(), Phase.SETTLE: Settle()}
    return last_steps.get(state.phase)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(GAMES), st.permutations(full_deck()), st.data())
def test_random_play_never_crashes_and_replays(rules_id: str, deck: list[Card],
                                               data: st.DataObject) -> None:
    rules = load_rules(rules_id)
    state = HandState(rules, deck)
    for _ in range(data.draw(st.integers(0, 60), "steps")):
        if data.draw(st.booleans(), "random action"):
            action: Action | None = any_action(data, state)
        else:
            action = progress(data, state)
        if action is None:
            break
        if state.can(action):
            before = len(state.log)
            state.apply(action)
            assert state.log[before:] == [action]
        else:
            assert_refused(state, action)
    for _ in range(20):
        action = finish(state)
        if action is None:
            break
        state.apply(action)
    assert state.phase is Phase.COMPLETE
    again = HandState.replay(rules, deck, [action_from_json(action_to_json(action))
                                           for action in state.log])
    assert vars(again) == vars(state)
    trusted = HandState.replay(rules, deck, state.log, verified=True)  # as a server's log
    assert vars(trusted) == vars(state)
    for seat in state.active_seats:
        settlement = state.seats[seat].settlement
        assert settlement is not None
        assert set(settlement.results) >= set(state.seats[seat].wagers)


def test_action_json_refuses_junk() -> None:
    with pytest.raises(ActionError, match="not an action"):
        action_from_json({"type": "Cheat"})
    with pytest.raises(ActionError, match="Raise"):
        action_from_json({"type": "Raise", "seat": 1})


def test_non_actions_and_unseated_views_are_refused() -> None:
    state = dealt_flush_hand()
    before = snapshot(state)
    with pytest.raises(ActionError, match="not an action"):
        state.apply("Fold(1)")  # type: ignore[arg-type]
    assert snapshot(state) == before
    with pytest.raises(ActionError, match="seat 4 has no hand"):
        state.legal_raises(4)
    assert list(state.legal_raises(1)) in ([10], [10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20],
                                           list(range(10, 31)))
