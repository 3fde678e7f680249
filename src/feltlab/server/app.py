"""The table server's API as an ASGI application: :func:`create_app` builds it for a
database URL, applying the schema migrations first.

This is API v1 alone (and ``/healthz``, ``/metrics``); :func:`feltlab.app.create_app`
adds the browser's pages to it, as ``feltlab serve`` runs it.
"""

from __future__ import annotations

import gc
import hmac
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from fastapi.telemetry import TelemetryConfig

from feltlab.server.api import (
    accounts,
    admin,
    console,
    designer,
    live_ws,
    reports,
    rounds,
    rulecards,
    rules_routes,
    solver,
    tables,
    trainers,
)
from feltlab.server.api import (
    rulesets as rulesets_routes,
)
from feltlab.server.api.contract import declare_refusals, refusals
from feltlab.server.auth import AuthSettings
from feltlab.server.errors import Unauthorized
from feltlab.server.handlers import add_error_handlers
from feltlab.server.middleware import Gate
from feltlab.server.services import designer as designer_service
from feltlab.server.services import rulesets
from feltlab.server.services.context import Services, open_services
from feltlab.server.services.database import database_reachable
from feltlab.server.services.reports import read_alert_counts
from feltlab.server.timers import Ticker

# the money requests' routers first: routes are tried in order, and they are most requests
ROUTERS = (rounds.router, tables.router, accounts.router, admin.router, live_ws.router,
           rules_routes.router, rulecards.router, trainers.router, solver.router,
           reports.router, console.router, designer.router, rulesets_routes.router)


YOUNG_COLLECTION_EVERY = 10_000
"""Allocations between two collections of the garbage collector's youngest generation
(Python's default is 700). A request allocates thousands of objects that reference
counting frees at once; with the default the collector ran several times a request for
next to nothing."""


def settle_heap() -> None:
    """Put what start-up made (modules, rule sets, compiled kernels, which live as long as
    the worker) out of the garbage collector's sight, and collect the youngest generation
    less often: a worker's collections went from 160 to 15 us a money request."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTION_EVERY, *gc.get_threshold()[1:])


OPENTELEMETRY = "FELTLAB_OPENTELEMETRY"


def telemetry_settings() -> TelemetryConfig:
    """FastAPI's OpenTelemetry spans, metrics and logs, on when ``FELTLAB_OPENTELEMETRY``
    is ``1``: off, a request is spared asking the global providers whether they are
    configured, and a span opened around each dependency (60 us a money request). The
    server's own figures are at ``/metrics``."""
    if os.environ.get(OPENTELEMETRY) == "1":
        return {}
    return {"tracing": False, "metrics": False, "logs": False, "operation_spans": False}


def create_app(database_url: str, auth_settings: AuthSettings | None = None,
               timers: bool = True, warm: bool = False) -> FastAPI:
    """API v1 on ``database_url``, its schema brought up to date; with ``timers``, this
    worker also runs the shared tables' timers; with ``warm`` (a ``feltlab serve``
    worker), it warms the designer's compiled kernels in the background at start and
    settles its heap (:func:`settle_heap`: once a process, as it freezes what is alive)."""
    found = open_services(database_url, auth_settings)
    rulesets.install(found)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        ticker = Ticker(found) if timers else None
        if ticker:
            ticker.start()
        if warm:
            designer_service.start_warming()
        if found.announcer is not None:
            found.announcer.start()
        found.recorder.start()
        if warm:
            settle_heap()
        yield
        if found.announcer is not None:
            found.announcer.stop()
        if ticker:
            ticker.stop()
        found.close()

    app = FastAPI(title="feltlab table server", version="1", lifespan=lifespan,
                  telemetry=telemetry_settings())
    app.state.services = found
    for router in ROUTERS:
        app.include_router(router)
    _add_operations(app, found)
    declare_refusals(app)
    add_error_handlers(app)
    app.add_middleware(Gate, metrics=found.metrics)  # refuses before anything reads a body
    return app


def _add_operations(app: FastAPI, found: Services) -> None:
    @app.get("/healthz", tags=["operations"], responses=refusals(503))
    def healthz() -> JSONResponse:
        """200 when the database answers, 503 when it does not."""
        if database_reachable(found.engine):
            return JSONResponse({"status": "ok", "database": found.engine.dialect.name})
        return JSONResponse({"detail": "the database does not answer"}, 503)

    @app.get("/metrics", tags=["operations"], response_class=PlainTextResponse)
    def metrics(request: Request) -> PlainTextResponse:
        """Prometheus text format; with ``FELTLAB_METRICS_TOKEN`` set, only for
        ``Authorization: Bearer <that token>`` (401 otherwise)."""
        expected = found.auth.metrics_token
        if expected is not None:
            scheme, _, sent = request.headers.get("authorization", "").partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(
                    sent.strip().encode("utf-8", "replace"), expected.encode()):
                raise Unauthorized("/metrics needs 'Authorization: Bearer "
                                   "<FELTLAB_METRICS_TOKEN>'")
        healthy = database_reachable(found.engine)
        alerts = read_alert_counts(found) if healthy else {}
        return PlainTextResponse(found.metrics.render(healthy, alerts),
                                 media_type="text/plain; version=0.0.4")
