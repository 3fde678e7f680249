"""A Core statement compiled once for each database and run on the driver's cursor
(:class:`Prepared`; the package's text says why)."""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Engine, bindparam
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql import Executable, Insert
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import (
    ClauseElement,
)
from sqlalchemy.sql.schema import ScalarElementColumnDefault
from sqlalchemy.sql.selectable import ReturnsRows

_CURSOR = "feltlab.cursor"
DIALECTS = ("sqlite", "postgresql")
"""The databases feltlab runs on; :meth:`Prepared.per_dialect` names a statement for each."""


@dataclass
class Form:
    """One statement compiled for one dialect (and one set of parameter names)."""

    sql: str
    defaults: dict[str, Any]
    bind_processors: tuple[tuple[str, Callable[[Any], Any]], ...]
    positions: tuple[str, ...] | None  # parameter order for a positional driver (SQLite)
    returns: bool  # whether the statement returns rows
    types: tuple[Any, ...]  # its columns' types
    row: Any = None  # the named tuple class of a row (known at the first run)
    result_processors: list[Callable[[Any], Any] | None] | None = field(default=None)
    raw: bool = False  # PostgreSQL's own $1 placeholders, run by psycopg's RawCursor

    def parameters(self, params: Mapping[str, Any]) -> Any:
        values = {**self.defaults, **params}
        for name, process in self.bind_processors:
            values[name] = process(values[name])
        if self.positions is None:
            return values
        return tuple([values[name] for name in self.positions])


def _compile(statement: Executable, dialect: Dialect, keys: Sequence[str]) -> Form:
    """What SQLAlchemy works out for ``statement`` on ``dialect``, through its public API:
    the SQL, the parameters' defaults, order and conversions, the columns' types (their
    conversions and names are taken at the first run, from the cursor's description:
    the names SQLAlchemy's rows have are the labels the SQL gives them, ``max_1`` for an
    unlabelled ``max()``)."""
    assert isinstance(statement, ClauseElement)
    compiled = statement.compile(dialect=dialect, column_keys=list(keys))
    assert isinstance(compiled, SQLCompiler)
    if "POSTCOMPILE" in compiled.string:
        raise ValueError("a statement with an expanding IN runs through SQLAlchemy "
                         "(Prepared.execute)")
    defaults = dict(compiled.params)
    prefetch = [(column, column.default) for column in compiled.insert_prefetch] + [
        (column, column.onupdate) for column in compiled.update_prefetch]
    for column, default in prefetch:  # (a multi-row INSERT's are columns of each row)
        if not isinstance(default, ScalarElementColumnDefault):
            raise ValueError(f"column {column.name} must be given: its default is computed")
        defaults[column.key] = default.arg
    processors = []
    for name, bind in compiled.binds.items():
        process = bind.type.dialect_impl(dialect).bind_processor(dialect)
        if process is not None and name in defaults:
            processors.append((name, process))
    columns: list[Any] = (list(statement.exported_columns)
                          if isinstance(statement, ReturnsRows) else [])
    positions = tuple(compiled.positiontup) if compiled.positiontup is not None else None
    return Form(compiled.string, defaults, tuple(processors), positions, bool(columns),
                 tuple(column.type for column in columns))


