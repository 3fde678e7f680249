"""Tables: private practice tables against the house, seats at shared tables, and the
rounds started at them."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from feltlab.server.api import stakes
from feltlab.server.api.contract import refusals
from feltlab.server.api.deps import (
    BEARER_SECURITY,
    CallerDep,
    MoneyDep,
    ServicesDep,
    game_route,
)
from feltlab.server.api.money import EncodedJSON
from feltlab.server.api.responses import RoundView, Table, TableWithRound
from feltlab.server.api.schemas import RoundRequest, RowId, SeatRequest, TableRequest
from feltlab.server.middleware import StrictJSONRoute
from feltlab.server.services import (
    operator_sessions,
    round_reads,
    seats,
    tables,
)
from feltlab.server.services.idempotency import encode

router = APIRouter(prefix="/api/v1", tags=["tables"], route_class=StrictJSONRoute)


# the money route first: a router tries its routes in order, and bets are most of them
@router.post("/tables/{table_id}/rounds", status_code=201, response_model=RoundView,
             responses=refusals(404, 409), openapi_extra=BEARER_SECURITY)
async def start_round(table_id: RowId, body: RoundRequest, caller: MoneyDep,
                      request: Request) -> EncodedJSON:
    """Bet: a practice table deals at once; a shared table takes the wagers into its open
    betting window. The wagers are debited here, and the caller's token is read in the
    bet's own transaction."""
    return await stakes.bet(caller.found, caller.token, table_id, body, request.scope["path"],
                            request.headers.get("idempotency-key"))


@router.post("/tables", status_code=201, response_model=Table,
             response_model_exclude_unset=True, responses=refusals(404, 409))
@game_route
def create_table(body: TableRequest, caller: CallerDep, found: ServicesDep) -> dict[str, Any]:
    """A private table against the house, ready at once (practice, or cash). An
    operator's session opens its own rule set only, in its mode (``practice`` is
    ignored)."""
    if caller.embedded:
        return operator_sessions.open_table(found, caller, body.rules)
    return tables.open_private(found, caller, body.rules, body.practice)


@router.get("/tables", response_model=list[Table], response_model_exclude_unset=True)
@game_route
def list_tables(caller: CallerDep, found: ServicesDep) -> list[dict[str, Any]]:
    """The shared tables open now and the caller's own tables."""
    return tables.list_for(found, caller)


@router.get("/tables/{table_id}", response_model=TableWithRound, responses=refusals(404))
@game_route
def get_table(table_id: RowId, caller: CallerDep, found: ServicesDep) -> EncodedJSON:
    """The table, and its current round as the caller may see it."""
    return EncodedJSON(encode(round_reads.read_table(found, table_id, caller)))


@router.post("/tables/{table_id}/seats", status_code=201, response_model=Table,
             response_model_exclude_unset=True, responses=refusals(404, 409))
def take_seat(table_id: RowId, body: SeatRequest, caller: CallerDep,
              found: ServicesDep) -> dict[str, Any]:
    """Sit at a shared table."""
    return seats.take(found, caller, table_id, body.seat)


@router.delete("/tables/{table_id}/seats", response_model=Table,
               response_model_exclude_unset=True, responses=refusals(404, 409))
def leave_seat(table_id: RowId, caller: CallerDep, found: ServicesDep) -> dict[str, Any]:
    """Leave the caller's seat at a shared table."""
    return seats.leave(found, caller, table_id)
