"""The toy game family (``tests/games/toy``), added through the registry like an installed
game: the engine deals and settles it, the generic analysis gives its exact PAR sheet
(checked here by hand arithmetic), the simulator estimates it, the advisor agrees with
the optimal strategy, the terminal plays it and the table server deals it over API v1.
Nothing outside its folder knows it exists."""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient
from rich.console import Console

from conftest import settled
from feltlab.analysis import advise, analyze, evaluate_strategy, load_strategy_file
from feltlab.cli.play import PlaySession
from feltlab.core import registry
from feltlab.core.cards import Card, full_deck, parse_cards
from feltlab.core.engine import (
    ActionError,
    Deal,
    Decide,
    Fold,
    HandState,
    Phase,
    PlaceWager,
    Reveal,
    Settle,
)
from feltlab.core.family import GameFamily, family_of
from feltlab.core.payout import settle_request
from feltlab.core.protection import Case
from feltlab.core.rules import RulesError, load_rules, parse_rules
from feltlab.core.simkit import Strategy
from feltlab.protect import protect
from feltlab.simulate.runner import prepare, simulate
from games.toy.rules import ToyRules
from games.toy.settle import settle_toy

RULES_ID = "toy-high-card"

# Compiling the simulator's loops around a family's round may warn (as in
# tests/simulate/test_kernels.py).
pytestmark = pytest.mark.filterwarnings(
    "ignore::numba.core.errors.NumbaExperimentalFeatureWarning")


@pytest.fixture(scope="module")
def rules(toy_family: GameFamily) -> ToyRules:
    found = load_rules(RULES_ID)
    assert isinstance(found, ToyRules)
    return found


def stacked(*top: str) -> tuple[Card, ...]:
    """A deck with ``top`` dealt first (seats in order, then the dealer), the rest after."""
    first = parse_cards(" ".join(top))
    return (*first, *(card for card in full_deck() if card not in first))


# --- the registry ------------------------------------------------------------------------

def test_registered_like_an_installed_family(toy_family: GameFamily, rules: ToyRules) -> None:
    assert RULES_ID in registry.builtin_ids()
    assert registry.family_of_rule_set(RULES_ID) is toy_family
    assert family_of(rules) is toy_family
    assert registry.families()[-1] is toy_family  # after the three real ones
    assert registry.strategy_file(RULES_ID) is not None
    assert not rules.modified and rules.raise_multiple == 1


def test_unregistered_the_game_is_unknown(toy_family: GameFamily) -> None:
    registry.unregister(toy_family.game)
    try:
        assert RULES_ID not in registry.builtin_ids()
        with pytest.raises(ValueError, match="no rule set 'toy-high-card'"):
            load_rules(RULES_ID)
    finally:
        registry.register(toy_family)


# --- the engine --------------------------------------------------------------------------

def test_engine_deals_and_settles(rules: ToyRules) -> None:
    # Seat 1 a king, seat 2 a four, seat 3 a seven; the dealer a seven.
    hand = HandState(rules, stacked("Kh", "4c", "7d", "7s"))
    for seat in (1, 2, 3):
        hand.apply(PlaceWager(seat, "ante", 10))
    hand.apply(Deal())
    assert [hand.seats[seat].cards for seat in (1, 2, 3)] == [
        list(parse_cards(card)) for card in ("Kh", "4c", "7d")]
    assert hand.dealer_cards == list(parse_cards("7s"))
    assert hand.legal_amounts(1) == range(10, 11)
    with pytest.raises(ActionError, match=r"raises 1x the ante \(10\) only"):
        hand.apply(Decide(1, "raise", 20))
    with pytest.raises(ActionError, match="out of turn"):
        hand.apply(Fold(2))
    for action in (Decide(1, "raise", 10), Fold(2), Decide(3, "raise", 10)):
        hand.apply(action)
    assert hand.phase is Phase.REVEAL
    hand.apply(Reveal())
    hand.apply(Settle())
    settlements = {}
    for seat in (1, 2, 3):
        settlement = hand.seats[seat].settlement
        assert settlement is not None
        settlements[seat] = (settlement.results, settlement.total)
        # the payout calculator settles the seat's hand alike
        answer = settle_request(hand.steps.payout_request(hand, seat))
        assert (answer["results"], answer["total"]) == settlements[seat]
    assert settlements == {
        1: ({"ante": 10, "raise": 10}, 20),  # king beats seven
        2: ({"ante": -10}, -10),  # folded
        3: ({"ante": 0, "raise": 0}, 0),  # seven ties seven: push
    }


