"""The table server's API as an ASGI application: :func:`create_app` builds it for a
database URL, applying the schema migrations first.

This is API v1 alone (and ``/healthz``, ``/metrics``); :func:`feltlab.app.create_app`
adds the browser's pages to it, as ``feltlab serve`` runs it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.responses import JSONResponse, PlainTextResponse

from feltlab.server.api import (
    accounts,
    admin,
    live_ws,
    rounds,
    rulecards,
    rules_routes,
    solver,
    tables,
    trainers,
)
from feltlab.server.auth import AuthSettings
from feltlab.server.handlers import add_error_handlers
from feltlab.server.middleware import Gate
from feltlab.server.services.context import Services, open_services
from feltlab.server.services.database import database_reachable
from feltlab.server.timers import Ticker

ROUTERS = (accounts.router, tables.router, rounds.router, admin.router, live_ws.router,
           rules_routes.router, rulecards.router, trainers.router, solver.router)


def create_app(database_url: str, auth_settings: AuthSettings | None = None,
               timers: bool = True) -> FastAPI:
    """API v1 on ``database_url``, its schema brought up to date; with ``timers``, this
    worker also runs the shared tables' timers."""
    found = open_services(database_url, auth_settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        ticker = Ticker(found) if timers else None
        if ticker:
            ticker.start()
        if found.announcer is not None:
            found.announcer.start()
        yield
        if found.announcer is not None:
            found.announcer.stop()
        if ticker:
            ticker.stop()
        found.close()

    app = FastAPI(title="feltlab table server", version="1", lifespan=lifespan)
    app.state.services = found
    for router in ROUTERS:
        app.include_router(router)
    _add_operations(app, found)
    add_error_handlers(app)
    app.add_middleware(Gate, metrics=found.metrics)  # refuses before anything reads a body
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
