"""Live updates over WebSocket: ``/api/v1/tables/{id}/live`` sends the table and its
current round as the caller may see it (exactly what ``GET /api/v1/tables/{id}``
answers) whenever it changes, while its token is good: a logout, an operator session's
end, an admin's lock of the account or the token's expiry closes it within a second
(4401, or 4403 for a lock; :mod:`feltlab.server.revocations`)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from functools import partial

import anyio
from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from starlette.concurrency import run_in_threadpool

from feltlab.server.api.schemas import RowId
from feltlab.server.auth import COOKIE_NAME, Caller
from feltlab.server.errors import DomainError, Forbidden, Unauthorized, not_found
from feltlab.server.handlers import status_of
from feltlab.server.middleware import StrictJSONRoute
from feltlab.server.revocations import SocketGuard
from feltlab.server.services.accounts import watching
from feltlab.server.services.context import Services
from feltlab.server.services.round_reads import live_state
from feltlab.server.views import TableState, watcher_text

router = APIRouter(prefix="/api/v1", tags=["live"], route_class=StrictJSONRoute)
POLL_SECONDS = 5.0
"""Also look this often whether the table moved unannounced (a safety net)."""


def _token(websocket: WebSocket) -> str:
    header = websocket.headers.get("authorization", "")
    token = header.partition(" ")[2].strip() if header.lower().startswith("bearer ") else ""
    if not token:
        token = websocket.cookies.get(COOKIE_NAME, "")
        origin = websocket.headers.get("origin")
        host = websocket.headers.get("host", "")
        if origin is not None and origin.split("://", 1)[-1] != host:
            raise Forbidden("a cookie session is accepted only from this server's pages")
    if not token:
        raise Unauthorized("sign in first")
    return token[:200]


def _build_state(found: Services, table_id: int, stamp: int) -> TableState:
    return live_state(found, table_id, stamp)


async def _table_state(found: Services, table_id: int) -> TableState:
    """The table's shared state at its latest announcement; only the first watcher to ask
    after a change reads the database, the others wait for it and share the result."""
    cached: TableState | None = found.snapshots.get(table_id)
    if cached is not None and cached.stamp == found.hub.stamp(table_id):
        return cached
    key = (id(asyncio.get_running_loop()), table_id)  # an asyncio lock serves one loop
    async with found.live_locks.setdefault(key, asyncio.Lock()):
        stamp = found.hub.stamp(table_id)  # read before the database: a later change rebuilds
        built: TableState | None = found.snapshots.get(table_id)
        if built is not None and built.stamp == stamp:
            return built
        state: TableState = await run_in_threadpool(_build_state, found, table_id, stamp)
        newer: TableState | None = found.snapshots.get(table_id)
        if newer is None or newer.stamp <= stamp:  # not over one installed meanwhile
            found.keep(table_id, state)
        found.hub.read(table_id, stamp, state.order)
        return state


def _view(state: TableState, table_id: int, caller: Caller) -> str:
    """What ``GET /api/v1/tables/{id}`` answers this caller (the table's current round or,
    between rounds, its last one), from the shared state without a database read, as
    JSON encoded once for every watcher who sees the same."""
    if not state.shared and state.owner_id != caller.user_id:
        raise not_found(f"table {table_id}")
    return watcher_text(state, caller.user_id)


async def _recheck(found: Services, table_id: int) -> None:
    """The safety net: once per ``POLL_SECONDS`` a worker re-reads a quiet table and
    announces it here if it moved without an announcement (a change from elsewhere)."""
    checked = found.rechecked
    moment = asyncio.get_running_loop().time()
    if moment - checked.get(table_id, 0.0) < POLL_SECONDS / 2:
        return
    checked[table_id] = moment
    cached: TableState | None = found.snapshots.get(table_id)
    fresh = await run_in_threadpool(_build_state, found, table_id, -1)
    if cached is None or fresh.version != cached.version:
        found.hub.publish(table_id)


@router.websocket("/tables/{table_id}/live")
async def live(websocket: WebSocket, table_id: RowId) -> None:
    """The table's view, sent again whenever it changes, until the watcher goes (or the
    server shuts down: uvicorn closes every watcher with 1012, which ends this at once)."""
    found: Services = websocket.app.state.services
    queue = found.hub.watch(table_id)  # before the first view, so no change falls between
    guard: SocketGuard | None = None
    try:
        token = _token(websocket)
        checked_at = time.monotonic()
        caller = await run_in_threadpool(watching, found, token)
        # from here on a revocation of the token or account, or its expiry, makes the
        # socket read the token again before it sends anything
        guard = SocketGuard(caller.token_id, caller.user_id, partial(_wake, queue))
        guard.expires(caller.expires_at)
        found.hub.guards.add(guard, checked_at)
        await found.hearing(table_id)  # other workers' changes too, from here on
        first = await _table_state(found, table_id)
        _view(first, table_id, caller)  # refuses a stranger before the socket is accepted
    except DomainError as error:
        _unwatch(found, table_id, queue, guard)
        await websocket.close(code=4000 + status_of(error), reason=error.detail[:120])
        return
    await websocket.accept()
    # Two tasks: one sends the views, one listens for the watcher's going. Whichever ends
    # first ends the other, so a watcher that left, or stopped reading, or a server
    # shutting down, never leaves a task waiting (on a queue, or on a full socket).
    try:
        async with anyio.create_task_group() as tasks:
            async def then_stop(work: Awaitable[None]) -> None:
                await work
                tasks.cancel_scope.cancel()

            tasks.start_soon(then_stop, _send_views(websocket, found, table_id, caller, queue,
                                                    first, _Vouch(found, token, guard)))
            tasks.start_soon(then_stop, _until_gone(websocket))
    finally:
        _unwatch(found, table_id, queue, guard)


def _unwatch(found: Services, table_id: int, queue: asyncio.Queue[int],
             guard: SocketGuard | None) -> None:
    found.hub.unwatch(table_id, queue)
    if guard is not None:
        found.hub.guards.remove(guard)


@dataclass(frozen=True)
class _Vouch:
    """A socket's token, read again whenever its guard is flagged (revoked, or expired
    by the clock) before anything more is sent."""

    found: Services
    token: str
    guard: SocketGuard

    async def __call__(self) -> None:
        """Read the token again if flagged: refused (a :class:`DomainError`), the socket
        closes; good, its expiry is set again."""
        if not self.guard.flagged:
            return
        self.guard.flagged = False  # before the read: a revocation during it flags again
        caller = await run_in_threadpool(watching, self.found, self.token)
        self.guard.expires(caller.expires_at)


_LOOK = -1
"""Put in a watcher's queue by its :class:`_Quiet` timer: nothing was announced."""
_RECHECK = -2
"""Put in a watcher's queue when its guard is flagged (:func:`_wake`)."""


