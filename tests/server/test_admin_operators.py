"""The admin's operators and wallet calls through API v1, on SQLite and PostgreSQL: an
operator added, listed, disabled, enabled and its secret rotated (no answer ever carries
a secret, and every change is an audit line in the admin's name); a bad field is 422
naming it, an unknown id 404, an id taken 409; the outbox's calls listed newest first by
state, flag and operator, retried and resolved by hand (409 once no longer pending); and
none of it for a player."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select, update

from feltlab.server.clock import now
from feltlab.server.models import AuditRecord
from feltlab.server.operator_models import Operator, WalletTransaction
from feltlab.server.services.database import write_connection
from feltlab.server.services.outbox import queue_call
from server.conftest import sign_up
from server.test_outbox import new_round
from server.test_shared import make_admin

SECRET = "s" * 40
NEW_SECRET = "n" * 40
OPERATOR = {"id": "casino-a", "wallet_url": "https://wallet.casino.example/api",
            "currencies": {"EUR": 1, "JPY": 100}, "timeout_seconds": 2,
            "frame_origins": ["https://casino.example"], "secret": SECRET}


def engine_of(client: TestClient) -> Engine:
    found: Engine = client.app.state.services.engine  # type: ignore[attr-defined]
    return found


def audit_lines(client: TestClient) -> list[AuditRecord]:
    with engine_of(client).connect() as connection:
        return [AuditRecord(**row._mapping) for row in connection.execute(
            select(AuditRecord.__table__).order_by(AuditRecord.id))]


def admin_name(client: TestClient, headers: dict[str, str]) -> str:
    name: str = client.get("/api/v1/me", headers=headers).json()["username"]
    return name


def post(client: TestClient, path: str, headers: dict[str, str], body: Any = None) -> Any:
    return client.post(f"/api/v1/admin{path}", headers=headers,
                       json={} if body is None else body)


def test_an_operator_is_added_listed_disabled_enabled_and_rotated(client: TestClient
                                                                   ) -> None:
    admin = make_admin(client)
    boss = admin_name(client, admin)
    added = post(client, "/operators", admin, OPERATOR)
    assert added.status_code == 201, added.text
    view = added.json()
    assert view["currencies"] == {"EUR": 1, "JPY": 100} and view["timeout_seconds"] == 2.0
    assert not view["disabled"] and not view["rotating"]
    assert SECRET not in added.text and "secret" not in view
    assert post(client, "/operators", admin, OPERATOR).status_code == 409

    disabled = post(client, "/operators/casino-a/disable", admin)
    assert disabled.status_code == 200 and disabled.json()["disabled"] is True
    enabled = post(client, "/operators/casino-a/enable", admin)
    assert enabled.status_code == 200 and enabled.json()["disabled"] is False
    rotated = post(client, "/operators/casino-a/rotate", admin, {"secret": NEW_SECRET})
    assert rotated.status_code == 200 and rotated.json()["rotating"] is True
    assert NEW_SECRET not in rotated.text
    same = post(client, "/operators/casino-a/rotate", admin, {"secret": SECRET})
    assert same.status_code == 422 and same.json()["detail"].startswith("secret:")
    with engine_of(client).connect() as connection:
        secrets = connection.execute(select(Operator.secret, Operator.previous_secret)).one()
    assert tuple(secrets) == (NEW_SECRET, SECRET)

    listed = client.get("/api/v1/admin/operators", headers=admin)
    assert listed.status_code == 200 and [item["id"] for item in listed.json()] == ["casino-a"]
    assert SECRET not in listed.text and NEW_SECRET not in listed.text
    kinds = [(line.kind, line.actor) for line in audit_lines(client)
             if line.kind.startswith("operator_")]
    assert kinds == [("operator_added", boss), ("operator_disabled", boss),
                     ("operator_enabled", boss), ("operator_secret_rotated", boss)]
    assert all(SECRET not in line.detail and NEW_SECRET not in line.detail
               for line in audit_lines(client))


@pytest.mark.parametrize("change, field", [
    ({"wallet_url": "ftp://wallet.example"}, "wallet_url"),
    ({"wallet_url": "https://wallet.example/"}, "wallet_url"),
    ({"frame_origins": ["https://casino.example/path"]}, "frame_origins"),
    ({"currencies": {}}, "currencies"),
    ({"currencies": {"eur": 1}}, "currencies"),
    ({"timeout_seconds": 61}, "timeout_seconds"),
    ({"secret": "short"}, "secret"),
    ({"id": "Casino"}, "id"),
])
def test_a_bad_field_is_refused_naming_it(client: TestClient, change: dict[str, Any],
                                          field: str) -> None:
    admin = make_admin(client)
    answer = post(client, "/operators", admin, {**OPERATOR, **change})
    assert answer.status_code == 422, answer.text
    assert answer.json()["detail"].startswith(field), answer.text
    assert client.get("/api/v1/admin/operators", headers=admin).json() == []


def test_unknown_operators_and_calls_are_not_found(client: TestClient) -> None:
    admin = make_admin(client)
    for path, body in [("/operators/nobody/disable", None), ("/operators/nobody/enable", None),
                       ("/operators/nobody/rotate", {"secret": NEW_SECRET}),
                       ("/wallet-calls/fl-nothing/retry", None),
                       ("/wallet-calls/fl-nothing/resolve", {"note": "paid"})]:
        answer = post(client, path, admin, body)
        assert answer.status_code == 404, (path, answer.text)


def queue(engine: Engine, operator: str, kind: str, amount: int, flagged: bool = False,
          age: timedelta = timedelta()) -> str:
    """A call of ``operator`` in the outbox, ``age`` old, flagged if told."""
    round_id = new_round(engine)
    moment = now() - age
    with write_connection(engine) as connection:
        transaction_id = queue_call(connection, operator_id=operator, player="p-1",
                                    session="s1", currency="EUR", kind=kind, amount=amount,
                                    round_id=round_id, now=moment)
        if flagged:
            connection.execute(update(WalletTransaction.__table__).where(
                WalletTransaction.__table__.c.transaction_id == transaction_id).values(
                flagged=True, next_try_at=None, attempts=12, last_error="timed out"))
    return transaction_id


def test_wallet_calls_are_listed_retried_and_resolved(client: TestClient) -> None:
    admin = make_admin(client)
    boss = admin_name(client, admin)
    for operator in ("casino-a", "casino-b"):
        assert post(client, "/operators", admin, {**OPERATOR, "id": operator}).status_code == 201
    engine = engine_of(client)
    older = queue(engine, "casino-a", "win", 250, flagged=True, age=timedelta(hours=30))
    newer = queue(engine, "casino-a", "win", 40)
    other = queue(engine, "casino-b", "bet", 10)

    def listed(**params: Any) -> list[str]:
        answer = client.get("/api/v1/admin/wallet-calls", params=params, headers=admin)
        assert answer.status_code == 200, answer.text
        return [call["transaction_id"] for call in answer.json()]

    assert listed() == [other, newer, older]
    assert listed(state="pending", operator="casino-a") == [newer, older]
    assert listed(state="pending", flagged="true") == [older]
    assert listed(flagged="false", limit=1) == [other]
    assert listed(state="acknowledged") == []
    assert client.get("/api/v1/admin/wallet-calls", params={"limit": 501},
                      headers=admin).status_code == 422
    flagged = client.get("/api/v1/admin/wallet-calls", params={"flagged": "true"},
                         headers=admin).json()[0]
    assert flagged["amount"] == 250 and flagged["currency"] == "EUR"
    assert flagged["attempts"] == 12 and flagged["last_error"] == "timed out"
    assert flagged["next_try_at"] is None and flagged["age_seconds"] >= 30 * 3600

    retried = post(client, f"/wallet-calls/{older}/retry", admin)
    assert retried.status_code == 200, retried.text
    assert retried.json()["flagged"] is False and retried.json()["next_try_at"] is not None
    blank = post(client, f"/wallet-calls/{older}/resolve", admin, {"note": "  "})
    assert blank.status_code == 422
    assert blank.json()["detail"] == "note: must hold something besides spaces"
    resolved = post(client, f"/wallet-calls/{older}/resolve", admin,
                    {"note": "paid by bank transfer, ticket 77"})
    assert resolved.status_code == 200, resolved.text
    assert resolved.json()["state"] == "acknowledged"
    assert "ticket 77" in (resolved.json()["last_error"] or "")
    for action, body in (("retry", None), ("resolve", {"note": "again"})):
        again = post(client, f"/wallet-calls/{older}/{action}", admin, body)
        assert again.status_code == 409, again.text
    assert listed(state="pending") == [other, newer]
    lines = [(line.kind, line.actor) for line in audit_lines(client)
             if line.kind.startswith("wallet_call_")]
    assert lines == [("wallet_call_retry_now", boss), ("wallet_call_resolved_by_hand", boss)]


def test_players_may_not_use_the_operators_routes(client: TestClient) -> None:
    player = sign_up(client)
    assert client.get("/api/v1/admin/operators", headers=player).status_code == 403
    assert client.get("/api/v1/admin/wallet-calls", headers=player).status_code == 403
    assert client.get("/api/v1/admin/reports/operators", headers=player).status_code == 403
    assert post(client, "/operators", player, OPERATOR).status_code == 403
    assert post(client, "/wallet-calls/fl-x/retry", player).status_code == 403
