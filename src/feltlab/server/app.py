"""The table server's API as an ASGI application: :func:`create_app` builds it from the
server's settings (:class:`~feltlab.server.settings.Settings`), applying the schema
migrations first.

This is API v1 alone (and ``/healthz``, ``/metrics``); :func:`feltlab.app.create_app`
adds the browser's pages to it, as ``feltlab serve`` runs it.
"""

from __future__ import annotations

import gc
import hmac
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from fastapi.telemetry import TelemetryConfig

from feltlab.server import faults, warmup
from feltlab.server.api import (
    accounts,
    admin,
    admin_operators,
    console,
    designer,
    live_ws,
    operator,
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
from feltlab.server.api.money_lane import MoneyLane
from feltlab.server.designer_runs import Designer
from feltlab.server.errors import Unauthorized
from feltlab.server.handlers import add_error_handlers
from feltlab.server.middleware import Gate
from feltlab.server.services import rulesets
from feltlab.server.services.context import Services, open_services
from feltlab.server.services.database import database_reachable
from feltlab.server.services.ledger_check import LedgerWatch, last_check
from feltlab.server.services.outbox import OutboxSettings
from feltlab.server.services.outbox_worker import OutboxWorker
from feltlab.server.services.reports import read_alert_counts
from feltlab.server.services.statements import database_name
from feltlab.server.services.wallet_client import ClientSettings, WalletClient
from feltlab.server.settings import Settings
from feltlab.server.timers import Ticker

# the money requests' routers first: routes are tried in order, and they are most requests
ROUTERS = (rounds.router, tables.router, accounts.router, admin.router, live_ws.router,
           rules_routes.router, rulecards.router, trainers.router, solver.router,
           reports.router, console.router, designer.router, rulesets_routes.router,
           operator.router, admin_operators.router)


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


def telemetry_settings(opentelemetry: bool) -> TelemetryConfig:
    """FastAPI's OpenTelemetry spans, metrics and logs, on with ``opentelemetry``
    (``FELTLAB_OPENTELEMETRY=1``): off, a request is spared asking the global providers
    whether they are configured, and a span opened around each dependency (60 us a money
    request). The server's own figures are at ``/metrics``."""
    if opentelemetry:
        return {}
    return {"tracing": False, "metrics": False, "logs": False, "operation_spans": False}


def outbox_settings(settings: Settings) -> OutboxSettings:
    """The wallet outbox's retry schedule, from the server's settings."""
    return OutboxSettings(first_gap_seconds=settings.wallet_retry_first_seconds,
                          max_gap_seconds=settings.wallet_retry_max_seconds,
                          give_up_after_seconds=settings.wallet_give_up_hours * 3600)


def create_app(settings: Settings, *, timers: bool = True) -> FastAPI:
    """API v1 on ``settings.database_url``, its schema brought up to date; with ``timers``,
    this worker also runs the shared tables' timers and sends what the wallet outbox
    owes operators; with ``settings.warm`` (a ``feltlab serve`` worker), it warms the
    tables' caches in the background at start, starts the designer's first process (which
    warms the designer) and settles its heap (:func:`settle_heap`: once a process, as it
    freezes what is alive)."""
    warm = settings.warm
    faults.configure(settings.crash_after_events, settings.crash_after_commits,
                     settings.crash_after_wallet_calls)
    found = open_services(settings.database_url, settings.auth)
    found.wallets = WalletClient(ClientSettings(
        rollback_grace_seconds=settings.wallet_rollback_grace_seconds))
    found.exposure_limit = settings.house_exposure_limit
    rulesets.install(found)
    designs = Designer.of(found, settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        rulesets.review_published(found)  # logs those over the exposure limit
        ticker = Ticker(found) if timers else None
        if ticker:
            ticker.start()
        if warm:
            warmup.start(then=settle_heap)  # feltlab.server.warmup: every cache, ahead
            designs.pool.start()
        if found.announcer is not None:
            found.announcer.start()
        found.recorder.start()
        ledger_watch = LedgerWatch(found.engine, found.reader_engine,
                                   settings.ledger_check_minutes if timers else 0)
        ledger_watch.start()
        wallet_outbox = OutboxWorker(found.engine, found.wallets, outbox_settings(settings))
        if timers:
            wallet_outbox.start()
        if warm:
            settle_heap()
        yield
        wallet_outbox.stop()
        ledger_watch.stop()
        if found.announcer is not None:
            found.announcer.stop()
        if ticker:
            ticker.stop()
        designs.pool.close()
        found.close()

    app = FastAPI(title="feltlab table server", version="1", lifespan=lifespan,
                  telemetry=telemetry_settings(settings.opentelemetry))
    app.state.services = found
    app.state.settings = settings
    app.state.designer = designs
    for router in ROUTERS:
        app.include_router(router)
    _add_operations(app, found)
    declare_refusals(app)
    add_error_handlers(app)
    app.add_middleware(MoneyLane)  # inside the Gate: its bets and decisions are timed too
    app.add_middleware(Gate, metrics=found.metrics,  # refuses before anything reads a body
                       log_every=settings.request_log_every)
    return app


def _add_operations(app: FastAPI, found: Services) -> None:
    @app.get("/healthz", tags=["operations"], responses=refusals(503))
    def healthz() -> JSONResponse:
        """200 when the database answers, 503 when it does not; ``ready`` is false while
        the start-up warm-up runs (:mod:`feltlab.server.warmup`)."""
        if database_reachable(found.engine):
            return JSONResponse({"status": "ok", "database": database_name(found.engine),
                                 "ready": warmup.ready()})
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
        kept = None
        if healthy:
            with found.read_connection() as connection:
                kept = last_check(connection)
        ledger = None if kept is None else (kept.checked_at.timestamp(), kept.problems)
        return PlainTextResponse(found.metrics.render(healthy, alerts, ledger),
                                 media_type="text/plain; version=0.0.4")
