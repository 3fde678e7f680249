"""Request dependencies: the caller (bearer token or cookie with CSRF), and the
Idempotency-Key replay of money-moving requests."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import anyio.to_thread
from fastapi import Depends, Request
from fastapi.responses import JSONResponse
from sqlalchemy import Row, bindparam, insert, select, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from feltlab.server import faults
from feltlab.server.auth import (
    COOKIE_NAME,
    CSRF_HEADER,
    Caller,
    authenticate,
    csrf_for,
    touch,
)
from feltlab.server.clock import now
from feltlab.server.errors import ApiError
from feltlab.server.models import IdempotencyKey, table_of
from feltlab.server.services import Services, services

Endpoint = TypeVar("Endpoint", bound=Callable[..., Any])
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
MAX_TOKEN = 200
MAX_IDEMPOTENCY_KEY = 100


def token_of(request: Request) -> tuple[str, bool]:
    """The token and whether it came from the cookie."""
    header = request.headers.get("authorization", "")
    if header:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ApiError(401, "the Authorization header must be 'Bearer TOKEN'")
        return token.strip()[:MAX_TOKEN], False
    cookie = request.cookies.get(COOKIE_NAME)
    if cookie:
        return cookie[:MAX_TOKEN], True
    raise ApiError(401, "sign in first: send 'Authorization: Bearer TOKEN'")


def current_caller(request: Request,
                   found: Annotated[Services, Depends(services)]) -> Caller:
    token, from_cookie = token_of(request)
    if from_cookie and request.method not in SAFE_METHODS:
        sent = request.headers.get(CSRF_HEADER, "")
        if not hmac.compare_digest(sent.encode("utf-8", "replace"),
                                   csrf_for(token).encode()):
            raise ApiError(403, f"the {CSRF_HEADER} header is missing or wrong")
    endpoint = request.scope.get("endpoint")
    return authenticated(found, token, record_use=not getattr(endpoint, "moves_money", False))


def moves_money(endpoint: Endpoint) -> Endpoint:
    """Mark an endpoint that runs :func:`run_money_request`: the token's use is recorded
    in its transaction rather than in a write transaction of its own."""
    endpoint.moves_money = True  # type: ignore[attr-defined]
    return endpoint


def authenticated(found: Services, token: str, record_use: bool = True) -> Caller:
    with found.read() as session:
        caller = authenticate(session, token, found.auth)
    if caller.stale and record_use:
        with found.transaction() as session:
            touch(session, caller)
    return caller


def admin_caller(caller: Annotated[Caller, Depends(current_caller)]) -> Caller:
    if not caller.is_admin:
        raise ApiError(403, "only an admin may do this")
    return caller


CallerDep = Annotated[Caller, Depends(current_caller)]
AdminDep = Annotated[Caller, Depends(admin_caller)]
ServicesDep = Annotated[Services, Depends(services)]


def idempotency_key(request: Request) -> str | None:
    key = request.headers.get("idempotency-key")
    if key is None:
        return None
    if not 1 <= len(key) <= MAX_IDEMPOTENCY_KEY or not key.isascii() or not key.isprintable():
        raise ApiError(422, f"Idempotency-Key must be 1-{MAX_IDEMPOTENCY_KEY} printable "
                            "ASCII characters")
    return key


def request_digest(request: Request, body: object) -> str:
    text = json.dumps([request.method, request.url.path, body], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


async def in_writer_thread(found: Services, respond: Callable[[], JSONResponse]
                           ) -> JSONResponse:
    """Run ``respond`` (a money-moving request, then its announcements) in one of the
    worker's writer threads (:meth:`Services.writers`), in arrival order."""
    return await anyio.to_thread.run_sync(respond, limiter=found.writers())


def run_money_request(found: Services, caller: Caller, request: Request, body: object,
                      work: Callable[[Session], tuple[int, Any]]) -> JSONResponse:
    """Run ``work`` in one transaction; with an Idempotency-Key, a retry of the same
    request gets the first answer again and moves no money a second time."""
    key = idempotency_key(request)
    digest = request_digest(request, body)
    try:
        for attempt in range(4):
            try:
                return _run_once(found, caller, key, digest, work)
            except _KeyRace:
                continue
            except OperationalError as error:
                if not retryable(error) or attempt == 3:
                    raise
        raise ApiError(409, "another request with this Idempotency-Key is still running")
    except ApiError:
        record_refused_use(found, caller)
        raise


def record_refused_use(found: Services, caller: Caller) -> None:
    """A refusal rolls back its transaction, but the token was used: its idle time starts
    again all the same."""
    if caller.stale:
        with found.transaction() as session:
            touch(session, caller)


def retryable(error: OperationalError) -> bool:
    """PostgreSQL gave up a transaction to break a deadlock or a serialization conflict:
    nothing was written, so it is run again."""
    return getattr(error.orig, "sqlstate", None) in ("40P01", "40001")


class EncodedJSON(JSONResponse):
    """A JSON response whose content may be given already encoded (as bytes)."""

    def render(self, content: Any) -> bytes:
        return content if isinstance(content, bytes) else super().render(content)


class _KeyRace(Exception):
    pass


def _run_once(found: Services, caller: Caller, key: str | None, digest: str,
              work: Callable[[Session], tuple[int, Any]]) -> JSONResponse:
    from sqlalchemy.exc import IntegrityError

    try:
        with found.transaction() as session:
            if key is not None:
                stored = stored_answer(session, caller.user_id, key)
                if stored is not None:
                    if stored.request_hash != digest:
                        raise ApiError(422, "this Idempotency-Key was used for a different "
                                            "request")
                    return EncodedJSON(stored.body.encode(), stored.status_code,
                                       headers={"Idempotent-Replay": "true"})
                claim = session.connection().execute(_CLAIM, {
                    "user_id": caller.user_id, "key": key, "request_hash": digest,
                    "status_code": 0, "body": "", "created_at": now()}).scalar_one()
            if caller.stale:
                touch(session, caller)
            status, payload = work(session)
            body = EncodedJSON(payload, status).body  # encoded once: stored and answered
            if key is not None:
                session.connection().execute(_ANSWER, {
                    "claim_id": claim, "status_code": status, "body": bytes(body).decode()})
        faults.request_committed()
        return EncodedJSON(bytes(body), status)
    except IntegrityError as error:
        if key is not None and "idempotency" in str(error).lower():
            raise _KeyRace from None
        raise


_KEYS = table_of(IdempotencyKey)
_CLAIM = insert(_KEYS).returning(_KEYS.c.id)
_ANSWER = (update(_KEYS).where(_KEYS.c.id == bindparam("claim_id"))
           .values(status_code=bindparam("status_code"), body=bindparam("body")))
_STORED_ANSWER = select(_KEYS.c.request_hash, _KEYS.c.status_code, _KEYS.c.body).where(
    _KEYS.c.user_id == bindparam("user_id"), _KEYS.c.key == bindparam("key"))


def stored_answer(session: Session, user_id: int, key: str) -> Row[str, int, str] | None:
    """The answer given to the caller's request with this Idempotency-Key, if any."""
    return session.connection().execute(_STORED_ANSWER, {"user_id": user_id, "key": key}
                                        ).one_or_none()
