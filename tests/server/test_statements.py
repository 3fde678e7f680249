"""The money path's statement runner (:mod:`feltlab.server.services.statements`) against
SQLAlchemy's own execution of the same Core statement, on SQLite and PostgreSQL: the
same rows with the same Python types, the same errors, the same listeners told."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Engine,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    bindparam,
    delete,
    event,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.exc import DBAPIError, IntegrityError

from feltlab.server.auth import token_digest
from feltlab.server.services import play
from feltlab.server.services.database import (
    make_engine,
    statement_connection,
    write_connection,
)
from feltlab.server.services.statements import Batch, Prepared, Unchanged
from server.conftest import practice_table, sign_up

METADATA = MetaData()
THINGS = Table(
    "things", METADATA,
    Column("id", Integer, primary_key=True),
    Column("name", String(40), nullable=False, unique=True),
    Column("amount", BigInteger, nullable=False),
    Column("flag", Boolean, nullable=False, default=False),
    Column("at", DateTime(timezone=True)),
    Column("note", Text, default="none"),
    Column("stamp", String(40), default=lambda: "computed"),
)
MOMENT = datetime(2026, 11, 25, 9, 30, 15, 123456, tzinfo=UTC)


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    made = make_engine(database_url)
    METADATA.create_all(made)
    yield made
    METADATA.drop_all(made)
    made.dispose()


def _row(name: str, amount: int = 5, flag: bool = True) -> dict[str, Any]:
    return {"name": name, "amount": amount, "flag": flag, "at": MOMENT, "note": "n",
            "stamp": "s"}


def _same(fast: list[Any], slow: list[Any]) -> None:
    """Rows equal, value by value, with the same Python types."""
    assert [tuple(row) for row in fast] == [tuple(row) for row in slow]
    for mine, theirs in zip(fast, slow, strict=True):
        assert [type(value) for value in mine] == [type(value) for value in theirs]
        assert mine._fields == tuple(theirs._fields)


def test_rows_as_sqlalchemy_reads_them(engine: Engine) -> None:
    with write_connection(engine) as connection:
        connection.execute(insert(THINGS), [_row("a"), _row("b", 7, False)])
        query = (select(THINGS, (THINGS.c.amount * 2).label("twice"))
                 .where(THINGS.c.amount >= bindparam("least")).order_by(THINGS.c.id).limit(5))
        fast = Prepared(query).run(connection, {"least": 1})
        _same(fast, list(connection.execute(query, {"least": 1})))
        assert fast[1].name == "b" and fast[1].flag is False
        assert fast[1].at.replace(tzinfo=UTC) == MOMENT  # SQLite keeps no zone, as ever
        assert Prepared(query).first(connection, {"least": 100}) is None
        assert Prepared(select(func.count()).select_from(THINGS)).scalar(connection) == 2


def test_an_insert_returning_and_its_defaults(engine: Engine) -> None:
    statement = insert(THINGS).returning(THINGS)
    with write_connection(engine) as connection:
        fast = Prepared(statement).run(connection, {"name": "a", "amount": 1, "at": MOMENT,
                                                    "stamp": "given"})
        slow = list(connection.execute(statement, {"name": "b", "amount": 1, "at": MOMENT,
                                                   "stamp": "given"}))
        assert fast[0].flag is False and fast[0].note == "none"  # scalar defaults filled
        assert [tuple(row[2:]) for row in fast] == [tuple(row[2:]) for row in slow]
        with pytest.raises(ValueError, match="column stamp must be given"):
            Prepared(statement).run(connection, {"name": "c", "amount": 1})


def test_several_rows_in_one_statement(engine: Engine) -> None:
    many = Prepared(insert(THINGS).returning(THINGS.c.name, THINGS.c.amount))
    told: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda *args: told.append(args[2]))
    with write_connection(engine) as connection:
        rows = many.run_rows(connection, [_row(f"r{index}", index) for index in range(4)])
        assert sorted(tuple(row) for row in rows) == [(f"r{index}", index) for index in range(4)]
        assert len(told) == 1 and told[0].count("VALUES") == 1  # one statement, heard
        assert many.run_rows(connection, []) == []
        with pytest.raises(ValueError, match="same columns"):
            many.run_rows(connection, [_row("x"), {"name": "y", "amount": 1}])
        with pytest.raises(TypeError):
            Prepared(update(THINGS)).run_rows(connection, [_row("z")])


def test_an_update_and_an_expanding_in(engine: Engine) -> None:
    with write_connection(engine) as connection:
        connection.execute(insert(THINGS), [_row("a"), _row("b")])
        Prepared(update(THINGS).where(THINGS.c.name == bindparam("who"))
                 .values(amount=bindparam("new"))).run(connection, {"who": "a", "new": 9})
        assert connection.execute(select(THINGS.c.amount).where(THINGS.c.name == "a")
                                  ).scalar_one() == 9
        with pytest.raises(ValueError, match="expanding IN"):
            Prepared(select(THINGS).where(THINGS.c.name.in_(["a", "b"]))).run(connection)


def test_a_driver_error_is_sqlalchemys(engine: Engine) -> None:
    add = Prepared(insert(THINGS))
    with pytest.raises(IntegrityError) as raised, write_connection(engine) as connection:
        add.run(connection, _row("same"))
        add.run(connection, _row("same"))
    assert not raised.value.connection_invalidated
    with engine.connect() as connection:  # rolled back: nothing of it stayed
        assert connection.execute(select(func.count()).select_from(THINGS)).scalar() == 0


def test_a_lost_connection_is_invalidated(engine: Engine) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("SQLite has no connection to lose")
    with pytest.raises(DBAPIError) as raised, engine.connect() as connection:
        pid = connection.execute(text("SELECT pg_backend_pid()")).scalar_one()
        connection.commit()
        with engine.connect() as killer:
            killer.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        Prepared(select(THINGS)).run(connection)
    assert raised.value.connection_invalidated
    with engine.connect() as connection:  # the pool gives a working one again
        assert Prepared(select(func.count()).select_from(THINGS)).scalar(connection) == 0


def test_the_first_read_of_a_money_request(client: Any, tmp_path: Path) -> None:
    """The bet's first statement, run both ways on a real table: the same row."""
    headers = sign_up(client)
    table = practice_table(client, headers, "high-card-flush")
    found = client.app.state.services
    token = headers["Authorization"].removeprefix("Bearer ")
    read = play._BET_READ
    with write_connection(found.engine) as connection:
        prepared: Any = read  # a Prepared per dialect, or (before it) a pair of them
        if not isinstance(read, Prepared):
            prepared = getattr(read, connection.dialect.name)
        params = {"table_id": table, "digest": token_digest(token),
                  "key": "k", "origin": found.origin}
        _same(prepared.run(connection, params),
              list(connection.execute(prepared.statement_for(connection), params)))


