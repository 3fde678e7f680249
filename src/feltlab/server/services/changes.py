"""The database's part in live updates across workers (:mod:`feltlab.server.notify`):
PostgreSQL's NOTIFY and LISTEN, and the reads that find changes nobody announced."""

from __future__ import annotations

import select
import threading
from collections.abc import Callable

from sqlalchemy import ColumnElement, Connection, Engine, String, bindparam, func, text

from feltlab.server.services.statements import Prepared

CHANNEL = "feltlab_tables"
NOTIFY_BYTES = 7_900
"""The largest NOTIFY payload sent (PostgreSQL refuses one of 8000 bytes or more)."""

_NOTIFY = text("SELECT pg_notify(:channel, :payload)")
_NOTIFY_IN = Prepared(_NOTIFY)
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


def notify_at_commit(table_id: ColumnElement[int]) -> ColumnElement[object]:
    """A column that NOTIFYs every worker that the row's table changed, sent by
    PostgreSQL when the statement's transaction commits (and never if it rolls back):
    a money request announces its change with no statement or transaction of its own.
    The payload is ``TABLE:ORIGIN`` as :func:`notify` sends it (bind ``origin``)."""
    return func.pg_notify(CHANNEL, func.concat(table_id, ":", bindparam("origin", type_=String))
                          ).label("notified")


def notify(engine: Engine, payload: str) -> None:
    """``NOTIFY`` every worker listening on :data:`CHANNEL` (PostgreSQL)."""
    with engine.connect() as connection:
        connection.execute(_NOTIFY, {"channel": CHANNEL, "payload": payload})
        connection.commit()


def listen(engine: Engine, stop: threading.Event, heard: Callable[[list[str]], None]
           ) -> None:
    """Pass the NOTIFY payloads on :data:`CHANNEL` to ``heard``, those that came together
    at once, until ``stop`` is set (PostgreSQL; a dedicated autocommit connection, which
    raises if it is lost). Read at libpq's level: a worker hears its own NOTIFYs too,
    one a money request, and psycopg's ``notifies()`` spends 100 us on each."""
    import psycopg

    url = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(f"LISTEN {CHANNEL}")
        early = [note.payload for note in connection.notifies(timeout=0)]
        if early:  # arrived with the LISTEN's answer: psycopg keeps them itself
            heard(early)
        driver = connection.pgconn
        poller = select.poll()
        poller.register(driver.socket, select.POLLIN)
        while not stop.is_set():
            if not poller.poll(1000):
                continue
            driver.consume_input()  # raises if the connection is lost
            payloads = []
            while (note := driver.notifies()) is not None:
                payloads.append(note.extra.decode())
            if payloads:
                heard(payloads)


def notify_in(connection: Connection, payload: str) -> None:
    """``NOTIFY`` every worker on :data:`CHANNEL` when ``connection``'s transaction
    commits (PostgreSQL)."""
    _NOTIFY_IN.run(connection, {"channel": CHANNEL, "payload": payload})


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
