"""Money that moves outside rounds: a player's practice reset and an admin's cash
adjustment, each a money request recorded in the audit log."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from feltlab.server.auth import Caller
from feltlab.server.errors import Conflict, Forbidden, NotFound
from feltlab.server.services import audit, ledger
from feltlab.server.services.accounts import me, user_named
from feltlab.server.services.context import Services
from feltlab.server.services.idempotency import Answer, MoneyRequest, run_money_request
from feltlab.server.services.round_store import open_round_of


def reset_practice(found: Services, caller: Caller, request: MoneyRequest) -> Answer:
    """Bring the practice balance back to 1,000; refused while a practice round is open.
    Answers the account as ``GET /api/v1/me`` does."""
    def work(session: Session) -> tuple[int, Any]:
        if open_round_of(session.connection(), caller.user_id, "practice") is not None:
            raise Conflict("finish your open practice round before resetting")
        before = ledger.balance(session, caller.user_id, "practice")
        ledger.reset_practice(session, caller.user_id)
        audit.record(session, caller.username, "practice_reset", balance_before=before,
                     balance_after=ledger.PRACTICE_START)
        return 200, me(session, caller.user_id)
    return run_money_request(found, caller, request, work)


def adjust_cash(found: Services, admin: Caller, username: str, amount: int, memo: str,
                request: MoneyRequest) -> Answer:
    """Credit (amount > 0) or debit (amount < 0) a player's cash balance; never the
    admin's own (another admin makes that change)."""
    def work(session: Session) -> tuple[int, Any]:
        user = user_named(session, username)
        if user is None:
            raise NotFound(f"no account is named {username}")
        if user.id == admin.user_id:
            raise Forbidden("an admin may not adjust their own cash; another admin must")
        new_balance = ledger.adjust_cash(session, user.id, amount, f"{admin.username}: {memo}")
        audit.record(session, admin.username, "cash_adjusted", username=user.username,
                     amount=amount, memo=memo, balance=new_balance)
        return 200, {"username": user.username, "cash": new_balance}
    return run_money_request(found, admin, request, work)
