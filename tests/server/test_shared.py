"""Shared tables: seats, the betting window, decisions in dealing order with a timer kept
in the database, absent players folding, and live updates over WebSocket."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update

from feltlab.server import timers
from feltlab.server.app import create_app
from feltlab.server.clock import now
from feltlab.server.figure_models import SeatFigure
from feltlab.server.models import Round
from feltlab.server.services import accounts
from feltlab.server.services.context import Services
from server.conftest import balances, settings_for, sign_up, unique_name
from server.helpers import assert_books_balance, card_tokens


def make_admin(client: TestClient) -> dict[str, str]:
    services = client.app.state.services  # type: ignore[attr-defined]
    name = unique_name("admin")
    with services.transaction() as session:
        accounts.create_account(session, services.hasher, name, "admin-password", role="admin")
    token = client.post("/api/v1/login", json={"username": name, "password": "admin-password"}
                        ).json()["token"]
    client.cookies.clear()
    return {"Authorization": f"Bearer {token}"}


def expire_timers(client: TestClient) -> int:
    """Move every deadline into the past and run the timers as the ticker would."""
    services = client.app.state.services  # type: ignore[attr-defined]
    with services.transaction() as session:
        session.execute(update(Round).where(Round.deadline.is_not(None))
                        .values(deadline=now()))
    return timers.run_due(services)


@pytest.fixture
def table(client: TestClient) -> Iterator[tuple[int, list[dict[str, str]]]]:
    admin = make_admin(client)
    opened = client.post("/api/v1/admin/tables", json={
        "rules": "high-card-flush", "name": "Table <b>1</b>'; --", "betting_seconds": 30,
        "decision_seconds": 30}, headers=admin)
    assert opened.status_code == 201, opened.text
    table_id = opened.json()["id"]
    assert opened.json()["name"] == "Table <b>1</b>'; --"  # stored as text, harmlessly
    players = [sign_up(client) for _ in range(3)]
    for seat, headers in enumerate(players, start=1):
        assert client.post(f"/api/v1/tables/{table_id}/seats", json={"seat": seat},
                           headers=headers).status_code == 201
    yield table_id, players


def bet(client: TestClient, table_id: int, headers: dict[str, str], ante: int = 10) -> Any:
    return client.post(f"/api/v1/tables/{table_id}/rounds", json={"wagers": {"ante": ante}},
                       headers=headers)


def test_three_players_one_round(client: TestClient, database_url: str,
                                 table: tuple[int, list[dict[str, str]]]) -> None:
    table_id, (alice, bob, carol) = table
    first = bet(client, table_id, alice).json()
    assert first["phase"] == "wagers" and first["deadline"]
    assert bet(client, table_id, bob).json()["id"] == first["id"]
    view = bet(client, table_id, carol).json()  # everyone seated has bet: the deal
    round_id = view["id"]
    assert view["phase"] == "decisions" and view["to_act"] == 1
    mine = set(view["cards"]["player"].split())
    assert card_tokens(view) == mine  # nobody else's cards, no dealer's
    wrong_turn = client.post(f"/api/v1/rounds/{round_id}/actions", json={"action": "fold"},
                             headers=bob)
    assert wrong_turn.status_code == 409 and "not your turn" in wrong_turn.json()["detail"]
    for headers in (alice, bob, carol):
        answer = client.post(f"/api/v1/rounds/{round_id}/actions", json={"action": "fold"},
                             headers=headers)
        assert answer.status_code == 200, answer.text
    done = answer.json()
    assert done["phase"] == "complete" and len(done["others"]) == 2
    assert all(len(other["player"].split()) == 7 and other["total"] == -10 and other["username"]
               for other in done["others"])
    assert [balances(client, headers)["practice"] for headers in (alice, bob, carol)] == [990] * 3
    assert_books_balance(database_url)


def test_absent_player_folds_and_betting_closes(
        client: TestClient, table: tuple[int, list[dict[str, str]]]) -> None:
    table_id, (alice, bob, carol) = table
    round_id = bet(client, table_id, alice).json()["id"]
    bet(client, table_id, bob)
    assert expire_timers(client) == 1  # the betting window closes: the deal
    late = bet(client, table_id, carol)
    assert late.status_code == 409 and "betting is closed" in late.json()["detail"]
    assert client.get(f"/api/v1/rounds/{round_id}", headers=carol).status_code == 404
    assert expire_timers(client) == 1  # alice is absent: she folds
    view = client.get(f"/api/v1/rounds/{round_id}", headers=bob).json()
    assert view["to_act"] == 2 and view["options"]
    expire_timers(client)
    done = client.get(f"/api/v1/rounds/{round_id}", headers=alice).json()
    assert done["phase"] == "complete" and done["decisions"] == [0] and done["total"] == -10


def test_seat_refusals(client: TestClient, table: tuple[int, list[dict[str, str]]]) -> None:
    table_id, (alice, _, _) = table
    dave = sign_up(client)
    assert client.post(f"/api/v1/tables/{table_id}/seats", json={"seat": 1},
                       headers=dave).status_code == 409
    assert client.post(f"/api/v1/tables/{table_id}/seats", json={"seat": 9},
                       headers=dave).status_code == 422
    assert bet(client, table_id, dave).status_code == 409  # no seat, no bet
    assert client.post(f"/api/v1/tables/{table_id}/seats", json={"seat": 4},
                       headers=alice).status_code == 409


def test_timer_survives_restart(database_url: str) -> None:
    app = create_app(settings_for(database_url), timers=False)
    with TestClient(app) as client:
        admin = make_admin(client)
        table_id = client.post("/api/v1/admin/tables", json={"rules": "nh-holdem-stud"},
                               headers=admin).json()["id"]
        player = sign_up(client)
        client.post(f"/api/v1/tables/{table_id}/seats", json={"seat": 3}, headers=player)
        view = client.post(f"/api/v1/tables/{table_id}/rounds", json={"wagers": {"ante": 5}},
                           headers=player).json()
        assert view["phase"] == "decisions" and view["deadline"]
    app.state.services.engine.dispose()
    restarted = create_app(settings_for(database_url), timers=False)
    with TestClient(restarted) as client:
        assert expire_timers(client) == 1
        done = client.get(f"/api/v1/rounds/{view['id']}", headers=player).json()
        assert done["phase"] == "complete" and done["total"] == -5
    restarted.state.services.engine.dispose()


def test_websocket_same_visibility(client: TestClient,
                                   table: tuple[int, list[dict[str, str]]]) -> None:
    table_id, (alice, bob, carol) = table
    with client.websocket_connect(f"/api/v1/tables/{table_id}/live", headers=bob) as live:
        assert live.receive_json()["round"] is None
        bet(client, table_id, alice)
        bet(client, table_id, bob)
        bet(client, table_id, carol)
        messages = []
        while True:
            message = live.receive_json()
            messages.append(message)
            if message["round"] and message["round"]["phase"] == "decisions":
                break
        shown = client.get(f"/api/v1/tables/{table_id}", headers=bob).json()
        assert messages[-1] == shown
        mine = set(shown["round"]["cards"]["player"].split())
        assert all(card_tokens(message) <= mine for message in messages)


def test_websocket_refuses_strangers(client: TestClient) -> None:
    from starlette.websockets import WebSocketDisconnect

    headers = sign_up(client)
    table_id = client.post("/api/v1/tables", json={"rules": "high-card-flush"},
                           headers=headers).json()["id"]
    with pytest.raises(WebSocketDisconnect) as refused, client.websocket_connect(
            f"/api/v1/tables/{table_id}/live", headers=sign_up(client)) as live:
        live.receive_json()
    assert refused.value.code == 4404


def test_live_updates_cross_workers(database_url: str, monkeypatch: pytest.MonkeyPatch
                                    ) -> None:
    """Two apps on one database stand for two workers: a bet made through one reaches a
    WebSocket watcher on the other at once (NOTIFY on PostgreSQL, which the watcher's
    worker LISTENs to before its first view; datagrams on SQLite; not the slow safety-net
    re-read)."""
    import time

    from feltlab.server.api import live_ws

    monkeypatch.setattr(live_ws, "POLL_SECONDS", 15.0)
    first, second = (create_app(settings_for(database_url), timers=False) for _ in range(2))
    with TestClient(first) as watcher_side, TestClient(second) as player_side:
        admin = make_admin(player_side)
        table_id = player_side.post("/api/v1/admin/tables", json={"rules": "high-card-flush"},
                                    headers=admin).json()["id"]
        player = sign_up(player_side)
        player_side.post(f"/api/v1/tables/{table_id}/seats", json={"seat": 2}, headers=player)
        watcher = sign_up(watcher_side)
        with watcher_side.websocket_connect(f"/api/v1/tables/{table_id}/live",
                                            headers=watcher) as live:
            assert live.receive_json()["round"] is None  # sent once the change is heard
            started = time.monotonic()
            player_side.post(f"/api/v1/tables/{table_id}/rounds",
                             json={"wagers": {"ante": 3}}, headers=player)
            update = live.receive_json()
            # 8 s: over 10 times what it takes (0.1-0.6 s), under the safety net's 15 s
            assert time.monotonic() - started < 8
            assert update["round"]["phase"] == "decisions" and update["round"]["seat"] is None
            assert card_tokens(update) == set()  # a watcher without a seat sees no card
    for app in (first, second):
        app.state.services.engine.dispose()


def test_live_state_shows_each_tables_own_round(client: TestClient) -> None:
    """Two tables with rounds: each table's live state (what another worker reads after an
    announcement) holds its own current round, never another table's latest."""
    from feltlab.server.services.round_reads import live_state

    admin = make_admin(client)
    tables, players = [], []
    for _ in range(2):
        table_id = client.post("/api/v1/admin/tables", headers=admin, json={
            "rules": "high-card-flush", "betting_seconds": 30, "decision_seconds": 30}
        ).json()["id"]
        player = sign_up(client)
        client.post(f"/api/v1/tables/{table_id}/seats", json={"seat": 1}, headers=player)
        tables.append(table_id)
        players.append(player)
    for table_id, player in zip(tables, players, strict=True):  # a round played out
        done = bet(client, table_id, player).json()["id"]
        client.post(f"/api/v1/rounds/{done}/actions", json={"action": "fold"},
                    headers={**player, "Idempotency-Key": f"fold-{done}"})
    first = bet(client, tables[0], players[0]).json()["id"]
    second = bet(client, tables[1], players[1]).json()["id"]
    services = client.app.state.services  # type: ignore[attr-defined]
    for table_id, round_id, player in zip(tables, (first, second), players, strict=True):
        state = live_state(services, table_id, 0)
        assert state.loaded is not None and state.loaded.record.id == round_id
        shown = client.get(f"/api/v1/tables/{table_id}", headers=player).json()
        assert shown["round"]["id"] == round_id


