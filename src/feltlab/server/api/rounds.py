"""Rounds: the caller's view, decisions, and step-by-step recall."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from feltlab.server.api import stakes
from feltlab.server.api.contract import refusals
from feltlab.server.api.deps import (
    BEARER_SECURITY,
    CallerDep,
    MoneyDep,
    ServicesDep,
    checked_token,
    game_route,
)
from feltlab.server.api.money import EncodedJSON
from feltlab.server.api.responses import Recall, RoundView
from feltlab.server.api.schemas import ActionRequest, RowId
from feltlab.server.middleware import StrictJSONRoute
from feltlab.server.services import round_reads
from feltlab.server.services.idempotency import encode

router = APIRouter(prefix="/api/v1", tags=["rounds"], route_class=StrictJSONRoute)


@router.get("/rounds/{round_id}", response_model=RoundView, responses=refusals(404),
            openapi_extra=BEARER_SECURITY)
async def get_round(round_id: RowId, request: Request) -> EncodedJSON:
    """The round as the caller may see it; another player's round is not found. Polled
    by players waiting for their turn: the token and the round are read in one thread
    and one read transaction."""
    token, found = checked_token(request), request.app.state.services
    return EncodedJSON(encode(await run_in_threadpool(round_reads.read_round_view, found, token,
                                                      round_id)))


@router.post("/rounds/{round_id}/actions", response_model=RoundView,
             responses=refusals(404, 409), openapi_extra=BEARER_SECURITY)
async def act(round_id: RowId, body: ActionRequest, caller: MoneyDep,
              request: Request) -> EncodedJSON:
    """The caller's decision; a raise, play or bet is debited here. The caller's token is
    read in the decision's own transaction."""
    return await stakes.decide(caller.found, caller.token, round_id, body,
                               request.scope["path"], request.headers.get("idempotency-key"))


@router.get("/rounds/{round_id}/recall", response_model=Recall,
            response_model_exclude_unset=True, responses=refusals(404))
@game_route
def recall(round_id: RowId, caller: CallerDep, found: ServicesDep) -> dict[str, Any]:
    """The round step by step: each event with the cards then visible, the stake so far
    and the balance, ending with the results."""
    return round_reads.read_recall(found, round_id, caller)
