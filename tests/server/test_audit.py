"""The audit log's head (feltlab.server.services.audit), on SQLite and PostgreSQL: kept in
a row moved in the transaction of each line and logged at each commit, so that
``feltlab audit verify`` finds a log cut short, rewritten or past its head, and
``--head`` checks the log against a head kept outside the database."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, delete, func, insert, select, update

from feltlab.server.clock import now
from feltlab.server.logs import JsonFormatter
from feltlab.server.models import AuditHead, AuditRecord
from feltlab.server.services import audit
from feltlab.server.services.database import make_engine, normalise_url
from server.cli_helpers import run_cli
from server.conftest import sign_up
from server.test_reports import admin_headers


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """The test's own connection to the server's database, as an intruder's would be."""
    made = make_engine(normalise_url(database_url))
    yield made
    made.dispose()


def head_row(engine: Engine) -> tuple[int, str]:
    with engine.connect() as connection:
        lines, last = connection.execute(select(AuditHead.lines, AuditHead.hash)).one()
    return int(lines), str(last)


def chain_head(engine: Engine) -> tuple[int, str]:
    with engine.connect() as connection:
        count = connection.execute(select(func.count()).select_from(AuditRecord)).scalar_one()
        last = connection.execute(select(AuditRecord.hash).order_by(AuditRecord.id.desc())
                                  .limit(1)).scalar_one()
    return int(count), str(last)


def verify(database_url: str, *more: str) -> tuple[int, str, str]:
    return run_cli(["audit", "verify", "--database", database_url, *more])


def some_lines(client: TestClient, players: int = 3) -> None:
    """Two lines a player: the account made, the login."""
    for _ in range(players):
        sign_up(client)


def test_the_head_moves_with_each_line_and_is_logged_once_committed(
        client: TestClient, engine: Engine, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="feltlab.server"):
        some_lines(client)
    assert head_row(engine) == chain_head(engine)
    logged = [json.loads(JsonFormatter().format(record)) for record in caplog.records
              if record.getMessage() == "audit_head"]
    assert len(logged) == 6  # one a line (each its own transaction here)
    assert (logged[-1]["lines"], logged[-1]["hash"]) == head_row(engine)
    caplog.clear()
    found = client.app.state.services  # type: ignore[attr-defined]
    with caplog.at_level(logging.INFO, logger="feltlab.server"), \
            pytest.raises(RuntimeError), found.transaction() as session:
        audit.record(session, "someone", "rolled_back")
        raise RuntimeError
    assert head_row(engine) == chain_head(engine) == (6, logged[-1]["hash"])
    assert not [record for record in caplog.records if record.getMessage() == "audit_head"]


def test_a_log_cut_short_is_found(client: TestClient, engine: Engine,
                                  database_url: str) -> None:
    admin = admin_headers(client)  # its account and login: two lines
    some_lines(client)
    code, out, err = verify(database_url)
    assert code == 0 and f"intact: 8 lines, head {head_row(engine)[1]}" in out, (out, err)
    with engine.begin() as connection:
        last_three = select(AuditRecord.id).order_by(AuditRecord.id.desc()).limit(3)
        connection.execute(delete(AuditRecord).where(
            AuditRecord.id.in_(list(connection.execute(last_three).scalars()))))
    code, out, err = verify(database_url)
    assert code == 1 and "cut short: its head says 8 lines, the log has 5" in err, (out, err)
    answer = client.get("/api/v1/admin/audit", headers=admin).json()
    assert not answer["intact"] and answer["broken_at"] is None
    assert "cut short" in answer["reason"] and answer["head"]["lines"] == 8


def test_a_line_past_the_head_is_found(client: TestClient, engine: Engine,
                                       database_url: str) -> None:
    """A line added without its head, even one that fits the chain, leaves the head
    stale; a head row rewritten for another hash is found too."""
    some_lines(client, 1)
    lines, last = head_row(engine)
    at = now()
    with engine.begin() as connection:
        connection.execute(insert(AuditRecord).values(
            at=at, actor="intruder", kind="login", detail="{}", prev_hash=last,
            hash=audit.line_hash(last, at, "intruder", "login", "{}")))
    code, _, err = verify(database_url)
    assert code == 1 and f"stale: it says {lines} lines, the log has {lines + 1}" in err
    with engine.begin() as connection:
        connection.execute(update(AuditHead).values(lines=lines + 1, hash="f" * 64))
    code, _, err = verify(database_url)
    assert code == 1 and f"not that of line {lines + 1}" in err, err


def test_a_published_head_must_still_be_in_the_log(client: TestClient, engine: Engine,
                                                   database_url: str) -> None:
    """A log cut short with its head row rewritten to fit verifies against the row, but
    not against a head kept outside (the server's log, or written down from the
    console)."""
    some_lines(client, 2)
    published = head_row(engine)[1]
    some_lines(client, 2)
    code, out, err = verify(database_url, "--head", published.upper())
    assert code == 0 and "the published head is line 4" in out, (out, err)
    with engine.begin() as connection:
        connection.execute(delete(AuditRecord).where(AuditRecord.id > 2))
    kept = chain_head(engine)
    with engine.begin() as connection:
        connection.execute(update(AuditHead).values(lines=kept[0], hash=kept[1]))
    assert verify(database_url)[0] == 0  # the row was made to fit
    code, _, err = verify(database_url, "--head", published)
    assert code == 1 and f"the published head {published} is not in the log (2 lines)" in err
    code, _, err = verify(database_url, "--head", "not-a-hash")
    assert code == 2 and "64 hex digits" in err
