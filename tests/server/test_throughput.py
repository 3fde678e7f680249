"""The server's shared-table speed-ups keep every guarantee: one SQLite writer at a time
across workers, prompt live updates between workers (seat leaves and table closes too),
bets refused by a read exactly as by a write, the house split by table, /metrics totalled
over workers, Secure cookies over HTTPS and practice resets in the audit log."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from feltlab.server import notify
from feltlab.server.api import live_ws
from feltlab.server.app import create_app
from feltlab.server.live import Hub
from feltlab.server.services import ledger
from feltlab.server.services.database import WriterLock
from server.conftest import practice_table, settings_for, sign_up
from server.helpers import assert_books_balance
from server.live_server import LiveServer
from server.test_shared import bet, make_admin


def test_writer_lock_admits_one_writer_at_a_time(tmp_path: Path) -> None:
    """Two locks on one database file (as two workers hold) never overlap."""
    database = tmp_path / "server.sqlite3"
    first, second = WriterLock(database), WriterLock(database)
    inside: list[int] = []
    overlaps: list[int] = []

    def write(lock: WriterLock, who: int) -> None:
        for _ in range(50):
            with lock:
                inside.append(who)
                if len(inside) > 1:
                    overlaps.append(who)
                time.sleep(0.0005)
                inside.remove(who)

    threads = [threading.Thread(target=write, args=(lock, who))
               for who, lock in enumerate((first, second, first))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert overlaps == []
    assert first.path == database.with_name("server.sqlite3-writer.lock")


def two_workers(url: str) -> tuple[TestClient, TestClient]:
    first, second = (create_app(settings_for(url), timers=False) for _ in range(2))
    return TestClient(first), TestClient(second)


def next_update(live: Any, started: float, seconds: float) -> dict[str, Any]:
    """The watcher's next update, come within ``seconds`` (a bound far over the
    milliseconds it takes, under the 30 s of the slowed safety nets)."""
    update: dict[str, Any] = live.receive_json()
    assert time.monotonic() - started < seconds
    return update


def test_seat_leave_and_close_reach_another_worker_at_once(
        sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the safety nets slowed to 30 s, only the workers' own announcements can bring
    a seat leave and a table close to a watcher on the other worker, and they do."""
    monkeypatch.setattr(live_ws, "POLL_SECONDS", 30.0)
    monkeypatch.setattr(notify, "WATCH_SECONDS", 30.0)
    watcher_side, player_side = two_workers(sqlite_url)
    with watcher_side, player_side:
        admin = make_admin(player_side)
        table_id = player_side.post("/api/v1/admin/tables", json={"rules": "high-card-flush"},
                                    headers=admin).json()["id"]
        player = sign_up(player_side)
        player_side.post(f"/api/v1/tables/{table_id}/seats", json={"seat": 3}, headers=player)
        with watcher_side.websocket_connect(f"/api/v1/tables/{table_id}/live",
                                            headers=sign_up(watcher_side)) as live:
            assert [seat["seat"] for seat in live.receive_json()["seated"]] == [3]
            started = time.monotonic()
            player_side.delete(f"/api/v1/tables/{table_id}/seats", headers=player)
            assert next_update(live, started, 5)["seated"] == []
            started = time.monotonic()
            player_side.post(f"/api/v1/admin/tables/{table_id}/close", headers=admin)
            assert next_update(live, started, 5)["status"] == "closed"


