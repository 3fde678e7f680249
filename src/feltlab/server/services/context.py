"""What every service needs: the database, the password hasher, the settings, the
metrics and the live-update hub (:class:`Services`, kept on ``app.state.services``)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from argon2 import PasswordHasher
from sqlalchemy import Connection, Engine
from sqlalchemy.orm import Session, sessionmaker

from feltlab.core.exposure import DEFAULT_EXPOSURE_LIMIT
from feltlab.server import migrate
from feltlab.server.auth import AuthSettings, password_hasher
from feltlab.server.live import Hub
from feltlab.server.metrics import Metrics, metrics_folder
from feltlab.server.notify import Announcer
from feltlab.server.revocations import Revoked
from feltlab.server.services.database import (
    make_engine,
    session_factory,
    transaction,
    write_connection,
)
from feltlab.server.services.figures import Recorder
from feltlab.server.services.statements import serial_writes
from feltlab.server.services.wallet_client import WalletClient
from feltlab.server.views import wire_text

if TYPE_CHECKING:
    from feltlab.server.views import Fresh, TableState

log = logging.getLogger("feltlab.server")
WALLET_CALLERS = 40
"""Operators' money requests a worker runs at once (see :meth:`Services.wallet_callers`)."""
HEARING_SECONDS = 5.0
"""How long a new watcher waits for its worker to hear the table (see
:meth:`Services.hearing`)."""


