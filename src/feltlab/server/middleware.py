"""What wraps every request, as one plain ASGI middleware (:class:`Gate`): a request body
over :data:`MAX_BODY` bytes is refused (413) from its declared length, or as it streams in,
without being read or parsed here; each request is timed into the metrics (no lock on
the request path). The request log is sampled: every refusal or failure (status 400 and
up) and every slow request is logged, as one JSON line, and one in
:attr:`~feltlab.server.settings.Settings.request_log_every` (``FELTLAB_REQUEST_LOG_EVERY``,
default :data:`~feltlab.server.settings.LOG_EVERY`) of the others.

JSON bodies are read strictly once, by the route itself (:class:`StrictJSONRoute`): a key
given twice, NaN, a 100-digit number or deep nesting is refused (422) before validation.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Coroutine
from itertools import count
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from feltlab.core.jsonio import JSONInputError, loads
from feltlab.server.metrics import Metrics
from feltlab.server.settings import LOG_EVERY

MAX_BODY = 64 * 1024
SLOW_SECONDS = 1.0
log = logging.getLogger("feltlab.server")
_TOO_LARGE = f"the request body is over {MAX_BODY} bytes"
_NO_BODY = frozenset({"GET", "HEAD", "OPTIONS"})


class Gate:
    """The body size limit, the request's timing in the metrics, and its log line."""

    def __init__(self, app: ASGIApp, metrics: Metrics, log_every: int = LOG_EVERY) -> None:
        self.app, self.metrics = app, metrics
        self.log_every = log_every
        self._answered = count()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        state = {"status": 500, "over": False}
        if scope["method"] not in _NO_BODY:
            declared = _content_length(scope)
            if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
                await _refuse(send, 413, _TOO_LARGE)
                self._record(scope, 413, started)
                return
            if declared is None:  # streamed: count it as it comes (a declared length
                receive = _counted(receive, state)  # binds the server to it already)

        async def sending(message: Message) -> None:
            if state["over"]:  # whatever the app answers, the answer is 413
                if message["type"] == "http.response.start":
                    state["status"] = 413
                    await _refuse(send, 413, _TOO_LARGE)
                return
            if message["type"] == "http.response.start":
                state["status"] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            self._record(scope, int(state["status"]), started)

    def _record(self, scope: Scope, status: int, started: float) -> None:
        seconds = time.perf_counter() - started
        template = getattr(scope.get("route"), "path", "unmatched")
        self.metrics.request(scope["method"], template, status, seconds)
        sampled = status >= 400 or seconds >= SLOW_SECONDS or (
            next(self._answered) % self.log_every == 0)
        if sampled and log.isEnabledFor(logging.INFO):  # built only when someone reads it
            log.info("request", extra={"fields": {
                "method": scope["method"], "route": template, "status": status,
                "ms": round(seconds * 1000, 2)}})


def _content_length(scope: Scope) -> bytes | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            return bytes(value)
    return None


def _counted(receive: Receive, state: dict[str, Any]) -> Receive:
    total = 0

    async def counting() -> Message:
        nonlocal total
        message = await receive()
        total += len(message.get("body", b""))
        if total > MAX_BODY:
            state["over"] = True
            return {"type": "http.disconnect"}
        return message

    return counting


async def _refuse(send: Send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class StrictJSONRequest(Request):
    """A request whose JSON body is read with :func:`feltlab.core.jsonio.loads`."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            body = await self.body()
            try:
                self._json = loads(body.decode("utf-8"))
            except UnicodeDecodeError:
                raise json.JSONDecodeError("the request body is not UTF-8 text", "", 0
                                           ) from None
            except JSONInputError as error:  # FastAPI answers 422 for a JSONDecodeError
                raise json.JSONDecodeError(f"not acceptable JSON: {error}", "", 0) from None
        return self._json


class StrictJSONRoute(APIRoute):
    """An API route that reads its JSON body strictly, once (:class:`StrictJSONRequest`)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict(request: Request) -> Response:
            return await handler(StrictJSONRequest(request.scope, request.receive))

        return strict
