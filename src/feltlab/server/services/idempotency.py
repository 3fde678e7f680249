"""Money-moving requests: each runs in one transaction, and with an Idempotency-Key a
retry of the same request gets the first answer again and moves no money a second time.

The answer is encoded once, as the JSON the caller receives, and that same text is what a
retry is given back (:class:`Answer`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Row, bindparam, insert, select, update
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from feltlab.core import jsontext
from feltlab.server import faults
from feltlab.server.auth import Caller
from feltlab.server.clock import now
from feltlab.server.errors import Conflict, DomainError, Refused
from feltlab.server.models import IdempotencyKey, table_of
from feltlab.server.services.accounts import record_refused_use, touch
from feltlab.server.services.context import Services

Work = Callable[[Session], tuple[int, Any]]
"""A money request's work in its transaction: the status and the JSON-ready answer."""


@dataclass(frozen=True)
class MoneyRequest:
    """What makes a retry the same request: the caller's Idempotency-Key (if any) and a
    digest of the request (method, path and body)."""

    key: str | None
    digest: str


@dataclass(frozen=True)
class Answer:
    """A money request's answer: its status and its JSON, encoded; ``replayed`` when it
    is the stored answer to an earlier request with the same key."""

    status: int
    body: bytes
    replayed: bool = False


def encode(payload: Any) -> bytes:
    """The JSON text of an answer, compact, as the server sends every JSON answer."""
    return jsontext.dumps(payload)


def run_money_request(found: Services, caller: Caller, request: MoneyRequest, work: Work
                      ) -> Answer:
    """Run ``work`` in one transaction, or give back the stored answer to a retry."""
    try:
        for attempt in range(4):
            try:
                return _run_once(found, caller, request, work)
            except _KeyRace:
                continue
            except OperationalError as error:
                if not retryable(error) or attempt == 3:
                    raise
        raise Conflict("another request with this Idempotency-Key is still running")
    except DomainError:
        record_refused_use(found, caller)
        raise


def retryable(error: OperationalError) -> bool:
    """PostgreSQL gave up a transaction to break a deadlock or a serialization conflict:
    nothing was written, so it is run again."""
    return getattr(error.orig, "sqlstate", None) in ("40P01", "40001")


class _KeyRace(Exception):
    pass


_KEYS = table_of(IdempotencyKey)
_CLAIM = insert(_KEYS).returning(_KEYS.c.id)
_ANSWER = (update(_KEYS).where(_KEYS.c.id == bindparam("claim_id"))
           .values(status_code=bindparam("status_code"), body=bindparam("body")))
_STORED_ANSWER = select(_KEYS.c.request_hash, _KEYS.c.status_code, _KEYS.c.body).where(
    _KEYS.c.user_id == bindparam("user_id"), _KEYS.c.key == bindparam("key"))


def _run_once(found: Services, caller: Caller, request: MoneyRequest, work: Work) -> Answer:
    key = request.key
    try:
        with found.transaction() as session:
            if key is not None:
                stored = stored_answer(session, caller.user_id, key)
                if stored is not None:
                    if stored.request_hash != request.digest:
                        raise Refused("this Idempotency-Key was used for a different request")
                    return Answer(stored.status_code, stored.body.encode(), replayed=True)
                claim = session.connection().execute(_CLAIM, {
                    "user_id": caller.user_id, "key": key, "request_hash": request.digest,
                    "status_code": 0, "body": "", "created_at": now()}).scalar_one()
            if caller.stale:
                touch(session, caller)
            status, payload = work(session)
            body = encode(payload)  # encoded once: stored and answered
            if key is not None:
                session.connection().execute(_ANSWER, {
                    "claim_id": claim, "status_code": status, "body": body.decode()})
        faults.request_committed()
        return Answer(status, body)
    except IntegrityError as error:
        if key is not None and "idempotency" in str(error).lower():
            raise _KeyRace from None
        raise


def stored_answer(session: Session, user_id: int, key: str) -> Row[str, int, str] | None:
    """The answer given to the caller's request with this Idempotency-Key, if any."""
    return session.connection().execute(_STORED_ANSWER, {"user_id": user_id, "key": key}
                                        ).one_or_none()
