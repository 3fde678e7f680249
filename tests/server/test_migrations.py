"""The Alembic migrations build exactly the schema the models describe, on SQLite and
PostgreSQL, and a database at an older revision upgrades in place."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, insert, select, text

from feltlab.server import (  # noqa: F401  (tables on Base)
    designer_models,
    figure_models,
    operator_models,
)
from feltlab.server.migrate import alembic_config, current_revision, upgrade
from feltlab.server.models import (
    AuditHead,
    AuditRecord,
    Base,
    GameTable,
    Round,
    RoundSeat,
    TrainerScore,
)
from feltlab.server.services import audit
from feltlab.server.services.database import (
    make_engine,
    normalise_url,
    session_factory,
    transaction,
)


def head_revision(engine: Engine) -> str | None:
    return ScriptDirectory.from_config(alembic_config(engine)).get_current_head()


def old_table(connection: Connection, table_id: int, shared: bool) -> None:
    """A High Card Flush practice table written as an older schema holds it."""
    connection.execute(text(
        "INSERT INTO tables (id, rules_id, fingerprint, currency, shared, status, name, "
        "betting_seconds, decision_seconds, created_at) VALUES (:id, 'high-card-flush', "
        "'f', 'practice', :shared, 'open', '', 20, 20, '2026-01-01')"),
        {"id": table_id, "shared": int(shared)})


def test_migrations_match_the_models(empty_database_url: str) -> None:
    assert TrainerScore.__table__.metadata is Base.metadata  # its table is known
    engine = make_engine(normalise_url(empty_database_url))
    try:
        upgrade(engine)
        with engine.connect() as connection:
            differences = compare_metadata(MigrationContext.configure(connection),
                                           Base.metadata)
        assert differences == []
    finally:
        engine.dispose()


def test_seat_client_seeds_added_to_an_existing_database(sqlite_url: str) -> None:
    """A database made before 0003 keeps its round seats; each gets the empty seed."""
    engine = make_engine(normalise_url(sqlite_url))
    try:
        command.upgrade(alembic_config(engine), "0002")
        with engine.begin() as connection:
            connection.execute(text(
                "INSERT INTO users (id, username, password_hash, role, created_at) "
                "VALUES (1, 'old', 'x', 'player', '2026-01-01')"))
            old_table(connection, 1, shared=True)
            connection.execute(text(
                "INSERT INTO rounds (id, table_id, rules_id, fingerprint, currency, "
                "server_seed, commitment, client_seed, phase, created_at) VALUES (1, 1, "
                "'high-card-flush', 'f', 'practice', 's', 'c', '', 'wagers', '2026-01-01')"))
            connection.execute(text(
                "INSERT INTO round_seats (round_id, seat, user_id, staked, balance_before) "
                "VALUES (1, 2, 1, 10, 1000)"))
        upgrade(engine)
        assert current_revision(engine) == head_revision(engine)
        with engine.connect() as connection:
            assert connection.execute(select(RoundSeat.seat, RoundSeat.client_seed)).all() \
                == [(2, "")]
            # 0004: a round from before it has no log on its row (it is read from events)
            assert connection.execute(select(Round.log)).all() == [("",)]
    finally:
        engine.dispose()


def test_private_tables_get_their_seed_key_on_upgrade(sqlite_url: str) -> None:
    """A private table made before 0007 draws a seed in the upgrade, its seed key from 0008
    (so its next commitment can be shown before the bet); a shared table needs none."""
    engine = make_engine(normalise_url(sqlite_url))
    try:
        command.upgrade(alembic_config(engine), "0003")
        with engine.begin() as connection:
            for table_id, shared in ((1, False), (2, True)):
                old_table(connection, table_id, shared)
        upgrade(engine)
        with engine.connect() as connection:
            seeds = dict(connection.execute(select(GameTable.id, GameTable.seed_key)
                                            ).all())
        assert seeds[2] is None and seeds[1] is not None and len(seeds[1]) == 64
    finally:
        engine.dispose()


def test_upgrade_refuses_a_table_with_two_unfinished_rounds(sqlite_url: str) -> None:
    """0008 makes "one unfinished round a table" an index; a database that broke it (two
    bets that raced, before) is refused by name, and left as it was."""
    engine = make_engine(normalise_url(sqlite_url))
    try:
        command.upgrade(alembic_config(engine), "0007")
        with engine.begin() as connection:
            old_table(connection, 7, shared=False)
            for round_id in (1, 2):
                connection.execute(text(
                    "INSERT INTO rounds (id, table_id, rules_id, fingerprint, currency, "
                    "server_seed, commitment, client_seed, phase, created_at, log) VALUES "
                    "(:id, 7, 'high-card-flush', 'f', 'practice', :seed, 'c', '', "
                    "'decisions', '2026-01-01', '')"), {"id": round_id, "seed": f"{round_id}"})
        with pytest.raises(RuntimeError, match=r"tables \[7\] have more than one unfinished"):
            upgrade(engine)
        assert current_revision(engine) == "0007"
    finally:
        engine.dispose()


def test_the_audit_head_is_computed_from_the_chain_on_upgrade(empty_database_url: str
                                                               ) -> None:
    """0015 anchors a log made before it at the chain's head: its line count and last
    hash; the chain verifies against it, and the next line moves it."""
    engine = make_engine(normalise_url(empty_database_url))
    try:
        command.upgrade(alembic_config(engine), "0012")
        prev_hash = audit.GENESIS
        with engine.begin() as connection:
            for number in range(3):
                at = datetime(2026, 1, 1, number, tzinfo=UTC)
                line_hash = audit.line_hash(prev_hash, at, "old", "login", "{}")
                connection.execute(insert(AuditRecord).values(
                    at=at, actor="old", kind="login", detail="{}", prev_hash=prev_hash,
                    hash=line_hash))
                prev_hash = line_hash
        upgrade(engine)
        with engine.connect() as connection:
            assert connection.execute(select(AuditHead.id, AuditHead.lines, AuditHead.hash)
                                      ).all() == [(1, 3, prev_hash)]
        assert audit.verify_database(engine).intact
        with transaction(session_factory(engine)) as session:
            audit.record(session, "new", "login")
        report = audit.verify_database(engine, published=prev_hash)
        assert report.intact and report.lines == 4 and report.published_at == 3
    finally:
        engine.dispose()


def test_an_empty_audit_log_gets_the_genesis_head(sqlite_url: str) -> None:
    engine = make_engine(normalise_url(sqlite_url))
    try:
        upgrade(engine)
        with engine.connect() as connection:
            assert connection.execute(select(AuditHead.lines, AuditHead.hash)).one() == (
                0, audit.GENESIS)
    finally:
        engine.dispose()
