"""Terminal play: whole sessions driven by scripted input, checked against the engine."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator, Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from typer.testing import CliRunner

from feltlab.cli import app
from feltlab.cli.play import (
    HIGHLIGHT,
    PlaySession,
    cards_text,
    deck_source,
    outcome,
    signed,
)
from feltlab.cli.rulescard import wager_title
from feltlab.core.cards import Card, full_deck, parse_cards, seeded_shuffle
from feltlab.core.engine import HandState
from feltlab.core.evaluators import best_flush
from feltlab.core.rules import builtin_ids, load_rules
from feltlab.core.text import parse_amount
from feltlab.games.high_card_flush.rules import FlushRules
from feltlab.games.high_card_flush.settle import settle_flush
from feltlab.games.holdem_stud.rules import HoldemStudRules
from feltlab.games.holdem_stud.settle import settle_holdem
from feltlab.games.nine_card_flush.rules import NineCardRules
from feltlab.games.nine_card_flush.settle import settle_nine_card

runner = CliRunner()

# Enter at every wager prompt (the defaults: the minimum required wager, no bonus).
DEFAULT_WAGERS = {
    "high-card-flush": "\n\n\n",
    "high-card-flush-toledo": "\n\n\n",
    "nh-flush-poker": "\n\n\n",
    "nine-card-flush": "\n\n\n\n\n",  # colour, All 9 and three optional wagers
    "nh-holdem-stud": "\n\n",
    "toy-pull-back": "\n",  # the test game installed beside feltlab (tests/toy_game)
}


def stacked(*hands: str) -> Iterator[Sequence[Card]]:
    """Decks whose top cards are the given ones, the rest in deck order; then unshuffled
    decks (a round takes its deck before the wagers, where a script may quit)."""
    for text in hands:
        top = parse_cards(text)
        yield (*top, *(card for card in full_deck() if card not in top))
    while True:
        yield full_deck()


def session(rules_id: str, script: str, decks: Iterator[Sequence[Card]] | None = None,
            seed: int = 0, bankroll: int = 1000, seats: int = 1) -> tuple[PlaySession, str]:
    """Run a session on ``script`` (one answer a line) and return it with its output."""
    output = io.StringIO()
    new_deck = deck_source(seed) if decks is None else decks.__next__
    played = PlaySession(load_rules(rules_id), Console(file=output, width=120), io.StringIO(script),
                         new_deck=new_deck, bankroll=bankroll, seats=seats)
    played.run()
    return played, output.getvalue()


def settlement_rows(hand: HandState, seat_number: int = 1) -> list[str]:
    """The settlement table rows the output must show for a seat's hand, from the engine."""
    seat = hand.seats[seat_number]
    assert seat.settlement is not None
    stakes = hand.steps.request_stakes(hand.steps.payout_request(hand, seat_number))
    return [rf"{re.escape(wager_title(name))}\s+{stakes[name]:,}\s+{outcome(net)}\s+"
            rf"{re.escape(signed(net))}"
            for name, net in seat.settlement.results.items()]


def assert_consistent(played: PlaySession, output: str) -> None:
    """Every hand's settlement lines are printed, and the bankroll moved by the totals."""
    totals = []
    for hand in played.hands:
        assert sorted(hand.seats) == list(range(1, played.seats + 1))
        for number, seat in hand.seats.items():
            for row in settlement_rows(hand, number):
                assert re.search(row, output), row
            assert seat.settlement is not None
            totals.append(seat.settlement.total)
    assert played.bankroll == played.start_bankroll + sum(totals)
    assert f"Session over: {played.hands_played} " in output
    assert f"net {signed(sum(totals))}, bankroll {played.bankroll:,}." in output


# --- the command, every rule set -------------------------------------------------------------

@pytest.mark.parametrize("rules_id", builtin_ids())
def test_cli_session_folds_then_quits(rules_id: str) -> None:
    script = (DEFAULT_WAGERS[rules_id] + "f\n") * 2 + "q\n"
    result = runner.invoke(app, ["play", rules_id, "--seed", "11"], input=script)
    assert result.exit_code == 0, result.output
    rules = load_rules(rules_id)
    assert rules.name in result.output
    assert "Session over: 2 hands played" in result.output
    ante = rules.limits[rules.required_wagers[0]].min
    assert f"net {signed(-2 * ante)}, bankroll {1000 - 2 * ante:,}." in result.output


