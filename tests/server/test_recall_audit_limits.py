"""Recall of the last rounds step by step, the hash-chained audit log, and responsible
gaming (daily loss limit, self-exclusion)."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from server.cli_helpers import run_cli
from server.conftest import balances, play_round, practice_table, sign_up, unique_name


def test_recall_step_by_step(client: TestClient) -> None:
    headers = sign_up(client)
    table = practice_table(client, headers, "nh-holdem-stud")
    done = play_round(client, headers, table, {"wagers": {"ante": 5, "bonus3": 2}})
    recall = client.get(f"/api/v1/rounds/{done['id']}/recall", headers=headers).json()
    steps = recall["steps"]
    assert [step["action"] for step in steps] == done["log"]
    assert steps[0]["balance"] == recall["balance_before"] - 5
    assert steps[-1]["balance"] == recall["balance_after"] == done["balance_after"]
    assert steps[-1]["total"] == done["total"]
    turned = [len(step["cards"].get("community", "").split()) for step in steps]
    assert turned == sorted(turned) and turned[-1] == 3
    latest = client.get("/api/v1/me/rounds?limit=1", headers=headers).json()
    assert [item["id"] for item in latest] == [done["id"]]


def test_me_rounds_newest_first(client: TestClient) -> None:
    headers = sign_up(client)
    table = practice_table(client, headers, "high-card-flush")
    ids = [play_round(client, headers, table, {"wagers": {"ante": 1}})["id"]
           for _ in range(12)]
    listed = client.get("/api/v1/me/rounds", headers=headers).json()
    assert [item["id"] for item in listed] == ids[::-1][:10]
    assert len(client.get("/api/v1/me/rounds?limit=100", headers=headers).json()) == 12


def test_self_exclusion_blocks_play(client: TestClient) -> None:
    headers = sign_up(client)
    table = practice_table(client, headers, "high-card-flush")
    answer = client.put("/api/v1/me/limits", json={"self_exclude_days": 7}, headers=headers)
    assert answer.json()["limits"]["excluded_until"]
    refused = client.post(f"/api/v1/tables/{table}/rounds", json={"wagers": {"ante": 5}},
                          headers=headers)
    assert refused.status_code == 403 and "self-excluded" in refused.json()["detail"]
    assert balances(client, headers)["practice"] == 1000


def test_daily_loss_limit_on_cash(client: TestClient, database_url: str) -> None:
    headers = sign_up(client)
    name = client.get("/api/v1/me", headers=headers).json()["username"]
    engine = create_engine(database_url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.begin() as connection:  # an admin's credit, made directly for the test
        connection.execute(text("UPDATE wallets SET balance = balance + 100 WHERE name = "
                                "(SELECT 'user:' || id || :suffix FROM users WHERE username = :n)"
                                ), {"n": name, "suffix": ":cash"})
        connection.execute(text("UPDATE wallets SET balance = balance - 100 "
                                "WHERE name = 'house:cash'"))
    engine.dispose()
    client.put("/api/v1/me/limits", json={"daily_loss_limit": 12}, headers=headers)
    table = client.post("/api/v1/tables", json={"rules": "high-card-flush", "practice": False},
                        headers=headers).json()["id"]
    fold = play_round(client, headers, table, {"wagers": {"ante": 10}},
                      choose=lambda options: options[0])
    assert fold["total"] == -10
    refused = client.post(f"/api/v1/tables/{table}/rounds", json={"wagers": {"ante": 5}},
                          headers=headers)
    assert refused.status_code == 409 and "daily loss limit" in refused.json()["detail"]
    assert client.post(f"/api/v1/tables/{table}/rounds", json={"wagers": {"ante": 2}},
                       headers=headers).status_code == 201


def test_audit_chain_and_cli(sqlite_url: str) -> None:
    from feltlab.server.app import create_app
    from server.conftest import settings_for

    app = create_app(settings_for(sqlite_url), timers=False)
    with TestClient(app) as client:
        name = unique_name()
        headers = sign_up(client, name)
        client.post("/api/v1/login", json={"username": name, "password": "wrong-one"})
        client.put("/api/v1/me/limits", json={"daily_loss_limit": 50}, headers=headers)
    app.state.services.engine.dispose()
    code, out, err = run_cli(["audit", "verify", "--database", sqlite_url])
    assert code == 0 and "intact: 4 lines" in out, (out, err)
    engine = create_engine(sqlite_url)
    with engine.begin() as connection:
        kinds = [row[0] for row in connection.execute(text("SELECT kind FROM audit_log"))]
        assert kinds == ["account_created", "login", "login_failed", "limits_changed"]
        connection.execute(text("UPDATE audit_log SET detail = '{\"daily_loss_limit\": 5000}' "
                                "WHERE kind = 'limits_changed'"))
    code, out, err = run_cli(["audit", "verify", "--database", sqlite_url])
    assert code == 1 and "BROKEN" in err and "changed" in err
    with engine.begin() as connection:
        connection.execute(text("DELETE FROM audit_log WHERE kind = 'login'"))
    code, out, err = run_cli(["audit", "verify", "--database", sqlite_url])
    assert code == 1 and "BROKEN at line id 3" in err
    engine.dispose()
