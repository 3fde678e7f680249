"""Live updates across workers and hosts: on PostgreSQL a change is announced with
``NOTIFY feltlab_tables`` and every worker's listener thread passes it to its own hub.
On SQLite (one host, perhaps several workers) the hub is told directly, and each
worker's watcher thread looks five times a second for round events and seats that
other workers wrote, and tells its hub which tables moved."""

from __future__ import annotations

import logging
import threading

from sqlalchemy import Engine, text

from feltlab.server.live import Hub

CHANNEL = "feltlab_tables"
log = logging.getLogger("feltlab.server")


WATCH_SECONDS = 0.2


class Announcer:
    def __init__(self, engine: Engine, hub: Hub, reader: Engine | None = None) -> None:
        self.engine, self.hub, self.reader = engine, hub, reader
        self.postgresql = engine.dialect.name == "postgresql"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def publish(self, table_id: int) -> None:
        if not self.postgresql:  # the watcher thread announces it (to this worker too)
            return
        try:
            with self.engine.connect() as connection:
                connection.execute(text("SELECT pg_notify(:channel, :payload)"),
                                   {"channel": CHANNEL, "payload": str(table_id)})
                connection.commit()
        except Exception:  # the watchers' safety-net re-read still brings the change
            log.warning("NOTIFY failed; watchers will see the change on their next read")
            self.hub.publish(table_id)

    def start(self) -> None:
        target = self._listen if self.postgresql else self._watch
        self._thread = threading.Thread(target=target, name="feltlab-live", daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        engine = self.reader or self.engine
        last_event = last_seat = -1
        while not self._stop.wait(WATCH_SECONDS):
            try:
                with engine.connect() as connection:
                    if last_event < 0:
                        last_event = connection.execute(text(
                            "SELECT COALESCE(MAX(id), 0) FROM round_events")).scalar_one()
                        last_seat = connection.execute(text(
                            "SELECT COALESCE(MAX(id), 0) FROM table_seats")).scalar_one()
                        continue
                    events = connection.execute(text(
                        "SELECT r.table_id, MAX(e.id) FROM round_events e JOIN rounds r "
                        "ON r.id = e.round_id WHERE e.id > :last GROUP BY r.table_id"),
                        {"last": last_event}).all()
                    seats = connection.execute(text(
                        "SELECT table_id, MAX(id) FROM table_seats WHERE id > :last "
                        "GROUP BY table_id"), {"last": last_seat}).all()
            except Exception:
                log.warning("watching for changes failed; retrying")
                continue
            for table_id, _ in [*events, *seats]:
                self.hub.publish(int(table_id))
            last_event = max([last_event, *(int(row[1]) for row in events)])
            last_seat = max([last_seat, *(int(row[1]) for row in seats)])

    def stop(self) -> None:
        self._stop.set()

    def _listen(self) -> None:
        import psycopg

        url = self.engine.url.set(drivername="postgresql").render_as_string(
            hide_password=False)
        while not self._stop.is_set():
            try:
                with psycopg.connect(url, autocommit=True) as connection:
                    connection.execute(f"LISTEN {CHANNEL}")
                    while not self._stop.is_set():
                        for note in connection.notifies(timeout=1.0):
                            if note.payload.isdigit():
                                self.hub.publish(int(note.payload))
            except Exception:
                log.warning("LISTEN connection lost; reconnecting")
                self._stop.wait(1.0)
