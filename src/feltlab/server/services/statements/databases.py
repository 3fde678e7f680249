"""What differs between SQLite and PostgreSQL beyond a statement written for each
(:meth:`~.prepared.Prepared.per_dialect`): an INSERT that ignores a conflict, JSON rows,
a transaction's lock, how writes and reads are isolated, and who tells of a change."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from sqlalchemy import (
    BigInteger,
    Column,
    Connection,
    Engine,
    Integer,
    Table,
    bindparam,
    func,
    select,
)
from sqlalchemy.dialects import postgresql as _postgresql
from sqlalchemy.dialects import sqlite as _sqlite
from sqlalchemy.exc import CompileError
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql import Executable
from sqlalchemy.sql.elements import (
    ColumnElement,
)
from sqlalchemy.sql.functions import FunctionElement
from sqlalchemy.types import NullType

from feltlab.server.services.statements.prepared import DIALECTS, Prepared


def insert_ignoring(table: Table, index_elements: Sequence[str],
                    returning: Sequence[ColumnElement[Any]] = ()) -> Prepared:
    """``INSERT ... ON CONFLICT (index_elements) DO NOTHING`` on either database (with
    ``RETURNING returning``: no row when the row was there already)."""
    statements: dict[str, Executable] = {}
    for name, module in (("sqlite", _sqlite), ("postgresql", _postgresql)):
        statement: Any = module.insert(table).on_conflict_do_nothing(
            index_elements=list(index_elements))
        statements[name] = statement.returning(*returning) if returning else statement
    return Prepared.per_dialect(**statements)


class json_rows(FunctionElement[Any]):
    """An aggregate: one JSON array of the rows it sums up, each the JSON array of
    ``columns`` (``json_agg(json_build_array(...))`` on PostgreSQL, whose driver answers
    it decoded; ``json_group_array(json_array(...))`` on SQLite, answered as text)."""

    name = "json_rows"
    inherit_cache = True
    type = NullType()


@compiles(json_rows, "postgresql")
def _json_rows_postgresql(element: json_rows, compiler: Any, **kw: Any) -> str:
    return f"json_agg(json_build_array({compiler.process(element.clauses, **kw)}))"


@compiles(json_rows, "sqlite")
def _json_rows_sqlite(element: json_rows, compiler: Any, **kw: Any) -> str:
    return f"json_group_array(json_array({compiler.process(element.clauses, **kw)}))"


@compiles(json_rows)
def _json_rows_elsewhere(element: json_rows, compiler: Any, **kw: Any) -> str:
    raise CompileError(f"json_rows is written for {', '.join(DIALECTS)} only")


class next_id(FunctionElement[int | None]):
    """The id the database will give the next row of an autoincrement primary key
    ``column``, taken now (a read that knows a new row's id can insert it among the
    request's last writes): a value of its sequence on PostgreSQL (never given twice, so
    a read that inserts nothing leaves a gap); NULL on SQLite, which has no sequence (the
    row is inserted at once, and its id read back)."""

    name = "next_id"
    inherit_cache = True
    type = Integer()  # type: ignore[assignment]  # (SQLAlchemy's own functions do this)


@compiles(next_id, "postgresql")
def _next_id_postgresql(element: next_id, compiler: Any, **kw: Any) -> str:
    (column,) = element.clauses
    assert isinstance(column, Column) and isinstance(column.table, Table)
    return f"nextval(pg_get_serial_sequence('{column.table.name}', '{column.name}'))"


@compiles(next_id, "sqlite")
def _next_id_sqlite(element: next_id, compiler: Any, **kw: Any) -> str:
    return "NULL"


_TRANSACTION_LOCK = Prepared.per_dialect(sqlite=None, postgresql=select(
    func.pg_advisory_xact_lock(bindparam("key", type_=BigInteger))))


def transaction_lock(connection: Connection, key: int) -> bool:
    """Hold lock ``key`` (a signed 64-bit number) to the end of ``connection``'s
    transaction, waiting for it: PostgreSQL's advisory lock; nothing on SQLite, whose
    write transactions run one at a time already. Answers whether it locked (and may
    have waited: what was read before may have changed meanwhile)."""
    _TRANSACTION_LOCK.run(connection, {"key": key})
    return _TRANSACTION_LOCK.runs_on(connection)


def batches_in_one_statement(bind: Connection | Engine) -> bool:
    """Whether a :class:`~feltlab.server.services.statements.Batch` runs as one statement
    (PostgreSQL), and so is all or nothing even on a connection that commits each
    statement as it ends; on SQLite it runs one write at a time, in a transaction."""
    return bind.dialect.name == "postgresql"


def serial_writes(bind: Connection | Engine) -> bool:
    """Whether the database runs one write transaction at a time (SQLite: its writers
    queue, and begin once the one before has committed, so a writer reads the database as
    it is; its readers are best on an engine of their own); PostgreSQL runs them at once,
    each statement reading as of when it began, even after waiting for a row's lock."""
    return bind.dialect.name == "sqlite"


@contextmanager
def read_snapshot(engine: Engine) -> Iterator[Connection]:
    """One read transaction that sees the database as of its start, to its end:
    PostgreSQL's REPEATABLE READ (its default, READ COMMITTED, reads each statement as of
    when it began); on SQLite a plain (deferred) transaction, to which WAL gives one
    snapshot from its first read."""
    options: dict[str, Any] = (
        {"isolation_level": "REPEATABLE READ"} if engine.dialect.name == "postgresql" else {})
    with engine.connect().execution_options(**options) as connection, connection.begin():
        yield connection


def notifies(bind: Connection | Engine) -> bool:
    """Whether the database tells the connections that LISTEN of a change (PostgreSQL's
    NOTIFY); on SQLite the workers tell one another themselves."""
    return bind.dialect.name == "postgresql"


def database_name(bind: Connection | Engine) -> str:
    """The database's kind, as the server reports it (``sqlite`` or ``postgresql``)."""
    return bind.dialect.name
