"""Live updates over WebSocket: ``/api/v1/tables/{id}/live`` sends the table and its
current round as the caller may see it (exactly what ``GET /api/v1/tables/{id}``
answers) whenever it changes."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from sqlalchemy import func, select
from starlette.concurrency import run_in_threadpool

from feltlab.server import rounds
from feltlab.server.api.deps import authenticated
from feltlab.server.api.schemas import RowId
from feltlab.server.api.tables import seated, table_json
from feltlab.server.auth import COOKIE_NAME, Caller
from feltlab.server.errors import ApiError, not_found
from feltlab.server.models import GameTable, Round, RoundEvent, TableSeat
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


@dataclass(frozen=True)
class TableState:
    """What every watcher of a table shares at one announcement: built once per worker."""

    stamp: int
    owner_id: int | None
    shared: bool
    view: dict[str, Any]
    loaded: rounds.LoadedRound | None


def _table_state(found: Services, table_id: int) -> TableState:
    stamp = found.hub.stamp(table_id)
    cached: TableState | None = found.snapshots.get(table_id)
    if cached is not None and cached.stamp == stamp:
        return cached
    with found.read() as session:
        table = session.get(GameTable, table_id)
        if table is None:
            raise not_found(f"table {table_id}")
        view = table_json(table, seated(session, table.id) if table.shared else None)
        current = rounds.unfinished_round(session, table.id) or rounds.latest_round(
            session, table.id)
        loaded = None if current is None else rounds.load_round(session, current)
    state = TableState(stamp, table.owner_id, table.shared, view, loaded)
    found.snapshots[table_id] = state
    return state


def _snapshot(found: Services, table_id: RowId, caller: Caller) -> dict[str, Any]:
    """What ``GET /api/v1/tables/{id}`` answers this caller (the table's current round or,
    between rounds, its last one)."""
    state = _table_state(found, table_id)
    if not state.shared and state.owner_id != caller.user_id:
        raise not_found(f"table {table_id}")
    view = dict(state.view)
    if state.loaded is None:
        view["round"] = None
        return view
    with found.read() as session:
        view["round"] = rounds.round_view(session, state.loaded, caller.user_id)
    return view


def _version(found: Services, table_id: int) -> tuple[object, ...]:
    """A cheap fingerprint of the table's state: its snapshot is rebuilt only when it moves."""
    with found.read() as session:
        last_event = session.scalar(select(func.max(RoundEvent.id)).join(
            Round, Round.id == RoundEvent.round_id).where(Round.table_id == table_id))
        seats = session.execute(select(func.count(TableSeat.id), func.max(TableSeat.id)).where(
            TableSeat.table_id == table_id)).one()
        table = session.get(GameTable, table_id)
        return (last_event, *seats, table.status if table else None)


@router.websocket("/tables/{table_id}/live")
async def live(websocket: WebSocket, table_id: RowId) -> None:
    found: Services = websocket.app.state.services
    queue = found.hub.watch(table_id)  # before the first view, so no change falls between
    try:
        caller = await run_in_threadpool(_caller, websocket, found)
        first = await run_in_threadpool(_snapshot, found, table_id, caller)
    except ApiError as error:
        found.hub.unwatch(table_id, queue)
        await websocket.close(code=4000 + error.status, reason=error.detail[:120])
        return
    await websocket.accept()
    last = json.dumps(first, sort_keys=True)
    version = await run_in_threadpool(_version, found, table_id)
    await websocket.send_text(last)
    try:
        while True:
            try:
                await asyncio.wait_for(queue.get(), POLL_SECONDS)
                while not queue.empty():  # several announcements: one new view
                    queue.get_nowait()
            except TimeoutError:  # nothing announced: look whether another host moved it
                seen = await run_in_threadpool(_version, found, table_id)
                if seen != version:
                    version = seen
                    found.hub.publish(table_id)  # a new stamp: every watcher here rebuilds
                continue
            text = json.dumps(await run_in_threadpool(_snapshot, found, table_id, caller),
                              sort_keys=True)
            if text != last:
                await websocket.send_text(text)
                last = text
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        found.hub.unwatch(table_id, queue)