class Prepared:
    """A Core statement run on the driver's cursor (see the module's text).

    ``one_row_many`` forms, for an INSERT given several rows, put them all in one
    statement (``VALUES (...), (...)``), compiled once for each number of rows."""

    def __init__(self, statement: Executable) -> None:
        self._statements: dict[str, Executable | None] = dict.fromkeys(DIALECTS, statement)
        self._single: Executable | None = statement
        self._forms: dict[tuple[str, int, tuple[str, ...]], Form | None] = {}

    @classmethod
    def per_dialect(cls, *, sqlite: Executable | None, postgresql: Executable | None
                    ) -> Prepared:
        """A statement written for each database; None for one where there is nothing to
        run (there :meth:`run` answers no rows, :meth:`execute` None, and
        :meth:`runs_on` False). Both must be named, None or not."""
        if sqlite is None and postgresql is None:
            raise ValueError("a statement runs on one database at least")
        made = cls.__new__(cls)
        made._statements = {"sqlite": sqlite, "postgresql": postgresql}
        made._single = None
        made._forms = {}
        return made

    @property
    def statement(self) -> Executable:
        """The statement of ``Prepared(statement)`` (one made :meth:`per_dialect` has one
        for each database: :meth:`statement_for`)."""
        if self._single is None:
            raise TypeError("this statement is written for each database: statement_for()")
        return self._single

    def statement_for(self, bind: Connection | Engine | Dialect) -> Executable | None:
        """The statement as written for ``bind``'s database (None: nothing runs there)."""
        dialect = bind if isinstance(bind, Dialect) else bind.dialect
        try:
            return self._statements[dialect.name]
        except KeyError:
            raise ValueError(f"no statement is written for {dialect.name}") from None

    @property
    def written(self) -> list[Executable]:
        """The statement as written for each database that runs one."""
        return [statement for statement in self._statements.values() if statement is not None]

    def runs_on(self, bind: Connection | Engine | Dialect) -> bool:
        """Whether a statement runs on ``bind``'s database (see :meth:`per_dialect`)."""
        return self.statement_for(bind) is not None

    def form_for(self, dialect: Dialect, rows: int, keys: tuple[str, ...]) -> Form | None:
        key = (dialect.name, rows, keys)
        try:
            return self._forms[key]
        except KeyError:
            pass
        statement = self.statement_for(dialect)
        form: Form | None = None
        if statement is not None and rows:
            if not isinstance(statement, Insert):
                raise TypeError("only an INSERT takes several rows in one statement")
            columns = statement.table.c  # each row's values typed as their columns (a
            # bare bind is typed for the first row only: a later row's datetime went to
            # SQLite unconverted, written in another format)
            statement = statement.values([
                {name: bindparam(f"{name}_m{index}", type_=columns[name].type)
                 for name in keys}
                for index in range(rows)])
            form = _compile(statement, dialect, ())
        elif statement is not None:
            form = _compile(statement, dialect, keys)
        self._forms[key] = form
        return form

    def run(self, connection: Connection, params: Mapping[str, Any] | None = None
            ) -> list[Any]:
        """Run the statement with ``params``; its rows (none when it returns none)."""
        params = params or {}
        form = self.form_for(connection.dialect, 0, tuple(params))
        if form is None:
            return []
        return run_form(connection, form, form.parameters(params))

    def run_rows(self, connection: Connection, rows: Sequence[Mapping[str, Any]]
                 ) -> list[Any]:
        """An INSERT of ``rows`` (all with the same keys) as one statement; its rows."""
        if not rows:
            return []
        keys = tuple(rows[0])
        if any(tuple(row) != keys for row in rows):
            raise ValueError("the rows of one INSERT must name the same columns")
        form = self.form_for(connection.dialect, len(rows), keys)
        if form is None:
            return []
        params = {f"{name}_m{index}": value for index, row in enumerate(rows)
                  for name, value in row.items()}
        return run_form(connection, form, form.parameters(params))

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

    def execute(self, connection: Connection,
                parameters: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None
                ) -> Any:
        """The statement run by SQLAlchemy itself (its ``CursorResult``): for what the
        driver's cursor is not given here, as many rows at once (``executemany``) or an
        expanding IN. None where no statement runs."""
        statement = self.statement_for(connection)
        if statement is None:
            return None
        return connection.execute(statement, parameters)


def _cursor(connection: Connection, sql: str, raw: bool) -> Any:
    """The driver connection's cursor for the statement ``sql``, kept with it: a new
    cursor costs 15 us on psycopg, and psycopg keeps a cursor's type conversions only
    while it runs one statement again (its ``Transformer``: looking them up again costs
    about 20 us a statement). ``raw``: psycopg's ``RawCursor``, for SQL written with
    PostgreSQL's own placeholders."""
    driver = connection.connection.dbapi_connection
    kept = connection.info.get(_CURSOR)
    if kept is None or kept[0] is not driver:
        kept = connection.info[_CURSOR] = (driver, {})
    cursors: dict[str, Any] = kept[1]
    cursor = cursors.get(sql)
    if cursor is None:
        if raw:
            from psycopg import RawCursor

            cursor = cursors[sql] = RawCursor(driver)  # type: ignore[call-overload]
        else:
            cursor = cursors[sql] = driver.cursor()  # type: ignore[union-attr]
    return cursor


def run_form(connection: Connection, form: Form, parameters: Any) -> list[Any]:
    cursor = _cursor(connection, form.sql, form.raw)
    # the connection's listeners joined with its engine's, as SQLAlchemy fires them
    dispatch = connection.dispatch
    before, after = dispatch.before_cursor_execute, dispatch.after_cursor_execute
    if before:
        before(connection, cursor, form.sql, parameters, None, False)
    try:
        cursor.execute(form.sql, parameters)
        rows = cursor.fetchall() if form.returns else []
    except connection.dialect.loaded_dbapi.Error as error:
        _raise(connection, form, parameters, cursor, error)
    if after:
        after(connection, cursor, form.sql, parameters, None, False)
    if not form.returns:
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


def _result_processors(connection: Connection, form: Form, cursor: Any
                       ) -> list[Callable[[Any], Any] | None]:
    """Each column's conversion, as SQLAlchemy chooses it from the column's type and the
    driver's type code, and the row's names (read once, from the first execution's
    description)."""
    dialect = connection.dialect
    if form.row is None:
        form.row = namedtuple("Row", [column[0] for column in cursor.description])  # type: ignore[misc]
    codes = [column[1] for column in cursor.description]
    return [kind.dialect_impl(dialect).result_processor(dialect, code)
            for kind, code in zip(form.types, codes, strict=True)]


def _raise(connection: Connection, form: Form, parameters: Any, cursor: Any,
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

