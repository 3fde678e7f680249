"""The money path's frame: a request is one transaction whose first statement reads the
caller and their stored answer; a retry gets the first answer; no connection is pinged
before use, so a request on a connection the database dropped is run again."""

from __future__ import annotations

import psycopg
import pytest
from fastapi.testclient import TestClient

from server.conftest import balances, practice_table, sign_up

HCF = {"wagers": {"ante": 10}}


def test_a_dropped_connection_is_run_again(client: TestClient, database_url: str) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("SQLite connections are not dropped by a server")
    headers = sign_up(client)
    table = practice_table(client, headers, "high-card-flush")
    view = client.post(f"/api/v1/tables/{table}/rounds", json=HCF, headers=headers).json()
    with psycopg.connect(database_url, autocommit=True) as admin:
        dropped = admin.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()").fetchone()
    assert dropped is not None and dropped[0] >= 1
    answer = client.post(f"/api/v1/rounds/{view['id']}/actions", json={"action": "fold"},
                         headers={**headers, "Idempotency-Key": "after-drop"})
    assert answer.status_code == 200, answer.text
    assert balances(client, headers)["practice"] == 990


def test_a_retry_with_another_body_is_refused_and_moves_nothing(client: TestClient) -> None:
    headers = {**sign_up(client), "Idempotency-Key": "same"}
    table = practice_table(client, headers, "high-card-flush")
    first = client.post(f"/api/v1/tables/{table}/rounds", json=HCF, headers=headers)
    assert first.status_code == 201
    fold = client.post(f"/api/v1/rounds/{first.json()['id']}/actions",
                       json={"action": "fold"}, headers=headers)
    assert fold.status_code == 422 and "different request" in fold.json()["detail"]
    again = client.post(f"/api/v1/tables/{table}/rounds", json=HCF, headers=headers)
    assert again.status_code == 201 and again.headers.get("Idempotent-Replay") == "true"
    assert again.json() == first.json()
    assert balances(client, {"Authorization": headers["Authorization"]})["practice"] == 990


def test_a_seed_deals_one_round_and_a_table_plays_one_at_a_time(
        client: TestClient, database_url: str) -> None:
    """The database holds what a bet that raced another would break: a round given a
    seed already used, or a second unfinished round at its table, is refused, and on
    PostgreSQL (where such a race can happen) the refusal names an index the money path
    runs the request again for."""
    from sqlalchemy import insert, select
    from sqlalchemy.exc import IntegrityError

    from feltlab.server.models import Round
    from feltlab.server.services.database import make_engine, normalise_url
    from feltlab.server.services.money_frame import raced

    headers = sign_up(client)
    table = practice_table(client, headers, "high-card-flush")
    client.post(f"/api/v1/tables/{table}/rounds", json=HCF, headers=headers)
    engine = make_engine(normalise_url(database_url))
    try:
        with engine.connect() as connection:
            first = connection.execute(select(Round)).one()._asdict()
        copies = {"seed used again": {"server_seed": first["server_seed"], "phase": "complete"},
                  "second unfinished round": {"server_seed": "ab" * 32}}
        for why, changes in copies.items():
            row = {**{name: value for name, value in first.items() if name != "id"}, **changes}
            with pytest.raises(IntegrityError) as refused, engine.begin() as connection:
                connection.execute(insert(Round), row)
            assert raced(refused.value) == database_url.startswith("postgresql"), why
    finally:
        engine.dispose()