def test_payout_command_settles_it(toy_family: GameFamily) -> None:
    answer = settled({"rules": RULES_ID, "wagers": {"ante": 5}, "player": "2c",
                      "dealer": "Ah", "raise": 5})
    assert answer["results"] == {"ante": -5, "raise": -5}
    assert answer["outcome"] == "lose" and answer["fingerprint"]


# --- the exact analysis, checked by hand ---------------------------------------------------

def test_par_sheet_by_hand_arithmetic(rules: ToyRules) -> None:
    sheet = analyze(rules)
    (main,) = sheet.wagers
    # A card of rank r (0 a deuce ... 12 an ace) meets 51 dealer cards: 4r lower, 3 of its
    # rank and 4(12 - r) higher. A raise wins or loses 2 antes (Ante and Raise), so it is
    # worth 2 (4r - 4(12 - r)) / 51 = 16 (r - 6) / 51 antes against -1 for the fold: it is
    # better from r = 3 (a five, -48/51) up; a four (r = 2) raised is worth -64/51.
    raise_ev = {r: Fraction(16 * (r - 6), 51) for r in range(13)}
    assert [r for r in range(13) if raise_ev[r] > -1] == list(range(3, 13))
    # Deals: 52 x 51 = 2,652 (player's card, dealer's card).
    deals = 52 * 51
    folds = 3 * 4 * 51  # every deal of a deuce, three or four: 612
    wins = sum(4 * 4 * r for r in range(3, 13))  # 16 (3 + ... + 12) = 16 x 75 = 1,200
    ties = 10 * 4 * 3  # ten raising ranks, 4 cards each, 3 dealer cards of the rank: 120
    losses = sum(4 * 4 * (12 - r) for r in range(3, 13))  # 16 (9 + ... + 0) = 720
    assert (folds, wins, ties, losses) == (612, 1200, 120, 720)
    assert folds + wins + ties + losses == deals
    player_ev = Fraction(-folds + 2 * wins - 2 * losses, deals)  # 348 / 2,652
    assert player_ev == Fraction(29, 221)
    assert main.total == deals
    assert [(line.label, line.net, line.count) for line in main.lines] == [
        ("Fold", -1, folds), ("Raise 1x, win", 2, wins), ("Raise 1x, tie", 0, ties),
        ("Raise 1x, lose", -2, losses)]
    assert main.house_edge == -player_ev == Fraction(-29, 221)
    assert main.hit_frequency == Fraction(wins, deals) == Fraction(100, 221)
    assert main.rates["raise_rate"] == Fraction(10, 13)
    assert main.average_total_wager == Fraction(folds + 2 * (deals - folds), deals)
    card = sheet.strategy_card
    assert card is not None and card.house_edge == main.house_edge and card.cost == 0
    assert [decision for _, decision, _ in sheet.strategy_map] == ["fold"] * 3 + ["raise 1x"] * 10
    assert sheet.fingerprint == rules.fingerprint


def test_strategy_files(rules: ToyRules, tmp_path: Path) -> None:
    shipped = registry.strategy_file(RULES_ID)
    assert shipped is not None
    card = load_strategy_file(rules, Path(str(shipped)))
    assert evaluate_strategy(rules, card).house_edge == Fraction(-29, 221)
    always = tmp_path / "always.toml"
    always.write_text('raise_from = "2"\n')
    # Raising everything adds the deuces, threes and fours raised: each of their 4 cards
    # raised wins 16 (r - 6) antes over its 51 deals, where folded it lost 51.
    gained = sum(4 * (16 * (r - 6) + 51) for r in range(3))  # 4 (-45 - 29 - 13) = -348
    edge = evaluate_strategy(rules, load_strategy_file(rules, always)).house_edge
    assert edge == Fraction(-348 - gained, 2652) == 0  # it gives back the whole edge
    bad = tmp_path / "bad.toml"
    bad.write_text('raise_from = "1"\n')
    with pytest.raises(ValueError, match="not a rank"):
        load_strategy_file(rules, bad)


# --- the simulator ---------------------------------------------------------------------------

@pytest.mark.parametrize(("strategy", "mistakes", "seats"), [
    ("optimal", 0.0, 3), ("simple", 0.0, 1), ("optimal", 0.25, 2)])
