"""Live updates over WebSocket: ``/api/v1/tables/{id}/live`` sends the table and its
current round as the caller may see it (exactly what ``GET /api/v1/tables/{id}``
answers) whenever it changes."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from sqlalchemy import func, select
from starlette.concurrency import run_in_threadpool

from feltlab.server import rounds
from feltlab.server.api.deps import authenticated
from feltlab.server.api.schemas import RowId
from feltlab.server.api.tables import seated, table_json, visible_table
from feltlab.server.auth import COOKIE_NAME, Caller
from feltlab.server.errors import ApiError
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


def _snapshot(found: Services, table_id: RowId, caller: Caller) -> dict[str, Any]:
    with found.read() as session:
        table = visible_table(session, table_id, caller)
        view = table_json(table, seated(session, table.id) if table.shared else None)
        current = rounds.unfinished_round(session, table.id)
        if current is None:
            latest = rounds.latest_round(session, table.id)
            current = latest
        view["round"] = (None if current is None else rounds.round_view(
            session, rounds.load_round(session, current), caller.user_id))
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
    try:
        caller = await run_in_threadpool(_caller, websocket, found)
        first = await run_in_threadpool(_snapshot, found, table_id, caller)
    except ApiError as error:
        await websocket.close(code=4000 + error.status, reason=error.detail[:120])
        return
    await websocket.accept()
    queue = found.hub.watch(table_id)
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
                if seen == version:
                    continue
                version = seen
            text = json.dumps(await run_in_threadpool(_snapshot, found, table_id, caller),
                              sort_keys=True)
            if text != last:
                await websocket.send_text(text)
                last = text
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        found.hub.unwatch(table_id, queue)
