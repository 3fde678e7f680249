"""Accounts, logins, the caller's balances, limits and rounds."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import JSONResponse
from sqlalchemy import select
from sqlalchemy.orm import Session

from feltlab.server import audit, auth, ledger, rounds
from feltlab.server.api.deps import CallerDep, ServicesDep, moves_money, run_money_request
from feltlab.server.api.schemas import Credentials, LimitsRequest
from feltlab.server.clock import aware, now
from feltlab.server.errors import ApiError
from feltlab.server.models import User

router = APIRouter(prefix="/api/v1", tags=["accounts"])


@router.post("/accounts", status_code=201)
def create_account(body: Credentials, found: ServicesDep) -> dict[str, Any]:
    """Register: a player account whose practice balance starts at 1,000."""
    with found.transaction() as session:
        user = auth.create_account(session, found.hasher, body.username, body.password)
        return {"username": user.username, "role": user.role,
                "balances": ledger.balances(session, user.id)}


@router.post("/login")
def login(body: Credentials, found: ServicesDep, request: Request,
          response: Response) -> dict[str, Any]:
    """A bearer token; also sets the browser's HttpOnly session cookie and CSRF cookie,
    marked Secure when the request came over HTTPS (directly, or through a proxy that
    uvicorn trusts and that sends ``X-Forwarded-Proto: https``)."""
    with found.transaction() as session:
        token = auth.login(session, found.hasher, found.auth, body.username, body.password)
    if token is None:
        raise ApiError(401, "wrong username or password")
    # Session cookies: the server ends the login after idle time, the browser at its close.
    secure = request.url.scheme in ("https", "wss")
    response.set_cookie(auth.COOKIE_NAME, token, httponly=True, samesite="strict", path="/",
                        secure=secure)
    csrf = auth.csrf_for(token)
    response.set_cookie(auth.CSRF_COOKIE, csrf, samesite="strict", path="/", secure=secure)
    return {"token": token, "csrf": csrf, "expires_after_idle_minutes": found.auth.idle_minutes}


@router.post("/logout")
def logout(caller: CallerDep, found: ServicesDep, response: Response) -> dict[str, Any]:
    """Revoke the token (it is refused from now on) and clear the cookies."""
    with found.transaction() as session:
        auth.logout(session, caller)
    response.delete_cookie(auth.COOKIE_NAME, path="/")
    response.delete_cookie(auth.CSRF_COOKIE, path="/")
    return {"detail": "signed out"}


def _me(session: Session, caller_id: int) -> dict[str, Any]:
    user = session.get(User, caller_id)
    assert user is not None
    return {"username": user.username, "role": user.role,
            "balances": ledger.balances(session, user.id),
            "limits": {"daily_loss_limit": user.daily_loss_limit,
                       "excluded_until": aware(user.excluded_until).isoformat()
                       if user.excluded_until else None,
                       "lost_today": rounds.loss_today(session, user.id)}}


@router.get("/me")
def me(caller: CallerDep, found: ServicesDep) -> dict[str, Any]:
    with found.read() as session:
        return _me(session, caller.user_id)


@router.post("/me/practice/reset")
@moves_money
def reset_practice(caller: CallerDep, found: ServicesDep, request: Request) -> JSONResponse:
    """Bring the practice balance back to 1,000; refused while a practice round is open."""
    def work(session: Session) -> tuple[int, Any]:
        if rounds.open_round_of(session, caller.user_id, "practice") is not None:
            raise ApiError(409, "finish your open practice round before resetting")
        before = ledger.balance(session, caller.user_id, "practice")
        ledger.reset_practice(session, caller.user_id)
        audit.record(session, caller.username, "practice_reset", balance_before=before,
                     balance_after=ledger.PRACTICE_START)
        return 200, _me(session, caller.user_id)
    return run_money_request(found, caller, request, None, work)


@router.put("/me/limits")
def set_limits(body: LimitsRequest, caller: CallerDep, found: ServicesDep) -> dict[str, Any]:
    """Set a daily loss limit (cash; lowering takes effect at once) and/or self-exclude."""
    with found.transaction() as session:
        user = session.scalars(select(User).where(User.id == caller.user_id)
                               .with_for_update()).one()
        if body.daily_loss_limit is not None:
            user.daily_loss_limit = body.daily_loss_limit
        if body.self_exclude_days is not None:
            until = now() + timedelta(days=body.self_exclude_days)
            current = aware(user.excluded_until) if user.excluded_until else None
            user.excluded_until = max(until, current) if current else until
        audit.record(session, caller.username, "limits_changed",
                     daily_loss_limit=body.daily_loss_limit,
                     self_exclude_days=body.self_exclude_days)
        session.flush()
        return _me(session, caller.user_id)


@router.get("/me/rounds")
def my_rounds(caller: CallerDep, found: ServicesDep,
              limit: Annotated[int, Query(ge=1, le=100)] = 10) -> list[dict[str, Any]]:
    """The caller's latest rounds, newest first."""
    with found.read() as session:
        return [rounds.round_view(session, rounds.load_round(session, round_id),
                                  caller.user_id)
                for round_id in rounds.recent_rounds(session, caller.user_id, limit)]
