"""PostgreSQL's NOTIFY and LISTEN between workers (:mod:`feltlab.server.services.changes`):
what one worker sends, at its commit and never after a rollback, another hears; a lost
LISTEN connection raises, so that its worker connects again."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, text

from feltlab.server.services import changes
from feltlab.server.services.database import make_engine, write_connection
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

    def __init__(self, engine: Engine) -> None:
        self.heard: list[str] = []
        self.stop = threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(engine,), daemon=True)
        self.thread.start()

    def _run(self, engine: Engine) -> None:
        try:
            changes.listen(engine, self.stop, self.heard.extend)
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
    changes.notify(engine, "7:elsewhere")
    with pytest.raises(RuntimeError), write_connection(engine) as connection:
        changes.notify_in(connection, "8:rolled-back")
        raise RuntimeError
    with write_connection(engine) as connection:
        for payload in ("9:a", "9:b:{\"state\": 1}"):
            changes.notify_in(connection, payload)
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
