"""What the operator's console does to players: find them, see their balances, limits and
rating, lock and unlock them, change their limits and credit or debit their cash. Every
change is one line of the audit log with the admin's name and the reason given."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from feltlab.server.auth import Caller
from feltlab.server.errors import NotFound, Refused
from feltlab.server.models import User
from feltlab.server.revocations import Revoked
from feltlab.server.services import audit, wallets
from feltlab.server.services.accounts import change_limits, me
from feltlab.server.services.context import Services
from feltlab.server.services.idempotency import Answer, MoneyRequest
from feltlab.server.services.ratings import rating
from feltlab.server.services.reports import Span


def _reason(reason: str) -> str:
    reason = reason.strip()
    if not reason:
        raise Refused("give a reason: it goes into the audit log")
    return reason


def _view(session: Session, user: User) -> dict[str, Any]:
    return {"user_id": user.id, **me(session, user.id), "locked": user.locked}


def _user(session: Session, user_id: int, lock: bool = False) -> User:
    query = select(User).where(User.id == user_id)
    user = session.scalars(query.with_for_update() if lock else query).one_or_none()
    if user is None:
        raise NotFound(f"no account has id {user_id}")
    return user


def search(found: Services, text: str, limit: int) -> list[dict[str, Any]]:
    """Accounts whose name contains ``text`` (any case), by name."""
    pattern = "%" + text.lower().replace("\\", "\\\\").replace("%", "\\%").replace(
        "_", "\\_") + "%"
    with found.read() as session:
        users = session.scalars(select(User).where(
            func.lower(User.username).like(pattern, escape="\\"))
            .order_by(User.username).limit(limit)).all()
        return [_view(session, user) for user in users]


def player(found: Services, user_id: int, span: Span) -> dict[str, Any]:
    """One account with its rating over ``span`` (every settled round's figures written
    first)."""
    found.recorder.flush()
    with found.read() as session:
        view = _view(session, _user(session, user_id))
        view["rating"] = rating(session.connection(), user_id, span)
        return view


def set_locked(found: Services, admin: Caller, user_id: int, locked: bool, reason: str
               ) -> dict[str, Any]:
    """Lock (no bets, and its live sockets close) or unlock an account."""
    reason = _reason(reason)
    with found.transaction() as session:
        user = _user(session, user_id, lock=True)
        if user.role == "admin" and locked:
            raise Refused("an admin account cannot be locked here")
        user.locked = locked
        audit.record(session, admin.username, "account_locked" if locked else
                     "account_unlocked", username=user.username, reason=reason)
        session.flush()
        view = _view(session, user)
    if locked:
        found.revoke(Revoked("user", user_id))
    return view


def set_limits(found: Services, admin: Caller, user_id: int, daily_loss_limit: int | None,
               self_exclude_days: int | None, reason: str) -> dict[str, Any]:
    """Change a player's limits by the same rules as the player's own change."""
    reason = _reason(reason)
    with found.transaction() as session:
        user = _user(session, user_id, lock=True)
        change_limits(user, daily_loss_limit, self_exclude_days)
        audit.record(session, admin.username, "limits_changed", username=user.username,
                     daily_loss_limit=daily_loss_limit, self_exclude_days=self_exclude_days,
                     reason=reason)
        session.flush()
        return _view(session, user)


def adjust_cash(found: Services, admin: Caller, user_id: int, amount: int, reason: str,
                request: MoneyRequest) -> Answer:
    """Credit or debit a player's cash (a money request), the reason as its memo."""
    reason = _reason(reason)
    if amount == 0:
        raise Refused("amount must not be 0")
    with found.read() as session:
        username = _user(session, user_id).username
    return wallets.adjust_cash(found, admin, username, amount, reason, request)
