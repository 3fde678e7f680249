"""The money lane: a bet's or a decision's well-formed request, served without FastAPI's
routing and dependency solving.

Bets and decisions are most of a table server's requests, and each crossed FastAPI's
exception middleware, its router, its route handler and its dependency solver before
doing anything. Measured on an operator's money requests, skipping those steps saves 8
to 13% of the server's CPU a request (docs/benchmarks.md, issue 33's ninth pass): more
than the steps cost alone, as the request's own work leaves the event loop's caches
cold between requests.

So :class:`MoneyLane`, a plain ASGI middleware inside :class:`~feltlab.server.middleware.Gate`
(which still limits the body and times the request), serves a request to
``POST /api/v1/tables/{id}/rounds`` or ``POST /api/v1/rounds/{id}/actions`` itself when
it is well formed: an ``Authorization: Bearer`` header, a JSON body (no other content
type) that :func:`feltlab.core.jsonio.loads` reads and the route's model validates, an id
in range. It reads and checks them exactly as the route does and calls the same code
(:mod:`feltlab.server.api.stakes`); a refusal is answered by
:func:`feltlab.server.handlers.refusal_answer`, as the application's handlers answer it.
Anything else (a cookie, a malformed body or header, an unexpected path) goes on to the
application with its body as it came, and its routes answer it as the OpenAPI document
declares: the lane never answers a request differently, only sooner.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final

from fastapi.routing import APIRoute
from pydantic import BaseModel, ValidationError
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from feltlab.core.jsonio import JSONInputError, loads
from feltlab.server.api import stakes
from feltlab.server.api.deps import bearer_token
from feltlab.server.api.money import EncodedJSON
from feltlab.server.api.schemas import ActionRequest, RoundRequest
from feltlab.server.errors import DomainError
from feltlab.server.handlers import refusal_answer

MAX_ID: Final = 2**31 - 1
"""The largest table or round id a path may name (as :data:`~feltlab.server.api.schemas.RowId`)."""


@dataclass(frozen=True)
class Lane:
    """A route the lane serves: its path, its pattern, its body's model, what it does."""

    template: str
    pattern: re.Pattern[str]
    model: type[BaseModel]
    stake: Callable[..., Awaitable[EncodedJSON]]

    def body(self, messages: list[Message], content_type: bytes | None) -> BaseModel | None:
        """The body read strictly and validated as the route reads it (None: it is not
        JSON, not valid, or did not all come)."""
        if messages[-1]["type"] != "http.request":
            return None
        if content_type is not None and \
                content_type.partition(b";")[0].strip().lower() != b"application/json":
            return None
        raw = b"".join(message.get("body", b"") for message in messages)
        try:
            return self.model.model_validate(loads(raw.decode("utf-8")), from_attributes=True)
        except (UnicodeDecodeError, JSONInputError, ValidationError):
            return None


LANES: Final = (
    Lane("/api/v1/tables/{table_id}/rounds",
         re.compile(r"/api/v1/tables/([1-9][0-9]{0,9})/rounds"), RoundRequest, stakes.bet),
    Lane("/api/v1/rounds/{round_id}/actions",
         re.compile(r"/api/v1/rounds/([1-9][0-9]{0,9})/actions"), ActionRequest,
         stakes.decide),
)


class MoneyLane:
    """Serve a well-formed bet or decision (see the module's text); pass on the rest."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._routes: dict[str, APIRoute | None] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        found = _lane_of(scope)
        headers = _headers(scope) if found is not None else {}
        token = _token(headers.get(b"authorization"))
        if found is None or token is None:
            await self.app(scope, receive, send)
            return
        lane, row_id = found
        messages = await _body_messages(receive)
        body = lane.body(messages, headers.get(b"content-type"))
        if body is None:
            await self.app(scope, _replayed(messages, receive), send)
            return
        scope["route"] = self._route(scope, lane.template)  # its name in the metrics
        key = headers.get(b"idempotency-key")
        response: Response
        try:
            response = await lane.stake(scope["app"].state.services, token, row_id, body,
                                        scope["path"],
                                        None if key is None else key.decode("latin-1"))
        except Exception as error:
            refusal = refusal_answer(error)
            if refusal is None:
                raise  # unexpected: the application's handler for it answers
            response = refusal
        await response(scope, receive, send)

    def _route(self, scope: Scope, template: str) -> APIRoute | None:
        if template not in self._routes:
            self._routes[template] = next(
                (route for route in scope["app"].routes
                 if isinstance(route, APIRoute) and route.path == template), None)
        return self._routes[template]


def _lane_of(scope: Scope) -> tuple[Lane, int] | None:
    """The lane of a request, and the id its path names (None: not the lane's)."""
    if scope["type"] != "http" or scope["method"] != "POST" or scope.get("root_path"):
        return None
    for lane in LANES:
        matched = lane.pattern.fullmatch(scope["path"])
        row_id = 0 if matched is None else int(matched[1])
        if 0 < row_id <= MAX_ID:
            return lane, row_id
    return None


def _headers(scope: Scope) -> dict[bytes, bytes]:
    """The request's headers by name, the first of each name (as Starlette reads them)."""
    found: dict[bytes, bytes] = {}
    for name, value in scope["headers"]:
        found.setdefault(name, value)
    return found


def _token(header: bytes | None) -> str | None:
    """The bearer token of an Authorization header (None: none, or malformed)."""
    if header is None:
        return None
    try:
        return bearer_token(header.decode("latin-1"))
    except DomainError:
        return None


async def _body_messages(receive: Receive) -> list[Message]:
    """The request's body as its messages came (a disconnect ends them too)."""
    messages: list[Message] = []
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request" or not message.get("more_body", False):
            return messages


def _replayed(messages: list[Message], receive: Receive) -> Receive:
    """``receive`` with the messages the lane read given again first."""
    pending = list(messages)

    async def again() -> Message:
        return pending.pop(0) if pending else await receive()

    return again
