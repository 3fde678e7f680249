"""The application ``feltlab serve`` runs: the table server's API v1 with the browser's
pages beside it.

The server (:mod:`feltlab.server`) and the web (:mod:`feltlab.web`) do not import each
other; this module, above both, composes them. :func:`create_from_environment` is what
uvicorn's workers import.
"""

from __future__ import annotations

import sys

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse

from feltlab.server import logs
from feltlab.server.api.deps import admin_caller, current_caller
from feltlab.server.app import create_app as create_api
from feltlab.server.errors import Forbidden, NotFound, Unauthorized
from feltlab.server.services.operators import ID_PATTERN, get_operator
from feltlab.server.settings import Settings, for_worker
from feltlab.web import mount_web
from feltlab.web.play import FrameOrigins
from feltlab.web.routes import ADMIN_ONLY_PAGE, ADMIN_PAGE, ADMIN_PATH, ADMIN_SIGN_IN_PAGE, page

SWITCH_INTERVAL = 0.0005
"""Seconds a thread may hold the GIL while others wait (Python's default is 0.005). A
transaction thread gives up the GIL at every database call and must win it back from the
event loop's thread; with the default it can wait 5 ms a query while holding SQLite's
write lock (or PostgreSQL's row locks), which stalls every other writer."""


def create_app(settings: Settings, *, timers: bool = True) -> FastAPI:
    """API v1 with ``settings`` (see :func:`feltlab.server.app.create_app`) with the
    pages, their assets and the math pages added."""
    app = create_api(settings, timers=timers)

    @app.get(ADMIN_PATH, include_in_schema=False, response_class=HTMLResponse)
    def console(request: Request) -> HTMLResponse:
        """The operator's console, for admins; signed out, a sign-in page (401), and for
        anyone else a page that says it is for admins (403): pages of the site, never
        the API's JSON refusal nor anything of the console's."""
        try:
            admin_caller(current_caller(request, request.app.state.services, None))
        except Unauthorized as refusal:
            return page(ADMIN_SIGN_IN_PAGE, 401, {"WWW-Authenticate": refusal.challenge})
        except Forbidden:
            return page(ADMIN_ONLY_PAGE, 403)
        return page(ADMIN_PAGE)

    mount_web(app, frame_origins=_frame_origins(app))
    return app


def _frame_origins(app: FastAPI) -> FrameOrigins:
    """The registry's answer to the game page: which sites may frame an operator's game
    (none for an operator that is unknown or disabled, whose page is not found)."""
    def origins(operator_id: str) -> tuple[str, ...] | None:
        if ID_PATTERN.fullmatch(operator_id) is None:
            return None
        try:
            operator = get_operator(app.state.services.engine, operator_id)
        except NotFound:
            return None
        return None if operator.disabled else operator.frame_origins
    return origins


def create_from_environment() -> FastAPI:
    """A uvicorn worker's application, with the settings ``feltlab serve`` handed down
    (:func:`feltlab.server.settings.for_worker`)."""
    sys.setswitchinterval(SWITCH_INTERVAL)
    logs.configure()  # every line one JSON object
    return create_app(for_worker())