@pytest.mark.parametrize("rules_id", builtin_ids())
def test_same_seed_same_input_same_output(rules_id: str) -> None:
    script = (DEFAULT_WAGERS[rules_id] + "f\n") * 3
    first = runner.invoke(app, ["play", rules_id, "--seed", "5"], input=script)
    second = runner.invoke(app, ["play", rules_id, "--seed", "5"], input=script)
    other = runner.invoke(app, ["play", rules_id, "--seed", "6"], input=script)
    assert first.exit_code == second.exit_code == 0
    assert first.output == second.output
    assert first.output != other.output


def test_seeded_session_deals_one_generator_sequence() -> None:
    played, _ = session("high-card-flush", ("\n\n\nf\n") * 3, seed=42)
    generator = np.random.default_rng(42)
    assert [hand.deck for hand in played.hands] == [seeded_shuffle(generator) for _ in range(3)]


def test_unknown_rule_set_is_refused() -> None:
    result = runner.invoke(app, ["play", "no-such-game"])
    assert result.exit_code == 2
    assert "no rule set 'no-such-game'" in result.output


def test_end_of_input_quits_cleanly_through_the_cli() -> None:
    result = runner.invoke(app, ["play", "nh-holdem-stud", "--seed", "1", "--bankroll", "50"],
                           input="4\n")
    assert result.exit_code == 0, result.output
    assert "Session over: 0 hands played, net 0, bankroll 50." in result.output


# --- High Card Flush family -----------------------------------------------------------------

# Player: a 5-card hearts flush A-K-Q-J-9 (straight-flush run of 4, A-K-Q-J); dealer: a
# 3-card clubs flush 4-3-2, which does not qualify.
FIVE_CARD_FLUSH = "Ah Kh Qh Jh 9h 2s 3d  2c 3c 4c 5s 6s 7d 8d"


def test_raise_above_the_flush_limit_is_refused_with_the_engines_message() -> None:
    played, output = session("high-card-flush", "10\n5\n5\n3x\n25\n2x\nq\n",
                             stacked(FIVE_CARD_FLUSH))
    assert "raise of 30 is above the maximum of 2x the ante (20) for a 5-card flush" in output
    assert "raise of 25 is above the maximum" in output
    hand = played.hands[0]
    assert hand.seats[1].decisions == [20]
    assert hand.seats[1].settlement is not None
    assert hand.seats[1].settlement.results == {"ante": 10, "raise": 0, "flush": 50,
                                                "straight_flush": 300}
    assert "The dealer does not qualify." in output
    assert "5-card hearts flush A-K-Q-J-9" in output
    assert played.bankroll == 1000 + 10 + 50 + 300
    assert_consistent(played, output)


def test_raise_prompt_offers_the_legal_raises() -> None:
    _, output = session("high-card-flush", "10\n0\n0\nq\n", stacked(FIVE_CARD_FLUSH))
    assert "f = fold; raise: r = 1x (10), 2x (20), or any amount 10-20:" in output


def test_nh_two_card_flush_may_only_fold() -> None:
    deck = stacked("As Ks Ah Kh Ad Kd Ac  2s 3s 4h 5h 6d 7d 8c")
    played, output = session("nh-flush-poker", "5\n5\n5\nr\n1x\nf\nq\n", deck)
    assert "This hand may only fold." in output
    message = "raise: a 2-card flush may not raise in nh-flush-poker; the hand may only fold"
    assert output.count(message) == 2
    assert re.search(r"Flush bonus\s+5\s+lost\s+-5\s+folded", output)
    seat = played.hands[0].seats[1]
    assert seat.decisions == [0]
    assert seat.settlement is not None
    # A fold loses the Ante and the Flush bonus; the Straight Flush bonus is still settled.
    assert seat.settlement.results == {"ante": -5, "flush": -5, "straight_flush": -5}
    assert_consistent(played, output)