def test_bet_after_the_deal_is_refused_without_change_and_a_retry_replays(
        client: TestClient, database_url: str) -> None:
    admin = make_admin(client)
    table_id = client.post("/api/v1/admin/tables", json={
        "rules": "high-card-flush", "betting_seconds": 30, "decision_seconds": 30},
        headers=admin).json()["id"]
    first, second, late = (sign_up(client) for _ in range(3))
    for seat, headers in enumerate((first, second), start=1):
        client.post(f"/api/v1/tables/{table_id}/seats", json={"seat": seat}, headers=headers)
    placed = client.post(f"/api/v1/tables/{table_id}/rounds", json={"wagers": {"ante": 5}},
                         headers={**first, "Idempotency-Key": "bet-1"})
    assert placed.status_code == 201
    assert bet(client, table_id, second, 5).json()["phase"] == "decisions"  # all in: dealt
    client.post(f"/api/v1/tables/{table_id}/seats", json={"seat": 3}, headers=late)
    refused = bet(client, table_id, late, 5)
    assert refused.status_code == 409
    assert refused.json()["detail"] == f"betting is closed: round {placed.json()['id']} is " \
                                       "being played"
    assert client.get("/api/v1/me", headers=late).json()["balances"]["practice"] == 1000
    again = client.post(f"/api/v1/tables/{table_id}/rounds", json={"wagers": {"ante": 5}},
                        headers={**first, "Idempotency-Key": "bet-1"})
    assert again.status_code == 201 and again.headers["Idempotent-Replay"] == "true"
    assert again.json() == placed.json()
    assert_books_balance(database_url)


