"""The pit's figures are written off the money path: a settled round is marked, its
worker's recorder writes a batch of rounds a moment later, and whatever a worker left
marked (it died first) is computed again from the database, so reports stay exact."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update

from feltlab.server.figure_models import SeatFigure
from feltlab.server.models import Round
from feltlab.server.services import figures
from feltlab.server.services.context import Services
from server.conftest import play_round, practice_table, sign_up

HCF = {"wagers": {"ante": 5}}


def services(client: TestClient) -> Services:
    found: Services = client.app.state.services  # type: ignore[attr-defined]
    return found


def figure_rows(found: Services) -> list[dict[str, Any]]:
    with found.engine.connect() as connection:
        rows = connection.execute(select(SeatFigure).order_by(SeatFigure.round_seat_id))
        return [{key: value for key, value in row._asdict().items() if key != "id"}
                for row in rows]


def pending(found: Services) -> int:
    with found.engine.connect() as connection:
        return int(connection.execute(select(func.count()).select_from(Round).where(
            Round.figures_pending.is_(True))).scalar_one())


def play(client: TestClient, rounds: int) -> None:
    headers = sign_up(client)
    table = practice_table(client, headers, "high-card-flush")
    for index in range(rounds):
        play_round(client, headers, table, HCF,
                   lambda options, index=index: options[-1] if index % 2 else options[0])


def test_settled_rounds_are_marked_then_written_once(client: TestClient) -> None:
    found = services(client)
    found.recorder.stop()  # no background writes: this test writes when it says
    play(client, 6)
    assert pending(found) == 6 and figure_rows(found) == []
    found.recorder.flush()
    written = figure_rows(found)
    assert pending(found) == 0 and len(written) == 6
    found.recorder.flush()  # nothing left: nothing written twice
    assert figure_rows(found) == written


def test_rounds_a_worker_left_marked_are_computed_from_the_database(
        client: TestClient) -> None:
    """A worker that died before writing its queue: another computes the same rows from
    the rounds as stored."""
    found = services(client)
    found.recorder.stop()
    play(client, 6)
    another = figures.Recorder(found.engine, found.reader_engine)  # nothing queued there
    another.flush()
    from_database = figure_rows(found)
    assert pending(found) == 0 and len(from_database) == 6
    with found.engine.begin() as connection:
        connection.execute(SeatFigure.__table__.delete())
        connection.execute(update(Round).values(figures_pending=True))
    found.recorder.flush()  # this worker's queue: the rows computed at settlement
    assert figure_rows(found) == from_database


def test_the_pits_figures_never_hold_a_players_round_up(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Figures that cannot be computed (a bug) refuse no money request; the rounds stay
    marked and are written once they can be."""
    found = services(client)
    found.recorder.stop()

    def broken(*_: object) -> None:
        raise RuntimeError("a bug in the pit's figures")

    monkeypatch.setattr(figures, "round_figures", broken)
    play(client, 3)
    with pytest.raises(RuntimeError, match="a bug"):
        found.recorder.flush()
    assert pending(found) == 3 and figure_rows(found) == []
    monkeypatch.undo()
    found.recorder.flush()
    assert pending(found) == 0 and len(figure_rows(found)) == 3


def test_the_background_writer_writes_within_a_moment(client: TestClient) -> None:
    import time

    found = services(client)
    play(client, 2)
    deadline = time.monotonic() + 10
    while pending(found) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pending(found) == 0 and len(figure_rows(found)) == 2
