"""The browser: the lobby, the table, the strategy and dealer trainers and the math pages,
served by the table server (:func:`mount_web`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = ["mount_web"]


def mount_web(app: FastAPI) -> None:
    """Add the pages, their assets and the pages' JSON routes to ``app``."""
    from feltlab.web.routes import mount_web as mount

    mount(app)
