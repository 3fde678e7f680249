"""A shared round's seats and who sits at its table, carried by the statement that reads
the round (:mod:`feltlab.server.services.round_rows`): the same rows, in seat order, as
the statements of their own read, on both databases; a row without them says so."""

from __future__ import annotations

from collections import namedtuple

from fastapi.testclient import TestClient
from sqlalchemy import select

from feltlab.server.models import Round
from feltlab.server.services import round_rows, shared_rounds
from feltlab.server.services.context import Services
from feltlab.server.services.database import write_connection
from server.conftest import sign_up
from server.test_shared import bet, make_admin


def test_the_round_read_carries_its_seats_and_who_sits(client: TestClient) -> None:
    table_id = client.post("/api/v1/admin/tables", json={
        "rules": "high-card-flush", "betting_seconds": 30, "decision_seconds": 30},
        headers=make_admin(client)).json()["id"]
    players = [sign_up(client) for _ in range(3)]
    for seat, headers in enumerate(players, start=1):
        client.post(f"/api/v1/tables/{table_id}/seats", json={"seat": seat}, headers=headers)
    late = sign_up(client)  # sits down after the others bet: seated, not in the round
    for headers in players[:2]:
        assert bet(client, table_id, headers).status_code == 201
    assert client.post(f"/api/v1/tables/{table_id}/seats", json={"seat": 5},
                       headers=late).status_code == 201
    found: Services = client.app.state.services  # type: ignore[attr-defined]
    with write_connection(found.engine) as connection:
        round_id = connection.execute(select(Round.id).where(
            Round.table_id == table_id)).scalar_one()
        dialect = connection.dialect.name
        carried = connection.execute(select(*round_rows.seats_and_sitting(
            dialect, Round.id, Round.table_id)).where(Round.id == round_id)).one()
        seats = round_rows.seats_of(carried)
        by_statement = [dict(row._asdict()) for row in shared_rounds._ROUND_SEATS.run(
            connection, {"round_id": round_id})]
        assert seats == by_statement and [seat["seat"] for seat in seats] == [1, 2]
        assert round_rows.sitting_of(carried) == [
            tuple(row) for row in shared_rounds._SEATED.run(connection, {"table_id": table_id})]
        assert [seat for seat, _, _ in round_rows.sitting_of(carried) or []] == [1, 2, 3, 5]
        nobody = connection.execute(select(*round_rows.seats_and_sitting(
            dialect, Round.id, Round.table_id)).where(Round.id == -1)).first()
        assert nobody is None
    empty = namedtuple("Row", ["seats_json", "sitting_json"])(None, None)
    assert round_rows.seats_of(empty) == [] and round_rows.sitting_of(empty) == []
    plain = namedtuple("Row", ["r_id"])(round_id)
    assert round_rows.seats_of(plain) is None and round_rows.sitting_of(plain) is None
