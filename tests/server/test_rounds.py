"""Practice rounds of every rule set end to end through API v1: every decision kind, the
ledger, the fairness proof, the payout request and what the player may see."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient

from feltlab.core.cards import format_cards
from feltlab.core.payout import settle_request
from feltlab.core.rules import builtin_ids, load_rules
from feltlab.server.fairness import commitment, deck_from_seed
from feltlab.server.verify import VerifyError, verify_round
from server.cli_helpers import run_cli, run_payout_cli
from server.conftest import balances, play_round, practice_table, sign_up
from server.helpers import assert_books_balance, card_tokens

BETS: dict[str, dict[str, Any]] = {
    "high-card-flush": {"wagers": {"ante": 10, "flush": 5, "straight_flush": 5}},
    "high-card-flush-toledo": {"wagers": {"ante": 10, "flush": 5}},
    "nh-flush-poker": {"wagers": {"ante": 5, "flush": 2, "straight_flush": 2}},
    "nine-card-flush": {"wagers": {"all9": 10, "bonus9": 5, "player6": 2, "first3": 1},
                        "colour": "red"},
    "nh-holdem-stud": {"wagers": {"ante": 5, "bonus3": 2}},
    "toy-pull-back": {"wagers": {"ante": 10}},  # the test game (tests/toy_game)
}


def first(options: list[dict[str, Any]]) -> dict[str, Any]:
    return options[0]  # fold


def last(options: list[dict[str, Any]]) -> dict[str, Any]:
    return options[-1]  # the biggest raise or bet, or play


def smallest(options: list[dict[str, Any]]) -> dict[str, Any]:
    return options[1] if len(options) > 1 else options[0]


def hidden_at(view: dict[str, Any], deck: tuple[Any, ...]) -> set[str]:
    """Cards of the deck the player must not have seen at this view's moment."""
    shown = card_tokens(view.get("cards", {}))
    dealt_to_me = set(view["cards"].get("player", "").split())
    dealt = {str(card) for card in deck}
    return dealt - shown - dealt_to_me


@pytest.mark.parametrize("rules_id", builtin_ids())
@pytest.mark.parametrize("chooser", [first, last], ids=["fold", "max"])
def test_full_rounds(client: TestClient, database_url: str, rules_id: str, chooser: Any
                     ) -> None:
    headers = sign_up(client)
    table = practice_table(client, headers, rules_id)
    start = balances(client, headers)["practice"]
    views: list[dict[str, Any]] = []

    def record(options: list[dict[str, Any]]) -> dict[str, Any]:
        return chooser(options)

    answer = client.post(f"/api/v1/tables/{table}/rounds", json=BETS[rules_id],
                         headers=headers)
    assert answer.status_code == 201, answer.text
    view = answer.json()
    assert view["commitment"] and "seed" not in view
    while view["phase"] != "complete":
        views.append(view)
        again = client.get(f"/api/v1/rounds/{view['id']}", headers=headers).json()
        assert again == view
        answer = client.post(f"/api/v1/rounds/{view['id']}/actions",
                             json=record(view["options"]), headers=headers)
        assert answer.status_code == 200, answer.text
        view = answer.json()
    # The seed reveals the deck; nothing hidden appeared before the end.
    assert commitment(view["seed"]) == view["commitment"]
    deck = deck_from_seed(view["seed"], view["client_seed"])
    for earlier in views:
        assert not (card_tokens(earlier) & _hidden_cards(earlier, deck, rules_id)), earlier
    # The balance moved by exactly the round's total; the payout calculator agrees.
    assert view["balance_after"] == start + view["total"]
    assert balances(client, headers)["practice"] == start + view["total"]
    assert settle_request(view["payout_request"])["total"] == view["total"]
    assert verify_round(view)["verified"]
    assert_books_balance(database_url)


def _hidden_cards(view: dict[str, Any], deck: tuple[Any, ...], rules_id: str) -> set[str]:
    """What the seed says was still face down when ``view`` was answered."""
    rules = load_rules(rules_id)
    cards = [str(card) for card in deck]
    if rules.game == "high-card-flush":
        return set(cards[7:14])  # the dealer's 7 (one seat: player 0-6, dealer 7-13)
    if rules.game == "nine-card-flush":
        return set(cards[3:9])  # the player's 6, dealt after Play
    turned = len(view["cards"].get("community", "").split())
    return set(cards[2 + turned:5])  # unturned community cards


@pytest.mark.parametrize("rules_id", builtin_ids())
def test_payout_cli_and_verify_agree(client: TestClient, rules_id: str, tmp_path: Any) -> None:
    headers = sign_up(client)
    table = practice_table(client, headers, rules_id)
    view = play_round(client, headers, table, BETS[rules_id] | {"client_seed": "lucky-7"},
                      choose=smallest)
    assert view["client_seed"] == "lucky-7"
    assert run_payout_cli(view["payout_request"])["total"] == view["total"]
    path = tmp_path / "round.json"
    path.write_text(json.dumps(view))
    code, out, err = run_cli(["verify", str(path)])
    assert code == 0 and json.loads(out)["verified"], err
    view["cards"]["player"] = "Ah Ah"
    path.write_text(json.dumps(view))
    code, out, err = run_cli(["verify", str(path)])
    assert code == 2 and out == "" and err.startswith("error: ") and len(err.splitlines()) == 1


def test_changed_seed_or_card_fails_verify(client: TestClient, tmp_path: Any) -> None:
    headers = sign_up(client)
    table = practice_table(client, headers, "high-card-flush")
    view = play_round(client, headers, table, BETS["high-card-flush"])
    verify_round(view)
    changed_seed = {**view, "seed": ("1" if view["seed"][0] != "1" else "2") + view["seed"][1:]}
    with pytest.raises(VerifyError, match="commitment"):
        verify_round(changed_seed)
    player = view["cards"]["player"].split()
    spare = next(str(card) for card in deck_from_seed(view["seed"], "")[20:]
                 if str(card) not in player)
    changed_card = json.loads(json.dumps(view))
    changed_card["cards"]["player"] = format_cards([]) + " ".join([spare, *player[1:]])
    with pytest.raises(VerifyError, match="player cards"):
        verify_round(changed_card)
    changed_total = {**view, "total": view["total"] + 1}
    with pytest.raises(VerifyError, match="total"):
        verify_round(changed_total)