def _wake(queue: asyncio.Queue[int]) -> None:
    if not queue.full():  # a full queue is being read: its next turn vouches
        queue.put_nowait(_RECHECK)


class _Quiet:
    """A watcher's safety net: once it has waited ``POLL_SECONDS`` for an announcement,
    a :data:`_LOOK` in its queue. One timer, moved on only when it fires, not set and
    cancelled around every message (as ``asyncio.timeout`` would)."""

    def __init__(self, queue: asyncio.Queue[int]) -> None:
        self.queue, self.loop = queue, asyncio.get_running_loop()
        self.since: float | None = None
        """When the watcher's current wait began (None: not waiting)."""
        self.timer: asyncio.TimerHandle | None = None

    def waiting(self) -> None:
        self.since = self.loop.time()
        if self.timer is None:
            self.timer = self.loop.call_at(self.since + POLL_SECONDS, self._due)

    def _due(self) -> None:
        self.timer = None
        if self.since is None:  # not waiting: its next wait sets the timer again
            return
        due = self.since + POLL_SECONDS
        if self.loop.time() < due:  # the wait began after the timer was set
            self.timer = self.loop.call_at(due, self._due)
        elif not self.queue.full():
            self.since = None
            self.queue.put_nowait(_LOOK)

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()


async def _send_views(websocket: WebSocket, found: Services, table_id: int, caller: Caller,
                      queue: asyncio.Queue[int], first: TableState, vouch: _Vouch) -> None:
    """Send the first view, then each changed one. Announcements that come together make
    one new view, but never skip the end of the round the watcher was last shown: its
    settlement is sent before the next round's view. Before each view the token is
    ``vouch``-ed for: revoked, expired or its account locked, the socket closes."""
    quiet = _Quiet(queue)
    shown, last = first, _view(first, table_id, caller)
    try:
        await vouch()
        await websocket.send_text(last)
        while True:
            if queue.empty():
                quiet.waiting()
                try:
                    items = [await queue.get()]
                finally:
                    quiet.since = None
            else:
                items = [queue.get_nowait()]
            while not queue.empty():  # several announcements: one new view
                items.append(queue.get_nowait())
            await vouch()
            if all(item < 0 for item in items):  # no announcement
                if _LOOK in items:  # a quiet while: look whether another host moved it
                    await _recheck(found, table_id)
                continue
            state = await _table_state(found, table_id)
            for view in (_ended_unseen(found, table_id, shown, state), state):
                if view is None:
                    continue
                text = _view(view, table_id, caller)
                if text != last:
                    await vouch()
                    await websocket.send_text(text)
                    last = text
            shown = state
    except (WebSocketDisconnect, RuntimeError):
        pass
    except DomainError as error:  # the token was revoked or expired: tell the page why
        with contextlib.suppress(WebSocketDisconnect, RuntimeError):
            await websocket.close(code=4000 + status_of(error), reason=error.detail[:120])
    finally:
        quiet.stop()


def _ended_unseen(found: Services, table_id: int, shown: TableState, state: TableState
                  ) -> TableState | None:
    """The table's state at the end of the round a watcher was last ``shown`` unfinished,
    if this worker knows it and the table's ``state`` has moved on to another round."""
    ended: TableState | None = found.settled.get(table_id)
    round_shown = shown.version[2]
    if (ended is None or shown.phase == "complete" or round_shown is None
            or ended.version[2] != round_shown or state.version[2] == round_shown):
        return None
    return ended


async def _until_gone(websocket: WebSocket) -> None:
    """Read (and ignore) what the watcher sends until it disconnects."""
    try:
        while (await websocket.receive())["type"] != "websocket.disconnect":
            pass
    except (WebSocketDisconnect, RuntimeError):
        pass
