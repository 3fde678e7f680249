"""The connections write transactions keep between them (:func:`write_connection`):
reused, never more than :data:`KEPT_CONNECTIONS`, given back to the pool by a failed
transaction, and closed when the engine is disposed of."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import Connection, text

from feltlab.server.services.database import KEPT_CONNECTIONS, make_engine, write_connection


def test_a_write_transaction_reuses_the_connection_the_last_one_kept(database_url: str
                                                                     ) -> None:
    engine = make_engine(database_url)
    try:
        with write_connection(engine) as first:
            first.execute(text("SELECT 1"))
        with write_connection(engine) as second:
            second.execute(text("SELECT 1"))
        assert second is first
        with pytest.raises(RuntimeError), write_connection(engine) as failed:
            raise RuntimeError
        assert failed is first and failed.closed  # given back to the pool
        with write_connection(engine) as after:
            assert after is not first
            assert after.execute(text("SELECT 1")).scalar() == 1
    finally:
        engine.dispose()


def test_no_more_are_kept_than_the_limit_and_disposing_closes_them(database_url: str
                                                                  ) -> None:
    if database_url.startswith("sqlite"):  # one writer at a time: nothing to keep but one
        pytest.skip("SQLite's write transactions run one at a time")
    engine = make_engine(database_url)
    at_once = KEPT_CONNECTIONS + 4
    inside, leave = threading.Barrier(at_once + 1), threading.Event()
    used: list[Connection] = []

    def write() -> None:
        with write_connection(engine) as connection:
            used.append(connection)
            connection.execute(text("SELECT 1"))
            inside.wait(10)
            leave.wait(10)

    threads = [threading.Thread(target=write) for _ in range(at_once)]
    for thread in threads:
        thread.start()
    inside.wait(10)
    leave.set()
    for thread in threads:
        thread.join(10)
    kept = [connection for connection in used if not connection.closed]
    assert len(kept) == KEPT_CONNECTIONS
    engine.dispose()
    assert all(connection.closed for connection in used)
