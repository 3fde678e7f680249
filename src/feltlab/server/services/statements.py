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

Only SQLAlchemy's public API is used: the compiled statement's ``string``, ``params``,
``binds``, ``positiontup`` and prefetch columns, the statement's ``exported_columns``, each
type's ``dialect_impl(...).bind_processor`` and ``result_processor``, and the
connection's event ``dispatch`` (the attribute through which SQLAlchemy itself fires
``before_cursor_execute`` and ``after_cursor_execute``; a listener collection is true
when it holds a listener), which cost what the private attributes cost: the process's
CPU for a read, an UPDATE and an INSERT of a six-column table was 6, 6 and 9 us a
statement on SQLite, 23, 26 and 28 on PostgreSQL, against SQLAlchemy's 19, 19, 26 and
76, 62, 64 (the driver's own read: 2 and 19).

Rows are named tuples (by index, by name, unpacked). Parameters a statement does not
name keep their Core defaults; a column whose Python-side default SQLAlchemy would
compute at execution must be given (a scalar default is filled in).

A :class:`Batch` gathers a request's last writes, which need nothing of each other's
effects: on PostgreSQL they run as one statement (each a data-modifying ``WITH`` query),
on SQLite one after another. There they all see one snapshot, so two of them changing
one row would silently lose one: each write names the rows it changes (derived from an
UPDATE's or DELETE's ``WHERE`` on the primary key, or given), and a second write to a
row raises :class:`RowChangedTwice` at once, on either database.

Every difference between SQLite and PostgreSQL lives here: :meth:`Prepared.per_dialect`
(a statement written for each, or none on one: it then runs nothing there, and
:meth:`Prepared.runs_on` says so), :func:`insert_ignoring`, :func:`json_rows`,
:func:`transaction_lock`, :func:`serial_writes`, :func:`read_snapshot` and
:func:`notifies`.
"""

from __future__ import annotations

import itertools
import re
from collections import namedtuple
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import BigInteger, Connection, Engine, Table, bindparam, func, select
from sqlalchemy.dialects import postgresql as _postgresql
from sqlalchemy.dialects import sqlite as _sqlite
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import CompileError, DBAPIError
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql import Delete, Executable, Insert, Update, operators, visitors
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import (
    BinaryExpression,
    BindParameter,
    BooleanClauseList,
    ClauseElement,
    ClauseList,
    ColumnElement,
    Grouping,
)
from sqlalchemy.sql.functions import FunctionElement
from sqlalchemy.sql.schema import ScalarElementColumnDefault
from sqlalchemy.sql.selectable import ReturnsRows
from sqlalchemy.types import NullType

_CURSOR = "feltlab.cursor"
DIALECTS = ("sqlite", "postgresql")
"""The databases feltlab runs on; :meth:`Prepared.per_dialect` names a statement for each."""


@dataclass
class _Form:
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


def _compile(statement: Executable, dialect: Dialect, keys: Sequence[str]) -> _Form:
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
    return _Form(compiled.string, defaults, tuple(processors), positions, bool(columns),
                 tuple(column.type for column in columns))


class Prepared:
    """A Core statement run on the driver's cursor (see the module's text).

    ``one_row_many`` forms, for an INSERT given several rows, put them all in one
    statement (``VALUES (...), (...)``), compiled once for each number of rows."""

    def __init__(self, statement: Executable) -> None:
        self._statements: dict[str, Executable | None] = dict.fromkeys(DIALECTS, statement)
        self._single: Executable | None = statement
        self._forms: dict[tuple[str, int, tuple[str, ...]], _Form | None] = {}
        self._changes: _Changes | None = None

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
        made._changes = None
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

    def runs_on(self, bind: Connection | Engine | Dialect) -> bool:
        """Whether a statement runs on ``bind``'s database (see :meth:`per_dialect`)."""
        return self.statement_for(bind) is not None

    def _form(self, dialect: Dialect, rows: int, keys: tuple[str, ...]) -> _Form | None:
        key = (dialect.name, rows, keys)
        try:
            return self._forms[key]
        except KeyError:
            pass
        statement = self.statement_for(dialect)
        form: _Form | None = None
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
        form = self._form(connection.dialect, 0, tuple(params))
        if form is None:
            return []
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
        if form is None:
            return []
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


def _execute(connection: Connection, form: _Form, parameters: Any) -> list[Any]:
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


