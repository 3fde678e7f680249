"""Admin routes: cash adjustments, shared tables, the audit log."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from feltlab.server.api.contract import refusals
from feltlab.server.api.deps import AdminDep, ServicesDep, moves_money
from feltlab.server.api.money import EncodedJSON, encoded, money_request
from feltlab.server.api.responses import AuditLog, CashAdjusted, Table
from feltlab.server.api.schemas import AdjustRequest, RowId, SharedTableRequest
from feltlab.server.errors import Refused
from feltlab.server.middleware import StrictJSONRoute
from feltlab.server.services import audit, tables, wallets

router = APIRouter(prefix="/api/v1/admin", tags=["admin"], responses=refusals(403),
                   route_class=StrictJSONRoute)


@router.post("/cash", response_model=CashAdjusted, responses=refusals(404, 409))
@moves_money
def adjust_cash(body: AdjustRequest, caller: AdminDep, found: ServicesDep,
                request: Request) -> EncodedJSON:
    """Credit (amount > 0) or debit (amount < 0) a player's cash balance (never the
    admin's own: 403)."""
    if body.amount == 0:
        raise Refused("amount must not be 0")
    return encoded(wallets.adjust_cash(found, caller, body.username, body.amount, body.memo,
                                       money_request(request, body.model_dump())))


@router.post("/tables", status_code=201, response_model=Table,
             response_model_exclude_unset=True, responses=refusals(404, 409))
def open_table(body: SharedTableRequest, caller: AdminDep, found: ServicesDep
               ) -> dict[str, Any]:
    """Open a shared table: players sit, bet in the betting window, decide in turn."""
    return tables.open_shared(found, caller, body.rules, body.currency, body.name,
                              body.betting_seconds, body.decision_seconds)


@router.post("/tables/{table_id}/close", response_model=Table,
             response_model_exclude_unset=True, responses=refusals(404, 409))
def close_table(table_id: RowId, caller: AdminDep, found: ServicesDep) -> dict[str, Any]:
    """Close a shared table to new bets (a round under way is played to the end)."""
    return tables.close_shared(found, caller, table_id)


@router.get("/audit", response_model=AuditLog)
def read_audit(caller: AdminDep, found: ServicesDep,
               limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> dict[str, Any]:
    """The latest audit lines, whether the whole chain and its head are intact (``reason``
    says why not), and the head (line count and last hash) to write down or publish."""
    return audit.read_audit(found, limit)