def test_simulator_estimates_the_exact_edge(rules: ToyRules, strategy: str, mistakes: float,
                                            seats: int) -> None:
    setup = prepare(rules, seats=seats, bets={"ante": 5}, strategy=strategy,
                    mistakes=mistakes)
    # A mistake raises a fold or folds a raise: at rate m the edge is (1 - m) times the
    # optimal one plus m times the opposite strategy's (fold five to ace: -51 for each of
    # 40 cards; raise deuce to four: 16 (r - 6) for each of their 4 cards).
    opposite = Fraction(51 * 40 - sum(4 * 16 * (r - 6) for r in range(3)), 2652)
    rate = Fraction(mistakes)
    expected = (1 - rate) * Fraction(-29, 221) + rate * opposite
    assert setup.exact["ante"] == expected
    result = simulate(setup, 1 << 19, seed=7)
    for name in ("ante", "total"):
        wager = result.wager(name)
        assert wager.exact == expected
        assert wager.z_score is not None and abs(wager.z_score) < 4, (name, wager)
    assert sum(result.counters[name] for name in ("fold", "raise")) == (1 << 19) * seats


def test_kernel_matches_the_settlement(rules: ToyRules) -> None:
    """The compiled round against :func:`settle_toy`, deck by deck, for a random table."""
    table = np.random.default_rng(3).integers(0, 2, 13).astype(np.int8)
    setup = prepare(rules, seats=6, bets={"ante": 7}, strategy=Strategy("random", table),
                    with_exact=False)
    generator = np.random.default_rng(4)
    decks = np.stack([generator.permutation(52) for _ in range(500)]).astype(np.uint8)
    nets = setup.kernels.replay_decks(decks, 6, len(setup.wager_names), *setup.arrays)
    for deck, round_nets in zip(decks, nets, strict=True):
        dealer = [Card(int(deck[6]))]
        for seat in range(6):
            player = [Card(int(deck[seat]))]
            raised = 7 * int(table[player[0].rank])
            settlement = settle_toy(rules, {"ante": 7}, player, dealer, raised)
            assert round_nets[seat].tolist() == [sum(settlement.results.values()),
                                                 settlement.total]


# --- the advisor -----------------------------------------------------------------------------

def test_advisor_agrees_with_the_optimal_strategy(rules: ToyRules) -> None:
    for rank in range(13):
        card = Card.of(rank, rank % 4)
        advice = advise(rules, [card])
        values = {option.option: option.ev for option in advice.options}
        assert values == {"fold": -1, "raise 1x": Fraction(16 * (rank - 6), 51)}
        assert advice.best == ("raise 1x" if rank >= 3 else "fold")
    # Dead cards (other seats' hands) move the odds: a four with the 8 deuces and threes
    # dead has no lower card, 3 equal and 40 higher among the 43 left: 2 (0 - 40) / 43.
    four = parse_cards("4h")
    dead = [card for card in full_deck() if card.rank < 2]
    assert advise(rules, four, dead=dead).options[1].ev == Fraction(2 * (0 - 40), 43)
    # A seen dealer card decides: a tie is raised (0 beats -1), a loss folded.
    assert advise(rules, four, seen=parse_cards("4s")).best == "raise 1x"
    assert advise(rules, four, seen=parse_cards("5s")).best == "fold"


# --- game protection -------------------------------------------------------------------------

def test_protection_is_exact(rules: ToyRules) -> None:
    report = protect(rules)
    by_case = {result.case: result for result in report.cases}
    assert all(result.exact for result in report.cases)
    assert by_case[Case()].player_edge == Fraction(29, 221) == -report.house_edge
    # A seen dealer card: raise the 1,248 wins and 156 ties of the 2,652 deals, fold the
    # 1,248 losses: (2 x 1,248 - 1,248) / 2,652 = 8/17.
    assert by_case[Case(1, 1)].player_edge == Fraction(8, 17)
    # One more card known never changes a decision: of the 50 cards left a five has at
    # worst 11 lower and 36 higher (2 (11 - 36) / 50 = -1, a tie: raise), a four at best
    # 8 lower and 39 higher (fold): two colluders gain exactly nothing.
    assert by_case[Case(2)].player_edge == by_case[Case()].player_edge
    # A full table of six knows enough to change decisions, and gains.
    assert by_case[Case(6)].player_edge > by_case[Case()].player_edge
    assert {measure.leak for measure in report.countermeasures} == {"colluders", "dealer_seen"}


# --- the terminal ----------------------------------------------------------------------------

