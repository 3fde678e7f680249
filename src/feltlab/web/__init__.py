"""The browser: the lobby, the table, the strategy and dealer trainers, the math pages
and the game page operators frame (:func:`mount_web` adds them to the application
:mod:`feltlab.app` composes; the JSON they read is the table server's API v1)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastapi import FastAPI

    from feltlab.web.play import FrameOrigins

__all__ = ["mount_web"]


def mount_web(app: FastAPI, frame_origins: FrameOrigins | None = None) -> None:
    """Add the pages and their assets to ``app``; ``frame_origins`` answers which sites
    may frame an operator's game page (without it, no operator's page is found)."""
    from feltlab.web.play import play_router
    from feltlab.web.routes import mount_web as mount

    mount(app)
    app.include_router(play_router(frame_origins))
