"""Accounts, logins, the caller's balances, limits and rounds."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response

from feltlab.server.api.contract import refusals
from feltlab.server.api.deps import CallerDep, ServicesDep, game_route, moves_money
from feltlab.server.api.money import EncodedJSON, encoded, money_request
from feltlab.server.api.responses import AccountCreated, LoggedIn, Me, Message, RoundView
from feltlab.server.api.schemas import Credentials, LimitsRequest, NewAccount
from feltlab.server.auth import COOKIE_NAME, CSRF_COOKIE, client_address, csrf_for
from feltlab.server.middleware import StrictJSONRoute
from feltlab.server.services import accounts, logins, operator_sessions, round_reads, wallets

router = APIRouter(prefix="/api/v1", tags=["accounts"], route_class=StrictJSONRoute)


@router.post("/accounts", status_code=201, response_model=AccountCreated,
             responses=refusals(409))
def create_account(body: NewAccount, found: ServicesDep) -> dict[str, Any]:
    """Register: a player account whose practice balance starts at 1,000."""
    return accounts.register(found, body.username, body.password)


@router.post("/login", response_model=LoggedIn, responses=refusals(401, 429))
def login(body: Credentials, found: ServicesDep, request: Request,
          response: Response) -> dict[str, Any]:
    """A bearer token (failed logins are throttled by client and username together: 429
    with Retry-After); also sets the browser's HttpOnly session cookie and CSRF cookie,
    marked Secure when the request came over HTTPS (directly, or through a proxy that
    uvicorn trusts and that sends ``X-Forwarded-Proto: https``)."""
    peer = request.client.host if request.client else None
    client = client_address(peer, request.headers.get("x-forwarded-for"),
                            found.auth.trusted_proxies)
    token = logins.sign_in(found, body.username, body.password, client)
    # Session cookies: the server ends the login after idle time, the browser at its close.
    secure = request.url.scheme in ("https", "wss")
    response.set_cookie(COOKIE_NAME, token, httponly=True, samesite="strict", path="/",
                        secure=secure)
    csrf = csrf_for(token)
    response.set_cookie(CSRF_COOKIE, csrf, samesite="strict", path="/", secure=secure)
    return {"token": token, "csrf": csrf, "expires_after_idle_minutes": found.auth.idle_minutes}


@router.post("/logout", response_model=Message)
def logout(caller: CallerDep, found: ServicesDep, response: Response) -> dict[str, Any]:
    """Revoke the token (it is refused from now on) and clear the cookies."""
    accounts.sign_out(found, caller)
    response.delete_cookie(COOKIE_NAME, path="/")
    response.delete_cookie(CSRF_COOKIE, path="/")
    return {"detail": "signed out"}


@router.get("/me", response_model=Me)
@game_route
def me(caller: CallerDep, found: ServicesDep) -> dict[str, Any]:
    """The caller's account: balances and limits (an operator's real-money session: and
    the balance at the operator)."""
    if caller.embedded:
        return operator_sessions.read_me(found, caller)
    return accounts.read_me(found, caller.user_id)


@router.post("/me/practice/reset", response_model=Me, responses=refusals(409))
@moves_money
def reset_practice(caller: CallerDep, found: ServicesDep, request: Request) -> EncodedJSON:
    """Bring the practice balance back to 1,000; refused while a practice round is open."""
    return encoded(wallets.reset_practice(found, caller, money_request(request, None)))


@router.put("/me/limits", response_model=Me)
def set_limits(body: LimitsRequest, caller: CallerDep, found: ServicesDep) -> dict[str, Any]:
    """Set a daily loss limit (cash; lowering takes effect at once, raising after 24
    hours: GET /me shows the pending limit) and/or self-exclude."""
    return accounts.set_limits(found, caller, body.daily_loss_limit, body.self_exclude_days)


@router.get("/me/rounds", response_model=list[RoundView], response_model_exclude_unset=True)
@game_route
def my_rounds(caller: CallerDep, found: ServicesDep,
              limit: Annotated[int, Query(ge=1, le=100)] = 10,
              before: Annotated[int | None, Query(ge=1, le=2**31 - 1)] = None
              ) -> list[dict[str, Any]]:
    """The caller's rounds, newest first: the latest ``limit``, or with ``before`` (a
    round id, exclusive) the ``limit`` next older ones, so that pages of ``before`` =
    the last id seen read the whole history. Any id pages from the caller's next older
    round, whether it is theirs or not (no answer tells ids apart)."""
    return round_reads.recent_views(found, caller, limit, before)
