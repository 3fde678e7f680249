"""The rows a write changes, derived from its statement (an UPDATE's or DELETE's ``WHERE``
on the primary key; none for an INSERT or a read), so that a :class:`~.batch.Batch`
refuses two writes of one row."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Table
from sqlalchemy.exc import CompileError
from sqlalchemy.sql import Delete, Executable, Insert, Update, operators, visitors
from sqlalchemy.sql.elements import (
    BinaryExpression,
    BindParameter,
    BooleanClauseList,
    ClauseElement,
    ClauseList,
    Grouping,
)
from sqlalchemy.sql.selectable import ReturnsRows

from feltlab.server.services.statements.prepared import Prepared

RowKey = tuple[str, tuple[Any, ...]]
"""A row: its table's name and its primary key's values."""


class RowChangedTwice(ValueError):
    """Two writes of one :class:`Batch` change one row (on PostgreSQL one would be lost)."""


class UnknownRows(ValueError):
    """A write added to a :class:`Batch` whose changed rows cannot be derived and are not
    named (``changes=``)."""


@dataclass(frozen=True)
class ChangedRows:
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


def _keyed(statement: Update | Delete) -> ChangedRows:
    """An UPDATE's or DELETE's rows: its ``WHERE`` must pin every column of its table's
    primary key (``=`` a parameter, or ``IN`` a list of them) in a conjunction."""
    table = statement.table
    if not isinstance(table, Table) or not table.primary_key.columns:
        return ChangedRows(unknown="its table has no primary key")
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
        return ChangedRows(unknown=f"its WHERE does not pin {table.name}'s primary key to "
                                "parameters")
    return ChangedRows(((table.name, tuple(pinned[name] for name in names)),))


def _derived(statement: Executable) -> ChangedRows:
    """The rows ``statement`` changes, as far as its structure tells them."""
    if isinstance(statement, Update | Delete):
        for element in visitors.iterate(statement.whereclause) if (
                statement.whereclause is not None) else ():
            if isinstance(element, Update | Delete):
                return ChangedRows(unknown="it changes rows in a subquery")
        return _keyed(statement)
    if not isinstance(statement, ClauseElement):
        return ChangedRows(unknown="it is no SQL expression")
    for element in visitors.iterate(statement):
        if isinstance(element, Update | Delete):
            return ChangedRows(unknown="it holds an UPDATE or DELETE")
        if isinstance(element, Insert) and _upserts(element):
            return ChangedRows(unknown="an INSERT ... ON CONFLICT DO UPDATE changes a row")
    if isinstance(statement, Insert | ReturnsRows):
        return ChangedRows()  # new rows, or a read
    return ChangedRows(unknown="a textual statement may change any row")


def _upserts(statement: Insert) -> bool:
    try:
        return "DO UPDATE" in str(statement)
    except CompileError:
        return True


_KNOWN: dict[Prepared, ChangedRows] = {}


def changes_of(prepared: Prepared) -> ChangedRows:
    """The rows ``prepared`` changes, as its statements' structure tells them (worked out
    once a statement)."""
    found = _KNOWN.get(prepared)
    if found is None:
        each = [_derived(statement) for statement in prepared.written]
        unknown = next((item.unknown for item in each if item.unknown), None)
        found = _KNOWN[prepared] = ChangedRows(
            tuple(dict.fromkeys(table for item in each for table in item.tables)), unknown)
    return found
