"""Accounts and logins: tokens, cookies with CSRF, expiry, logout, throttling, roles."""

from __future__ import annotations

from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from feltlab.server.app import create_app
from feltlab.server.auth import AuthSettings
from feltlab.server.clock import now
from feltlab.server.models import AuthToken
from server.conftest import (
    FAST_HASHING,
    balances,
    practice_table,
    settings_for,
    sign_up,
    unique_name,
)

PASSWORD = "tulip-staple-93"


def test_register_login_me(client: TestClient) -> None:
    name = unique_name()
    created = client.post("/api/v1/accounts", json={"username": name, "password": PASSWORD})
    assert created.status_code == 201
    assert created.json()["balances"] == {"practice": 1000, "cash": 0}
    again = client.post("/api/v1/accounts", json={"username": name, "password": PASSWORD})
    assert again.status_code == 409 and "taken" in again.json()["detail"]
    token = client.post("/api/v1/login", json={"username": name, "password": PASSWORD}
                        ).json()["token"]
    me = client.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"}).json()
    assert me["username"] == name and me["balances"] == {"practice": 1000, "cash": 0}


def test_tokens_are_unpredictable_and_stored_hashed(client: TestClient) -> None:
    name = unique_name()
    client.post("/api/v1/accounts", json={"username": name, "password": PASSWORD})
    tokens = {client.post("/api/v1/login", json={"username": name, "password": PASSWORD}
                          ).json()["token"] for _ in range(5)}
    assert len(tokens) == 5 and all(len(token) >= 40 for token in tokens)
    services = client.app.state.services  # type: ignore[attr-defined]
    with services.transaction() as session:
        stored = {row.token_hash for row in session.query(AuthToken)}
    assert not tokens & stored


def test_logout_revokes(client: TestClient) -> None:
    headers = sign_up(client)
    assert client.post("/api/v1/logout", headers=headers).status_code == 200
    refused = client.get("/api/v1/me", headers=headers)
    assert refused.status_code == 401 and "revoked" in refused.json()["detail"]


def test_idle_token_expires(client: TestClient) -> None:
    headers = sign_up(client)
    services = client.app.state.services  # type: ignore[attr-defined]
    with services.transaction() as session:
        session.execute(update(AuthToken).values(last_used_at=now() - timedelta(minutes=31)))
    refused = client.get("/api/v1/me", headers=headers)
    assert refused.status_code == 401 and "expired" in refused.json()["detail"]


def token_last_used(client: TestClient) -> list[object]:
    services = client.app.state.services  # type: ignore[attr-defined]
    with services.transaction() as session:
        return [row.last_used_at for row in session.query(AuthToken)]


def test_refused_money_request_still_restarts_idle_time(client: TestClient) -> None:
    """A bet refused (rolled back) is still a use of the token: its idle time restarts."""
    headers = sign_up(client)
    table_id = practice_table(client, headers, "high-card-flush")
    services = client.app.state.services  # type: ignore[attr-defined]
    with services.transaction() as session:
        session.execute(update(AuthToken).values(last_used_at=now() - timedelta(minutes=20)))
    before = token_last_used(client)
    refused = client.post(f"/api/v1/tables/{table_id}/rounds",
                          json={"wagers": {"ante": 5000}}, headers=headers)
    assert refused.status_code == 422 and "ante" in refused.json()["detail"]
    after = token_last_used(client)
    assert after != before
    assert balances(client, headers) == {"practice": 1000, "cash": 0}
    with services.transaction() as session:
        session.execute(update(AuthToken).values(last_used_at=now() - timedelta(minutes=29)))
    assert client.get("/api/v1/me", headers=headers).status_code == 200


def test_failed_logins_are_throttled(client: TestClient) -> None:
    name = unique_name()
    client.post("/api/v1/accounts", json={"username": name, "password": PASSWORD})
    for _ in range(5):
        wrong = client.post("/api/v1/login", json={"username": name, "password": "wrong-guess"})
        assert wrong.status_code == 401
    blocked = client.post("/api/v1/login", json={"username": name, "password": PASSWORD})
    assert blocked.status_code == 429 and "too many" in blocked.json()["detail"]


