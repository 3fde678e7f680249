"""The game page an operator's casino frames for its player (``/play/OPERATOR``): the one
page another site may frame, and only the operator's own sites may.

Its Content-Security-Policy is the other pages' but for ``frame-ancestors``: ``'self'``
and the operator's frame origins, read from the operator registry on every request (a
change to the registry holds at the next load). An unknown or disabled operator's page
is a 404 framed by nobody. The web does not import the server (they are one layer): the
application that composes them hands :func:`play_router` the registry's answer as a
function (:data:`FrameOrigins`).

The page carries no secret: its script trades the one-time code in the URL's fragment
(which the browser never sends here) for the session's token, and keeps that in memory.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Final

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from feltlab.web.routes import PAGE_HEADERS, Page, content_security_policy, render_page

FrameOrigins = Callable[[str], tuple[str, ...] | None]
"""An enabled operator's frame origins by its id; ``None`` for an unknown or disabled one."""

PLAY_PAGE: Final = Page("play.html", "game", "play.js", "", topbar="topbar-framed.html")
MISSING_PAGE: Final = Page("play-missing.html", "game not available", "", "",
                           topbar="topbar-framed.html")
_ORIGIN: Final = re.compile(r"https?://([a-z0-9.-]+|\[[0-9a-f:.]+\])(:[0-9]{1,5})?")
"""What a policy may name as a frame ancestor. The registry checks its origins already;
anything else (a space or a ``;`` would add to the policy) is left out all the same."""


def framed_headers(origins: Iterable[str]) -> dict[str, str]:
    """The pages' headers, the page framed by this origin and ``origins`` only.

    >>> framed_headers(["https://casino.example"])["Content-Security-Policy"].split("; ")[5]
    "frame-ancestors 'self' https://casino.example"
    """
    allowed = ["'self'", *(origin for origin in origins if _ORIGIN.fullmatch(origin))]
    return {**PAGE_HEADERS, "Content-Security-Policy": content_security_policy(allowed)}


def play_router(frame_origins: FrameOrigins | None) -> APIRouter:
    """``GET /play/{operator_id}``; without ``frame_origins`` every operator is unknown."""
    router = APIRouter(include_in_schema=False)

    @router.get("/play/{operator_id}", response_class=HTMLResponse)
    def play_page(operator_id: str) -> HTMLResponse:
        origins = frame_origins(operator_id) if frame_origins else None
        if origins is None:
            return HTMLResponse(render_page(MISSING_PAGE), 404, headers=PAGE_HEADERS)
        return HTMLResponse(render_page(PLAY_PAGE), headers=framed_headers(origins))

    return router