def test_a_batch_is_one_statement_on_postgresql(engine: Engine) -> None:
    told: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda *args: told.append(args[2]))
    from sqlalchemy.dialects import postgresql, sqlite

    module = postgresql if engine.dialect.name == "postgresql" else sqlite
    once = Prepared(module.insert(THINGS).on_conflict_do_nothing(index_elements=["name"])
                    .returning(THINGS.c.id))
    with write_connection(engine) as connection:
        kept = connection.execute(insert(THINGS).returning(THINGS.c.id),
                                  [_row("kept", 1)]).scalar_one()
        told.clear()
        batch = Batch()
        many = batch.add_rows(Prepared(insert(THINGS).returning(THINGS.c.amount)),
                              [_row("a", 2), _row("b", 3)])
        batch.add(Prepared(update(THINGS).where(THINGS.c.id == bindparam("who"))
                           .values(amount=bindparam("new"))), {"who": kept, "new": 9})
        fresh = batch.add(once, _row("c", 4))
        again = batch.add(once, _row("kept", 5))  # already there: nothing written
        assert batch.add_rows(once, []).values == []  # no rows: not run at all
        batch.run(connection)
        assert len(told) == (1 if engine.dialect.name == "postgresql" else 4)
        if engine.dialect.name == "postgresql":  # numbered: psycopg converts no name
            assert "$1" in told[0] and "%(" not in told[0]
        assert sorted(many.values) == [2, 3] and again.values == []
        assert fresh.values == [connection.execute(
            select(THINGS.c.id).where(THINGS.c.name == "c")).scalar_one()]
        amounts = dict(connection.execute(select(THINGS.c.name, THINGS.c.amount)).all())
        assert amounts == {"kept": 9, "a": 2, "b": 3, "c": 4}
        before = len(told)
        batch.run(connection)  # emptied by its run: nothing again
        assert len(told) == before


