"""The money path's frame, in SQLAlchemy Core: one transaction a request, whose first
statement reads the caller's token, the stored answer to their Idempotency-Key and the
rows the request changes (locked), all at once; the work; then the answer stored with
``INSERT ... ON CONFLICT DO NOTHING``, so a retry (or a request racing it with the same
key) gets the first answer and moves no money twice.

:mod:`feltlab.server.services.private_rounds` builds its requests on this frame.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, and_, bindparam, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.sql.selectable import Join

from feltlab.server import faults
from feltlab.server.auth import Caller, token_digest
from feltlab.server.clock import now
from feltlab.server.errors import Conflict, DomainError, Refused
from feltlab.server.models import AuthToken, IdempotencyKey, User, detached, table_of
from feltlab.server.services.accounts import caller_of, check_token, record_refused_use, touch
from feltlab.server.services.changes import notify_at_commit
from feltlab.server.services.context import Services
from feltlab.server.services.database import connection_dropped, write_connection
from feltlab.server.services.idempotency import (
    Answer,
    MoneyRequest,
    encode,
    retryable,
    stored_answer,
)
from feltlab.server.services.statements import Batch, Prepared

_TOKENS, _USERS, _KEYS = table_of(AuthToken), table_of(User), table_of(IdempotencyKey)
CALLER_COLUMNS = (_TOKENS.c.id, _TOKENS.c.revoked, _TOKENS.c.last_used_at,
                  _USERS.c.id.label("user_id"), _USERS.c.username, _USERS.c.role,
                  _USERS.c.excluded_until, _USERS.c.daily_loss_limit, _USERS.c.locked,
                  _KEYS.c.request_hash, _KEYS.c.status_code, _KEYS.c.body)
"""What the first statement of every money request reads before the request's own rows."""
TOKEN_HASH = _TOKENS.c.token_hash


def callers() -> Join:
    """The caller's token and account, and the stored answer to their key, if any."""
    return _TOKENS.join(_USERS, _USERS.c.id == _TOKENS.c.user_id).outerjoin(
        _KEYS, and_(_KEYS.c.user_id == _USERS.c.id, _KEYS.c.key == bindparam("key")))


@dataclass(frozen=True)
class FirstRead:
    """A money request's first statement, as run on each database: on PostgreSQL it
    also NOTIFYs the other workers of the table's change, delivered at the commit."""

    sqlite: Prepared
    postgresql: Prepared


def first_read(*columns: Any, joined: Callable[[Join], Join], table_id: Any,
               locked: Any, sqlite_only: tuple[Any, ...] = ()) -> FirstRead:
    """A money request's first statement: the caller, their stored answer, and the
    request's own ``columns`` from the tables ``joined`` adds (the row of ``locked``
    locked for the transaction; ``table_id`` the changed table's id column), and on
    SQLite ``sqlite_only`` too (what PostgreSQL reads again once the lock is held)."""
    plain = (select(*CALLER_COLUMNS, *columns).select_from(joined(callers()))
             .where(_TOKENS.c.token_hash == bindparam("digest")))
    return FirstRead(Prepared(plain.add_columns(*sqlite_only).with_for_update(of=locked)),
                     Prepared(plain.add_columns(notify_at_commit(table_id))
                              .with_for_update(of=locked)))


def user_of(row: Any) -> User:
    """The caller's account as the limits need it (not attached to a session)."""
    return detached(User, {
        "id": row.user_id, "username": row.username, "role": row.role,
        "excluded_until": row.excluded_until, "daily_loss_limit": row.daily_loss_limit,
        "locked": row.locked})


Work = Callable[[Connection, Caller, Any, Batch], tuple[int, Any]]
"""A money request's work on its first row (a named tuple): the status and the
JSON-ready answer. Its last writes go in the batch, which runs with the stored answer."""