def test_nh_unequal_bonuses_and_limits_are_refused() -> None:
    played, output = session("nh-flush-poker", "11\nlots\n0\n10\n5\n3\n5\nq\n")
    assert "wager ante of 11 is above the maximum of 10" in output
    assert "Ante: 'lots' is not a whole number of units" in output
    assert "Ante is required: at least 1" in output
    assert "wagers flush (5) and straight_flush (3) must be equal" in output
    assert played.hands[0].seats[1].wagers == {"ante": 10, "flush": 5, "straight_flush": 5}
    assert "You leave the table: the hand is folded." in output  # the q at the decision
    assert_consistent(played, output)


def test_nh_aggregate_cap_is_reported() -> None:
    deck = stacked("2h 3h 4h 5h 6h 7h 8h  As Ks Qs 2c 3c 4d 5d")
    played, output = session("nh-flush-poker", "10\n10\n10\n2x\nq\n", deck)
    settlement = played.hands[0].seats[1].settlement
    assert settlement is not None
    assert settlement.results == {"ante": 10, "raise": 20, "flush": 2000,
                                  "straight_flush": 2000}
    assert settlement.capped and settlement.total == 2000
    assert "Total +2,000 (the maximum aggregate payout of 2,000 per hand applied)." in output
    assert "Bankroll 3,000." in output
    assert re.search(r"Straight Flush bonus\s+10\s+won\s+\+2,000\s+7-card straight flush", output)
    assert_consistent(played, output)


def test_fold_keeps_bonuses_in_high_card_flush_and_matches_settle_flush() -> None:
    deck = stacked("Ah Kh Qh Jh 2s 3d 4c  9c 8c 7c 5s 6s 7d 8d")
    played, output = session("high-card-flush", "10\n5\n5\nf\nq\n", deck)
    seat = played.hands[0].seats[1]
    rules = load_rules("high-card-flush")
    assert isinstance(rules, FlushRules)
    direct = settle_flush(rules, seat.wagers, seat.cards,
                          played.hands[0].dealer_cards, 0)
    assert seat.settlement == direct
    assert direct.results == {"ante": -10, "flush": 5, "straight_flush": 300}
    assert "The dealer qualifies." in output
    assert_consistent(played, output)


def test_enter_repeats_the_previous_wagers() -> None:
    played, output = session("high-card-flush-toledo", "7\n3\n2\nf\n\n\n\nf\nq\n", seed=3)
    assert [hand.seats[1].wagers for hand in played.hands] == [
        {"ante": 7, "flush": 3, "straight_flush": 2}] * 2
    assert "Ante (1-1,000) [7]:" in output
    assert_consistent(played, output)


def test_toledo_raise_and_play_many_hands_consistently() -> None:
    played, output = session("high-card-flush-toledo", ("5\n1\n1\nr\n") * 6, seed=9)
    assert played.hands_played == 6
    assert all(hand.seats[1].decisions == [5] for hand in played.hands)
    assert_consistent(played, output)


# --- the bankroll -----------------------------------------------------------------------------

def test_wagers_beyond_the_bankroll_are_refused() -> None:
    played, output = session("high-card-flush", "10\n10\n5\n0\nr\nf\nq\n",
                             stacked(FIVE_CARD_FLUSH), bankroll=16)
    assert "Flush bonus of 10 would put 20 at risk; your bankroll is 16" in output
    assert "a raise of 10 needs more than the 1 left in your bankroll" in output
    seat = played.hands[0].seats[1]
    assert seat.wagers == {"ante": 10, "flush": 5} and seat.decisions == [0]
    assert_consistent(played, output)


def test_session_ends_when_the_bankroll_cannot_cover_the_minimum() -> None:
    played, output = session("nh-holdem-stud", "", bankroll=1)
    assert "Your bankroll of 1 cannot cover the minimum Ante of 2." in output
    assert played.hands_played == 0


def test_session_ends_after_losing_the_bankroll() -> None:
    played, output = session("nh-holdem-stud", "2\n0\nf\n", bankroll=2)
    assert played.hands_played == 1 and played.bankroll == 0
    assert "Your bankroll of 0 cannot cover the minimum Ante of 2." in output
    assert "Session over: 1 hand played, net -2, bankroll 0." in output


# --- 9 Card Flush -------------------------------------------------------------------------

NINE_RED = "Ah 2h 3h  4h 5h 6h 7s 8s 9s"


