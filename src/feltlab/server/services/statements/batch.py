"""A request's last writes run together: one statement on PostgreSQL (each write a
data-modifying ``WITH`` query), one after another on SQLite (the package's text).

A write may be a *guard*: one that must change a row (it returns what it changed), or
else nothing of the batch is written and running it raises :class:`Unchanged`. On SQLite
the caller's transaction rolls back as the error passes through it; on PostgreSQL the
batch's statement raises from within (``feltlab_require``, migration 0017), so that a
batch run as its connection's only statement, in autocommit (:func:`statement_connection
<feltlab.server.services.database.statement_connection>`), is all or nothing by itself."""

from __future__ import annotations

import re
from collections import namedtuple
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Table
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.types import NullType

from feltlab.server.services.statements.changed_rows import (
    RowChangedTwice,
    RowKey,
    UnknownRows,
    changes_of,
)
from feltlab.server.services.statements.prepared import Form, Prepared, run_form


@dataclass
class Deferred:
    """One write of a :class:`Batch`: once the batch has run, ``values`` holds the first
    column of each row it returned (read by its caller, after the run). ``changes``: the
    rows it changes."""

    prepared: Prepared
    params: Mapping[str, Any]
    rows: Sequence[Mapping[str, Any]] | None
    guard: str | None = None
    values: list[Any] = field(default_factory=list)
    changes: tuple[RowKey, ...] = ()

    def shape(self) -> tuple[Prepared, int, tuple[str, ...], str | None]:
        if self.rows is None:
            return self.prepared, 0, tuple(self.params), self.guard
        return self.prepared, len(self.rows), tuple(self.rows[0]), self.guard


class Unchanged(Exception):
    """A batch's guard changed no row, so nothing of the batch was written (see the
    module's text); :attr:`guard` names it."""

    def __init__(self, guard: str) -> None:
        super().__init__(f"the batch's guard {guard!r} changed no row: nothing was written")
        self.guard = guard


GUARD_STATE = "FL001"
"""The SQLSTATE ``feltlab_require`` raises on PostgreSQL."""
_GUARD_NAME = re.compile(r"[a-z][a-z_]{0,40}")


Changes = Iterable[tuple["Table | str", Hashable]]
"""Rows named by hand: (table or its name, primary key value, or a tuple of them)."""

_PLACEHOLDER = re.compile(r"%\((\w+)\)s")
_Shape = tuple[tuple[Prepared, int, tuple[str, ...], str | None], ...]


@dataclass(frozen=True)
class _Together:
    """A batch's statement for one shape of writes (:func:`_together`), with the forms of
    the writes that run on the database (``present``: their places in the batch) and
    each one's parameters' names in the statement, in the order its form gives them."""

    form: Form
    present: tuple[int, ...]
    members: tuple[Form, ...]
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

    def add(self, prepared: Prepared, params: Mapping[str, Any], *,
            changes: Changes | None = None, guard: str | None = None) -> Deferred:
        """A write; ``guard``: its name, if it must change a row (see the module's
        text: it must return the rows it changes)."""
        if guard is not None and _GUARD_NAME.fullmatch(guard) is None:
            raise ValueError(f"a guard's name is lowercase letters and _, got {guard!r}")
        item = Deferred(prepared, params, None, guard)
        self._claim(item, changes, params)
        self._items.append(item)
        return item

    def add_rows(self, prepared: Prepared, rows: Sequence[Mapping[str, Any]], *,
                 changes: Changes | None = None) -> Deferred:
        """An INSERT of several rows (see :meth:`Prepared.run_rows`); none: nothing."""
        item = Deferred(prepared, {}, rows)
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
            derived = changes_of(item.prepared)
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

    def run(self, connection: Connection, *, one_statement: bool = False) -> None:
        """Run the writes; raises :class:`Unchanged` if a guard changed no row.
        ``one_statement``: on PostgreSQL the batch is one statement even if it holds one
        write (its connection commits each statement as it ends, so its guards must
        refuse the statement itself)."""
        items, self._items, self._changed = self._items, [], {}
        if connection.dialect.name == "postgresql" and (len(items) > 1 or (
                one_statement and any(item.guard for item in items))):
            _run_together(connection, items)
        else:
            for item in items:
                found = (item.prepared.run(connection, item.params) if item.rows is None
                         else item.prepared.run_rows(connection, item.rows))
                item.values = [row[0] for row in found]
        for item in items:
            if item.guard is not None and not item.values:
                raise Unchanged(item.guard)


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
    try:
        found = run_form(connection, together.form,
                         [params[name] for name in together.order])[0]
    except DBAPIError as error:
        diagnostics = getattr(error.orig, "diag", None)
        if getattr(diagnostics, "sqlstate", None) == GUARD_STATE:
            raise Unchanged(str(getattr(diagnostics, "message_primary", ""))) from None
        raise
    returning = iter(found)
    for place, member in zip(together.present, together.members, strict=True):
        if member.returns:
            items[place].values = list(next(returning))


def _member_parameters(item: Deferred, member: Form) -> dict[str, Any]:
    values = member.parameters(item.params if item.rows is None else {
        f"{name}_m{row}": value for row, each in enumerate(item.rows)
        for name, value in each.items()})
    assert isinstance(values, dict)  # PostgreSQL's parameters are named
    return values


def _together_of(dialect: Dialect, shape: _Shape, items: list[Deferred]) -> _Together:
    forms = [prepared.form_for(dialect, rows, keys) for prepared, rows, keys, _ in shape]
    present = tuple(place for place, member in enumerate(forms) if member is not None)
    members = tuple(member for member in forms if member is not None)
    guards = tuple(shape[place][3] for place in present)
    for guard, member in zip(guards, members, strict=True):
        if guard is not None and not member.returns:
            raise ValueError(f"the guard {guard!r} must return the rows it changes")
    # a form's parameters come in one order for one shape: its defaults', then the
    # write's own (the shape names them, in order)
    names = tuple(tuple(f"b{index}_{name}" for name in _member_parameters(items[place], member))
                  for index, (place, member) in enumerate(zip(present, members, strict=True)))
    form, order = _together(list(members), guards)
    return _Together(form, present, members, names, order)


def _together(forms: list[Form], guards: Sequence[str | None]
              ) -> tuple[Form, tuple[str, ...]]:
    """One statement of several (PostgreSQL): each a ``WITH`` query, their parameters
    renamed apart; it answers, for each that returns rows, an array of their first
    column, and refuses itself if a guard returned none. Its parameters are
    PostgreSQL's own ``$1``, ``$2``..., in the order of the names answered beside it:
    psycopg converts ``%(name)s`` afresh at every run for a statement of over 50
    parameters (3% of an operator's money request's CPU)."""
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
    answers += [f"feltlab_require(EXISTS (SELECT FROM b{index}), '{guard}')"
                for index, guard in enumerate(guards) if guard is not None]
    row = namedtuple("Batch", [f"v{index}" for index in range(len(answers))])  # type: ignore[misc]
    form = Form(f"WITH {', '.join(queries)} SELECT {', '.join(answers)}", {}, (), None,
                 True, tuple(NullType() for _ in answers), row, raw=True)
    return form, tuple(order)
