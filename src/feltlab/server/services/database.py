"""Database engines: embedded SQLite (WAL) by default, PostgreSQL through psycopg 3.

SQLite write transactions begin with ``BEGIN IMMEDIATE`` so that concurrent requests
queue for the write lock instead of failing to upgrade a read lock. Before that, a writer
takes :class:`WriterLock` (a thread lock, then ``flock`` on a file beside the database),
so writers of every worker wait in the kernel and the next one starts the moment the lock
is free, instead of polling in SQLite's busy handler (which sleeps up to 100 ms a try).
"""

from __future__ import annotations

import fcntl
import os
import threading
import weakref
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError
from sqlalchemy.orm import Session, sessionmaker

from feltlab.server.services.statements import batches_in_one_statement, transaction_lock


class DatabaseURLError(ValueError):
    """A database URL feltlab cannot use."""


def normalise_url(url: str) -> str:
    """Check ``url`` names SQLite or PostgreSQL; PostgreSQL always goes through psycopg 3.

    >>> normalise_url("postgresql://u@localhost/feltlab")
    'postgresql+psycopg://u@localhost/feltlab'
    >>> normalise_url("mysql://x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    feltlab.server.services.database.DatabaseURLError: database URL must start with ...
    """
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise DatabaseURLError(f"cannot read database URL {url!r}") from None
    backend = parsed.get_backend_name()
    if backend == "postgresql":
        return parsed.set(drivername="postgresql+psycopg").render_as_string(hide_password=False)
    if backend == "sqlite":
        return url
    raise DatabaseURLError("database URL must start with sqlite:/// or postgresql://, "
                           f"got {url!r}")


def _sqlite_file(url: str) -> Path | None:
    database = make_url(url).database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database).expanduser()


def _prepare_sqlite_folder(url: str) -> None:
    database = _sqlite_file(url)
    if database is not None:
        database.parent.mkdir(parents=True, exist_ok=True)


POOL_SIZE = 32
"""PostgreSQL connections a worker keeps open, and the most it uses at once: a thread that
finds them all busy waits for one. Opening more under load would cost PostgreSQL a
process start each, and closing them again, for a request that would then wait for the
same two cores anyway."""
POOL_OVERFLOW = 0


class WriterLock:
    """One SQLite writer at a time across threads and processes: a thread lock, then an
    exclusive ``flock`` on ``DATABASE-writer.lock`` (released when the transaction ends,
    and by the kernel if the process dies)."""

    def __init__(self, database: Path) -> None:
        self.path = database.with_name(database.name + "-writer.lock")
        self._thread_lock = threading.RLock()
        self._descriptor: int | None = None
        self._depth = 0

    def __enter__(self) -> None:
        self._thread_lock.acquire()
        try:
            if self._depth == 0:
                if self._descriptor is None:
                    self._descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
                fcntl.flock(self._descriptor, fcntl.LOCK_EX)
        except BaseException:
            self._thread_lock.release()
            raise
        self._depth += 1

    def __exit__(self, *exc: object) -> None:
        self._depth -= 1
        if self._depth == 0 and self._descriptor is not None:
            fcntl.flock(self._descriptor, fcntl.LOCK_UN)
        self._thread_lock.release()


_writer_locks: weakref.WeakKeyDictionary[Engine, WriterLock] = weakref.WeakKeyDictionary()


def writer_lock(engine: Engine) -> AbstractContextManager[None]:
    """The lock a write transaction on ``engine`` takes first (none on PostgreSQL)."""
    return _writer_locks.get(engine) or nullcontext()


def make_engine(url: str, writer: bool = True) -> Engine:
    """An engine on ``url``. On SQLite a writer engine begins every transaction with
    ``BEGIN IMMEDIATE``; a reader engine (``writer=False``) begins plainly, so reads run
    beside the one writer, as WAL allows."""
    url = normalise_url(url)
    if url.startswith("sqlite"):
        _prepare_sqlite_folder(url)
        # a pool as large as the threads that read at once: a connection opened beyond it
        # would be closed again after one transaction (four PRAGMAs each time)
        engine = create_engine(url, connect_args={"timeout": 60, "check_same_thread": False},
                               pool_size=POOL_SIZE, max_overflow=POOL_OVERFLOW)
        _configure_sqlite(engine, writer)
        database = _sqlite_file(url)
        if writer and database is not None:
            _writer_locks[engine] = WriterLock(database)
        return engine
    # no pre-ping (a round trip before every transaction): a connection found dropped
    # fails its transaction before anything commits, and the money path runs it again
    # (:func:`connection_dropped`); the pool then replaces every stale connection.
    # The connection used last is used next (LIFO), and a statement is prepared on its
    # first run on a connection: PostgreSQL plans a prepared statement afresh for its
    # first five runs on a connection (a decision's first read joins seven tables, 2.6 ms
    # of the database's CPU a plan), and a pool handing out its 32 connections in turn,
    # each running a statement ten times before its plan was kept (psycopg's default
    # threshold, then PostgreSQL's), had most runs planned in a benchmark's minutes.
    return create_engine(url, pool_size=POOL_SIZE, max_overflow=POOL_OVERFLOW,
                         pool_use_lifo=True, connect_args={"prepare_threshold": 0})


def connection_dropped(error: DBAPIError) -> bool:
    """Whether ``error`` says the database connection was lost (a restart, an idle
    timeout): the transaction did not commit and may be run again on a new one."""
    return bool(error.connection_invalidated)


