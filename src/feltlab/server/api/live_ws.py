"""Live updates over WebSocket: ``/api/v1/tables/{id}/live`` sends the table and its
current round as the caller may see it (exactly what ``GET /api/v1/tables/{id}``
answers) whenever it changes."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from starlette.concurrency import run_in_threadpool

from feltlab.server import rounds
from feltlab.server.api.deps import authenticated
from feltlab.server.api.schemas import RowId
from feltlab.server.api.views import TableState, table_state
from feltlab.server.auth import COOKIE_NAME, Caller
from feltlab.server.errors import ApiError, not_found
from feltlab.server.services import Services

router = APIRouter(prefix="/api/v1", tags=["live"])
POLL_SECONDS = 5.0
"""Also look this often whether the table moved unannounced (a safety net)."""


def _caller(websocket: WebSocket, found: Services) -> Caller:
    header = websocket.headers.get("authorization", "")
    token = header.partition(" ")[2].strip() if header.lower().startswith("bearer ") else ""
    if not token:
        token = websocket.cookies.get(COOKIE_NAME, "")
        origin = websocket.headers.get("origin")
        host = websocket.headers.get("host", "")
        if origin is not None and origin.split("://", 1)[-1] != host:
            raise ApiError(403, "a cookie session is accepted only from this server's pages")
    if not token:
        raise ApiError(401, "sign in first")
    return authenticated(found, token[:200])


def _build_state(found: Services, table_id: int, stamp: int) -> TableState:
    with found.read() as session:
        table = rounds.find_table(session, table_id)
        if table is None:
            raise not_found(f"table {table_id}")
        current = rounds.unfinished_round(session, table.id) or rounds.latest_round(
            session, table.id)
        loaded = None if current is None else rounds.load_round(session, current)
        return table_state(session, table, loaded, stamp)


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
        found.snapshots[table_id] = state
        return state


def _view(state: TableState, table_id: int, caller: Caller) -> dict[str, Any]:
    """What ``GET /api/v1/tables/{id}`` answers this caller (the table's current round or,
    between rounds, its last one), from the shared state without a database read."""
    if not state.shared and state.owner_id != caller.user_id:
        raise not_found(f"table {table_id}")
    view = dict(state.view)
    view["round"] = None if state.loaded is None else rounds.view_of(
        state.loaded, caller.user_id, state.names)
    return view


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
    found: Services = websocket.app.state.services
    queue = found.hub.watch(table_id)  # before the first view, so no change falls between
    try:
        caller = await run_in_threadpool(_caller, websocket, found)
        first = _view(await _table_state(found, table_id), table_id, caller)
    except ApiError as error:
        found.hub.unwatch(table_id, queue)
        await websocket.close(code=4000 + error.status, reason=error.detail[:120])
        return
    await websocket.accept()
    last = json.dumps(first)
    await websocket.send_text(last)
    try:
        while True:
            try:
                await asyncio.wait_for(queue.get(), POLL_SECONDS)
                while not queue.empty():  # several announcements: one new view
                    queue.get_nowait()
            except TimeoutError:  # nothing announced: look whether another host moved it
                await _recheck(found, table_id)
                continue
            text = json.dumps(_view(await _table_state(found, table_id), table_id, caller))
            if text != last:
                await websocket.send_text(text)
                last = text
    except (WebSocketDisconnect, RuntimeError, ApiError):
        pass
    finally:
        found.hub.unwatch(table_id, queue)