def test_nine_card_colour_play_and_settlement() -> None:
    played, output = session("nine-card-flush", "green\nr\n10\n1\n1\n1\nfold?\nplay\nq\n",
                             stacked(NINE_RED))
    assert "colour must be 'red' or 'black', got 'green'" in output
    assert "'fold?' is not a choice: type f to fold or play to bet Play" in output
    hand = played.hands[0]
    seat = hand.seats[1]
    assert seat.colour == "red" and seat.decisions == [10]
    rules = load_rules("nine-card-flush")
    assert isinstance(rules, NineCardRules)
    direct = settle_nine_card(rules, seat.wagers, "red", hand.community,
                              seat.cards, True)
    assert seat.settlement == direct
    assert direct.results == {"all9": 10, "play": 10, "bonus9": 20, "player6": 2, "first3": 5}
    assert "6 red flush cards" in output
    assert re.search(r"First 3\s+1\s+won\s+\+5\s+3 flush cards in the community", output)
    assert_consistent(played, output)


def test_nine_card_fold_keeps_optional_wagers_and_black_is_remembered() -> None:
    played, output = session("nine-card-flush", "b\n5\n0\n0\n2\nf\n\n\n\n\n\nf\nq\n",
                             stacked(NINE_RED, NINE_RED))
    assert [hand.seats[1].colour for hand in played.hands] == ["black", "black"]
    first = played.hands[0].seats[1].settlement
    assert first is not None and first.results == {"all9": -5, "first3": -2}
    assert_consistent(played, output)


# --- Hold'em Stud -------------------------------------------------------------------------

def test_holdem_street_bets_and_an_illegal_bet() -> None:
    played, output = session("nh-holdem-stud", "10\n10\n4x\n15\n1x\n2x\nb\nq\n",
                             stacked("Jh Js 2c 7d 9s"))
    assert ("street3 bet of 40 is not 1x to 3x the ante of 10 (allowed: 10, 20, 30)"
            in output)
    assert "street3 bet of 15 is not 1x to 3x" in output
    hand = played.hands[0]
    seat = hand.seats[1]
    assert seat.decisions == [10, 20, 10]
    rules = load_rules("nh-holdem-stud")
    assert isinstance(rules, HoldemStudRules)
    direct = settle_holdem(rules, seat.wagers, seat.cards,
                           hand.community, [10, 20, 10])
    assert seat.settlement == direct
    assert direct.results == {"ante": 10, "street3": 10, "street4": 20, "street5": 10,
                              "bonus3": -10}
    assert "Community: 2♣ ▒▒ ▒▒" in output and "Community: 2♣ 7♦ ▒▒" in output
    assert "Your hand: High pair; 3 Card Bonus hand: High card." in output
    assert_consistent(played, output)


def test_holdem_fold_at_fourth_street_still_settles_the_bonus() -> None:
    played, output = session("nh-holdem-stud", "5\n5\n3x\nf\nq\n", stacked("2h 7c Qs Qd Qc"))
    seat = played.hands[0].seats[1]
    assert seat.decisions == [15, 0]
    assert seat.settlement is not None
    assert seat.settlement.results == {"ante": -5, "street3": -15, "bonus3": 150}
    assert "Turned: Q♣" in output  # the folded player still sees the community turned
    assert_consistent(played, output)


# --- help, quit, end of input -------------------------------------------------------------

def test_rules_card_on_request_at_any_prompt() -> None:
    _, output = session("nh-holdem-stud", "?\n5\n0\np\nf\nq\n")
    assert output.count("Pay table") == 2
    assert "3 Card Bonus" in output and "125 to 1" in output


def test_quit_during_a_hand_folds_it_and_settles() -> None:
    played, output = session("nh-holdem-stud", "5\n0\n1x\nq\n", stacked("2h 7c 9s Td 3c"))
    assert "You leave the table: the hand is folded." in output
    assert played.hands[0].seats[1].decisions == [5, 0]
    assert played.bankroll == 990
    assert "Session over: 1 hand played, net -10, bankroll 990." in output


def test_end_of_input_mid_hand_quits_cleanly() -> None:
    played, output = session("nine-card-flush", "\n\n\n\n\n", stacked(NINE_RED))
    assert played.hands_played == 1 and played.bankroll == 999
    assert output.rstrip().endswith("Session over: 1 hand played, net -1, bankroll 999.")


# --- pieces -------------------------------------------------------------------------------

