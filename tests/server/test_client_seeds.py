"""Players' client seeds at shared tables: each bet may carry one, the round's commitment
is fixed before any is seen, and at the deal (the last seated player's bet or the betting
window's timer) they are mixed into the round's one client seed, which gives the deck."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from feltlab.core.cards import format_cards
from feltlab.core.engine import HandState, action_from_json
from feltlab.core.rules import load_rules
from feltlab.server.app import create_app
from feltlab.server.fairness import combine_client_seeds, deck_from_seed
from feltlab.server.verify import VerifyError, verify_round
from server.cli_helpers import run_cli
from server.conftest import balances, play_round, practice_table, settings_for, sign_up
from server.helpers import assert_books_balance
from server.test_shared import expire_timers, make_admin

Headers = dict[str, str]
ALICE_SEED, CAROL_SEED = "alice-7", "c:3.x_Y"


def open_table(client: TestClient, players: int = 3) -> tuple[int, list[Headers]]:
    admin = make_admin(client)
    opened = client.post("/api/v1/admin/tables", json={
        "rules": "high-card-flush", "betting_seconds": 30, "decision_seconds": 30},
        headers=admin)
    assert opened.status_code == 201, opened.text
    table_id: int = opened.json()["id"]
    seated = [sign_up(client) for _ in range(players)]
    for seat, headers in enumerate(seated, start=1):
        assert client.post(f"/api/v1/tables/{table_id}/seats", json={"seat": seat},
                           headers=headers).status_code == 201
    return table_id, seated


def bet(client: TestClient, table_id: int, headers: Headers, seed: str | None = None,
        ante: int = 10) -> Any:
    body: dict[str, Any] = {"wagers": {"ante": ante}}
    if seed is not None:
        body["client_seed"] = seed
    return client.post(f"/api/v1/tables/{table_id}/rounds", json=body, headers=headers)


def play_out(client: TestClient, round_id: int, players: list[Headers]) -> None:
    """Each seat takes its last option (its biggest raise) in turn until settlement."""
    for _ in range(len(players) * 2):
        views = [client.get(f"/api/v1/rounds/{round_id}", headers=headers).json()
                 for headers in players]
        if views[0]["phase"] == "complete":
            return
        turn = next(index for index, view in enumerate(views) if view["options"])
        answer = client.post(f"/api/v1/rounds/{round_id}/actions",
                             json=views[turn]["options"][-1], headers=players[turn])
        assert answer.status_code == 200, answer.text
    raise AssertionError("the round did not complete")


def replayed_hand(view: dict[str, Any], client_seed: str) -> HandState:
    """The round replayed on the deck of (seed, client_seed): the second, simpler check
    beside ``verify_round``."""
    return HandState.replay(load_rules(view["rules"]),
                            deck_from_seed(view["seed"], client_seed),
                            [action_from_json(item) for item in view["log"]])


def check_proofs(client: TestClient, round_id: int, players: list[Headers],
                 seeds: dict[int, str]) -> list[dict[str, Any]]:
    """Every player's complete round shows every seat's seed and their mix, and verifies;
    its cards are those the mixed seed deals."""
    mixed = combine_client_seeds(seeds)
    views = [client.get(f"/api/v1/rounds/{round_id}", headers=headers).json()
             for headers in players]
    for view in views:
        assert view["phase"] == "complete"
        assert view["client_seeds"] == {str(seat): seed for seat, seed in seeds.items()}
        assert view["client_seed"] == mixed
        assert verify_round(view)["verified"]
        state = replayed_hand(view, mixed)
        assert view["cards"]["player"] == format_cards(state.seats[view["seat"]].cards)
        assert view["cards"]["dealer"] == format_cards(state.dealer_cards)
    return views


def test_two_seeds_of_three_mixed_at_the_last_bet(client: TestClient, database_url: str,
                                                   tmp_path: Path) -> None:
    table_id, players = open_table(client)
    alice, bob, carol = players
    first = bet(client, table_id, alice, ALICE_SEED).json()
    assert first["phase"] == "wagers" and first["client_seed"] == ""
    assert first["client_seeds"] == {"1": ALICE_SEED}
    commitment = first["commitment"]
    assert bet(client, table_id, bob).json()["client_seeds"] == {"1": ALICE_SEED, "2": ""}
    dealt = bet(client, table_id, carol, CAROL_SEED).json()  # the last seated: the deal
    assert dealt["phase"] == "decisions" and dealt["commitment"] == commitment
    mixed = combine_client_seeds({1: ALICE_SEED, 3: CAROL_SEED})
    assert dealt["client_seed"] == mixed and len(mixed) == 64
    play_out(client, dealt["id"], players)
    views = check_proofs(client, dealt["id"], players,
                         {1: ALICE_SEED, 2: "", 3: CAROL_SEED})
    unmixed = deck_from_seed(views[0]["seed"], "")  # without the seeds, another deck
    assert unmixed != deck_from_seed(views[0]["seed"], mixed)
    assert_books_balance(database_url)
    refuse_tampering(views[1], tmp_path)


def refuse_tampering(view: dict[str, Any], tmp_path: Path) -> None:
    """A changed seat seed, a changed or dropped mixed seed: verify fails, through the
    library and through ``feltlab verify FILE`` (exit 2, one line)."""
    path = tmp_path / "round.json"
    path.write_text(json.dumps(view))
    code, out, err = run_cli(["verify", str(path)])
    assert code == 0 and json.loads(out)["verified"], err
    changed_seat = copy.deepcopy(view)
    changed_seat["client_seeds"]["1"] = "alice-8"
    changed_mix = {**view, "client_seed": combine_client_seeds({1: "alice-8"})}
    no_mix = {**view, "client_seed": ""}
    for changed in (changed_seat, changed_mix, no_mix):
        with pytest.raises(VerifyError, match="not the mix of the seats' client seeds"):
            verify_round(changed)
        path.write_text(json.dumps(changed))
        code, out, err = run_cli(["verify", str(path)])
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
        assert "not the mix" in err
    dropped = {key: value for key, value in view.items() if key != "client_seeds"}
    assert verify_round(dropped)["verified"]  # the mixed seed alone still gives the deck
    with pytest.raises(VerifyError, match=r"cards|does not replay"):  # another deck
        verify_round({**dropped, "client_seed": ""})
    bad_shape = {**view, "client_seeds": {"one": ALICE_SEED}}
    with pytest.raises(VerifyError, match="client_seeds"):
        verify_round(bad_shape)
    bad_seed = {**view, "client_seeds": {"1": "no spaces allowed"}}
    with pytest.raises(VerifyError, match="client_seed is up to 64"):
        verify_round(bad_seed)


def test_betting_window_timer_mixes_the_seeds(client: TestClient) -> None:
    table_id, (alice, bob, carol) = open_table(client)
    round_id = bet(client, table_id, alice, ALICE_SEED).json()["id"]
    assert bet(client, table_id, bob, "bob").status_code == 201
    assert expire_timers(client) == 1  # carol never bets: the window closes, the deal
    dealt = client.get(f"/api/v1/rounds/{round_id}", headers=bob).json()
    assert dealt["phase"] == "decisions"
    assert dealt["client_seed"] == combine_client_seeds({1: ALICE_SEED, 2: "bob"})
    play_out(client, round_id, [alice, bob])
    check_proofs(client, round_id, [alice, bob], {1: ALICE_SEED, 2: "bob"})
    assert client.get(f"/api/v1/rounds/{round_id}", headers=carol).status_code == 404


def test_mixed_deck_survives_a_restart(database_url: str) -> None:
    """The mixed seed is committed with the Deal: a restarted server deals on from the
    same deck."""
    app = create_app(settings_for(database_url), timers=False)
    with TestClient(app) as client:
        table_id, players = open_table(client, players=2)
        bet(client, table_id, players[0], "first")
        dealt = bet(client, table_id, players[1], "second").json()
        assert dealt["phase"] == "decisions"
    app.state.services.engine.dispose()
    restarted = create_app(settings_for(database_url), timers=False)
    with TestClient(restarted) as client:
        again = client.get(f"/api/v1/rounds/{dealt['id']}", headers=players[1]).json()
        assert again["cards"] == dealt["cards"] and again["client_seed"] == dealt["client_seed"]
        play_out(client, dealt["id"], players)
        check_proofs(client, dealt["id"], players, {1: "first", 2: "second"})
    restarted.state.services.engine.dispose()


def test_refused_bets_store_no_seed(client: TestClient, database_url: str) -> None:
    table_id, (alice, bob) = open_table(client, players=2)
    bad = bet(client, table_id, alice, "no spaces; please")
    assert bad.status_code == 422 and "client_seed" in bad.json()["detail"]
    too_small = bet(client, table_id, alice, "kept?", ante=0)
    assert too_small.status_code in (409, 422), too_small.text
    assert balances(client, alice)["practice"] == 1000
    assert client.get(f"/api/v1/tables/{table_id}", headers=alice).json()["round"] is None
    round_id = bet(client, table_id, bob, "bob").json()["id"]
    late_bad = bet(client, table_id, alice, "x" * 65)
    assert late_bad.status_code == 422 and "client_seed" in late_bad.json()["detail"]
    assert balances(client, alice)["practice"] == 1000
    waiting = client.get(f"/api/v1/rounds/{round_id}", headers=bob).json()
    assert waiting["client_seeds"] == {"2": "bob"} and waiting["phase"] == "wagers"
    dealt = bet(client, table_id, alice).json()
    assert dealt["client_seeds"] == {"1": "", "2": "bob"}
    assert dealt["client_seed"] == combine_client_seeds({2: "bob"})
    assert_books_balance(database_url)


def test_no_seeds_deal_as_before(client: TestClient) -> None:
    table_id, players = open_table(client, players=2)
    bet(client, table_id, players[0])
    round_id = bet(client, table_id, players[1], "").json()["id"]
    play_out(client, round_id, players)
    views = check_proofs(client, round_id, players, {1: "", 2: ""})
    assert views[0]["client_seed"] == ""


def test_private_tables_unchanged(client: TestClient) -> None:
    """At a private table the player's seed is the round's client seed, unmixed."""
    headers = sign_up(client)
    table_id = practice_table(client, headers, "high-card-flush")
    view = play_round(client, headers, table_id, {"wagers": {"ante": 10},
                                                  "client_seed": ALICE_SEED})
    assert view["client_seed"] == ALICE_SEED and "client_seeds" not in view
    assert verify_round(view)["verified"]
    state = replayed_hand(view, ALICE_SEED)
    assert view["cards"]["player"] == format_cards(state.seats[1].cards)
