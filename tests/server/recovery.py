"""Drive a real server through crashes: every request carries an Idempotency-Key and is
retried until it answers; whenever the server is found dead it is restarted (with the
next crash planned), after the books are checked on the quiet database."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
from sqlalchemy import create_engine, text

from feltlab.server.services.database import make_engine
from feltlab.server.services.round_store import read_round
from feltlab.server.verify import verify_round
from server.helpers import assert_books_balance, card_tokens
from server.live_server import LiveServer

BETS: dict[str, dict[str, Any]] = {
    "high-card-flush": {"wagers": {"ante": 10, "flush": 5}},
    "high-card-flush-toledo": {"wagers": {"ante": 10, "straight_flush": 5}},
    "nh-flush-poker": {"wagers": {"ante": 5, "flush": 2, "straight_flush": 2}},
    "nine-card-flush": {"wagers": {"all9": 10, "first3": 1}, "colour": "black"},
    "nh-holdem-stud": {"wagers": {"ante": 5, "bonus3": 2}},
}


def reconcile(url: str) -> int:
    """Every practice balance equals 1,000 plus the totals of its complete rounds minus
    the stakes of its open ones; the ledger sums to zero; every open round replays from
    its log to the phase recorded. Returns the number of open rounds."""
    assert_books_balance(url)
    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.connect() as connection:
        rows = connection.execute(text(
            "SELECT u.username, w.balance, COALESCE((SELECT SUM(CASE WHEN rs.total IS NULL "
            "THEN -rs.staked ELSE rs.total END) FROM round_seats rs WHERE rs.user_id = u.id),"
            " 0) FROM users u JOIN wallets w ON w.user_id = u.id AND w.currency = 'practice'"
        )).all()
        open_ids = [row[0] for row in connection.execute(text(
            "SELECT id FROM rounds WHERE phase <> 'complete'"))]
    engine.dispose()
    for name, balance, net in rows:
        assert balance == 1000 + net, (name, balance, net)
    app_engine = make_engine(url)
    with app_engine.connect() as connection:
        for round_id in open_ids:
            _, loaded = read_round(connection, round_id)
            assert loaded.state.phase.value == loaded.record.phase
    app_engine.dispose()
    return len(open_ids)


class CrashingServer:
    """A server restarted after each death with the next crash of ``plan`` (then none)."""

    def __init__(self, server: LiveServer, plan: list[dict[str, int]]) -> None:
        self.server, self.plan = server, list(plan)
        self.lock = threading.Lock()
        self.restarts = 0
        self.open_rounds_seen: list[int] = []

    def start(self) -> None:
        self.server.start(**(self.plan.pop(0) if self.plan else {}))

    def recover(self) -> None:
        with self.lock:
            if self.server.alive():
                try:
                    self.server.wait_healthy(timeout=5)
                    return
                except (TimeoutError, RuntimeError):
                    self.server.kill()
            assert self.server.process is not None
            self.server.process.wait(timeout=60)
            self.open_rounds_seen.append(reconcile(self.server.database_url))
            self.restarts += 1
            self.start()

    def call(self, method: str, path: str, headers: dict[str, str] | None = None,
             body: Any = None, key: str | None = None) -> httpx.Response:
        sent = dict(headers or {})
        if key:
            sent["Idempotency-Key"] = key
        for _ in range(200):
            try:
                answer = httpx.request(method, self.server.base + path, headers=sent,
                                       json=body, timeout=60)
            except httpx.TransportError:
                self.recover()
                continue
            if answer.status_code == 503:
                time.sleep(0.2)
                continue
            return answer
        raise AssertionError(f"{method} {path} never answered")


_names = itertools.count(1)


def sign_in(crashing: CrashingServer, prefix: str) -> dict[str, str]:
    name = f"{prefix}{next(_names)}"
    credentials = {"username": name, "password": "crash-staple-horse"}
    created = crashing.call("POST", "/api/v1/accounts", body=credentials)
    assert created.status_code in (201, 409), created.text
    token = crashing.call("POST", "/api/v1/login", body=credentials)
    assert token.status_code == 200, token.text
    return {"Authorization": f"Bearer {token.json()['token']}"}


def play_through(crashing: CrashingServer, headers: dict[str, str], rules: str, tag: str,
                 choose: Callable[[list[dict[str, Any]]], dict[str, Any]] = lambda o: o[-1]
                 ) -> dict[str, Any]:
    """A table and one round on it, finished whatever crashes happen on the way; every
    card seen before the end is one the finished round shows."""
    table = crashing.call("POST", "/api/v1/tables", headers, {"rules": rules})
    assert table.status_code == 201, table.text
    answer = crashing.call("POST", f"/api/v1/tables/{table.json()['id']}/rounds", headers,
                           BETS[rules], key=f"{tag}-bet")
    assert answer.status_code == 201, answer.text
    view, seen = answer.json(), set()
    step = 0
    while view["phase"] != "complete":
        seen |= card_tokens(view["cards"])
        step += 1
        answer = crashing.call("POST", f"/api/v1/rounds/{view['id']}/actions", headers,
                               choose(view["options"]), key=f"{tag}-act{step}")
        assert answer.status_code == 200, answer.text
        view = answer.json()
    assert seen <= card_tokens(view["cards"])
    assert verify_round(view)["verified"]
    return view