def test_terminal_plays_it(rules: ToyRules) -> None:
    decks: Iterator[Sequence[Card]] = iter([stacked("Kh", "7s"), stacked("3c", "9d"),
                                            stacked("As", "2s")])
    out = Console(file=io.StringIO(), width=100)
    # Ante 10 and raise a king (wins 20); Ante 10, refuse nonsense, fold a three (-10);
    # leave at the third round's Ante (its deck is drawn before the wagers).
    script = io.StringIO("10\n?\nr\n10\nmaybe\nf\nq\n")
    session = PlaySession(rules, out, script, new_deck=lambda: next(decks))
    session.run()
    text = out.file.getvalue()  # type: ignore[attr-defined]
    assert session.hands_played == 2 and session.bankroll == 1010
    assert "Your card: K♥   King" in text
    assert "f = fold; r = raise 1x (10):" in text
    assert "Player and dealer get one card each" in text  # '?' showed the rules card
    assert "Not allowed: 'maybe' is not a choice: type f to fold or r to raise (10)" in text
    assert "Your king is higher than the dealer's seven." in text
    assert "Session over: 2 hands played, net +10, bankroll 1,010." in text


# --- the table server, over API v1 -----------------------------------------------------------

def _create_player(client: TestClient, name: str) -> dict[str, str]:
    password = "correct horse battery"
    created = client.post("/api/v1/accounts", json={"username": name, "password": password})
    assert created.status_code == 201, created.text
    token = client.post("/api/v1/login", json={"username": name, "password": password})
    assert token.status_code == 200, token.text
    client.cookies.clear()  # an API caller uses the bearer token
    return {"Authorization": f"Bearer {token.json()['token']}"}


def _practice(client: TestClient, headers: dict[str, str]) -> int:
    answer = client.get("/api/v1/me", headers=headers)
    assert answer.status_code == 200, answer.text
    balance: int = answer.json()["balances"]["practice"]
    return balance


def test_server_deals_it(rules: ToyRules, tmp_path: Path) -> None:
    from feltlab.server.app import create_app  # here: the other tests need no server
    from feltlab.server.settings import Settings

    app = create_app(Settings(f"sqlite:///{tmp_path / 'toy.sqlite3'}"))
    with TestClient(app) as client:
        listed = client.get("/api/v1/rules")
        assert RULES_ID in [item["id"] for item in listed.json()]
        headers = _create_player(client, "toyplayer")
        table = client.post("/api/v1/tables", json={"rules": RULES_ID}, headers=headers)
        assert table.status_code == 201, table.text
        table_id = table.json()["id"]
        seen: set[str] = set()
        for decision in ["raise", "fold"] * 2:
            before = _practice(client, headers)
            opened = client.post(f"/api/v1/tables/{table_id}/rounds",
                                 json={"wagers": {"ante": 10}}, headers=headers)
            assert opened.status_code == 201, opened.text
            view: dict[str, Any] = opened.json()
            assert view["phase"] == "decisions" and view["rules"] == RULES_ID
            assert view["options"] == [{"action": "fold"},
                                       {"action": "raise", "amount": 10}]
            assert len(parse_cards(view["cards"]["player"])) == 1
            assert "dealer" not in view["cards"]  # hidden until the round is complete
            assert _practice(client, headers) == before - 10  # the Ante is staked
            body = {"action": "fold"} if decision == "fold" else {"action": "raise",
                                                                  "amount": 10}
            acted = client.post(f"/api/v1/rounds/{view['id']}/actions", json=body,
                                headers=headers)
            assert acted.status_code == 200, acted.text
            done = acted.json()
            assert done["phase"] == "complete"
            expected = settle_request(done["payout_request"])
            assert (done["results"], done["total"]) == (expected["results"],
                                                        expected["total"])
            assert _practice(client, headers) == before + done["total"]
            seen.add(expected["outcome"])
        refused = client.post(f"/api/v1/tables/{table_id}/rounds",
                              json={"wagers": {"ante": 501}}, headers=headers)
        assert refused.status_code == 422 and "above the maximum of 500" in refused.text
    assert "folded" in seen


def test_rule_set_model_is_strict(rules: ToyRules) -> None:
    """The toy's model checks its own field like any family's: a raise beyond the
    largest multiple is refused, naming the field."""
    text = registry.builtin_text(RULES_ID).replace("raise_multiple = 1", "raise_multiple = 11")
    with pytest.raises(RulesError, match="field raise_multiple"):
        parse_rules(text, "toy.toml")
