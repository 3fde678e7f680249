"""PostgreSQL's NOTIFY and LISTEN between workers (:mod:`feltlab.server.services.changes`):
what one worker sends, at its commit and never after a rollback, another hears if it
follows the table; a lost LISTEN connection raises, so that its worker connects again and
LISTENs to every table it follows."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Engine, text

from feltlab.server.services import changes
from feltlab.server.services.database import make_engine, write_connection
from feltlab.server.services.statements import Batch
from server.pg import ThrowawayPostgres


@pytest.fixture
def engine(postgres: ThrowawayPostgres | None) -> Iterator[Engine]:
    if postgres is None:
        pytest.skip("PostgreSQL is not installed here")
    made = make_engine(postgres.new_database())
    yield made
    made.dispose()


class Listener:
    """``changes.listen`` in a thread of its own, as a worker runs it."""

    def __init__(self, engine: Engine, tables: tuple[int, ...] = (7, 8, 9),
                 following: changes.Following | None = None) -> None:
        self.heard: list[str] = []
        self.following = following or changes.Following()
        self.started: list[tuple[list[int], list[int]]] = []
        for table_id in tables:
            self.following.want(table_id, True)
        self.stop = threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(engine,), daemon=True)
        self.thread.start()

    def _run(self, engine: Engine) -> None:
        try:
            changes.listen(engine, self.stop, self.heard.extend, self.following,
                           lambda listened, stopped: self.started.append((listened, stopped)))
        except BaseException as error:
            self.error = error

    def wait_for(self, count: int) -> list[str]:
        deadline = time.monotonic() + 10
        while len(self.heard) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.heard

    def listening(self, engine: Engine) -> None:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with engine.connect() as connection:
                if connection.execute(text(
                        "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'LISTEN %'"
                )).scalar():
                    return
            time.sleep(0.01)
        raise AssertionError("the listener never listened")


def test_what_commits_is_heard_and_what_rolls_back_is_not(engine: Engine) -> None:
    listener = Listener(engine)
    listener.listening(engine)
    changes.notify(engine, 7, "7:elsewhere")
    with pytest.raises(RuntimeError), write_connection(engine) as connection:
        batch = Batch()
        changes.notify_in(batch, 8, "8:rolled-back")
        batch.run(connection)
        raise RuntimeError
    with write_connection(engine) as connection:
        batch = Batch()
        for payload in ("9:a", "9:b:{\"state\": 1}"):  # one statement: sent in order
            changes.notify_in(batch, 9, payload)
        batch.run(connection)
    assert listener.wait_for(3) == ["7:elsewhere", "9:a", "9:b:{\"state\": 1}"]
    listener.stop.set()
    listener.thread.join(5)
    assert not listener.thread.is_alive() and listener.error is None


def test_a_lost_listen_connection_raises(engine: Engine) -> None:
    listener = Listener(engine)
    listener.listening(engine)
    with engine.connect() as connection:
        connection.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                "WHERE query LIKE 'LISTEN %'"))
    listener.thread.join(10)
    assert not listener.thread.is_alive()
    assert listener.error is not None


def test_only_the_tables_followed_are_heard(engine: Engine) -> None:
    """A worker hears a table's changes once it follows the table (its ``ready`` future
    done, after ``started`` was told), and none of a table it does not follow or has
    stopped following."""
    listener = Listener(engine, tables=(1,))
    assert listener.following.ready(1).result(10) is None
    assert listener.started[0] == ([1], [])
    changes.notify(engine, 2, "2:unfollowed")
    changes.notify(engine, 1, "1:followed")
    assert listener.wait_for(1) == ["1:followed"]
    listener.following.want(2, True)
    listener.following.ready(2).result(10)
    listener.following.want(1, False)
    deadline = time.monotonic() + 10
    while ([], [1]) not in listener.started and time.monotonic() < deadline:
        time.sleep(0.01)
    changes.notify(engine, 1, "1:after")
    changes.notify(engine, 2, "2:now-followed")
    assert listener.wait_for(2) == ["1:followed", "2:now-followed"]
    assert listener.started == [([1], []), ([2], []), ([], [1])]
    listener.stop.set()
    listener.thread.join(5)
    assert listener.error is None


def test_a_lost_connection_listens_again_to_every_table_followed(engine: Engine) -> None:
    """After its connection is lost nothing counts as heard (a watcher arriving then
    waits); the next connection LISTENs to every table followed and tells ``started``."""
    listener = Listener(engine, tables=(4, 5))
    listener.following.ready(5).result(10)
    with engine.connect() as connection:
        connection.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                "WHERE query LIKE 'LISTEN %'"))
    listener.thread.join(10)
    assert listener.error is not None and not listener.following.ready(4).done()
    again = Listener(engine, tables=(), following=listener.following)  # as _listen does
    listener.following.ready(4).result(10)
    assert again.started == [([4, 5], [])]
    changes.notify(engine, 5, "5:heard")
    assert again.wait_for(1) == ["5:heard"]
    again.stop.set()
    again.thread.join(5)


def test_a_change_sent_while_a_listen_runs_is_heard(engine: Engine,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A NOTIFY that arrives with the answer to one of the listener's own commands (here
    the revocations' LISTEN, just after a table's) is kept by psycopg, not by libpq: it is
    passed on all the same (it was lost, which a one-core CI run once hit)."""
    import psycopg

    execute = psycopg.Connection.execute

    def slow_listen(self: psycopg.Connection[Any], query: Any, *args: Any,
                    **kwargs: Any) -> Any:
        if query == f"LISTEN {changes.REVOKED_CHANNEL}":
            changes.notify(engine, 5, "5:during")  # delivered before the LISTEN's answer
            time.sleep(0.3)
        return execute(self, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Connection, "execute", slow_listen)
    listener = Listener(engine, tables=(5,))
    assert listener.wait_for(1) == ["5:during"]
    listener.stop.set()
    listener.thread.join(5)
    assert listener.error is None
