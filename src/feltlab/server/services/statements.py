"""The money path's statements: SQLAlchemy Core, compiled once for each database, run on
the driver's cursor.

SQLAlchemy spends more CPU running a cached statement than the driver and the database
spend on it: an execution context, a cursor result and its metadata, a row object
(110 us a statement on PostgreSQL, 45 on SQLite, against the driver's 60 and 11). A
money request runs seven or eight, so :class:`Prepared` keeps what SQLAlchemy works
out for a statement (its SQL, the order and conversions of its parameters, the
conversions and names of its columns) and runs it on the connection's own driver cursor.
The statement is still written in Core, in one place; its transaction is still the
connection's; event listeners on the engine (the benchmarks count statements with them)
still hear it; a driver error becomes SQLAlchemy's, and a lost connection is
invalidated, as SQLAlchemy does. tests/server/test_statements.py checks that every
statement answers what SQLAlchemy's own execution answers.

Rows are named tuples (by index, by name, unpacked). Parameters a statement does not
name keep their Core defaults; a column whose Python-side default SQLAlchemy would
compute at execution must be given (a scalar default is filled in).

A :class:`Batch` gathers a request's last writes, which need nothing of each other's
effects: on PostgreSQL they run as one statement (each a data-modifying ``WITH`` query),
on SQLite one after another.
"""

from __future__ import annotations

import re
from collections import namedtuple
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, bindparam
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql import Executable, Insert
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import ClauseElement
from sqlalchemy.sql.schema import ScalarElementColumnDefault
from sqlalchemy.types import NullType

_CURSOR = "feltlab.cursor"


@dataclass
class _Form:
    """One statement compiled for one dialect (and one set of parameter names)."""

    sql: str
    defaults: dict[str, Any]
    bind_processors: tuple[tuple[str, Callable[[Any], Any]], ...]
    positions: tuple[str, ...] | None  # parameter order for a positional driver (SQLite)
    row: Any  # the named tuple class of a row, None when the statement returns none
    types: tuple[Any, ...]
    result_processors: list[Callable[[Any], Any] | None] | None = field(default=None)

    def parameters(self, params: Mapping[str, Any]) -> Any:
        values = {**self.defaults, **params}
        for name, process in self.bind_processors:
            values[name] = process(values[name])
        if self.positions is None:
            return values
        return tuple([values[name] for name in self.positions])


def _compile(statement: Executable, dialect: Dialect, keys: Sequence[str]) -> _Form:
    assert isinstance(statement, ClauseElement)
    compiled = statement.compile(dialect=dialect, column_keys=list(keys))
    assert isinstance(compiled, SQLCompiler)
    if "POSTCOMPILE" in compiled.string:
        raise ValueError("a statement with an expanding IN runs through SQLAlchemy")
    defaults = dict(compiled.construct_params(_check=False))
    for column in (*compiled.insert_prefetch, *compiled.update_prefetch):
        default = column.default if column in compiled.insert_prefetch else column.onupdate
        if not isinstance(default, ScalarElementColumnDefault):
            raise ValueError(f"column {column.name} must be given: its default is computed")
        defaults[column.key] = default.arg
    processors = tuple((name, process) for name, process in
                       compiled._bind_processors.items()
                       if callable(process) and name in defaults)
    columns = compiled._result_columns
    row = namedtuple("Row", [column.keyname for column in columns]) if columns else None
    positions = tuple(compiled.positiontup) if compiled.positiontup is not None else None
    return _Form(compiled.string, defaults, processors, positions, row,
                 tuple(column.type for column in columns))