def _configure_sqlite(engine: Engine, writer: bool) -> None:
    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection: Any, record: Any) -> None:
        dbapi_connection.isolation_level = None  # SQLAlchemy issues BEGIN itself
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=60000")
        cursor.close()

    begin = "BEGIN IMMEDIATE" if writer else "BEGIN"

    @event.listens_for(engine, "begin")
    def on_begin(connection: Any) -> None:
        # on the driver's connection: transaction control needs none of a statement's
        # execution context and result (a tenth of a money request's statements' cost)
        connection.connection.dbapi_connection.execute(begin)


def session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


@contextmanager
def transaction(factory: sessionmaker[Session]) -> Iterator[Session]:
    """One database transaction: committed if the block ends, rolled back if it raises.
    On an SQLite writer it holds :class:`WriterLock` from before BEGIN to after COMMIT."""
    bind = factory.kw.get("bind")
    with writer_lock(bind) if isinstance(bind, Engine) else nullcontext(), \
            factory() as session, session.begin():
        yield session


@contextmanager
def write_connection(engine: Engine) -> Iterator[Connection]:
    """One write transaction on a Core connection (the money path, without the ORM's
    unit of work): committed if the block ends, rolled back if it raises; on SQLite
    inside :class:`WriterLock`. The connection is one the engine's writers keep
    (:func:`_kept_connections`), or a new one from the pool."""
    with writer_lock(engine), _kept_connection(engine, autocommit=False) as connection, \
            connection.begin():
        yield connection


@contextmanager
def statement_connection(engine: Engine) -> Iterator[Connection]:
    """A connection for writes that are each one statement, all or nothing by itself (a
    :class:`~feltlab.server.services.statements.Batch` run with ``one_statement``): on
    PostgreSQL it commits each statement as it ends (autocommit: no BEGIN and COMMIT,
    two of a short write's three round trips); on SQLite, whose batches run one write at
    a time, a write transaction as :func:`write_connection`'s."""
    if not batches_in_one_statement(engine):
        with write_connection(engine) as connection:
            yield connection
        return
    with _kept_connection(engine, autocommit=True) as connection, connection.begin():
        yield connection  # (the driver sends no BEGIN, and its COMMIT sends nothing)


@contextmanager
def _kept_connection(engine: Engine, autocommit: bool) -> Iterator[Connection]:
    """A connection the engine's writers keep (:func:`_kept_connections`), or a new one
    from the pool; given back to the pool if the block raises."""
    kept = _kept_connections(engine).autocommit if autocommit else _kept_connections(engine)
    try:
        connection = kept.pop()
    except IndexError:
        connection = engine.connect()
        if autocommit:  # SQLAlchemy sets it back when the connection returns to the pool
            connection.execution_options(isolation_level="AUTOCOMMIT")
    try:
        yield connection
    except BaseException as error:
        connection.close()  # back to the pool, which resets or replaces it
        if isinstance(error, DBAPIError) and error.connection_invalidated:
            # the database dropped it (a restart?): its pool's and the kept ones
            # likely died too; start afresh, as SQLAlchemy does on its own path
            engine.dispose()
        raise
    if connection.invalidated or connection.closed or len(kept) >= KEPT_CONNECTIONS:
        connection.close()
    else:
        kept.append(connection)


KEPT_CONNECTIONS = 8
"""The most connections an engine's write transactions keep between them: the rest of
the pool stays free for reads, however many writes once ran at once."""


class _Kept(list[Connection]):
    """An engine's kept connections, held by its dispose listener (the module's map holds
    them weakly), and beside them (:attr:`autocommit`) those kept for
    :func:`statement_connection`. They stay checked out of the engine's pool, and keep
    the engine alive, until the engine is disposed of: whoever makes an engine disposes
    of it."""

    def __init__(self) -> None:
        super().__init__()
        self.autocommit: list[Connection] = []


_kept: weakref.WeakKeyDictionary[Engine, weakref.ref[_Kept]] = weakref.WeakKeyDictionary()
_keeping = threading.Lock()


def _kept_connections(engine: Engine) -> _Kept:
    """The connections an engine's write transactions keep between them (as many as
    ran at once, up to :data:`KEPT_CONNECTIONS`): taking one from the pool and giving it
    back costs about 45 us a transaction, more than its own BEGIN and COMMIT. A
    transaction that fails gives its connection back to the pool; disposing of the
    engine closes them all."""
    held = _kept.get(engine)
    found = None if held is None else held()
    if found is None:
        with _keeping:
            held = _kept.get(engine)
            found = None if held is None else held()
            if found is None:
                found = _listened_kept(engine)
                _kept[engine] = weakref.ref(found)
    return found


def _listened_kept(engine: Engine) -> _Kept:
    kept = _Kept()

    @event.listens_for(engine, "engine_disposed")
    def close_kept(disposed: Engine) -> None:
        for connections in (kept, kept.autocommit):
            while connections:  # their pool is gone: close the driver's connection too
                connection = connections.pop()
                connection.invalidate()
                connection.close()

    return kept


def lock_exclusive(session: Session, key: int) -> None:
    """Serialise a critical section across workers (PostgreSQL advisory lock held to the
    end of the transaction; SQLite transactions are serial already)."""
    transaction_lock(session.connection(), key)


def database_reachable(engine: Engine) -> bool:
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except Exception:
        return False
    return True
