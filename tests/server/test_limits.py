"""The daily loss limit binds every stake (the opening bet, each street bet, each raise),
counting what was lost today and what is still at risk; raising it waits 24 hours."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta

from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from feltlab.server.clock import now
from feltlab.server.services import ledger
from feltlab.server.services.database import make_engine, session_factory, transaction
from server.conftest import sign_up


def _database(url: str) -> str:
    return url.replace("postgresql://", "postgresql+psycopg://", 1)


def credit_cash(database_url: str, username: str, amount: int) -> None:
    """An admin's credit, made through the ledger for the test (a balanced transaction)."""
    engine = make_engine(database_url)
    with transaction(session_factory(engine)) as session:
        user_id = session.execute(text("SELECT id FROM users WHERE username = :name"),
                                  {"name": username}).scalar_one()
        ledger.adjust_cash(session, user_id, amount, "test credit")
    engine.dispose()


def cash_player(client: TestClient, database_url: str, cash: int
                ) -> tuple[dict[str, str], int]:
    headers = sign_up(client)
    name = client.get("/api/v1/me", headers=headers).json()["username"]
    credit_cash(database_url, name, cash)
    table = client.post("/api/v1/tables", json={"rules": "nh-holdem-stud", "practice": False},
                        headers=headers)
    assert table.status_code == 201, table.text
    return headers, table.json()["id"]


def cash(client: TestClient, headers: dict[str, str]) -> int:
    balance: int = client.get("/api/v1/me", headers=headers).json()["balances"]["cash"]
    return balance


def test_stud_betting_the_maximum_never_loses_more_than_the_limit(
        client: TestClient, database_url: str) -> None:
    """40 rounds of Hold'em Stud, the maximum bet on every street: every stake that would
    let the day's loss pass the limit is refused (409 naming it), folding stays open, and
    the player never ends a round more than the limit down."""
    start, limit = 2000, 60
    headers, table = cash_player(client, database_url, start)
    assert client.put("/api/v1/me/limits", json={"daily_loss_limit": limit},
                      headers=headers).status_code == 200
    refused_streets = refused_bets = rounds = 0
    for _ in range(40):
        answer = client.post(f"/api/v1/tables/{table}/rounds",
                             json={"wagers": {"ante": 10, "bonus3": 10}}, headers=headers)
        if answer.status_code == 409:
            assert f"daily loss limit of {limit}" in answer.json()["detail"]
            refused_bets += 1
            continue
        assert answer.status_code == 201, answer.text
        view = answer.json()
        rounds += 1
        while view["phase"] != "complete":
            biggest = max(view["options"], key=lambda option: option.get("amount") or 0)
            decided = client.post(f"/api/v1/rounds/{view['id']}/actions", json=biggest,
                                  headers=headers)
            if decided.status_code == 409:
                assert f"daily loss limit of {limit}" in decided.json()["detail"]
                assert "folding is still open" in decided.json()["detail"]
                refused_streets += 1
                decided = client.post(f"/api/v1/rounds/{view['id']}/actions",
                                      json={"action": "fold"}, headers=headers)
            assert decided.status_code == 200, decided.text
            view = decided.json()
        assert start - cash(client, headers) <= limit
    assert rounds >= 1 and refused_streets >= 1
    me = client.get("/api/v1/me", headers=headers).json()
    assert me["limits"]["lost_today"] == max(0, start - me["balances"]["cash"]) <= limit


def test_a_street_bet_past_the_limit_is_refused_and_folding_is_open(
        client: TestClient, database_url: str) -> None:
    """Limit 20: an opening bet of 10 fits, a street bet of 30 would put 40 at risk."""
    headers, table = cash_player(client, database_url, 500)
    client.put("/api/v1/me/limits", json={"daily_loss_limit": 20}, headers=headers)
    view = client.post(f"/api/v1/tables/{table}/rounds", json={"wagers": {"ante": 10}},
                       headers=headers).json()
    biggest = max(view["options"], key=lambda option: option.get("amount") or 0)
    assert biggest["amount"] == 30
    refused = client.post(f"/api/v1/rounds/{view['id']}/actions", json=biggest,
                          headers=headers)
    assert refused.status_code == 409
    assert "daily loss limit of 20" in refused.json()["detail"]
    assert cash(client, headers) == 490  # nothing moved
    fits = client.post(f"/api/v1/rounds/{view['id']}/actions",
                       json={"action": "bet", "amount": 10}, headers=headers)
    assert fits.status_code == 200, fits.text
    while fits.json()["phase"] != "complete":
        fits = client.post(f"/api/v1/rounds/{view['id']}/actions", json={"action": "fold"},
                           headers=headers)
        assert fits.status_code == 200, fits.text


