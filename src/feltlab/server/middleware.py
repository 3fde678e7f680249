"""What wraps every request: :class:`BodyLimit` refuses oversized or ambiguous bodies
before anything reads them, and :class:`RequestLog` times each request into the metrics
and the log. Both are plain ASGI middleware: no extra task or body stream per request."""

from __future__ import annotations

import json
import logging
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from feltlab.core.jsonio import JSONInputError, loads
from feltlab.server.metrics import Metrics

MAX_BODY = 64 * 1024
log = logging.getLogger("feltlab.server")


class RequestLog:
    """Time every HTTP request into the metrics and log it as one JSON line."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app, self.metrics = app, metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            seconds = time.perf_counter() - started
            template = getattr(scope.get("route"), "path", "unmatched")
            self.metrics.request(scope["method"], template, status, seconds)
            log.info("request", extra={"fields": {
                "method": scope["method"], "route": template, "status": status,
                "ms": round(seconds * 1000, 2)}})


class BodyLimit:
    """Refuse request bodies over :data:`MAX_BODY` bytes (413) before they are read, and
    JSON bodies that are ambiguous or beyond limits (422: a key given twice, NaN, a
    100-digit number, deep nesting) before any handler sees them."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
            await _refuse(send, 413, f"the request body is over {MAX_BODY} bytes")
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if len(body) > MAX_BODY:
                await _refuse(send, 413, f"the request body is over {MAX_BODY} bytes")
                return
            if not message.get("more_body"):
                break
        problem = _json_problem(body)
        if problem:
            await _refuse(send, 422, problem)
            return
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if delivered:
                return await receive()
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


def _json_problem(body: bytes) -> str | None:
    if not body.strip():
        return None
    try:
        loads(body.decode("utf-8"))
    except UnicodeDecodeError:
        return "the request body is not UTF-8 text"
    except JSONInputError as error:
        return f"the request body is not acceptable JSON: {error}"
    return None


async def _refuse(send: Send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
