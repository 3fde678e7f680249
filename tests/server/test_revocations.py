"""Revocations (feltlab.server.revocations): a token's or an account's sockets are
flagged in this worker and, through the channel table news takes, in every other worker
(datagrams on SQLite, NOTIFY on PostgreSQL); a socket that read its token just before a
revocation came is flagged as it is watched; a socket is flagged at its token's expiry."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine

from feltlab.server.clock import now
from feltlab.server.live import Hub
from feltlab.server.migrate import upgrade
from feltlab.server.notify import Announcer
from feltlab.server.revocations import Guards, Revoked, SocketGuard
from feltlab.server.services.database import make_engine, normalise_url


def test_a_revocation_flags_the_sockets_it_names_only() -> None:
    async def flagged() -> list[bool]:
        guards = Guards()
        named = [SocketGuard(1, 10, lambda: None), SocketGuard(2, 20, lambda: None),
                 SocketGuard(3, 20, lambda: None), SocketGuard(4, 40, lambda: None)]
        for guard in named:
            guards.add(guard, time.monotonic())
        guards.remove(named[3])
        guards.revoke(Revoked("token", 1))
        guards.revoke(Revoked("user", 20))
        guards.revoke(Revoked("token", 4))  # watched no more
        await asyncio.sleep(0.01)  # flags are set on the sockets' own loop
        return [guard.flagged for guard in named]

    assert asyncio.run(flagged()) == [True, True, True, False]


def test_a_socket_that_read_its_token_before_a_revocation_is_flagged_as_it_is_watched(
        ) -> None:
    """The token read before the revocation came: what it read is stale. One read after
    it is not flagged."""
    async def flagged() -> tuple[bool, bool]:
        guards = Guards()
        read_before = time.monotonic()
        guards.revoke(Revoked("user", 7))
        read_after = time.monotonic()
        stale, fresh = SocketGuard(1, 7, lambda: None), SocketGuard(2, 7, lambda: None)
        guards.add(stale, read_before)
        guards.add(fresh, read_after)
        await asyncio.sleep(0.01)
        return stale.flagged, fresh.flagged

    assert asyncio.run(flagged()) == (True, False)


def test_a_socket_is_flagged_and_woken_when_its_token_expires() -> None:
    """By a timer of the socket's own loop, set for the expiry (and its margin): never
    before the token expires; woken within 2.5 s, a bound 10 times the quarter second it
    takes (0.2 s to the expiry, 0.05 s of margin)."""
    async def woken() -> tuple[bool, float, bool]:
        event = asyncio.Event()
        guard = SocketGuard(1, 1, event.set)
        started = time.monotonic()
        guard.expires(now() + timedelta(seconds=0.2))
        timed = isinstance(guard._timer, asyncio.TimerHandle)  # the loop's own timer
        await asyncio.wait_for(event.wait(), 2.5)
        return guard.flagged, time.monotonic() - started, timed

    flagged, seconds, timed = asyncio.run(woken())
    assert timed and flagged and 0.2 <= seconds < 2.5


@pytest.fixture
def shared_engine(database_url: str) -> Iterator[Engine]:
    engine = make_engine(normalise_url(database_url))
    upgrade(engine)  # each worker's watch for unannounced changes reads the tables
    yield engine
    engine.dispose()


def test_another_workers_sockets_are_flagged(shared_engine: Engine, tmp_path: Path) -> None:
    """Two workers on one database: a revocation told to one flags the other's sockets
    within a second (a datagram on SQLite, a NOTIFY on PostgreSQL)."""
    here, there = Announcer(shared_engine, Hub()), Announcer(shared_engine, Hub())
    for worker in (here, there):
        worker.start()

    async def flagged() -> bool:
        woken = asyncio.Event()
        guard = SocketGuard(5, 50, woken.set)
        there.hub.guards.add(guard, time.monotonic())
        await asyncio.sleep(1.5)  # the workers know each other (a LISTEN; the peers listed)
        here.revoke(Revoked("user", 50))
        try:  # 1 s: over 10 times what a datagram or a NOTIFY takes (milliseconds)
            await asyncio.wait_for(woken.wait(), 1.0)
        except TimeoutError:
            return False
        return guard.flagged

    try:
        assert asyncio.run(flagged())
    finally:
        for worker in (here, there):
            worker.stop()