def test_raising_the_limit_waits_24_hours_lowering_is_at_once(
        client: TestClient, database_url: str) -> None:
    headers, table = cash_player(client, database_url, 500)
    client.put("/api/v1/me/limits", json={"daily_loss_limit": 10}, headers=headers)
    raised = client.put("/api/v1/me/limits", json={"daily_loss_limit": 100},
                        headers=headers).json()["limits"]
    assert raised["daily_loss_limit"] == 10
    assert raised["pending_daily_loss_limit"] == 100
    takes_effect = datetime.fromisoformat(raised["pending_takes_effect_at"])
    assert abs(takes_effect - (now() + timedelta(hours=24))) < timedelta(minutes=1)
    opened = client.post(f"/api/v1/tables/{table}/rounds", json={"wagers": {"ante": 10}},
                         headers=headers)
    assert opened.status_code == 201, opened.text  # 10 fits the limit in force
    round_id = opened.json()["id"]
    street = client.post(f"/api/v1/rounds/{round_id}/actions",
                         json={"action": "bet", "amount": 10}, headers=headers)
    assert street.status_code == 409 and "daily loss limit of 10" in street.json()["detail"]
    # a day later (moved in the database) the raised limit is in force
    engine = create_engine(_database(database_url))
    with engine.begin() as connection:
        connection.execute(text("UPDATE users SET pending_limit_at = :then "
                                "WHERE pending_daily_loss_limit = 100"),
                           {"then": now() - timedelta(seconds=1)})
    engine.dispose()
    street = client.post(f"/api/v1/rounds/{round_id}/actions",
                         json={"action": "bet", "amount": 10}, headers=headers)
    assert street.status_code == 200, street.text
    limits = client.get("/api/v1/me", headers=headers).json()["limits"]
    assert limits["daily_loss_limit"] == 100
    assert limits["pending_daily_loss_limit"] is None
    lowered = client.put("/api/v1/me/limits", json={"daily_loss_limit": 5},
                         headers=headers).json()["limits"]
    assert lowered["daily_loss_limit"] == 5 and lowered["pending_daily_loss_limit"] is None


def test_parallel_bets_at_several_tables_cannot_pass_the_limit(
        client: TestClient, database_url: str) -> None:
    """Bets sent at once at six cash tables: the stakes are counted one after another
    (each check waits for the player's wallet), so only what fits the limit is taken."""
    headers, first = cash_player(client, database_url, 500)
    tables = [first] + [client.post("/api/v1/tables", headers=headers, json={
        "rules": "nh-holdem-stud", "practice": False}).json()["id"] for _ in range(5)]
    client.put("/api/v1/me/limits", json={"daily_loss_limit": 25}, headers=headers)

    def bet(table: int) -> int:
        status: int = client.post(f"/api/v1/tables/{table}/rounds", headers=headers,
                                  json={"wagers": {"ante": 10}}).status_code
        return status

    with ThreadPoolExecutor(len(tables)) as pool:
        statuses = sorted(pool.map(bet, tables))
    assert statuses == [201, 201, 409, 409, 409, 409]
    assert cash(client, headers) == 480


def test_two_bets_at_once_at_one_private_table_open_one_round(
        client: TestClient, database_url: str) -> None:
    """Two bets sent at once at one private table (different keys): one opens the round,
    the other is refused as the round is not finished, on PostgreSQL too, where the second
    bet's first read waits for the table's lock."""
    headers, table = cash_player(client, database_url, 500)

    def bet(_: int) -> int:
        status: int = client.post(f"/api/v1/tables/{table}/rounds", headers=headers,
                                  json={"wagers": {"ante": 10}}).status_code
        return status

    for _ in range(5):  # a round left open (Stud waits for the decision) refuses the next
        with ThreadPoolExecutor(2) as pool:
            statuses = sorted(pool.map(bet, range(2)))
        assert statuses in ([201, 409], [409, 409]), statuses
    rounds = client.get("/api/v1/me/rounds", headers=headers).json()
    assert len(rounds) == 1
    assert cash(client, headers) == 490
