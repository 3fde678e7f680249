"""A refused stake leaves no trace in the ledger, and the rounds after it are in the
ledger in full (once, a refused first bet at a table created its house wallet inside the
request's transaction, the worker kept that wallet's id after the rollback, and every
later stake on that shard moved only the player's wallet)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from feltlab.server.services.ledger_check import check_ledger
from server.conftest import sign_up
from server.helpers import assert_books_balance
from server.test_reports import admin_headers

RULES = "high-card-flush"


def _engine(url: str) -> Any:
    return create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))


def _user(client: TestClient, headers: dict[str, str]) -> tuple[int, str]:
    name = str(client.get("/api/v1/me", headers=headers).json()["username"])
    found = client.app.state.services  # type: ignore[attr-defined]
    with found.engine.connect() as connection:
        user_id = connection.execute(text("SELECT id FROM users WHERE username = :name"),
                                     {"name": name}).scalar_one()
    return int(user_id), name


def _credit(client: TestClient, admin: dict[str, str], username: str, amount: int) -> None:
    answer = client.post("/api/v1/admin/cash", headers=admin,
                         json={"username": username, "amount": amount, "memo": "test"})
    assert answer.status_code == 200, answer.text


def _bet(client: TestClient, headers: dict[str, str], table: int, ante: int) -> Any:
    return client.post(f"/api/v1/tables/{table}/rounds", headers=headers,
                       json={"wagers": {"ante": ante}})


def _play_one(client: TestClient, headers: dict[str, str], table: int) -> int:
    """A settled round: an ante of 5, then a fold if the player has a decision."""
    answer = _bet(client, headers, table, 5)
    assert answer.status_code == 201, answer.text
    view = answer.json()
    if view["phase"] != "complete":
        answer = client.post(f"/api/v1/rounds/{view['id']}/actions", headers=headers,
                             json={"action": "fold"})
        assert answer.status_code == 200, answer.text
        view = answer.json()
    assert view["phase"] == "complete"
    round_id: int = view["id"]
    return round_id


def _too_little_cash(client: TestClient, url: str, admin: dict[str, str],
                     headers: dict[str, str], table: int) -> Callable[[], None]:
    answer = _bet(client, headers, table, 10)
    assert answer.status_code == 409, answer.text
    assert "balance" in answer.json()["detail"]
    return lambda: _credit(client, admin, _user(client, headers)[1], 100)


def _loss_limit(client: TestClient, url: str, admin: dict[str, str],
                headers: dict[str, str], table: int) -> Callable[[], None]:
    _credit(client, admin, _user(client, headers)[1], 100)
    assert client.put("/api/v1/me/limits", json={"daily_loss_limit": 9},
                      headers=headers).status_code == 200
    answer = _bet(client, headers, table, 10)
    assert answer.status_code == 409, answer.text
    assert "limit" in answer.json()["detail"]
    return lambda: None  # the next round stakes 5, within the limit


def _self_excluded(client: TestClient, url: str, admin: dict[str, str],
                   headers: dict[str, str], table: int) -> Callable[[], None]:
    user_id, name = _user(client, headers)
    _credit(client, admin, name, 100)
    assert client.put("/api/v1/me/limits", json={"self_exclude_days": 1},
                      headers=headers).status_code == 200
    answer = _bet(client, headers, table, 10)
    assert answer.status_code == 403, answer.text

    def lift() -> None:  # the day has passed
        engine = _engine(url)
        with engine.begin() as connection:
            connection.execute(text("UPDATE users SET excluded_until = NULL WHERE id = :id"),
                               {"id": user_id})
        engine.dispose()
    return lift


def _locked(client: TestClient, url: str, admin: dict[str, str],
            headers: dict[str, str], table: int) -> Callable[[], None]:
    user_id, name = _user(client, headers)
    _credit(client, admin, name, 100)
    assert client.post(f"/api/v1/admin/players/{user_id}/lock", headers=admin,
                       json={"reason": "a test"}).status_code == 200
    answer = _bet(client, headers, table, 10)
    assert answer.status_code == 403, answer.text

    def unlock() -> None:
        assert client.post(f"/api/v1/admin/players/{user_id}/unlock", headers=admin,
                           json={"reason": "a test"}).status_code == 200
    return unlock


REFUSALS = {"too little cash": _too_little_cash, "loss limit": _loss_limit,
            "self-exclusion": _self_excluded, "barred (locked)": _locked}


@pytest.mark.parametrize("refusal", sorted(REFUSALS))
def test_a_refused_stake_then_settled_rounds_are_in_the_ledger(
        client: TestClient, database_url: str, refusal: str) -> None:
    """The refused bet is the first at its table (its house shard never used before);
    then another player signs up, the player settles a round, and the other settles one
    at a table on the same shard: every wallet, transaction and round is in line."""
    admin = admin_headers(client)
    headers = sign_up(client)
    table = client.post("/api/v1/tables", json={"rules": RULES, "practice": False},
                        headers=headers).json()["id"]
    remedy = REFUSALS[refusal](client, database_url, admin, headers, table)
    other = sign_up(client)  # new wallets, which may take an id the refusal let go of
    _credit(client, admin, _user(client, other)[1], 100)
    remedy()
    round_id = _play_one(client, headers, table)

    same_shard = None
    for _ in range(300):  # tables until one lands on the refused table's house shard
        opened = client.post("/api/v1/tables", json={"rules": RULES, "practice": False},
                             headers=other).json()["id"]
        if (opened - table) % 256 == 0:
            same_shard = opened
            break
    assert same_shard is not None
    _play_one(client, other, same_shard)

    assert_books_balance(database_url)
    engine = _engine(database_url)
    report = check_ledger(engine)
    with engine.connect() as connection:
        moved = connection.execute(text(
            "SELECT COUNT(*) FROM ledger_transactions WHERE round_id = :id"),
            {"id": round_id}).scalar_one()
    engine.dispose()
    assert report.sound, report.problems
    assert moved >= 1  # the stake at least


def test_a_refused_bet_on_a_closed_table_moves_nothing(client: TestClient,
                                                       database_url: str) -> None:
    admin = admin_headers(client)
    table = client.post("/api/v1/admin/tables", headers=admin, json={
        "rules": RULES, "currency": "cash"}).json()
    assert "id" in table, table
    assert client.post(f"/api/v1/admin/tables/{table['id']}/close",
                       headers=admin).status_code == 200
    player = sign_up(client)
    _credit(client, admin, _user(client, player)[1], 100)
    client.post(f"/api/v1/tables/{table['id']}/seats", headers=player, json={"seat": 1})
    answer = _bet(client, player, table["id"], 10)
    assert answer.status_code in (404, 409), answer.text
    engine = _engine(database_url)
    report = check_ledger(engine)
    engine.dispose()
    assert report.sound, report.problems