@dataclass
class Services:
    """The database (a writer and, on SQLite, readers beside it), the password hasher and
    login settings, the metrics, and the live-update hub with its shared table states:
    one per worker, kept on ``app.state.services`` and given to every service call."""

    engine: Engine
    sessions: sessionmaker[Session]
    hasher: PasswordHasher
    auth: AuthSettings
    metrics: Metrics = field(default_factory=Metrics)
    hub: Hub = field(default_factory=Hub)
    announcer: Announcer | None = None
    readers: sessionmaker[Session] | None = None
    reader_engine: Engine | None = None
    snapshots: dict[int, Any] = field(default_factory=dict)  # live views shared per table
    settled: dict[int, Any] = field(default_factory=dict)  # each table's last round, ended
    # one builder of a table's live state at a time, per (event loop, table)
    live_locks: dict[tuple[int, int], asyncio.Lock] = field(default_factory=dict)
    rechecked: dict[int, float] = field(default_factory=dict)  # last safety-net re-read
    shared_tables: dict[int, bool] = field(default_factory=dict)  # a table's kind, by id
    real_sessions: dict[str, bool] = field(default_factory=dict)
    """Whether an operator's session (by its token's digest) plays real money: a
    session's mode never changes."""
    recorder: Recorder = field(init=False)  # the pit's figures, written off the money path
    writers: ThreadPoolExecutor = field(init=False)
    """The threads that run money-moving transactions, as many at once as this worker
    allows. Requests beyond them wait in line, not in threads, so reads (live updates,
    sign-in checks, GETs), which run in anyio's threads, always find one free; on
    SQLite, where one transaction writes at a time, a few keep the writer busy. A pool
    of their own rather than anyio's threads behind a limiter: the hop costs less, about
    4% of an operator's money request's CPU (docs/benchmarks.md)."""
    wallets: WalletClient = field(default_factory=WalletClient)
    """Calls to operators' wallets (one pooled connection, slots and breaker each)."""
    wallet_callers: ThreadPoolExecutor = field(init=False)
    """The threads that run operators' money requests: each waits on its operator's
    wallet between two transactions, so they do not take :attr:`writers`' threads; an
    operator's own slots in the wallet client keep a slow one from taking all of these."""
    exposure_limit: int = DEFAULT_EXPOSURE_LIMIT
    """The house exposure limit (:attr:`~feltlab.server.settings.Settings.house_exposure_limit`):
    no rule set that can pay one seat more on one round is published or opens a table."""

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A transaction that only reads (beside the writer, on SQLite)."""
        with transaction(self.readers or self.sessions) as session:
            yield session

    @contextmanager
    def read_connection(self) -> Iterator[Connection]:
        """:meth:`read` on a Core connection, for reads that need no ORM session (making
        one costs more than a short read itself)."""
        if self.reader_engine is not None:
            with self.reader_engine.begin() as connection:
                yield connection
        else:
            with write_connection(self.engine) as connection:
                yield connection

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """A transaction that writes: committed if the block ends, rolled back if it
        raises."""
        with transaction(self.sessions) as session:
            yield session

    def publish(self, table_id: int, fresh: Fresh | None = None, notified: bool = False
                ) -> None:
        """Tell every watcher of the table, in every worker, that it changed; with
        ``fresh`` (the table's state built by the change itself), this worker's watchers
        are shown it without reading the table again; ``notified`` when the change's
        transaction sent PostgreSQL's NOTIFY itself."""
        if fresh is None:
            if self.announcer is None:
                self.hub.publish(table_id)
            else:
                self.announcer.publish(table_id, notified=notified)
            return
        install = partial(self.show, table_id, fresh.state)
        if self.announcer is None:
            self.hub.publish(table_id, fresh.seen, install, fresh.state.order)
        else:
            self.announcer.publish(table_id, fresh.seen, install, notified, fresh.state,
                                   partial(wire_text, fresh.state))

    def revoke(self, revoked: Revoked) -> None:
        """Close the live sockets ``revoked`` names, in every worker, once they have read
        their token again (call it after the revocation's transaction commits)."""
        if self.announcer is None:
            self.hub.guards.revoke(revoked)
        else:
            self.announcer.revoke(revoked)

    def shows(self, table_id: int) -> bool:
        """Whether a change's own state of the table would be shown to anyone: a watcher
        in this worker, or on SQLite another worker it is sent to."""
        return self.hub.watched(table_id) or (self.announcer is not None
                                              and self.announcer.sends_states())

    async def hearing(self, table_id: int) -> None:
        """Wait until this worker hears the table's changes made by other workers (on
        PostgreSQL, a LISTEN from its first watcher here), so that a new watcher's first
        read misses nothing; at most :data:`HEARING_SECONDS`, past which the watchers'
        safety net catches up with what they missed."""
        if self.announcer is None:
            return
        ready = self.announcer.ready(table_id)
        if ready.done():
            return
        try:
            await asyncio.wait_for(asyncio.wrap_future(ready), HEARING_SECONDS)
        except TimeoutError:
            log.warning("table %s: its changes are not heard yet (LISTEN waiting)", table_id)

    @property
    def origin(self) -> str:
        """This worker's mark in NOTIFY payloads (its own are not heard again)."""
        return "" if self.announcer is None else self.announcer.origin

    def show(self, table_id: int, state: TableState, stamp: int) -> None:
        """Make ``state`` the table's live state at ``stamp`` (its watchers are shown it)."""
        self.keep(table_id, replace(state, stamp=stamp))

    def keep(self, table_id: int, state: TableState) -> None:
        """Keep ``state`` as the table's live state, and as its last round's end if its
        round is complete (a watcher shown that round unfinished is shown its end before
        the next round, however fast the next round comes)."""
        self.snapshots[table_id] = state
        if state.phase == "complete":
            self.settled[table_id] = state

    def __post_init__(self) -> None:
        self.recorder = Recorder(self.engine, self.reader_engine)
        self.writers = ThreadPoolExecutor(4 if serial_writes(self.engine) else 12,
                                          thread_name_prefix="feltlab-writer")
        self.wallet_callers = ThreadPoolExecutor(WALLET_CALLERS,
                                                 thread_name_prefix="feltlab-wallet-caller")

    def close(self) -> None:
        """Let the money requests under way end, write the figures left, save the
        metrics and close the database connections (at shutdown)."""
        self.writers.shutdown()
        self.wallet_callers.shutdown()
        self.recorder.stop()
        self.metrics.save()
        self.wallets.close()
        self.engine.dispose()
        if self.reader_engine is not None:
            self.reader_engine.dispose()


def open_services(database_url: str, auth_settings: AuthSettings | None = None) -> Services:
    """The services on ``database_url``, its schema brought up to date first. On SQLite,
    reads get an engine of their own that runs beside the one writer."""
    engine = make_engine(database_url)
    migrate.upgrade(engine)
    settings = auth_settings or AuthSettings()
    reader = make_engine(database_url, writer=False) if serial_writes(engine) else None
    found = Services(engine, session_factory(engine), password_hasher(settings), settings,
                     metrics=Metrics(metrics_folder(database_url)), reader_engine=reader,
                     readers=None if reader is None else session_factory(reader))
    found.announcer = Announcer(engine, found.hub, found.reader_engine)
    found.announcer.shown = found.show
    return found
