"""Admin routes: cash adjustments, shared tables, the audit log."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from sqlalchemy import select
from sqlalchemy.orm import Session

from feltlab.server import audit, ledger
from feltlab.server.api.deps import AdminDep, ServicesDep, moves_money, run_money_request
from feltlab.server.api.schemas import AdjustRequest, RowId, SharedTableRequest
from feltlab.server.api.tables import builtin_rules
from feltlab.server.api.views import seated, table_json
from feltlab.server.clock import now
from feltlab.server.errors import ApiError, not_found
from feltlab.server.models import AuditRecord, GameTable, User

router = APIRouter(prefix="/api/v1/admin", tags=["admin"])


@router.post("/cash")
@moves_money
def adjust_cash(body: AdjustRequest, caller: AdminDep, found: ServicesDep,
                request: Request) -> JSONResponse:
    """Credit (amount > 0) or debit (amount < 0) a player's cash balance."""
    if body.amount == 0:
        raise ApiError(422, "amount must not be 0")

    def work(session: Session) -> tuple[int, Any]:
        user = session.scalars(select(User).where(User.username == body.username)
                               ).one_or_none()
        if user is None:
            raise ApiError(404, f"no account is named {body.username}")
        new_balance = ledger.adjust_cash(session, user.id, body.amount,
                                         f"{caller.username}: {body.memo}")
        audit.record(session, caller.username, "cash_adjusted", username=user.username,
                     amount=body.amount, memo=body.memo, balance=new_balance)
        return 200, {"username": user.username, "cash": new_balance}

    return run_money_request(found, caller, request, body.model_dump(), work)


@router.post("/tables", status_code=201)
def open_table(body: SharedTableRequest, caller: AdminDep, found: ServicesDep
               ) -> dict[str, Any]:
    """Open a shared table: players sit, bet in the betting window, decide in turn."""
    rules = builtin_rules(body.rules)
    with found.transaction() as session:
        table = GameTable(rules_id=rules.id, fingerprint=rules.fingerprint,
                          currency=body.currency, shared=True, owner_id=None, status="open",
                          name=body.name, betting_seconds=body.betting_seconds,
                          decision_seconds=body.decision_seconds, created_at=now())
        session.add(table)
        session.flush()
        audit.record(session, caller.username, "table_opened", table=table.id,
                     rules=rules.id, currency=body.currency, name=body.name)
        return table_json(table, [])


@router.post("/tables/{table_id}/close")
def close_table(table_id: RowId, caller: AdminDep, found: ServicesDep) -> dict[str, Any]:
    """Close a shared table to new bets (a round under way is played to the end)."""
    with found.transaction() as session:
        table = session.get(GameTable, table_id)
        if table is None or not table.shared:
            raise not_found(f"shared table {table_id}")
        table.status = "closed"
        audit.record(session, caller.username, "table_closed", table=table_id)
        answer = table_json(table, seated(session, table_id))
    found.publish(table_id)
    return answer


@router.get("/audit")
def read_audit(caller: AdminDep, found: ServicesDep,
               limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> dict[str, Any]:
    """The latest audit lines, and whether the whole chain is intact."""
    with found.read() as session:
        report = audit.verify_session(session)
        lines = session.scalars(select(AuditRecord).order_by(AuditRecord.id.desc())
                                .limit(limit))
        return {"intact": report.intact, "lines": report.lines, "broken_at": report.broken_at,
                "latest": [audit.audit_json(line) for line in lines]}