def test_house_side_is_split_by_table(client: TestClient, database_url: str) -> None:
    headers = sign_up(client)
    tables = [practice_table(client, headers, "high-card-flush") for _ in range(2)]
    for table_id in tables:
        dealt = client.post(f"/api/v1/tables/{table_id}/rounds",
                            json={"wagers": {"ante": 10}}, headers=headers).json()
        client.post(f"/api/v1/rounds/{dealt['id']}/actions", json={"action": "fold"},
                    headers=headers)
    engine = create_engine(database_url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.connect() as connection:
        staked_to = {row[0] for row in connection.execute(text(
            "SELECT w.name FROM ledger_entries e JOIN wallets w ON w.id = e.wallet_id "
            "JOIN ledger_transactions t ON t.id = e.transaction_id "
            "WHERE t.kind = 'stake' AND w.house"))}
    engine.dispose()
    assert staked_to == {ledger.house_name("practice", ledger.house_shard(table_id))
                         for table_id in tables}
    assert len(staked_to) == 2  # consecutive tables: different house wallets
    assert_books_balance(database_url)


def metric(text_: str, name: str) -> int:
    return sum(int(float(line.rsplit(" ", 1)[1])) for line in text_.splitlines()
               if line.startswith(name))


def test_metrics_are_totals_over_workers(sqlite_url: str) -> None:
    first, second = two_workers(sqlite_url)
    with first, second:
        for worker in (first, second):
            headers = sign_up(worker)
            table_id = practice_table(worker, headers, "high-card-flush")
            dealt = worker.post(f"/api/v1/tables/{table_id}/rounds",
                                json={"wagers": {"ante": 10}}, headers=headers).json()
            worker.post(f"/api/v1/rounds/{dealt['id']}/actions", json={"action": "fold"},
                        headers=headers)
        second.app.state.services.metrics.save()  # type: ignore[attr-defined]
        shown = first.get("/metrics").text
    assert metric(shown, 'feltlab_rounds_total{rules="high-card-flush"}') == 2
    assert metric(shown, 'feltlab_wagered_units_total{rules="high-card-flush"}') == 20
    assert metric(shown, 'feltlab_requests_total{method="POST",route="/api/v1/login"') == 2
    assert "every worker of this server" in shown


def test_session_cookie_is_secure_over_https(client: TestClient) -> None:
    sign_up(client, "cookie-plain")
    plain = client.post("/api/v1/login", json={"username": "cookie-plain",
                                               "password": "correct horse"})
    assert "secure" not in plain.headers["set-cookie"].lower()
    secure = client.post("https://testserver/api/v1/login", json={
        "username": "cookie-plain", "password": "correct horse"})
    cookies = secure.headers.get_list("set-cookie")
    assert len(cookies) == 2 and all("; secure" in cookie.lower() for cookie in cookies)


def test_practice_reset_is_audited(client: TestClient) -> None:
    headers = sign_up(client, "resetter")
    table_id = practice_table(client, headers, "high-card-flush")
    dealt = client.post(f"/api/v1/tables/{table_id}/rounds", json={"wagers": {"ante": 10}},
                        headers=headers).json()
    client.post(f"/api/v1/rounds/{dealt['id']}/actions", json={"action": "fold"},
                headers=headers)
    assert client.post("/api/v1/me/practice/reset", headers=headers).status_code == 200
    audit = client.get("/api/v1/admin/audit", headers=make_admin(client)).json()
    resets = [line for line in audit["latest"] if line["kind"] == "practice_reset"]
    assert audit["intact"] and len(resets) == 1
    assert resets[0]["actor"] == "resetter"
    assert resets[0]["detail"] == {"balance_before": 990, "balance_after": 1000}


def secure_cookies(server: LiveServer, name: str) -> list[bool]:
    """Sign up and in through ``server`` as a proxy would, claiming HTTPS; which cookies
    came back Secure."""
    account = {"username": name, "password": "correct horse"}
    server.start()
    try:
        assert httpx.post(server.base + "/api/v1/accounts", json=account).status_code == 201
        plain = httpx.post(server.base + "/api/v1/login", json=account)
        assert all("secure" not in cookie.lower()
                   for cookie in plain.headers.get_list("set-cookie"))
        proxied = httpx.post(server.base + "/api/v1/login", json=account,
                             headers={"X-Forwarded-Proto": "https"})
        assert proxied.status_code == 200
        return ["secure" in cookie.lower() for cookie in proxied.headers.get_list("set-cookie")]
    finally:
        server.stop()


def test_cookie_is_secure_behind_a_trusted_https_proxy(sqlite_url: str, tmp_path: Path) -> None:
    """A real ``feltlab serve``: a reverse proxy on this host (trusted by default) that says
    X-Forwarded-Proto: https gets Secure cookies; with ``--forwarded-allow-ips`` naming
    another host, this one's claim is not believed."""
    trusting = LiveServer(sqlite_url, tmp_path / "server.log")
    assert secure_cookies(trusting, "proxied") == [True, True]
    elsewhere = LiveServer(sqlite_url, tmp_path / "server.log",
                           options=("--forwarded-allow-ips", "10.9.9.9"))
    assert secure_cookies(elsewhere, "unproxied") == [False, False]


def test_a_fresh_state_is_kept_only_if_nothing_was_announced_meanwhile() -> None:
    """The state a change built is installed for the table's next stamp only if the stamp
    is still what the change saw while it held the table: after any other announcement
    (a later change, or one from another worker) the watchers read the table again."""
    hub = Hub()
    installed: list[int] = []
    seen = hub.stamp(7)
    hub.publish(7, seen, installed.append)
    assert installed == [1] and hub.stamp(7) == 1
    stale = hub.stamp(7)
    hub.publish(7)  # another change was announced after this one held the table
    hub.publish(7, stale, installed.append)
    assert installed == [1] and hub.stamp(7) == 3
    hub.publish(8, None, installed.append)  # no stamp seen: never installed
    assert installed == [1]


def test_own_change_reaches_this_workers_watchers_without_a_read(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bet and a decision made through this worker are shown to its watchers from the
    state their own transaction built: no table read, and exactly what a read gives."""
    admin = make_admin(client)
    table_id = client.post("/api/v1/admin/tables", json={
        "rules": "high-card-flush", "betting_seconds": 30, "decision_seconds": 30},
        headers=admin).json()["id"]
    alice, bob = sign_up(client), sign_up(client)
    for seat, headers in enumerate((alice, bob), start=1):
        client.post(f"/api/v1/tables/{table_id}/seats", json={"seat": seat}, headers=headers)
    reads: list[int] = []
    build = live_ws._build_state
    monkeypatch.setattr(live_ws, "_build_state", lambda found, table, stamp: (
        reads.append(table), build(found, table, stamp))[1])
    with client.websocket_connect(f"/api/v1/tables/{table_id}/live", headers=bob) as live:
        assert live.receive_json()["round"] is None
        reads.clear()
        bet(client, table_id, alice)
        assert live.receive_json()["round"]["wagers"] == {}  # bob's view: alice bet
        bet(client, table_id, bob, 10)
        dealt = live.receive_json()
        assert dealt["round"]["phase"] == "decisions" and reads == []
        assert dealt == client.get(f"/api/v1/tables/{table_id}", headers=bob).json()
