"""The database's part in live updates across workers (:mod:`feltlab.server.notify`):
PostgreSQL's NOTIFY and LISTEN, and the reads that find changes nobody announced.

Each table has a channel of its own (:func:`channel`), and a worker LISTENs only on the
channels of the tables its watchers follow (:class:`Following`): a change of a table
nobody watches is heard by no worker, and a worker with watchers of a few tables hears
nothing of the thousands of others, however many workers and hosts there are."""

from __future__ import annotations

import contextlib
import select
import socket
import threading
from collections.abc import Callable
from concurrent.futures import Future, InvalidStateError
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    Boolean,
    ColumnElement,
    Engine,
    String,
    bindparam,
    column,
    func,
    literal,
    text,
)

from feltlab.server.services.statements import Batch, Prepared

if TYPE_CHECKING:
    import psycopg

CHANNEL_PREFIX = "feltlab_table_"
REVOKED_CHANNEL = "feltlab_revoked"
"""The channel of revocations (:mod:`feltlab.server.revocations`), which every worker
hears."""
NOTIFY_BYTES = 7_900
"""The largest NOTIFY payload sent (PostgreSQL refuses one of 8000 bytes or more)."""

_NOTIFY = text("SELECT pg_notify(:channel, :payload)")
_NOTIFY_IN = Prepared.per_dialect(sqlite=None, postgresql=text(
    "SELECT pg_notify(:channel, :payload) IS NULL AS sent").columns(column("sent", Boolean)))
"""A NOTIFY that answers a row (``pg_notify`` answers nothing), so that it runs as one of
a batch's ``WITH`` queries: PostgreSQL skips those nobody reads."""
_LAST_EVENT = text("SELECT COALESCE(MAX(id), 0) FROM round_events")
_LAST_SEAT = text("SELECT COALESCE(MAX(id), 0) FROM table_seats")
_NEW_EVENTS = text("SELECT r.table_id, MAX(e.id) FROM round_events e JOIN rounds r "
                   "ON r.id = e.round_id WHERE e.id > :last GROUP BY r.table_id")
_NEW_SEATS = text("SELECT table_id, MAX(id) FROM table_seats WHERE id > :last "
                  "GROUP BY table_id")


def with_state(head: str, wire: str | None, limit: int) -> str:
    """A live update's payload: ``head`` (the table, and on PostgreSQL the sender's mark)
    then, if the whole fits in ``limit`` bytes, ``:`` and the table's new state."""
    if wire is None or len(head) + 1 + len(wire.encode()) > limit:
        return head
    return f"{head}:{wire}"


def channel(table_id: int) -> str:
    """The NOTIFY channel of one table's changes.

    >>> channel(42)
    'feltlab_table_42'
    """
    return f"{CHANNEL_PREFIX}{int(table_id)}"


def notify_at_commit(table_id: ColumnElement[int]) -> ColumnElement[object]:
    """A column that NOTIFYs the workers following the row's table that it changed, sent
    by PostgreSQL when the statement's transaction commits (and never if it rolls back):
    a money request announces its change with no statement or transaction of its own.
    The payload is ``TABLE:ORIGIN`` as :func:`notify` sends it (bind ``origin``)."""
    return func.pg_notify(func.concat(literal(CHANNEL_PREFIX, String), table_id),
                          func.concat(table_id, ":", bindparam("origin", type_=String))
                          ).label("notified")


def notify(engine: Engine, table_id: int, payload: str) -> None:
    """``NOTIFY`` the workers following table ``table_id`` (PostgreSQL)."""
    with engine.connect() as connection:
        connection.execute(_NOTIFY, {"channel": channel(table_id), "payload": payload})
        connection.commit()


def notify_revoked(engine: Engine, payload: str) -> None:
    """``NOTIFY`` every worker of a revocation (PostgreSQL)."""
    with engine.connect() as connection:
        connection.execute(_NOTIFY, {"channel": REVOKED_CHANNEL, "payload": payload})
        connection.commit()