class Prepared:
    """A Core statement run on the driver's cursor (see the module's text).

    ``one_row_many`` forms, for an INSERT given several rows, put them all in one
    statement (``VALUES (...), (...)``), compiled once for each number of rows."""

    def __init__(self, statement: Executable) -> None:
        self.statement = statement
        self._forms: dict[tuple[str, int, tuple[str, ...]], _Form] = {}

    def _form(self, dialect: Dialect, rows: int, keys: tuple[str, ...]) -> _Form:
        key = (dialect.name, rows, keys)
        form = self._forms.get(key)
        if form is None:
            statement = self.statement
            if rows:
                if not isinstance(statement, Insert):
                    raise TypeError("only an INSERT takes several rows in one statement")
                statement = statement.values([
                    {name: bindparam(f"{name}_m{index}") for name in keys}
                    for index in range(rows)])
                form = _compile(statement, dialect, ())
            else:
                form = _compile(statement, dialect, keys)
            self._forms[key] = form
        return form

    def run(self, connection: Connection, params: Mapping[str, Any] | None = None
            ) -> list[Any]:
        """Run the statement with ``params``; its rows (none when it returns none)."""
        params = params or {}
        form = self._form(connection.dialect, 0, tuple(params))
        return _execute(connection, form, form.parameters(params))

    def run_rows(self, connection: Connection, rows: Sequence[Mapping[str, Any]]
                 ) -> list[Any]:
        """An INSERT of ``rows`` (all with the same keys) as one statement; its rows."""
        if not rows:
            return []
        keys = tuple(rows[0])
        if any(tuple(row) != keys for row in rows):
            raise ValueError("the rows of one INSERT must name the same columns")
        form = self._form(connection.dialect, len(rows), keys)
        params = {f"{name}_m{index}": value for index, row in enumerate(rows)
                  for name, value in row.items()}
        return _execute(connection, form, form.parameters(params))

    def first(self, connection: Connection, params: Mapping[str, Any] | None = None
              ) -> Any:
        """The first row, or None."""
        found = self.run(connection, params)
        return found[0] if found else None

    def scalar(self, connection: Connection, params: Mapping[str, Any] | None = None
               ) -> Any:
        """The first column of the first row, or None."""
        found = self.run(connection, params)
        return found[0][0] if found else None


def _cursor(connection: Connection) -> Any:
    """The driver connection's cursor, kept with it (a new one costs 15 us on psycopg)."""
    driver = connection.connection.dbapi_connection
    kept = connection.info.get(_CURSOR)
    if kept is None or kept[0] is not driver:
        kept = connection.info[_CURSOR] = (driver, driver.cursor())  # type: ignore[union-attr]
    return kept[1]


def _execute(connection: Connection, form: _Form, parameters: Any) -> list[Any]:
    cursor = _cursor(connection)
    listening = connection._has_events or connection.engine._has_events
    if listening:
        connection.dispatch.before_cursor_execute(connection, cursor, form.sql, parameters,
                                                  None, False)
    try:
        cursor.execute(form.sql, parameters)
        rows = cursor.fetchall() if form.row is not None else []
    except connection.dialect.loaded_dbapi.Error as error:
        _raise(connection, form, parameters, cursor, error)
    if listening:
        connection.dispatch.after_cursor_execute(connection, cursor, form.sql, parameters,
                                                 None, False)
    if form.row is None:
        return rows
    processors = form.result_processors
    if processors is None:
        processors = form.result_processors = _result_processors(connection, form, cursor)
    make = form.row._make
    if any(processors):
        return [make([value if process is None else process(value)
                      for process, value in zip(processors, found, strict=True)])
                for found in rows]
    return [make(found) for found in rows]


def _result_processors(connection: Connection, form: _Form, cursor: Any
                       ) -> list[Callable[[Any], Any] | None]:
    """Each column's conversion, as SQLAlchemy chooses it from the column's type and the
    driver's type code (read once, from the first execution's description)."""
    codes = [column[1] for column in cursor.description]
    return [kind._cached_result_processor(connection.dialect, code)
            for kind, code in zip(form.types, codes, strict=True)]


def _raise(connection: Connection, form: _Form, parameters: Any, cursor: Any,
           error: Exception) -> None:
    """A driver error as SQLAlchemy raises it; a lost connection is invalidated first,
    so that the pool replaces it and the money path may run its request again."""
    dialect = connection.dialect
    lost = dialect.is_disconnect(error,  # type: ignore[arg-type]
                                 connection.connection.dbapi_connection, cursor)
    if lost and not connection.invalidated:
        connection.invalidate(error)
    raise DBAPIError.instance(form.sql, parameters, error, dialect.loaded_dbapi.Error,
                              connection_invalidated=lost, dialect=dialect) from error


