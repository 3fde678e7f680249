"""Signing in: a bearer token for the right password, throttled by the client and the
username together so that nobody can lock another person out.

A client (its address, as :func:`feltlab.server.auth.client_address` finds it) that
fails to sign in as one username :attr:`~feltlab.server.auth.AuthSettings.max_failures`
times waits before its next try at that name, and one that fails
:attr:`~feltlab.server.auth.AuthSettings.max_client_failures` times over every name waits
before any try; each further failure doubles the wait (``429`` with ``Retry-After``).
Another client is never held back by them. Every try is written down as a failure before
its password is checked and crossed out if it was right, so a burst of tries at once
cannot slip past the count; the password check runs outside any transaction, and against
a dummy hash for an unknown username, so both answers take one hash's time.
"""

from __future__ import annotations

import hashlib
import math
import secrets
from datetime import datetime, timedelta

from sqlalchemy import bindparam, case, delete, func, select
from sqlalchemy.orm import Session

from feltlab.server.auth import AuthSettings, password_matches, throttle_wait, token_digest
from feltlab.server.clock import aware, now
from feltlab.server.errors import TooMany, Unauthorized
from feltlab.server.models import AuthToken, LoginFailure, User, table_of
from feltlab.server.services import audit
from feltlab.server.services.context import Services
from feltlab.server.services.statements import transaction_lock

_FAILURES = table_of(LoginFailure)
_FAILURE_COUNTS = select(
    func.count().label("client_failures"),
    func.max(_FAILURES.c.at).label("client_latest"),
    func.coalesce(func.sum(case((_FAILURES.c.username == bindparam("name"), 1), else_=0)), 0)
    .label("name_failures"),
    func.max(case((_FAILURES.c.username == bindparam("name"), _FAILURES.c.at)))
    .label("name_latest"),
).where(_FAILURES.c.client == bindparam("client"), _FAILURES.c.at >= bindparam("since"))
"""The client's failed logins in the window: in all, and at this username."""
_STORED_HASH = select(table_of(User).c.password_hash).where(
    table_of(User).c.username == bindparam("username"))


def sign_in(found: Services, username: str, password: str, client: str) -> str:
    """A new bearer token for the right password; a wrong one is refused (401), and a
    client that failed too often waits (429 with ``Retry-After``)."""
    name = username.lower()[:64]
    with found.transaction() as session:
        _one_client_at_a_time(session, client)
        refuse_if_throttled(session, found.auth, name, client)
        attempt = LoginFailure(username=name, client=client, at=now())
        session.add(attempt)
        stored = session.connection().execute(_STORED_HASH, {"username": username}).scalar()
    right = password_matches(found.hasher, stored, password)  # one hash either way
    with found.transaction() as session:
        if not right:
            audit.record(session, username[:64], "login_failed", client=client)
            token = None
        else:
            token = _new_token(session, username, name, client)
    if token is None:
        raise Unauthorized("wrong username or password")
    return token


def refuse_if_throttled(session: Session, settings: AuthSettings, name: str,
                        client: str) -> None:
    """Refuse (429) a try while the client waits after its failures at this name, or at
    every name together."""
    moment = now()
    window = timedelta(minutes=settings.failure_window_minutes)
    row = session.execute(_FAILURE_COUNTS, {"name": name, "client": client,
                                            "since": moment - window}).one()
    longest = int(window.total_seconds())
    waits = [_remaining(moment, latest, throttle_wait(int(failures), allowed,
                                                      settings.throttle_seconds, longest))
             for failures, latest, allowed in (
                 (row.name_failures, row.name_latest, settings.max_failures),
                 (row.client_failures, row.client_latest, settings.max_client_failures))]
    wait = max(waits)
    if wait > 0:
        raise TooMany(f"too many failed logins from this client; try again in {wait} "
                      f"seconds", retry_after=wait)


def _remaining(moment: datetime, latest: datetime | str | None, wait: int) -> int:
    if not wait or latest is None:
        return 0
    if isinstance(latest, str):  # SQLite's MAX() over a CASE comes back as text
        latest = datetime.fromisoformat(latest)
    return max(0, math.ceil((aware(latest) + timedelta(seconds=wait) - moment)
                            .total_seconds()))


def _one_client_at_a_time(session: Session, client: str) -> None:
    """On PostgreSQL, one client's tries are counted one at a time (a transaction lock on
    the client's address); SQLite runs one writer at a time anyway."""
    key = int.from_bytes(hashlib.sha256(client.encode()).digest()[:8], "big", signed=True)
    transaction_lock(session.connection(), key)


def _new_token(session: Session, username: str, name: str, client: str) -> str | None:
    """The right password: this client's failures at this name are crossed out (this try
    with them) and a token is issued; None if the account went away meanwhile."""
    user = session.scalars(select(User).where(User.username == username)).one_or_none()
    if user is None:
        return None
    session.execute(delete(LoginFailure).where(LoginFailure.username == name,
                                               LoginFailure.client == client))
    token = secrets.token_urlsafe(32)
    moment = now()
    session.add(AuthToken(user_id=user.id, token_hash=token_digest(token), created_at=moment,
                          last_used_at=moment, revoked=False))
    audit.record(session, user.username, "login")
    return token