_STORE = {name: Prepared(module.insert(_KEYS).on_conflict_do_nothing(
    index_elements=["user_id", "key"]).returning(_KEYS.c.id))
    for name, module in (("sqlite", sqlite), ("postgresql", postgresql))}


class _KeyRace(Exception):
    """Another request with the same key committed first: roll back, answer as it did."""


def run(found: Services, token: str, request: MoneyRequest, query: FirstRead,
        params: dict[str, Any], work: Work, missing: Callable[[], DomainError]) -> Answer:
    """Run ``work`` on the first row of ``query`` in one transaction, or give back the
    stored answer to a retry. No row: the token is refused, or ``missing()`` is raised.
    A deadlock, a serialization failure, a dropped connection or a race refused by one
    of :data:`RACES` runs it again (nothing was committed)."""
    for attempt in range(4):
        try:
            return _once(found, token, request, query, params, work, missing)
        except _KeyRace:
            continue
        except DomainError:
            replay = _answered_meanwhile(found, token, request)
            if replay is None:
                raise
            return replay
        except DBAPIError as error:
            again = (connection_dropped(error) or raced(error)
                     or (isinstance(error, OperationalError) and retryable(error)))
            if not again or attempt == 3:
                raise
    raise Conflict("another request with this Idempotency-Key is still running")


RACES = frozenset({"rounds_seed_once", "rounds_one_unfinished"})
"""The indexes a request breaks only when it raced another one at the same table: on
PostgreSQL, a statement that waited for the table's lock still reads the other rows as
they were when it began, so it may open a second round or derive the seed just used.
Run again, it reads what the other committed (and is refused, or goes on)."""


def raced(error: DBAPIError) -> bool:
    """Whether ``error`` broke one of :data:`RACES` (PostgreSQL names the index)."""
    diagnostics = getattr(error.orig, "diag", None)
    return (isinstance(error, IntegrityError)
            and getattr(diagnostics, "constraint_name", None) in RACES)


def _once(found: Services, token: str, request: MoneyRequest, query: FirstRead,
          params: dict[str, Any], work: Work, missing: Callable[[], DomainError]) -> Answer:
    caller: Caller | None = None
    try:
        with write_connection(found.engine) as connection:
            statement = (query.postgresql if connection.dialect.name == "postgresql"
                         else query.sqlite)
            row = statement.first(connection, {
                **params, "digest": token_digest(token), "key": request.key,
                "origin": found.origin})
            if row is None:
                check_token(connection, token, found.auth)
                raise missing()
            caller = caller_of(row[0], row.revoked, row.last_used_at, row.user_id,
                               row.username, row.role, found.auth)
            if row.request_hash is not None:
                if row.request_hash != request.digest:
                    raise Refused("this Idempotency-Key was used for a different request")
                return Answer(row.status_code, row.body.encode(), replayed=True)
            if caller.stale:
                touch(connection, caller)
            batch = Batch()
            status, payload = work(connection, caller, row, batch)
            body = encode(payload)  # encoded once: stored and answered
            stored = None if request.key is None else batch.add(
                _STORE[connection.dialect.name], {
                    "user_id": caller.user_id, "key": request.key,
                    "request_hash": request.digest, "status_code": status,
                    "body": body.decode(), "created_at": now()})
            batch.run(connection)
            if stored is not None and not stored.values:
                raise _KeyRace
        faults.request_committed()
        return Answer(status, body)
    except DomainError:
        if caller is not None:
            record_refused_use(found, caller)
        raise


def _answered_meanwhile(found: Services, token: str, request: MoneyRequest) -> Answer | None:
    """After a refusal, the answer a request with the same key committed meanwhile (two
    copies of one request at once: the second is refused by what the first did, and
    must answer as the first did)."""
    if request.key is None:
        return None
    with found.read() as session:
        caller = check_token(session.connection(), token, found.auth)
        stored = stored_answer(session, caller.user_id, request.key)
    if stored is None or stored.request_hash != request.digest:
        return None
    return Answer(stored.status_code, stored.body.encode(), replayed=True)
