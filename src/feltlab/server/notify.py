"""Live updates across workers and hosts: on PostgreSQL a change is announced with
``NOTIFY feltlab_tables`` and every worker's listener thread passes it to its own hub;
on SQLite (one host) the hub is told directly and watchers also re-read every second."""

from __future__ import annotations

import logging
import threading

from sqlalchemy import Engine, text

from feltlab.server.live import Hub

CHANNEL = "feltlab_tables"
log = logging.getLogger("feltlab.server")


class Announcer:
    def __init__(self, engine: Engine, hub: Hub) -> None:
        self.engine, self.hub = engine, hub
        self.postgresql = engine.dialect.name == "postgresql"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def publish(self, table_id: int) -> None:
        if not self.postgresql:
            self.hub.publish(table_id)
            return
        try:
            with self.engine.connect() as connection:
                connection.execute(text("SELECT pg_notify(:channel, :payload)"),
                                   {"channel": CHANNEL, "payload": str(table_id)})
                connection.commit()
        except Exception:  # the watchers' once-a-second re-read still brings the change
            log.warning("NOTIFY failed; watchers will see the change on their next read")
            self.hub.publish(table_id)

    def start(self) -> None:
        if self.postgresql:
            self._thread = threading.Thread(target=self._listen, name="feltlab-listen",
                                            daemon=True)
            self._thread.start()

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
