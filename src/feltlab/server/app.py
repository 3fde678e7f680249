"""The table server's ASGI application: :func:`create_app` builds it for a database URL,
applying the schema migrations first."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from feltlab.core.jsonio import JSONInputError, loads
from feltlab.server import migrate
from feltlab.server.api import accounts, admin, live_ws, rounds, rules_routes, tables
from feltlab.server.auth import AuthSettings, password_hasher
from feltlab.server.db import database_reachable, make_engine, session_factory
from feltlab.server.errors import ApiError
from feltlab.server.metrics import Metrics, metrics_folder
from feltlab.server.notify import Announcer
from feltlab.server.services import Services
from feltlab.server.timers import Ticker
from feltlab.web import mount_web

MAX_BODY = 64 * 1024
log = logging.getLogger("feltlab.server")


def create_app(database_url: str, auth_settings: AuthSettings | None = None,
               timers: bool = True) -> FastAPI:
    """The application on ``database_url``, its schema brought up to date."""
    engine = make_engine(database_url)
    migrate.upgrade(engine)
    settings = auth_settings or AuthSettings()
    found = Services(engine, session_factory(engine), password_hasher(settings), settings,
                     metrics=Metrics(metrics_folder(database_url)))
    reader = make_engine(database_url, writer=False) if engine.dialect.name == "sqlite" else None
    if reader is not None:
        found.readers = session_factory(reader)
    announcer = found.announcer = Announcer(engine, found.hub, reader)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        ticker = Ticker(found) if timers else None
        if ticker:
            ticker.start()
        announcer.start()
        yield
        found.metrics.save()
        announcer.stop()
        if ticker:
            ticker.stop()
        engine.dispose()
        if reader is not None:
            reader.dispose()

    app = FastAPI(title="feltlab table server", version="1", lifespan=lifespan)
    app.state.services = found
    for router in (accounts.router, tables.router, rounds.router, admin.router,
                   live_ws.router, rules_routes.router):
        app.include_router(router)
    _add_operations(app, found)
    mount_web(app)
    _add_error_handlers(app)
    _add_request_log(app, found)
    app.add_middleware(BodyLimit)  # outermost: refuses before anything reads the body
    return app


def _add_operations(app: FastAPI, found: Services) -> None:
    @app.get("/healthz", tags=["operations"])
    def healthz() -> JSONResponse:
        """200 when the database answers, 503 when it does not."""
        if database_reachable(found.engine):
            return JSONResponse({"status": "ok", "database": found.engine.dialect.name})
        return JSONResponse({"detail": "the database does not answer"}, 503)

    @app.get("/metrics", tags=["operations"], response_class=PlainTextResponse)
    def metrics() -> PlainTextResponse:
        """Prometheus text format."""
        return PlainTextResponse(found.metrics.render(database_reachable(found.engine)),
                                 media_type="text/plain; version=0.0.4")


def _first_error(error: RequestValidationError) -> str:
    problems = error.errors()
    if not problems:
        return "the request is not valid"
    first = problems[0]
    where = ".".join(str(part) for part in first.get("loc", ()) if part != "body")
    message = str(first.get("msg", "is not valid")).rstrip(".")
    more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
    return f"{where or 'body'}: {message}{more}"


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(request: Request, error: ApiError) -> JSONResponse:
        return JSONResponse({"detail": error.detail}, error.status)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": _first_error(error)}, 422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        detail = error.detail if isinstance(error.detail, str) else "request refused"
        if error.status_code == 404 and detail == "Not Found":
            detail = f"there is no {request.url.path[:100]}"
        if error.status_code == 405:
            detail = f"{request.method} is not allowed on {request.url.path[:100]}"
        return JSONResponse({"detail": detail}, error.status_code)

    @app.exception_handler(IntegrityError)
    async def integrity(request: Request, error: IntegrityError) -> JSONResponse:
        log.warning("integrity refusal: %s", str(error.orig)[:200])
        return JSONResponse({"detail": "the request conflicts with the current state; "
                                       "nothing was changed"}, 409)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, error: Exception) -> JSONResponse:
        log.exception("unexpected failure on %s %s", request.method, request.url.path[:100])
        return JSONResponse({"detail": "the server failed unexpectedly; nothing was changed "
                                       "and the failure is logged"}, 500)

    @app.exception_handler(OperationalError)
    @app.exception_handler(PoolTimeout)
    async def busy(request: Request, error: Exception) -> JSONResponse:
        log.warning("database busy: %s", str(getattr(error, "orig", error))[:200])
        return JSONResponse({"detail": "the database is busy; nothing was changed, "
                                       "try again"}, 503, headers={"Retry-After": "1"})


def _add_request_log(app: FastAPI, found: Services) -> None:
    app.add_middleware(RequestLog, found=found)


class RequestLog:
    """Time every HTTP request into the metrics and log it as one JSON line (a plain ASGI
    middleware: no extra task or body stream per request)."""

    def __init__(self, app: ASGIApp, found: Services) -> None:
        self.app, self.found = app, found

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            seconds = time.perf_counter() - started
            template = getattr(scope.get("route"), "path", "unmatched")
            self.found.metrics.request(scope["method"], template, status, seconds)
            log.info(json.dumps({"event": "request", "method": scope["method"],
                                 "route": template, "status": status,
                                 "ms": round(seconds * 1000, 2)}))


class BodyLimit:
    """Refuse request bodies over :data:`MAX_BODY` bytes (413) before they are read, and
    JSON bodies that are ambiguous or beyond limits (422: a key given twice, NaN, a
    100-digit number, deep nesting) before any handler sees them."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
            await _refuse(send, 413, f"the request body is over {MAX_BODY} bytes")
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if len(body) > MAX_BODY:
                await _refuse(send, 413, f"the request body is over {MAX_BODY} bytes")
                return
            if not message.get("more_body"):
                break
        problem = _json_problem(body)
        if problem:
            await _refuse(send, 422, problem)
            return
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if delivered:
                return await receive()
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


def _json_problem(body: bytes) -> str | None:
    if not body.strip():
        return None
    try:
        loads(body.decode("utf-8"))
    except UnicodeDecodeError:
        return "the request body is not UTF-8 text"
    except JSONInputError as error:
        return f"the request body is not acceptable JSON: {error}"
    return None


async def _refuse(send: Send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