def test_cards_are_coloured_by_suit_and_the_flush_highlighted() -> None:
    cards = parse_cards("Th 8h 6h Js Ad Qd Jc")
    text = cards_text(cards, best_flush(cards).suit)
    assert text.plain == "J♠ T♥ 8♥ 6♥ A♦ Q♦ J♣"
    styles = {text.plain[span.start:span.end]: str(span.style) for span in text.spans}
    assert styles["J♠"] == "default"
    assert styles["T♥"] == styles["6♥"] == f"red {HIGHLIGHT}"
    assert styles["A♦"] == "blue" and styles["J♣"] == "green"


def test_parse_amount() -> None:
    assert parse_amount("3X", 5) == 15
    assert parse_amount("x", 5) is None
    assert parse_amount("", 5) is None


# --- any input -----------------------------------------------------------------------------

ANSWERS = ["", "f", "r", "1x", "2x", "3x", "4x", "play", "b", "0", "2", "5", "10", "30", "zz",
           "red", "black", "-1"]


@pytest.mark.parametrize("rules_id", builtin_ids())
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), seats=st.integers(1, 3),
       answers=st.lists(st.sampled_from(ANSWERS), max_size=40))
def test_any_input_keeps_the_session_consistent(rules_id: str, seed: int, seats: int,
                                                answers: list[str]) -> None:
    played, output = session(rules_id, "".join(f"{answer}\n" for answer in answers),
                             seed=seed, bankroll=60, seats=seats)
    assert_consistent(played, output)
    bankroll = 60
    for hand in played.hands:
        replayed = HandState.replay(hand.rules, hand.deck, hand.log)
        assert PlaySession.at_risk(hand) <= bankroll  # the player never bets money not held
        for number, seat in hand.seats.items():
            assert seat.settlement is not None
            assert replayed.seats[number].settlement == seat.settlement
            bankroll += seat.settlement.total


# --- several seats --------------------------------------------------------------------------

def test_two_seats_play_two_hands_a_round() -> None:
    script = "10\n0\n0\n5\n0\n0\nr\nf\n" + "\n" * 6 + "f\nf\nq\n"
    result = runner.invoke(app, ["play", "high-card-flush", "--seed", "8", "--seats", "2"],
                           input=script)
    assert result.exit_code == 0, result.output
    assert "Seat 2: Ante (1-1,000) [5]:" in result.output
    assert "Session over: 2 rounds of 2 hands played" in result.output
    played, output = session("high-card-flush", script, seed=8, seats=2)
    assert [hand.seats[2].wagers for hand in played.hands] == [{"ante": 5}] * 2
    assert played.hands[0].seats[1].decisions == [10]
    assert_consistent(played, output)


def test_nine_card_seats_choose_their_own_colours() -> None:
    played, output = session("nine-card-flush", "red\n5\n0\n0\n0\nblack\n5\n0\n0\n1\nplay\nf\n",
                             stacked(NINE_RED), seats=2)
    hand = played.hands[0]
    assert hand.seats[1].colour == "red" and hand.seats[2].colour == "black"
    assert hand.seats[1].decisions == [5] and hand.seats[2].decisions == [0]
    assert_consistent(played, output)


def test_too_many_seats_is_refused() -> None:
    result = runner.invoke(app, ["play", "high-card-flush", "--seats", "7"])
    assert result.exit_code == 2
    assert "--seats: high-card-flush has seats 1-6" in result.output
    with pytest.raises(ValueError, match="seats 1-7"):
        session("nh-holdem-stud", "", seats=8)


# --- hints offer only the engine's legal options the bankroll can pay -------------------------

def flat(output: str) -> str:
    """The output with its line wrapping undone."""
    return " ".join(output.split())


THREE_CARD_FLUSH = "Ah Kh Qh 2s 3s 4d 5c  2c 3c 4c 5s 6s 7d 8d"