class Following:
    """The tables whose channels a worker's listener LISTENs on: those its watchers
    follow (:meth:`want`, from any thread). The listener applies each change in its own
    thread, woken through a socket pair; :meth:`ready` answers a future that is done once
    the table's changes are heard (so that a new watcher reads the table only after
    that, and misses nothing between its read and the LISTEN)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._wanted: set[int] = set()
        self._listening: set[int] = set()
        self._waiting: dict[int, list[Future[None]]] = {}
        self._wake_in, self._wake_out = socket.socketpair()
        for end in (self._wake_in, self._wake_out):
            end.setblocking(False)

    def want(self, table_id: int, wanted: bool) -> None:
        """Start (or stop) hearing the table's changes."""
        with self._lock:
            (self._wanted.add if wanted else self._wanted.discard)(table_id)
        with contextlib.suppress(BlockingIOError):  # woken already
            self._wake_out.send(b"!")

    def ready(self, table_id: int) -> Future[None]:
        """Done once the table's changes are heard (at once if they are already)."""
        future: Future[None] = Future()
        with self._lock:
            if table_id in self._listening:
                future.set_result(None)
            else:
                self._waiting.setdefault(table_id, []).append(future)
        return future

    def wake_socket(self) -> socket.socket:
        """Readable when :meth:`want` changed something (for the listener's poll)."""
        return self._wake_in

    def changes(self) -> tuple[list[int], list[int]]:
        """The tables to LISTEN to and to stop listening to, now."""
        with contextlib.suppress(BlockingIOError):
            while self._wake_in.recv(4096):
                pass
        with self._lock:
            return (sorted(self._wanted - self._listening),
                    sorted(self._listening - self._wanted))

    def applied(self, started: list[int], stopped: list[int]) -> None:
        """The listener now LISTENs to ``started`` and no longer to ``stopped``: the
        watchers waiting for ``started`` go on."""
        with self._lock:
            self._listening.update(started)
            self._listening.difference_update(stopped)
            done = [future for table_id in started
                    for future in self._waiting.pop(table_id, [])]
            for table_id in [table for table in self._waiting if table not in self._wanted]:
                done += self._waiting.pop(table_id)  # its watcher left before it was heard
        for future in done:
            with contextlib.suppress(InvalidStateError):  # its watcher stopped waiting
                future.set_result(None)

    def lost(self) -> None:
        """The listener's connection is gone: nothing is heard until it LISTENs again."""
        with self._lock:
            self._listening.clear()


def listen(engine: Engine, stop: threading.Event, heard: Callable[[list[str]], None],
           following: Following, started: Callable[[list[int], list[int]], None],
           revocations_heard: Callable[[], None] | None = None) -> None:
    """Pass the NOTIFY payloads of the tables ``following`` names, and of every
    revocation, to ``heard``, those that came together at once, until ``stop`` is set
    (PostgreSQL; a dedicated autocommit connection, which raises if it is lost).
    ``started(listened, stopped)`` is told of each change of what is heard, before the
    watchers waiting for it go on: what happened at a table while it was not heard is
    unknown to this worker; ``revocations_heard()`` likewise once revocations are heard
    (again). Read at libpq's level (psycopg's ``notifies()`` spends 100 us on each)."""
    import psycopg

    url = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    try:
        with psycopg.connect(url, autocommit=True) as connection:
            driver = connection.pgconn
            poller = select.poll()
            poller.register(driver.socket, select.POLLIN)
            poller.register(following.wake_socket(), select.POLLIN)
            _follow(connection, following, heard, started)
            _execute(connection, f"LISTEN {REVOKED_CHANNEL}", heard)
            if revocations_heard is not None:
                revocations_heard()
            while not stop.is_set():
                ready = poller.poll(1000)
                if not ready:
                    continue
                if any(fd != driver.socket for fd, _ in ready):
                    _follow(connection, following, heard, started)
                driver.consume_input()  # raises if the connection is lost
                payloads = []
                while (note := driver.notifies()) is not None:
                    payloads.append(note.extra.decode())
                if payloads:
                    heard(payloads)
    finally:
        following.lost()


def _execute(connection: psycopg.Connection[Any], command: str,
             heard: Callable[[list[str]], None]) -> None:
    """Run ``command``, then pass on what was notified while it ran: psycopg keeps what
    arrives with a command's answer itself, where libpq's ``notifies()`` in the loop never
    sees it (a table's change sent just as its worker LISTENed again was lost)."""
    connection.execute(command)
    early = [note.payload for note in connection.notifies(timeout=0)]
    if early:
        heard(early)


def _follow(connection: psycopg.Connection[Any], following: Following,
            heard: Callable[[list[str]], None],
            started: Callable[[list[int], list[int]], None]) -> None:
    """LISTEN to the tables ``following`` wants now, UNLISTEN the others."""
    listen_to, stop_at = following.changes()
    if not listen_to and not stop_at:
        return
    commands = [f"LISTEN {channel(table_id)}" for table_id in listen_to]
    commands += [f"UNLISTEN {channel(table_id)}" for table_id in stop_at]
    _execute(connection, "; ".join(commands), heard)
    started(listen_to, stop_at)
    following.applied(listen_to, stop_at)


def notify_in(batch: Batch, table_id: int, payload: str) -> None:
    """``NOTIFY`` the workers following table ``table_id`` when the transaction that runs
    ``batch`` commits (PostgreSQL; nothing on SQLite): one of the batch's writes, no
    statement of its own."""
    batch.add(_NOTIFY_IN, {"channel": channel(table_id), "payload": payload}, changes=())


def changed_tables(engine: Engine, last_event: int, last_seat: int
                   ) -> tuple[set[int], int, int]:
    """The tables with round events or seats newer than the ids given, and the newest ids
    now. A first call (ids below 0) only reads the newest ids."""
    with engine.connect() as connection:
        if last_event < 0:
            return (set(), int(connection.execute(_LAST_EVENT).scalar_one()),
                    int(connection.execute(_LAST_SEAT).scalar_one()))
        events = connection.execute(_NEW_EVENTS, {"last": last_event}).all()
        seats = connection.execute(_NEW_SEATS, {"last": last_seat}).all()
    tables = {int(row[0]) for row in [*events, *seats]}
    return (tables, max([last_event, *(int(row[1]) for row in events)]),
            max([last_seat, *(int(row[1]) for row in seats)]))