def _result_processors(connection: Connection, form: _Form, cursor: Any
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


# --- the rows a write changes -----------------------------------------------------------------

RowKey = tuple[str, tuple[Any, ...]]
"""A row: its table's name and its primary key's values."""


class RowChangedTwice(ValueError):
    """Two writes of one :class:`Batch` change one row (on PostgreSQL one would be lost)."""


class UnknownRows(ValueError):
    """A write added to a :class:`Batch` whose changed rows cannot be derived and are not
    named (``changes=``)."""


@dataclass(frozen=True)
class _Changes:
    """How a statement's parameters name the rows it changes: for each table, each
    primary key column's binds (any of whose values); ``unknown`` says why they
    cannot be derived."""

    tables: tuple[tuple[str, tuple[tuple[BindParameter[Any], ...], ...]], ...] = ()
    unknown: str | None = None

    def rows(self, params: Mapping[str, Any]) -> list[RowKey]:
        found: list[RowKey] = []
        for table, columns in self.tables:
            values = [[_value(bind, params) for bind in binds] for binds in columns]
            found += [(table, key) for key in itertools.product(
                *(_flat(each) for each in values))]
        return found


def _value(bind: BindParameter[Any], params: Mapping[str, Any]) -> Any:
    if bind.key in params:
        return params[bind.key]
    if bind.callable is not None:
        return bind.callable()
    if bind.required and bind.value is None:
        raise UnknownRows(f"parameter {bind.key!r} names the row changed: give it")
    return bind.value


def _flat(values: list[Any]) -> list[Any]:
    """The values of several binds of one column (an IN), an expanding one's flattened."""
    flat: list[Any] = []
    for value in values:
        flat += list(value) if isinstance(value, list | tuple) else [value]
    return flat


def _binds(element: Any) -> tuple[BindParameter[Any], ...] | None:
    """The binds of ``element``: one, or an IN's list of them; None if anything else."""
    while isinstance(element, Grouping):
        element = element.element
    if isinstance(element, BindParameter):
        return (element,)
    if isinstance(element, ClauseList):
        found: list[BindParameter[Any]] = []
        for each in element.clauses:
            binds = _binds(each)
            if binds is None:
                return None
            found += binds
        return tuple(found)
    return None


def _keyed(statement: Update | Delete) -> _Changes:
    """An UPDATE's or DELETE's rows: its ``WHERE`` must pin every column of its table's
    primary key (``=`` a parameter, or ``IN`` a list of them) in a conjunction."""
    table = statement.table
    if not isinstance(table, Table) or not table.primary_key.columns:
        return _Changes(unknown="its table has no primary key")
    where = statement.whereclause
    terms = [] if where is None else (
        list(where.clauses) if isinstance(where, BooleanClauseList)
        and where.operator is operators.and_ else [where])
    pinned: dict[str, tuple[BindParameter[Any], ...]] = {}
    for each in terms:
        term: Any = each
        while isinstance(term, Grouping):
            term = term.element
        if not isinstance(term, BinaryExpression) or term.operator not in (
                operators.eq, operators.in_op):
            continue
        column: Any = term.left
        other: Any = term.right
        if term.operator is operators.eq and isinstance(column, BindParameter):
            column, other = other, column
        binds = _binds(other)
        if (binds is not None and getattr(column, "table", None) is table
                and any(column is key for key in table.primary_key.columns)):
            pinned.setdefault(column.key, binds)
    names = [column.key for column in table.primary_key.columns]
    if any(name not in pinned for name in names):
        return _Changes(unknown=f"its WHERE does not pin {table.name}'s primary key to "
                                "parameters")
    return _Changes(((table.name, tuple(pinned[name] for name in names)),))


def _derived(statement: Executable) -> _Changes:
    """The rows ``statement`` changes, as far as its structure tells them."""
    if isinstance(statement, Update | Delete):
        for element in visitors.iterate(statement.whereclause) if (
                statement.whereclause is not None) else ():
            if isinstance(element, Update | Delete):
                return _Changes(unknown="it changes rows in a subquery")
        return _keyed(statement)
    if not isinstance(statement, ClauseElement):
        return _Changes(unknown="it is no SQL expression")
    for element in visitors.iterate(statement):
        if isinstance(element, Update | Delete):
            return _Changes(unknown="it holds an UPDATE or DELETE")
        if isinstance(element, Insert) and _upserts(element):
            return _Changes(unknown="an INSERT ... ON CONFLICT DO UPDATE changes a row")
    if isinstance(statement, Insert | ReturnsRows):
        return _Changes()  # new rows, or a read
    return _Changes(unknown="a textual statement may change any row")


def _upserts(statement: Insert) -> bool:
    try:
        return "DO UPDATE" in str(statement)
    except CompileError:
        return True


def _changes_of(prepared: Prepared) -> _Changes:
    found = prepared._changes
    if found is None:
        each = [_derived(statement) for statement in prepared._statements.values()
                if statement is not None]
        unknown = next((item.unknown for item in each if item.unknown), None)
        found = prepared._changes = _Changes(
            tuple(dict.fromkeys(table for item in each for table in item.tables)), unknown)
    return found


# --- a batch of writes ------------------------------------------------------------------------

@dataclass
class Deferred:
    """One write of a :class:`Batch`: once the batch has run, ``values`` holds the first
    column of each row it returned, and ``then`` was called with them. ``changes``: the
    rows it changes."""

    prepared: Prepared
    params: Mapping[str, Any]
    rows: Sequence[Mapping[str, Any]] | None
    then: Callable[[list[Any]], None] | None
    values: list[Any] = field(default_factory=list)
    changes: tuple[RowKey, ...] = ()

    def shape(self) -> tuple[Prepared, int, tuple[str, ...]]:
        if self.rows is None:
            return self.prepared, 0, tuple(self.params)
        return self.prepared, len(self.rows), tuple(self.rows[0])


Changes = Iterable[tuple["Table | str", Hashable]]
"""Rows named by hand: (table or its name, primary key value, or a tuple of them)."""

_PLACEHOLDER = re.compile(r"%\((\w+)\)s")
_Shape = tuple[tuple[Prepared, int, tuple[str, ...]], ...]


@dataclass(frozen=True)
class _Together:
    """A batch's statement for one shape of writes (:func:`_together`), with the forms of
    the writes that run on the database (``present``: their places in the batch) and
    each one's parameters' names in the statement, in the order its form gives them."""

    form: _Form
    present: tuple[int, ...]
    members: tuple[_Form, ...]
    names: tuple[tuple[str, ...], ...]
    order: tuple[str, ...]  # the names in the order of the statement's $1, $2, ...


_BATCHES: dict[_Shape, _Together] = {}


class Batch:
    """Writes run together at the end of a transaction (see the module's text). None may
    change a row another changes, nor read what another writes: on PostgreSQL they all
    see the database as it was before the batch.

    The first rule is enforced: each write's changed rows are derived from its statement
    (an INSERT changes none that exists; an UPDATE or DELETE those its ``WHERE`` pins by
    primary key) or named with ``changes`` (``()``: none), and a write to a row another
    write of the batch changes raises :class:`RowChangedTwice` when it is added; a write
    whose rows are neither derived nor named raises :class:`UnknownRows`."""

    def __init__(self) -> None:
        self._items: list[Deferred] = []
        self._changed: dict[RowKey, Deferred] = {}

    def add(self, prepared: Prepared, params: Mapping[str, Any],
            then: Callable[[list[Any]], None] | None = None, *,
            changes: Changes | None = None) -> Deferred:
        item = Deferred(prepared, params, None, then)
        self._claim(item, changes, params)
        self._items.append(item)
        return item

    def add_rows(self, prepared: Prepared, rows: Sequence[Mapping[str, Any]],
                 then: Callable[[list[Any]], None] | None = None, *,
                 changes: Changes | None = None) -> Deferred:
        """An INSERT of several rows (see :meth:`Prepared.run_rows`); none: nothing."""
        item = Deferred(prepared, {}, rows, then)
        if rows:
            self._claim(item, changes, None)
            self._items.append(item)
        return item

    def _claim(self, item: Deferred, changes: Changes | None,
               params: Mapping[str, Any] | None) -> None:
        if changes is not None:
            named = [(table if isinstance(table, str) else table.name,
                      key if isinstance(key, tuple) else (key,)) for table, key in changes]
        else:
            derived = _changes_of(item.prepared)
            if derived.unknown is not None:
                raise UnknownRows(f"name the rows this write changes (changes=): "
                                  f"{derived.unknown}")
            named = [] if not derived.tables else [
                row for each in ([params] if params is not None else item.rows or [])
                for row in derived.rows(each)]
        for row in named:
            other = self._changed.get(row)
            if other is not None and other is not item:
                raise RowChangedTwice(f"row {row[1]} of {row[0]} is changed by two writes "
                                      "of one batch (on PostgreSQL one would be lost)")
            self._changed[row] = item
        item.changes = tuple(named)

    def run(self, connection: Connection) -> None:
        items, self._items, self._changed = self._items, [], {}
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
    together = _BATCHES.get(shape)
    if together is None:
        together = _BATCHES[shape] = _together_of(connection.dialect, shape, items)
    params: dict[str, Any] = {}
    for place, member, names in zip(together.present, together.members, together.names,
                                    strict=True):
        params.update(zip(names, _member_parameters(items[place], member).values(),
                          strict=True))
    found = _execute(connection, together.form, [params[name] for name in together.order])[0]
    returning = iter(found)
    for place, member in zip(together.present, together.members, strict=True):
        if member.returns:
            items[place].values = list(next(returning))


def _member_parameters(item: Deferred, member: _Form) -> dict[str, Any]:
    values = member.parameters(item.params if item.rows is None else {
        f"{name}_m{row}": value for row, each in enumerate(item.rows)
        for name, value in each.items()})
    assert isinstance(values, dict)  # PostgreSQL's parameters are named
    return values


def _together_of(dialect: Dialect, shape: _Shape, items: list[Deferred]) -> _Together:
    forms = [prepared._form(dialect, rows, keys) for prepared, rows, keys in shape]
    present = tuple(place for place, member in enumerate(forms) if member is not None)
    members = tuple(member for member in forms if member is not None)
    # a form's parameters come in one order for one shape: its defaults', then the
    # write's own (the shape names them, in order)
    names = tuple(tuple(f"b{index}_{name}" for name in _member_parameters(items[place], member))
                  for index, (place, member) in enumerate(zip(present, members, strict=True)))
    form, order = _together(list(members))
    return _Together(form, present, members, names, order)


def _together(forms: list[_Form]) -> tuple[_Form, tuple[str, ...]]:
    """One statement of several (PostgreSQL): each a ``WITH`` query, their parameters
    renamed apart; it answers, for each that returns rows, an array of their first
    column. Its parameters are PostgreSQL's own ``$1``, ``$2``..., in the order of the
    names answered beside it: psycopg converts ``%(name)s`` afresh at every run for a
    statement of over 50 parameters (3% of an operator's money request's CPU)."""
    queries, answers = [], []
    order: dict[str, str] = {}

    def numbered(index: int) -> Callable[[re.Match[str]], str]:
        def number(match: re.Match[str]) -> str:
            return order.setdefault(f"b{index}_{match[1]}", f"${len(order) + 1}")
        return number

    for index, form in enumerate(forms):
        if "%%" in form.sql or "$" in form.sql:
            raise ValueError("a batched statement may not hold a literal % or $")
        sql = _PLACEHOLDER.sub(numbered(index), form.sql)
        queries.append(f"b{index} AS ({sql})")
        if form.returns:
            answers.append(f"ARRAY(SELECT v FROM b{index} AS x(v))")
    answers = answers or ["1"]
    row = namedtuple("Batch", [f"v{index}" for index in range(len(answers))])  # type: ignore[misc]
    form = _Form(f"WITH {', '.join(queries)} SELECT {', '.join(answers)}", {}, (), None,
                 True, tuple(NullType() for _ in answers), row, raw=True)
    return form, tuple(order)


# --- what differs between the databases -------------------------------------------------------

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


_TRANSACTION_LOCK = Prepared.per_dialect(sqlite=None, postgresql=select(
    func.pg_advisory_xact_lock(bindparam("key", type_=BigInteger))))


def transaction_lock(connection: Connection, key: int) -> bool:
    """Hold lock ``key`` (a signed 64-bit number) to the end of ``connection``'s
    transaction, waiting for it: PostgreSQL's advisory lock; nothing on SQLite, whose
    write transactions run one at a time already. Answers whether it locked (and may
    have waited: what was read before may have changed meanwhile)."""
    _TRANSACTION_LOCK.run(connection, {"key": key})
    return _TRANSACTION_LOCK.runs_on(connection)


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
