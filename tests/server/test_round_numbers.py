"""Each round's number at its table (``number``, beside the ``id`` every table shares):
a new table's first round is round 1 however many rounds other tables played, in every
view of it (the bet's answer, a decision's, a read, the player's list, the table's
state), at private and shared tables; the rounds of a database made before it are
numbered by table on upgrade."""

from __future__ import annotations

from alembic import command
from fastapi.testclient import TestClient
from sqlalchemy import select, text

from feltlab.server.migrate import alembic_config, upgrade
from feltlab.server.models import Round
from feltlab.server.services.database import make_engine, normalise_url
from server.conftest import play_round, practice_table, sign_up
from server.test_migrations import old_table
from server.test_shared import bet, make_admin


def test_a_tables_rounds_are_counted_at_the_table(client: TestClient) -> None:
    alice, bob = sign_up(client), sign_up(client)
    first = practice_table(client, alice, "high-card-flush")
    for _ in range(3):
        play_round(client, alice, first, {"wagers": {"ante": 5}})
    second = practice_table(client, bob, "nine-card-flush")
    bet_answer = client.post(f"/api/v1/tables/{second}/rounds",
                             json={"wagers": {"all9": 5}, "colour": "red"}, headers=bob)
    opened = bet_answer.json()
    assert opened["id"] > 3 and opened["number"] == 1, opened
    assert client.get(f"/api/v1/tables/{second}", headers=bob).json()["round"]["number"] == 1
    decided = client.post(f"/api/v1/rounds/{opened['id']}/actions",
                          json=opened["options"][-1], headers=bob).json()
    assert decided["number"] == 1
    assert client.get(f"/api/v1/rounds/{opened['id']}", headers=bob).json()["number"] == 1
    assert play_round(client, alice, first, {"wagers": {"ante": 5}})["number"] == 4
    mine = client.get("/api/v1/me/rounds", headers=alice).json()
    assert [view["number"] for view in mine] == [4, 3, 2, 1]


def test_a_shared_tables_rounds_are_counted_once_for_every_seat(client: TestClient) -> None:
    admin = make_admin(client)
    table = client.post("/api/v1/admin/tables", json={"rules": "high-card-flush"},
                        headers=admin).json()["id"]
    players = [sign_up(client) for _ in range(2)]
    for seat, headers in enumerate(players, start=1):
        client.post(f"/api/v1/tables/{table}/seats", json={"seat": seat}, headers=headers)
    for number in (1, 2):
        views = [bet(client, table, headers).json() for headers in players]
        assert [view["number"] for view in views] == [number, number]
        for headers in players:
            client.post(f"/api/v1/rounds/{views[-1]['id']}/actions", json={"action": "fold"},
                        headers=headers)


def test_rounds_played_before_are_numbered_by_table(sqlite_url: str) -> None:
    engine = make_engine(normalise_url(sqlite_url))
    try:
        command.upgrade(alembic_config(engine), "0012")
        with engine.begin() as connection:
            old_table(connection, 1, shared=False)
            old_table(connection, 2, shared=True)
            for round_id, table_id in ((1, 1), (2, 2), (3, 1), (4, 1), (5, 2)):
                connection.execute(text(
                    "INSERT INTO rounds (id, table_id, rules_id, fingerprint, currency, "
                    "server_seed, commitment, client_seed, phase, created_at, log) VALUES "
                    "(:id, :table_id, 'high-card-flush', 'f', 'practice', :seed, 'c', '', "
                    "'complete', '2026-01-01', '')"),
                    {"id": round_id, "table_id": table_id, "seed": f"seed{round_id}"})
        upgrade(engine)
        with engine.connect() as connection:
            numbers = connection.execute(select(Round.id, Round.number).order_by(Round.id))
            assert numbers.all() == [(1, 1), (2, 1), (3, 2), (4, 3), (5, 2)]
    finally:
        engine.dispose()
