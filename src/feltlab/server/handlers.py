"""How the server answers what goes wrong, in one place: every refusal is
``{"detail": "one clear sentence"}`` with the status code of its kind.

Domain errors (:mod:`feltlab.server.errors`) get the status of their class; invalid
requests 422 with the first problem named; the database's refusals 409 (a constraint) or
503 (busy); a method a path does not take 405 with ``Allow``; anything unexpected 500,
logged, with ``Connection: close``. :mod:`feltlab.server.api.contract` declares all of
it in ``/openapi.json``.
"""

from __future__ import annotations

import logging
from typing import Final

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException

from feltlab.server.api.contract import allowed_methods
from feltlab.server.errors import (
    Abandoned,
    Busy,
    Conflict,
    DomainError,
    Forbidden,
    NotFound,
    Refused,
    TooMany,
    Unauthorized,
)

log = logging.getLogger("feltlab.server")

STATUS: Final[dict[type[DomainError], int]] = {
    Unauthorized: 401, Forbidden: 403, NotFound: 404, Conflict: 409, Refused: 422,
    TooMany: 429, Busy: 503, Abandoned: 499,
}
"""The HTTP status of each kind of refusal (499, as nginx logs it: the client closed the
connection first, so only the server's log and metrics see it)."""

CONFLICTS_WITH_STATE = "the request conflicts with the current state; nothing was changed"
DATABASE_BUSY = "the database is busy; nothing was changed, try again"
UNEXPECTED = "the server failed unexpectedly; nothing was changed and the failure is logged"


def status_of(error: DomainError) -> int:
    """The HTTP status that answers ``error`` (400 for a kind not listed).

    >>> status_of(NotFound("round 7 does not exist or is not yours"))
    404
    """
    for kind in type(error).__mro__:
        if kind in STATUS:
            return STATUS[kind]
    return 400


def answer(error: DomainError) -> JSONResponse:
    """The HTTP answer to a refusal."""
    headers: dict[str, str] = {}
    if isinstance(error, Busy):
        headers["Retry-After"] = "1"
    if isinstance(error, TooMany) and error.retry_after is not None:
        headers["Retry-After"] = str(error.retry_after)
    if isinstance(error, Unauthorized):  # RFC 9110: a 401 names its scheme
        headers["WWW-Authenticate"] = error.challenge
    return JSONResponse({"detail": error.detail}, status_of(error), headers=headers or None)


def refusal_answer(error: Exception) -> JSONResponse | None:
    """The answer to a refusal: a domain error's, or the database's (a constraint: 409;
    busy: 503); None for anything else (unexpected: the server's failure)."""
    if isinstance(error, DomainError):
        return answer(error)
    if isinstance(error, IntegrityError):
        log.warning("integrity refusal: %s", str(error.orig)[:200])
        return answer(Conflict(CONFLICTS_WITH_STATE))
    if isinstance(error, OperationalError | PoolTimeout):
        log.warning("database busy: %s", str(getattr(error, "orig", error))[:200])
        return answer(Busy(DATABASE_BUSY))
    return None


def first_problem(error: RequestValidationError) -> str:
    """The first thing wrong with a request, located (``field: message``)."""
    problems = error.errors()
    if not problems:
        return "the request is not valid"
    first = problems[0]
    where = ".".join(str(part) for part in first.get("loc", ()) if part != "body")
    message = str(first.get("msg", "is not valid")).rstrip(".")
    if first.get("type") == "string_pattern_mismatch" and \
            first.get("ctx", {}).get("pattern") == r"\S":
        message = "must hold something besides spaces"
    more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
    return f"{where or 'body'}: {message}{more}"


def add_error_handlers(app: FastAPI) -> None:
    """Answer every failure of ``app``'s requests as this module describes."""

    @app.exception_handler(DomainError)
    @app.exception_handler(IntegrityError)
    @app.exception_handler(OperationalError)
    @app.exception_handler(PoolTimeout)
    async def refused(request: Request, error: Exception) -> JSONResponse:
        refusal = refusal_answer(error)
        assert refusal is not None
        return refusal

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        return answer(Refused(first_problem(error)))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        detail = error.detail if isinstance(error.detail, str) else "request refused"
        if error.status_code == 404 and detail == "Not Found":
            detail = f"there is no {request.url.path[:100]}"
        headers = None
        if error.status_code == 405:
            detail = f"{request.method} is not allowed on {request.url.path[:100]}"
            allowed = set(allowed_methods(request.app.openapi(), request.url.path))
            allowed |= {method.strip() for method in
                        (error.headers or {}).get("Allow", "").split(",") if method.strip()}
            headers = {"Allow": ", ".join(sorted(allowed))}
        return JSONResponse({"detail": detail}, error.status_code, headers=headers)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, error: Exception) -> JSONResponse:
        log.exception("unexpected failure on %s %s", request.method, request.url.path[:100])
        # the failure is raised on to uvicorn after this answer, and uvicorn then drops
        # the connection: the client must not send its next request on it
        return JSONResponse({"detail": UNEXPECTED}, 500, headers={"Connection": "close"})