def test_a_shared_rounds_figures_are_written_after_it_settles(
        client: TestClient, table: tuple[int, list[dict[str, str]]]) -> None:
    """A shared round settled by a decision, and one settled by the timers, is marked in
    its transaction and its seats' figures written once by the worker's recorder."""
    found: Services = client.app.state.services  # type: ignore[attr-defined]
    found.recorder.stop()  # no background writes: this test writes when it says
    table_id, players = table
    for by_timer in (False, True):
        round_id = 0
        for headers in players:
            round_id = bet(client, table_id, headers).json()["id"]
        if not by_timer:
            for headers in players:
                client.post(f"/api/v1/rounds/{round_id}/actions", json={"action": "fold"},
                            headers=headers)
        else:
            while expire_timers(client):  # every seat folded by the decision timer
                pass
    with found.engine.connect() as connection:
        marked = connection.execute(select(func.count()).select_from(Round).where(
            Round.figures_pending.is_(True))).scalar_one()
    assert marked == 2
    found.recorder.flush()
    with found.engine.connect() as connection:
        written = connection.execute(select(func.count()).select_from(SeatFigure)).scalar_one()
        marked = connection.execute(select(func.count()).select_from(Round).where(
            Round.figures_pending.is_(True))).scalar_one()
    assert written == 2 * len(players) and marked == 0