@dataclass
class Deferred:
    """One write of a :class:`Batch`: once the batch has run, ``values`` holds the first
    column of each row it returned, and ``then`` was called with them."""

    prepared: Prepared
    params: Mapping[str, Any]
    rows: Sequence[Mapping[str, Any]] | None
    then: Callable[[list[Any]], None] | None
    values: list[Any] = field(default_factory=list)

    def shape(self) -> tuple[Prepared, int, tuple[str, ...]]:
        if self.rows is None:
            return self.prepared, 0, tuple(self.params)
        return self.prepared, len(self.rows), tuple(self.rows[0])


_PLACEHOLDER = re.compile(r"%\((\w+)\)s")
_BATCHES: dict[tuple[tuple[Prepared, int, tuple[str, ...]], ...], _Form] = {}


class Batch:
    """Writes run together at the end of a transaction (see the module's text). None may
    change a row another changes, nor read what another writes: on PostgreSQL they all
    see the database as it was before the batch."""

    def __init__(self) -> None:
        self._items: list[Deferred] = []

    def add(self, prepared: Prepared, params: Mapping[str, Any],
            then: Callable[[list[Any]], None] | None = None) -> Deferred:
        item = Deferred(prepared, params, None, then)
        self._items.append(item)
        return item

    def add_rows(self, prepared: Prepared, rows: Sequence[Mapping[str, Any]],
                 then: Callable[[list[Any]], None] | None = None) -> Deferred:
        """An INSERT of several rows (see :meth:`Prepared.run_rows`); none: nothing."""
        item = Deferred(prepared, {}, rows, then)
        if rows:
            self._items.append(item)
        return item

    def run(self, connection: Connection) -> None:
        items, self._items = self._items, []
        if connection.dialect.name == "postgresql" and len(items) > 1:
            _run_together(connection, items)
        else:
            for item in items:
                found = (item.prepared.run(connection, item.params) if item.rows is None
                         else item.prepared.run_rows(connection, item.rows))
                item.values = [row[0] for row in found]
        for item in items:
            if item.then is not None:
                item.then(item.values)


def _run_together(connection: Connection, items: list[Deferred]) -> None:
    shape = tuple(item.shape() for item in items)
    form = _BATCHES.get(shape)
    forms = [prepared._form(connection.dialect, rows, keys) for prepared, rows, keys in shape]
    if form is None:
        form = _BATCHES[shape] = _together(forms)
    params: dict[str, Any] = {}
    for index, (item, member) in enumerate(zip(items, forms, strict=True)):
        values = member.parameters(item.params if item.rows is None else {
            f"{name}_m{row}": value for row, each in enumerate(item.rows)
            for name, value in each.items()})
        params |= {f"b{index}_{name}": value for name, value in values.items()}
    found = _execute(connection, form, params)[0]
    returning = iter(found)
    for item, member in zip(items, forms, strict=True):
        if member.row is not None:
            item.values = list(next(returning))


def _together(forms: list[_Form]) -> _Form:
    """One statement of several (PostgreSQL): each a ``WITH`` query, their parameters
    renamed apart; it answers, for each that returns rows, an array of their first
    column."""
    queries, answers = [], []
    for index, form in enumerate(forms):
        if "%%" in form.sql:
            raise ValueError("a batched statement may not hold a literal %")
        sql = _PLACEHOLDER.sub(f"%(b{index}_\\1)s", form.sql)
        queries.append(f"b{index} AS ({sql})")
        if form.row is not None:
            answers.append(f"ARRAY(SELECT v FROM b{index} AS x(v))")
    answers = answers or ["1"]
    row = namedtuple("Batch", [f"v{index}" for index in range(len(answers))])  # type: ignore[misc]
    return _Form(f"WITH {', '.join(queries)} SELECT {', '.join(answers)}", {}, (), None,
                 row, tuple(NullType() for _ in answers))