def test_not_a_choice_offers_only_the_legal_raises_of_this_hand() -> None:
    _, output = session("nh-flush-poker", "5\n0\n0\nzz\nf\nq\n", stacked(THREE_CARD_FLUSH))
    assert "'zz' is not a choice: type f to fold, r to raise 1x (5)" in flat(output)
    assert "2x" not in output and "3x" not in output
    _, output = session("high-card-flush", "10\n0\n0\nzz\nf\nq\n", stacked(FIVE_CARD_FLUSH))
    assert ("'zz' is not a choice: type f to fold, r to raise 1x (10), or 2x to raise that "
            "many antes (20), or any amount 10-20") in flat(output)
    assert "3x" not in output
    _, output = session("nh-flush-poker", "5\n0\n0\nzz\nf\nq\n",
                        stacked("As Ks Ah Kh Ad Kd Ac  2s 3s 4h 5h 6d 7d 8c"))
    assert "'zz' is not a choice: type f to fold: this hand may only fold" in flat(output)
    _, output = session("nh-holdem-stud", "2\n0\nzz\nf\nq\n")
    assert "type f to fold, or 1x, 2x or 3x to bet that many antes (2, 4, 6)" in flat(output)
    _, output = session("nine-card-flush", "\n1\n0\n0\n0\nzz\nf\nq\n")
    assert "type f to fold or play to bet Play (1)" in flat(output)


def test_the_hint_follows_the_rule_set_not_a_fixed_list() -> None:
    rules = load_rules("nh-flush-poker").model_copy(update={"raise_multiples": {
        2: 0, 3: 0, 4: 1, 5: 1, 6: 1, 7: 1}})
    output = io.StringIO()
    decks = stacked(THREE_CARD_FLUSH)
    PlaySession(rules, Console(file=output, width=120), io.StringIO("5\n0\n0\nzz\nr\nf\nq\n"),
                new_deck=decks.__next__).run()
    text = output.getvalue()
    assert "This hand may only fold. f = fold:" in text
    assert "type f to fold: this hand may only fold" in text


def test_a_bankroll_too_small_to_raise_is_warned_at_the_ante() -> None:
    played, output = session("high-card-flush", "10\n0\n0\nzz\nr\nf\nq\n",
                             stacked(FIVE_CARD_FLUSH), bankroll=12)
    assert ("Warning: after this Ante, 2 is left in your bankroll, less than the 10 a raise "
            "of 1x the Ante needs: this hand can only fold.") in flat(output)
    assert output.index("Warning: after this Ante") < output.index("Your cards:")
    assert "Not enough bankroll to raise (10 needed). f = fold:" in flat(output)
    assert ("type f to fold: your bankroll cannot cover a raise (10 needed, 2 left), so this "
            "hand may only fold") in flat(output)
    assert "r = 1x" not in output
    assert played.hands[0].seats[1].decisions == [0]
    assert_consistent(played, output)


def test_only_the_raises_the_bankroll_can_pay_are_offered() -> None:
    played, output = session("high-card-flush", "10\n0\n0\nq\n", stacked(FIVE_CARD_FLUSH),
                             bankroll=25)
    assert "Warning" not in output
    assert "f = fold; raise: r = 1x (10), or any amount 10-15:" in flat(output)
    assert "2x (20)" not in output
    assert_consistent(played, output)


def test_a_bonus_that_leaves_too_little_is_warned_once() -> None:
    _, output = session("high-card-flush", "10\n5\n5\nf\nq\n", stacked(FIVE_CARD_FLUSH),
                        bankroll=24)
    assert output.count("Warning:") == 1
    assert "Warning: after this Flush bonus, 9 is left" in flat(output)


def test_short_bankrolls_in_holdem_and_nine_card_flush() -> None:
    played, output = session("nh-holdem-stud", "2\n0\nzz\n1x\nf\nq\n", bankroll=5)
    assert ("Warning: after this Ante, 3 is left in your bankroll, less than the 6 a 1x street "
            "bet on each of the 3 streets needs: the hand cannot be played to the end."
            ) in flat(output)
    assert "3rd street: f = fold, or bet 1x (2):" in flat(output)
    assert "type f to fold, or 1x to bet that many antes (2)" in flat(output)
    assert "4th street: not enough bankroll for a street bet (2 needed). f = fold:" in flat(output)
    assert_consistent(played, output)
    played, output = session("nine-card-flush", "\n1\n0\n0\n0\nplay\nf\nq\n", bankroll=1)
    assert "this hand can only fold" in flat(output)
    assert "Not enough bankroll for Play (1 needed). f = fold:" in flat(output)
    assert "a Play of 1 needs more than the 0 left in your bankroll" in flat(output)
    assert_consistent(played, output)
