"""Money-moving requests over HTTP: the Idempotency-Key header, the request's digest, the
writer threads they run in, and their answers, sent exactly as encoded once by
:mod:`feltlab.server.services.idempotency` (FastAPI does not encode a returned response
again, so a route's declared response model costs these nothing)."""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
from collections.abc import Callable
from concurrent.futures import Executor
from functools import partial
from typing import Any, ParamSpec

import orjson
from fastapi import Request
from fastapi.responses import JSONResponse

from feltlab.server.errors import Refused
from feltlab.server.services.context import Services
from feltlab.server.services.idempotency import Answer, MoneyRequest

Params = ParamSpec("Params")
MAX_IDEMPOTENCY_KEY = 100


class EncodedJSON(JSONResponse):
    """A JSON response whose content may be given already encoded (as bytes)."""

    def render(self, content: Any) -> bytes:
        return content if isinstance(content, bytes) else super().render(content)


def idempotency_key(key: str | None) -> str | None:
    """The Idempotency-Key header's value, checked (None: the request has none)."""
    if key is None:
        return None
    if not 1 <= len(key) <= MAX_IDEMPOTENCY_KEY or not key.isascii() or not key.isprintable():
        raise Refused(f"Idempotency-Key must be 1-{MAX_IDEMPOTENCY_KEY} printable ASCII "
                      "characters")
    return key


def request_digest(method: str, path: str, body: object) -> str:
    """What a retry with the same Idempotency-Key must repeat: the method, the path and
    the body (keys sorted)."""
    text = orjson.dumps([method, path, body], default=str, option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(text).hexdigest()


def money_request_of(method: str, path: str, key: str | None, body: object) -> MoneyRequest:
    """What identifies a request to its retries: its Idempotency-Key header (``key``)
    and the digest of its method, path and body."""
    return MoneyRequest(idempotency_key(key), request_digest(method, path, body))


def money_request(request: Request, body: object) -> MoneyRequest:
    """What identifies this request to its retries."""
    return money_request_of(request.method, request.scope["path"],
                            request.headers.get("idempotency-key"), body)


def encoded(answer: Answer) -> EncodedJSON:
    """The answer as sent, marked ``Idempotent-Replay`` when it is a retry's."""
    headers = {"Idempotent-Replay": "true"} if answer.replayed else None
    return EncodedJSON(answer.body, answer.status, headers=headers)


async def in_writer_thread(found: Services, run: Callable[Params, Answer],
                           *args: Params.args, **kwargs: Params.kwargs) -> EncodedJSON:
    """Run a money request (then its announcements) in one of the worker's writer threads
    (:attr:`Services.writers`), in arrival order."""
    return encoded(await _in_thread(found.writers, run, *args, **kwargs))


async def in_wallet_thread(found: Services, run: Callable[Params, Answer],
                           *args: Params.args, **kwargs: Params.kwargs) -> EncodedJSON:
    """Run an operator's money request in one of the threads that may wait on operators'
    wallets (:attr:`Services.wallet_callers`)."""
    return encoded(await _in_thread(found.wallet_callers, run, *args, **kwargs))


async def _in_thread(threads: Executor, run: Callable[Params, Answer],
                     *args: Params.args, **kwargs: Params.kwargs) -> Answer:
    """``run`` in one of ``threads``, in the caller's context (as anyio's threads run
    it). Once started it runs to its end, even if the request is cancelled meanwhile."""
    context = contextvars.copy_context()
    return await asyncio.get_running_loop().run_in_executor(
        threads, partial(context.run, run, *args, **kwargs))