@pytest.mark.parametrize(("password", "why"), [
    ("12345678", "too weak"), ("password1234", "too weak"), ("qwertyuiop", "too weak"),
    ("Password1!", "too weak"), ("okapi-strong-name", "must not be the username"),
])
def test_weak_passwords_refused_with_the_reason(client: TestClient, password: str,
                                                why: str) -> None:
    answer = client.post("/api/v1/accounts",
                         json={"username": "okapi-strong-name", "password": password})
    assert answer.status_code == 422 and why in answer.json()["detail"], answer.text
    assert client.post("/api/v1/login", json={"username": "okapi-strong-name",
                                              "password": password}).status_code == 401


def test_cookie_needs_csrf_for_changes(client: TestClient) -> None:
    name = unique_name()
    client.post("/api/v1/accounts", json={"username": name, "password": PASSWORD})
    login = client.post("/api/v1/login", json={"username": name, "password": PASSWORD})
    cookie = login.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
    assert client.get("/api/v1/me").status_code == 200  # the cookie alone reads
    no_csrf = client.post("/api/v1/tables", json={"rules": "high-card-flush"})
    assert no_csrf.status_code == 403 and "CSRF" in no_csrf.json()["detail"]
    with_csrf = client.post("/api/v1/tables", json={"rules": "high-card-flush"},
                            headers={"X-CSRF-Token": login.json()["csrf"]})
    assert with_csrf.status_code == 201


@pytest.mark.parametrize("body", [
    {"username": "ab", "password": PASSWORD},
    {"username": "x" * 40, "password": PASSWORD},
    {"username": "bob'; DROP TABLE users;--", "password": PASSWORD},
    {"username": "<script>alert(1)</script>", "password": PASSWORD},
    {"username": "okname", "password": "short"},
    {"username": "okname", "password": 12345678},
    {"username": "okname", "password": PASSWORD, "role": "admin"},
    {"username": ["a"], "password": PASSWORD},
])
def test_bad_registrations_refused(client: TestClient, body: object) -> None:
    answer = client.post("/api/v1/accounts", json=body)
    assert 400 <= answer.status_code < 500
    assert set(answer.json()) == {"detail"} and isinstance(answer.json()["detail"], str)


def test_no_unauthenticated_money_route(client: TestClient) -> None:
    """Every /api/v1 route that changes anything, bar registration, login and the
    framed page's trade of its one-time launch code (which is its credential), needs a
    signed-in caller (or an operator's signature)."""
    open_routes = {("POST", "/api/v1/accounts"), ("POST", "/api/v1/login"),
                   ("GET", "/api/v1/rules"), ("GET", "/api/v1/rules/{rules_id}"),
                   ("POST", "/api/v1/operator/launch")}
    for path, methods in client.get("/openapi.json").json()["paths"].items():
        for method in methods:
            if (method.upper(), path) in open_routes or not path.startswith("/api/v1"):
                continue
            concrete = path.replace("{table_id}", "1").replace("{round_id}", "1")
            answer = client.request(method.upper(), concrete, json={})
            assert answer.status_code == 401, (method, path, answer.status_code)


def test_admin_only_routes(client: TestClient) -> None:
    headers = sign_up(client)
    answer = client.post("/api/v1/admin/cash", json={"username": "x", "amount": 5},
                         headers=headers)
    assert answer.status_code == 403
    assert client.get("/api/v1/admin/audit", headers=headers).status_code == 403


def test_admin_created_by_cli_adjusts_cash(sqlite_url: str) -> None:
    from server.cli_helpers import run_cli

    code, _, err = run_cli(["admin", "create", "boss", "--database", sqlite_url,
                              "--password-stdin"], "boss-staple-horse\n")
    assert code == 0, err
    app = create_app(settings_for(sqlite_url, AuthSettings()), timers=False)
    with TestClient(app) as client:
        player = unique_name()
        sign_up(client, player)
        token = client.post("/api/v1/login", json={"username": "boss",
                                                   "password": "boss-staple-horse"}).json()["token"]
        admin = {"Authorization": f"Bearer {token}"}
        credit = client.post("/api/v1/admin/cash", json={"username": player, "amount": 500},
                             headers=admin)
        assert credit.json() == {"username": player, "cash": 500}
        overdraw = client.post("/api/v1/admin/cash", json={"username": player, "amount": -501},
                               headers=admin)
        assert overdraw.status_code == 409
        audit = client.get("/api/v1/admin/audit", headers=admin).json()
        assert audit["intact"] and any(line["kind"] == "cash_adjusted" for line in audit["latest"])
    app.state.services.engine.dispose()
    _ = FAST_HASHING, balances, practice_table
