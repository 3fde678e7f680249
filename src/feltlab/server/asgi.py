"""The application uvicorn's workers import: ``create_from_environment`` reads the
database URL from ``FELTLAB_DATABASE_URL`` (set by ``feltlab serve``)."""

from __future__ import annotations

import logging

from fastapi import FastAPI

from feltlab.server.app import create_app
from feltlab.server.auth import settings_from_environment
from feltlab.server.db import default_database_url


def create_from_environment() -> FastAPI:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    logging.getLogger("alembic").setLevel(logging.WARNING)
    return create_app(default_database_url(), settings_from_environment())
