"""The application uvicorn's workers import: ``create_from_environment`` reads the
database URL from ``FELTLAB_DATABASE_URL`` (set by ``feltlab serve``)."""

from __future__ import annotations

import logging
import sys

from fastapi import FastAPI

from feltlab.server.app import create_app
from feltlab.server.auth import settings_from_environment
from feltlab.server.db import default_database_url

SWITCH_INTERVAL = 0.0005
"""Seconds a thread may hold the GIL while others wait (Python's default is 0.005). A
transaction thread gives up the GIL at every database call and must win it back from the
event loop's thread; with the default it can wait 5 ms a query while holding SQLite's
write lock (or PostgreSQL's row locks), which stalls every other writer."""


def create_from_environment() -> FastAPI:
    sys.setswitchinterval(SWITCH_INTERVAL)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    logging.getLogger("alembic").setLevel(logging.WARNING)
    return create_app(default_database_url(), settings_from_environment())
