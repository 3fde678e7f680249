"""Request dependencies: the services, and the caller (bearer token, or the browser's
cookie with its CSRF header)."""

from __future__ import annotations

import hmac
from collections.abc import Callable
from dataclasses import replace
from typing import Annotated, Any, NamedTuple, TypeVar

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from feltlab.server.auth import COOKIE_NAME, CSRF_HEADER, Caller, csrf_for
from feltlab.server.errors import Forbidden, Unauthorized
from feltlab.server.services.accounts import authenticated
from feltlab.server.services.context import Services
from feltlab.server.services.operator_sessions import is_session_token

Endpoint = TypeVar("Endpoint", bound=Callable[..., Any])
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
MAX_TOKEN = 200


async def services(request: Request) -> Services:
    found: Services = request.app.state.services
    return found


def bearer_token(header: str) -> str:
    """The token an Authorization header carries."""
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("the Authorization header must be 'Bearer TOKEN'")
    return token.strip()[:MAX_TOKEN]


def token_of(request: Request) -> tuple[str, bool]:
    """The token and whether it came from the cookie."""
    header = request.headers.get("authorization", "")
    if header:
        return bearer_token(header), False
    cookie = request.cookies.get(COOKIE_NAME)
    if cookie:
        return cookie[:MAX_TOKEN], True
    raise Unauthorized("sign in first: send 'Authorization: Bearer TOKEN'")


BEARER = HTTPBearer(auto_error=False, scheme_name="bearer", description=(
    "The token POST /api/v1/login answers. The pages send the session cookie instead, "
    "with its X-CSRF-Token header on every request that changes something."))
"""How a caller signs in, as the OpenAPI document declares it (:func:`token_of` reads
the header itself, to answer a malformed one with a clear sentence)."""


def checked_token(request: Request) -> str:
    """The caller's token, its CSRF header checked when it came from the cookie of a
    request that changes something; the token itself is checked later (a money request
    reads it in its own transaction)."""
    token, from_cookie = token_of(request)
    if from_cookie and request.method not in SAFE_METHODS:
        sent = request.headers.get(CSRF_HEADER, "")
        if not hmac.compare_digest(sent.encode("utf-8", "replace"),
                                   csrf_for(token).encode()):
            raise Forbidden(f"the {CSRF_HEADER} header is missing or wrong")
    return token


class MoneyCaller(NamedTuple):
    """What a money route needs before its transaction: the caller's token (read in the
    transaction itself) and the services."""

    token: str
    found: Services


async def money_caller(request: Request) -> MoneyCaller:
    """A money route's one dependency, run in the event loop (no thread), so that a
    request with no token is refused before its body is validated: :func:`checked_token`
    and the services. One dependency, not three: FastAPI spends about 20 us a request
    solving each. The route declares the bearer scheme itself (:data:`BEARER_SECURITY`)."""
    return MoneyCaller(checked_token(request), request.app.state.services)


BEARER_SECURITY: dict[str, Any] = {"security": [{BEARER.scheme_name: []}]}
"""``openapi_extra`` of a route that reads the bearer token without :data:`BEARER` as a
dependency: the OpenAPI document declares it all the same."""


def current_caller(request: Request,
                   found: Annotated[Services, Depends(services)],
                   declared: Annotated[HTTPAuthorizationCredentials | None, Depends(BEARER)]
                   ) -> Caller:
    """The caller; an operator's session only on a route marked :func:`game_route`."""
    token = checked_token(request)
    endpoint = request.scope.get("endpoint")
    embedded = is_session_token(token)
    if embedded and not getattr(endpoint, "game_route", False):
        raise Forbidden("an operator's session may only play the game: this route is not "
                        "for it")
    caller = authenticated(found, token,
                           record_use=not getattr(endpoint, "moves_money", False))
    return replace(caller, embedded=True) if embedded else caller


def game_route(endpoint: Endpoint) -> Endpoint:
    """Mark a route an operator's session may use: the ones a game needs (its tables,
    rounds and decisions, the account's own reads, the live socket)."""
    endpoint.game_route = True  # type: ignore[attr-defined]
    return endpoint


def moves_money(endpoint: Endpoint) -> Endpoint:
    """Mark an endpoint that runs a money request: the token's use is recorded in its
    transaction rather than in a write transaction of its own."""
    endpoint.moves_money = True  # type: ignore[attr-defined]
    return endpoint


def admin_caller(caller: Annotated[Caller, Depends(current_caller)]) -> Caller:
    if not caller.is_admin:
        raise Forbidden("only an admin may do this")
    return caller


CallerDep = Annotated[Caller, Depends(current_caller)]
AdminDep = Annotated[Caller, Depends(admin_caller)]
ServicesDep = Annotated[Services, Depends(services)]
MoneyDep = Annotated[MoneyCaller, Depends(money_caller)]
