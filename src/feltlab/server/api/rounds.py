"""Rounds: the caller's view, decisions, and step-by-step recall."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlalchemy.orm import Session

from feltlab.server import rounds
from feltlab.server.api.deps import (
    CallerDep,
    ServicesDep,
    in_writer_thread,
    moves_money,
    run_money_request,
)
from feltlab.server.api.schemas import ActionRequest, RowId
from feltlab.server.api.views import Fresh, table_state
from feltlab.server.services import Services

router = APIRouter(prefix="/api/v1", tags=["rounds"])


@router.get("/rounds/{round_id}")
def get_round(round_id: RowId, caller: CallerDep, found: ServicesDep) -> dict[str, Any]:
    """The round as the caller may see it; another player's round is not found."""
    with found.read() as session:
        return rounds.round_view(session, rounds.load_for(session, round_id, caller.user_id),
                                 caller.user_id)


@router.post("/rounds/{round_id}/actions")
@moves_money
async def act(round_id: RowId, body: ActionRequest, caller: CallerDep, found: ServicesDep,
        request: Request) -> JSONResponse:
    """The caller's decision; a raise, play or bet is debited here."""
    fresh: list[Fresh] = []

    def work(session: Session) -> tuple[int, Any]:
        fresh.clear()
        table, loaded = rounds.lock_for(session, round_id, caller.user_id)
        seen = found.hub.stamp(table.id)  # the table is locked: nobody changes it now
        timer = timedelta(seconds=table.decision_seconds) if table.shared else None
        rounds.act(session, loaded, caller.user_id, body.model_dump(), timer)
        count_if_complete(found, loaded)
        fresh.append(Fresh(seen, table_state(session, table, loaded)))
        return 200, rounds.round_view(session, loaded, caller.user_id)

    def respond() -> JSONResponse:
        response = run_money_request(found, caller, request, body.model_dump(), work)
        for changed in fresh:
            found.publish(changed.state.view["id"], changed)
        return response

    return await in_writer_thread(found, respond)


def count_if_complete(found: Services, loaded: rounds.LoadedRound) -> None:
    if loaded.record.phase == "complete":
        found.metrics.round_completed(loaded.rules.id, sum(seat.staked for seat in loaded.seats))


@router.get("/rounds/{round_id}/recall")
def recall(round_id: RowId, caller: CallerDep, found: ServicesDep) -> dict[str, Any]:
    """The round step by step: each event with the cards then visible, the stake so far
    and the balance, ending with the results."""
    with found.read() as session:
        loaded = rounds.load_for(session, round_id, caller.user_id)
        seat = loaded.seat_of(caller.user_id)
        assert seat is not None
        return {"id": round_id, "rules": loaded.rules.id, "phase": loaded.state.phase.value,
                "balance_before": seat.balance_before, "balance_after": seat.balance_after,
                "steps": rounds.recall(session, loaded, caller.user_id)}
