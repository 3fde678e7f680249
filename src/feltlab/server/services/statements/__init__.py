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
row raises :class:`RowChangedTwice` at once, on either database. A write that must change a
row (a *guard*) refuses the whole batch if it changes none (:class:`Unchanged`).

Every difference between SQLite and PostgreSQL lives here: :meth:`Prepared.per_dialect`
(a statement written for each, or none on one: it then runs nothing there, and
:meth:`Prepared.runs_on` says so), :func:`insert_ignoring`, :func:`json_rows`,
:func:`next_id`, :func:`transaction_lock`, :func:`serial_writes`, :func:`read_snapshot` and
:func:`notifies`.
"""

from feltlab.server.services.statements.batch import Batch, Changes, Deferred, Unchanged
from feltlab.server.services.statements.changed_rows import (
    RowChangedTwice,
    RowKey,
    UnknownRows,
)
from feltlab.server.services.statements.databases import (
    batches_in_one_statement,
    database_name,
    insert_ignoring,
    json_rows,
    next_id,
    notifies,
    read_snapshot,
    serial_writes,
    transaction_lock,
)
from feltlab.server.services.statements.prepared import DIALECTS, Prepared

__all__ = ["DIALECTS", "Batch", "Changes", "Deferred", "Prepared", "RowChangedTwice", "RowKey",
           "Unchanged", "UnknownRows", "batches_in_one_statement", "database_name",
           "insert_ignoring", "json_rows", "next_id", "notifies", "read_snapshot", "serial_writes",
           "transaction_lock"]
