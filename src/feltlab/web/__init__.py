"""The browser: the lobby, the table, the strategy and dealer trainers and the math pages
(:func:`mount_web` adds them to the application :mod:`feltlab.app` composes; the JSON
they read is the table server's API v1)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["mount_web"]


def mount_web(app: FastAPI) -> None:
    """Add the pages and their assets to ``app``."""
    from feltlab.web.routes import mount_web as mount

    mount(app)