def test_a_failing_batch_writes_nothing(engine: Engine) -> None:
    add = Prepared(insert(THINGS))
    with pytest.raises(IntegrityError), write_connection(engine) as connection:
        batch = Batch()
        batch.add(add, _row("x"))
        batch.add(add, _row("x"))
        batch.run(connection)
    with engine.connect() as connection:
        assert connection.execute(select(func.count()).select_from(THINGS)).scalar() == 0
    if engine.dialect.name == "postgresql":
        with pytest.raises(ValueError, match="literal %"), engine.connect() as connection:
            batch = Batch()
            batch.add(Prepared(text("SELECT '%%'")), {}, changes=())
            batch.add(add, _row("y"))
            batch.run(connection)


@pytest.mark.parametrize("alone", [True, False], ids=["one statement", "transaction"])
def test_a_guard_that_changes_no_row_refuses_the_whole_batch(engine: Engine, alone: bool
                                                             ) -> None:
    """Run as its connection's one statement (PostgreSQL: in autocommit, no transaction
    around it) or in a transaction: a guard that changes no row leaves every write of the
    batch unwritten; one that changes its row lets them all through."""
    opened = statement_connection if alone else write_connection
    add = Prepared(insert(THINGS))
    take = Prepared(delete(THINGS).where(THINGS.c.name == bindparam("gone"))
                    .returning(THINGS.c.id))

    def run(written: str, gone: str) -> None:
        with opened(engine) as connection:
            batch = Batch()
            batch.add(add, _row(written))
            batch.add(take, {"gone": gone}, changes=(), guard="taken")
            batch.run(connection, one_statement=alone)

    with pytest.raises(Unchanged) as refused:
        run("first", gone="nothing")
    assert refused.value.guard == "taken"
    with opened(engine) as connection:
        batch = Batch()
        batch.add(add, _row("there"))
        batch.run(connection, one_statement=alone)
    run("second", gone="there")
    with engine.connect() as connection:
        assert connection.execute(select(THINGS.c.name)).scalars().all() == ["second"]
    with pytest.raises(ValueError, match="lowercase"):
        Batch().add(add, _row("x"), guard="Taken!")


def test_a_statement_connection_commits_each_statement_and_leaves_none_behind(
        engine: Engine) -> None:
    """On PostgreSQL each statement commits as it ends (no BEGIN or COMMIT sent); on
    SQLite it is a write transaction. A connection that fails goes back to the pool as
    every other: in a transaction again."""
    postgres = engine.dialect.name == "postgresql"
    with statement_connection(engine) as connection:
        connection.execute(insert(THINGS), _row("one"))
        driver = connection.connection.dbapi_connection
        assert driver is not None
        if postgres:  # committed already: the driver is not in a transaction
            assert driver.info.transaction_status.name == "IDLE"
            with engine.connect() as other:
                assert other.execute(select(THINGS.c.name)).scalars().all() == ["one"]
        else:
            assert driver.in_transaction
    with pytest.raises(IntegrityError), statement_connection(engine) as connection:
        connection.execute(insert(THINGS), _row("one"))
    if postgres:  # the pool hands out the one given back last: reset to transactions
        with engine.connect() as other:
            driver = other.connection.dbapi_connection
            assert driver is not None and driver.autocommit is False


def test_every_row_of_a_multi_row_insert_is_converted_as_its_column() -> None:
    """A bare bind was typed for the first row only: on SQLite a later row's datetime was
    written unconverted, in another text format than SQLAlchemy's."""
    from datetime import UTC, datetime

    from sqlalchemy import Column, DateTime, Integer, MetaData, Table, create_engine, text

    engine = create_engine("sqlite://")
    table = Table("moments", MetaData(), Column("id", Integer, primary_key=True),
                  Column("at", DateTime(timezone=True)))
    table.metadata.create_all(engine)
    moment = datetime(2026, 1, 2, 3, 4, 5, 678, tzinfo=UTC)
    with engine.begin() as connection:
        Prepared(insert(table)).run_rows(connection, [{"at": moment}] * 3)
        stored = connection.execute(text("SELECT at FROM moments")).scalars().all()
    assert stored == ["2026-01-02 03:04:05.000678"] * 3
