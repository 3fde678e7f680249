"""The statements layer's rules and helpers (:mod:`feltlab.server.services.statements`):
a batch refuses two writes to one row; what differs between SQLite and PostgreSQL is
written once, there (a statement for each, INSERT ... ON CONFLICT DO NOTHING, JSON arrays
of rows, a transaction's lock); listeners on a connection hear its statements too."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import (
    Column,
    Engine,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    bindparam,
    delete,
    event,
    func,
    insert,
    literal_column,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import CompileError

from feltlab.core import jsontext
from feltlab.server.services.database import make_engine, write_connection
from feltlab.server.services.statements import (
    Batch,
    Prepared,
    RowChangedTwice,
    UnknownRows,
    insert_ignoring,
    json_rows,
    notifies,
    read_snapshot,
    serial_writes,
    transaction_lock,
)

METADATA = MetaData()
ITEMS = Table("items", METADATA, Column("id", Integer, primary_key=True),
              Column("name", String(40), nullable=False, unique=True),
              Column("amount", Integer, nullable=False, default=0))
PARTS = Table("parts", METADATA,
              Column("item_id", Integer, ForeignKey("items.id"), primary_key=True),
              Column("part", Integer, primary_key=True), Column("size", Integer))

MOVE = Prepared(update(ITEMS).where(ITEMS.c.id == bindparam("item_id"))
                .values(amount=bindparam("new_amount")))
MOVE_GUARDED = Prepared(update(ITEMS).where(bindparam("item_id") == ITEMS.c.id,
                                            ITEMS.c.amount >= 0)
                        .values(amount=bindparam("new_amount")))
MOVE_MANY = Prepared(update(ITEMS).where(ITEMS.c.id.in_([bindparam("a"), bindparam("b")]))
                     .values(amount=ITEMS.c.amount + 1))
DROP = Prepared(delete(ITEMS).where(ITEMS.c.id == bindparam("item_id")))
RESIZE = Prepared(update(PARTS).where(PARTS.c.item_id == bindparam("item"),
                                      PARTS.c.part == bindparam("which"))
                  .values(size=bindparam("new_size")))
ADD = Prepared(insert(ITEMS).returning(ITEMS.c.id))


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    made = make_engine(database_url)
    METADATA.create_all(made)
    with write_connection(made) as connection:
        connection.execute(insert(ITEMS), [{"name": f"i{index}", "amount": 1}
                                           for index in (1, 2, 3)])  # ids 1, 2, 3
        connection.execute(insert(PARTS), [{"item_id": 1, "part": part, "size": 0}
                                           for part in (1, 2)])
    yield made
    METADATA.drop_all(made)
    made.dispose()


# --- a batch: no two writes to one row -----------------------------------------------------

def test_two_writes_to_one_row_raise() -> None:
    batch = Batch()
    batch.add(MOVE, {"item_id": 1, "new_amount": 5})
    with pytest.raises(RowChangedTwice, match="items"):
        batch.add(MOVE, {"item_id": 1, "new_amount": 6})
    with pytest.raises(RowChangedTwice):  # the same row, by another statement
        batch.add(MOVE_GUARDED, {"item_id": 1, "new_amount": 6})
    with pytest.raises(RowChangedTwice):  # one of an IN's rows
        batch.add(MOVE_MANY, {"a": 3, "b": 1})
    with pytest.raises(RowChangedTwice):  # a DELETE changes its row too
        batch.add(DROP, {"item_id": 1})
    with pytest.raises(RowChangedTwice):  # named by hand, as the derived ones are
        batch.add(Prepared(text("UPDATE items SET amount = 0 WHERE name = 'i1'")), {},
                  changes=[(ITEMS, 1)])


def test_writes_to_distinct_rows_pass(engine: Engine) -> None:
    with write_connection(engine) as connection:
        batch = Batch()
        first = batch.add(MOVE, {"item_id": 1, "new_amount": 5})
        batch.add(MOVE_MANY, {"a": 2, "b": 3})
        batch.add(RESIZE, {"item": 1, "which": 1, "new_size": 7})
        batch.add(RESIZE, {"item": 1, "which": 2, "new_size": 8})  # another part's row
        batch.add(ADD, {"name": "new"})  # a new row: none another write changes
        batch.add_rows(ADD, [{"name": "new2"}, {"name": "new3"}])
        assert first.changes == (("items", (1,)),)
        batch.run(connection)
        amounts = dict(connection.execute(select(ITEMS.c.id, ITEMS.c.amount)
                                          .where(ITEMS.c.id <= 3)).all())
        assert amounts == {1: 5, 2: 2, 3: 2}
        sizes = connection.execute(select(PARTS.c.size).order_by(PARTS.c.part)).scalars()
        assert list(sizes) == [7, 8]
        again = Batch()
        again.add(MOVE, {"item_id": 1, "new_amount": 1})
        again.run(connection)
        again.add(MOVE, {"item_id": 1, "new_amount": 2})  # a run empties the batch
        again.run(connection)


def test_a_write_whose_rows_are_unknown_raises_when_added() -> None:
    batch = Batch()
    unknown: list[Any] = [
        update(ITEMS).where(ITEMS.c.name == bindparam("name")).values(amount=1),  # no key
        update(ITEMS).where(or_(ITEMS.c.id == bindparam("a"), ITEMS.c.id == bindparam("b")))
        .values(amount=1),
        update(ITEMS).values(amount=1),  # every row
        update(PARTS).where(PARTS.c.item_id == bindparam("item")).values(size=1),  # half
        update(ITEMS).where(ITEMS.c.id == select(func.max(ITEMS.c.id)).scalar_subquery())
        .values(amount=1),
        text("UPDATE items SET amount = 1"),
        sqlite.insert(ITEMS).on_conflict_do_update(index_elements=["name"],
                                                   set_={"amount": 1}),
        select(literal_column("1")).add_cte(update(ITEMS).values(amount=2).cte("moved")),
    ]
    for statement in unknown:
        with pytest.raises(UnknownRows):
            batch.add(Prepared(statement), {"name": "x", "a": 1, "b": 2, "item": 1})
    with pytest.raises(UnknownRows):
        batch.add(MOVE, {"new_amount": 1})  # the key not given
    batch.add(Prepared(text("UPDATE items SET amount = 1 WHERE name = 'i2'")), {},
              changes=[("items", 2)])
    batch.add(Prepared(text("SELECT 1")), {}, changes=())
    batch.add(insert_ignoring(ITEMS, ["name"]), {"name": "x"})  # no row that exists
    batch.add(Prepared(select(ITEMS.c.id)), {})  # a read changes nothing


def test_the_rows_of_a_batch_that_failed_to_be_added_are_not_kept() -> None:
    batch = Batch()
    batch.add(MOVE, {"item_id": 1, "new_amount": 5})
    with pytest.raises(RowChangedTwice):
        batch.add(MOVE_MANY, {"a": 2, "b": 1})
    batch.add(MOVE, {"item_id": 3, "new_amount": 5})


# --- what differs between the databases ----------------------------------------------------

def test_a_statement_for_each_database(engine: Engine) -> None:
    name = engine.dialect.name
    each = Prepared.per_dialect(sqlite=select(literal_column("'lite'").label("v")),
                                postgresql=select(literal_column("'pg'").label("v")))
    only = Prepared.per_dialect(sqlite=None, postgresql=select(literal_column("1").label("v")))
    with write_connection(engine) as connection:
        assert each.scalar(connection) == ("lite" if name == "sqlite" else "pg")
        assert each.runs_on(connection) and each.runs_on(engine)
        assert only.runs_on(connection) is (name == "postgresql")
        assert only.run(connection) == ([] if name == "sqlite" else [(1,)])
        assert (only.execute(connection) is None) is (name == "sqlite")
        assert each.execute(connection).scalar() == each.scalar(connection)
    with pytest.raises(TypeError, match="statement_for"):
        _ = each.statement
    with pytest.raises(ValueError, match="one database"):
        Prepared.per_dialect(sqlite=None, postgresql=None)


def test_insert_ignoring(engine: Engine) -> None:
    add = insert_ignoring(ITEMS, ["name"], returning=[ITEMS.c.id])
    quiet = insert_ignoring(ITEMS, ["name"])
    with write_connection(engine) as connection:
        assert add.run(connection, {"name": "i1", "amount": 9}) == []  # there already
        new = add.scalar(connection, {"name": "fresh", "amount": 9})
        assert new is not None and new > 3
        assert quiet.run(connection, {"name": "fresh"}) == []
        quiet.execute(connection, [{"name": "fresh", "amount": 1},
                                   {"name": "many", "amount": 2}])  # executemany
        amounts = dict(connection.execute(select(ITEMS.c.name, ITEMS.c.amount)).all())
    assert amounts == {"i1": 1, "i2": 1, "i3": 1, "fresh": 9, "many": 2}


def test_json_rows(engine: Engine) -> None:
    query = Prepared(select(json_rows(ITEMS.c.id, ITEMS.c.name).label("rows"))
                     .where(ITEMS.c.id <= bindparam("last")))
    with write_connection(engine) as connection:
        found = query.scalar(connection, {"last": 2})
        slow = connection.execute(query.statement, {"last": 2}).scalar()
        none = query.scalar(connection, {"last": 0})
        slow_none = connection.execute(query.statement, {"last": 0}).scalar()
    assert type(found) is type(slow)
    rows = found if isinstance(found, list) else jsontext.loads(str(found))
    assert sorted(rows) == [[1, "i1"], [2, "i2"]]
    assert none == slow_none and none in (None, "[]")  # no row: NULL, or SQLite's []
    statement: Any = query.statement
    dialects: dict[str, Any] = {"postgresql": postgresql.dialect, "sqlite": sqlite.dialect}
    assert "json_agg(json_build_array(items.id, items.name))" in str(
        statement.compile(dialect=dialects["postgresql"]()))
    assert "json_group_array(json_array(items.id, items.name))" in str(
        statement.compile(dialect=dialects["sqlite"]()))
    from sqlalchemy.dialects import mysql

    other: Any = mysql.dialect
    with pytest.raises(CompileError, match="json_rows"):
        statement.compile(dialect=other())


def test_transaction_lock(engine: Engine) -> None:
    told: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda *args: told.append(args[2]))
    with write_connection(engine) as connection:
        locked = transaction_lock(connection, -(2**63) + 5)  # any signed 64-bit key
        held = connection.execute(text(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'")).scalar() if (
            locked) else 0
    assert locked is (engine.dialect.name == "postgresql")
    assert held == (1 if locked else 0)
    assert serial_writes(engine) is (engine.dialect.name == "sqlite")
    assert len([sql for sql in told if "advisory_xact" in sql]) == (1 if locked else 0)


def test_a_read_snapshot_sees_the_database_as_of_its_start(database_url: str,
                                                           engine: Engine) -> None:
    reader = make_engine(database_url, writer=False)  # (SQLite: beside the one writer)
    count = select(func.count()).select_from(ITEMS)
    try:
        with read_snapshot(reader) as connection:
            before = connection.execute(count).scalar_one()
            with write_connection(engine) as writer:  # commits meanwhile
                writer.execute(insert(ITEMS).values(name="later", amount=1))
            after = connection.execute(count).scalar_one()
            level = connection.get_isolation_level()
        with reader.connect() as connection:
            now = connection.execute(count).scalar_one()
            plain = connection.get_isolation_level()
    finally:
        reader.dispose()
    assert (before, after, now) == (3, 3, 4)
    if engine.dialect.name == "postgresql":
        assert (level, plain) == ("REPEATABLE READ", "READ COMMITTED")  # that one only
    assert notifies(engine) is (engine.dialect.name == "postgresql")


# --- listeners -----------------------------------------------------------------------------

def test_listeners_on_a_connection_hear_its_statements(engine: Engine) -> None:
    heard: list[tuple[str, str]] = []
    with write_connection(engine) as connection:
        event.listen(connection, "before_cursor_execute",
                     lambda *args: heard.append(("before", args[2])))
        event.listen(connection, "after_cursor_execute",
                     lambda *args: heard.append(("after", args[2])))
        MOVE.run(connection, {"item_id": 1, "new_amount": 4})
    assert [when for when, _ in heard] == ["before", "after"]
    assert heard[0][1].startswith("UPDATE items")
    with engine.connect() as connection, connection.begin():  # another: nobody listens
        MOVE.run(connection, {"item_id": 1, "new_amount": 4})
    assert len(heard) == 2


def test_names_and_types_as_sqlalchemy_answers_them(engine: Engine) -> None:
    """Row names from the statement's exported columns, conversions from its types."""
    query = select(ITEMS.c.id, func.count().label("n"), (ITEMS.c.amount + 1).label("more"),
                   func.max(ITEMS.c.name)).group_by(ITEMS.c.id).order_by(ITEMS.c.id)
    with write_connection(engine) as connection:
        fast: Any = Prepared(query).run(connection)
        slow = list(connection.execute(query))
    assert fast[0]._fields == tuple(slow[0]._fields)
    assert [tuple(row) for row in fast] == [tuple(row) for row in slow]
