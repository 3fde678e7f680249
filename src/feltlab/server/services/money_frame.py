"""A money request's frame: one transaction whose first statement reads the caller's
token, the stored answer to their Idempotency-Key and the rows the request changes (the
table's row locked), all at once; then the request's own steps; then its answer stored
with ``INSERT ... ON CONFLICT DO NOTHING`` in the batch of its last writes, so that a
retry (or a request racing it with the same key) gets the first answer and moves no
money twice.

A request runs in attempts, each one transaction (a deadlock, a serialization failure,
a dropped connection or a race refused by one of :data:`RACES` runs it again; nothing
was committed)::

    attempts = Attempts(found, token, request)
    for frame in attempts:
        with frame:
            values = frame.read(READ, {"table_id": 7}, f"table {7}")
            if frame.replayed:
                break
            ...  # the request's steps, top to bottom
            frame.answer(201, view, batch)
    return attempts.answer
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from types import TracebackType
from typing import TYPE_CHECKING, Final, NamedTuple

from sqlalchemy import Connection, and_, bindparam, select
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.sql import ColumnElement
from sqlalchemy.sql.selectable import FromClause, Join

from feltlab.server import faults
from feltlab.server.auth import Caller, token_digest
from feltlab.server.clock import now
from feltlab.server.errors import Conflict, DomainError, Refused, not_found
from feltlab.server.models import AuthToken, IdempotencyKey, User, table_of
from feltlab.server.services.accounts import caller_of, check_token, record_refused_use, touch
from feltlab.server.services.changes import notify_at_commit
from feltlab.server.services.context import Services
from feltlab.server.services.database import (
    connection_dropped,
    statement_connection,
    write_connection,
)
from feltlab.server.services.idempotency import (
    Answer,
    MoneyRequest,
    encode,
    retryable,
    stored_answer,
)
from feltlab.server.services.statements import Batch, Prepared, Unchanged, insert_ignoring

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

_TOKENS, _USERS, _KEYS = table_of(AuthToken), table_of(User), table_of(IdempotencyKey)
CALLER_COLUMNS: Final = (
    _TOKENS.c.id.label("token_id"), _TOKENS.c.revoked, _TOKENS.c.last_used_at,
    _USERS.c.id.label("user_id"), _USERS.c.username, _USERS.c.role, _USERS.c.excluded_until,
    _USERS.c.daily_loss_limit, _USERS.c.locked, _KEYS.c.request_hash, _KEYS.c.status_code,
    _KEYS.c.body)
"""What the first statement of every money request reads before the request's own rows."""
_CALLER_WIDTH: Final = len(CALLER_COLUMNS)
TOKEN_HASH: Final = _TOKENS.c.token_hash
ATTEMPTS: Final = 4


def callers() -> Join:
    """The caller's token and account, and the stored answer to their key, if any."""
    return _TOKENS.join(_USERS, _USERS.c.id == _TOKENS.c.user_id).outerjoin(
        _KEYS, and_(_KEYS.c.user_id == _USERS.c.id, _KEYS.c.key == bindparam("key")))


FirstRead = Prepared
"""A money request's first statement (on PostgreSQL it also NOTIFYs the workers
following the table of its change, delivered at the commit)."""


def first_read(*columns: ColumnElement[object], joined: Callable[[Join], Join],
               table_id: ColumnElement[int], locked: FromClause) -> FirstRead:
    """The caller, their stored answer, and the request's own ``columns`` from the tables
    ``joined`` adds (the row of ``locked`` locked for the transaction; ``table_id`` the
    changed table's id column)."""
    plain = (select(*CALLER_COLUMNS, *columns).select_from(joined(callers()))
             .where(_TOKENS.c.token_hash == bindparam("digest")))
    return Prepared.per_dialect(
        sqlite=plain.with_for_update(of=locked),
        postgresql=plain.add_columns(notify_at_commit(table_id)).with_for_update(of=locked))


class CallerRow(NamedTuple):
    """The caller's columns of a first read (:data:`CALLER_COLUMNS`), typed."""

    token_id: int
    revoked: bool
    last_used_at: datetime
    user_id: int
    username: str
    role: str
    excluded_until: datetime | None
    daily_loss_limit: int | None
    locked: bool
    request_hash: str | None
    status_code: int | None
    body: str | None


@dataclass(frozen=True)
class Account:
    """The caller's account as their stakes' limits need it."""

    user_id: int
    locked: bool
    excluded_until: datetime | None
    daily_loss_limit: int | None


HELD: Final = Answer(0, b"")
"""The answer of an attempt that committed without one (:meth:`Frame.keep`)."""

_STORE = insert_ignoring(_KEYS, ["user_id", "key"], returning=[_KEYS.c.id])
_STORED = "answer_stored"
"""The guard of the answer's write: none if a request with the same key stored first."""

RACES: Final = frozenset({"rounds_seed_once", "rounds_one_unfinished"})
"""The indexes a request breaks only when it raced another one at the same table: on
PostgreSQL, a statement that waited for the table's lock still reads the other rows as
they were when it began, so it may open a second round or derive the seed just used.
Run again, it reads what the other committed (and is refused, or goes on)."""


def raced(error: DBAPIError) -> bool:
    """Whether ``error`` broke one of :data:`RACES` (PostgreSQL names the index)."""
    diagnostics = getattr(error.orig, "diag", None)
    return (isinstance(error, IntegrityError)
            and getattr(diagnostics, "constraint_name", None) in RACES)


class Attempts:
    """The attempts of one money request (see the module's text); :attr:`answer` is
    the answer of the one that committed, or the stored one."""

    def __init__(self, found: Services, token: str, request: MoneyRequest) -> None:
        self.found, self.token, self.request = found, token, request
        self.answer: Answer | None = None

    def __iter__(self) -> Iterator[Frame]:
        for attempt in range(ATTEMPTS):
            frame = Frame(self, last=attempt == ATTEMPTS - 1)
            yield frame
            if self.answer is not None:
                return
        raise Conflict("another request with this Idempotency-Key is still running")


class _KeyRace(Exception):
    """Another request with the same key committed first: roll back, answer as it did."""


class Frame:
    """One attempt: one write transaction (see the module's text). ``one_statement``: an
    attempt that reads nothing and writes only its last writes (:meth:`resume`, then
    :meth:`answer`) runs them as one statement, all or nothing by itself, without a
    transaction around it where the database allows
    (:func:`~feltlab.server.services.database.statement_connection`)."""

    def __init__(self, attempts: Attempts, last: bool, one_statement: bool = False) -> None:
        self._attempts, self._last, self._one_statement = attempts, last, one_statement
        self._transaction: AbstractContextManager[Connection] | None = None
        self._connection: Connection | None = None
        self._caller: Caller | None = None
        self._account: Account | None = None
        self._ready: Answer | None = None
        self.replayed = False

    @property
    def connection(self) -> Connection:
        assert self._connection is not None, "use the frame in a with block"
        return self._connection

    @property
    def caller(self) -> Caller:
        assert self._caller is not None, "read the caller first (Frame.read)"
        return self._caller

    @property
    def account(self) -> Account:
        assert self._account is not None, "read the caller first (Frame.read)"
        return self._account

    def __enter__(self) -> Frame:
        opened = statement_connection if self._one_statement else write_connection
        self._transaction = opened(self._attempts.found.engine)
        self._connection = self._transaction.__enter__()
        return self

    def read(self, query: FirstRead, params: dict[str, object], missing: str
             ) -> dict[str, object]:
        """The first statement: the caller and the request's rows (their columns by
        name). No row: the token is refused, or ``missing`` is not found. A retry of an
        answered request sets :attr:`replayed` (its answer is the stored one)."""
        attempts, connection = self._attempts, self.connection
        found = attempts.found
        row = query.first(connection, {
            **params, "digest": token_digest(attempts.token), "key": attempts.request.key,
            "origin": found.origin})
        if row is None:
            check_token(connection, attempts.token, found.auth)
            raise not_found(missing)
        read = CallerRow._make(row[:_CALLER_WIDTH])  # the caller's columns come first
        self._caller = caller_of(read.token_id, read.revoked, read.last_used_at, read.user_id,
                                 read.username, read.role, found.auth)
        self._account = Account(read.user_id, bool(read.locked), read.excluded_until,
                                read.daily_loss_limit)
        if read.request_hash is not None:
            if read.request_hash != attempts.request.digest:
                raise Refused("this Idempotency-Key was used for a different request")
            self._ready = Answer(int(read.status_code or 0), (read.body or "").encode(),
                                 replayed=True)
            self.replayed = True
            return {}
        if self._caller.stale:
            touch(connection, self._caller)
        return dict(zip(row._fields[_CALLER_WIDTH:], row[_CALLER_WIDTH:], strict=True))

    def answer(self, status: int, payload: object, batch: Batch) -> None:
        """The request's answer, stored with its key in ``batch``, its last writes, which
        run now (the transaction commits at the end of the with block)."""
        request = self._attempts.request
        body = encode(payload)  # encoded once: stored and answered
        if request.key is not None:
            batch.add(_STORE, {
                "user_id": self.caller.user_id, "key": request.key,
                "request_hash": request.digest, "status_code": status,
                "body": body.decode(), "created_at": now()}, guard=_STORED)
        try:
            batch.run(self.connection, one_statement=self._one_statement)
        except Unchanged as unchanged:
            if unchanged.guard == _STORED:
                raise _KeyRace from None
            raise
        self._ready = Answer(status, body)

    def resume(self, caller: Caller) -> None:
        """Go on with a request whose first transaction read the caller and what it
        changes, and kept it (:meth:`keep`) so that nothing else changes it meanwhile:
        this attempt reads nothing first, and its :meth:`answer` is stored with the key
        as any."""
        self._caller = caller

    def keep(self, batch: Batch) -> None:
        """End the attempt with ``batch``'s writes (they run now) and no answer for the
        caller yet: the request goes on after the commit, in a transaction of its own (an
        operator's stake is debited between the two). Nothing is stored with the key;
        :attr:`Attempts.answer` is :data:`HELD`."""
        batch.run(self.connection, one_statement=self._one_statement)
        self._ready = HELD

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> bool:
        assert self._transaction is not None
        try:
            self._transaction.__exit__(kind, error, trace)  # commits, or rolls back
        except DBAPIError as failed:  # the commit itself failed: nothing was written
            if error is not None or not self._again(failed):
                raise
            return False  # the next attempt runs it again
        if error is None:
            if self._ready is None:
                raise RuntimeError("a money request ended without an answer")
            if not self.replayed:
                faults.request_committed()
            self._attempts.answer = self._ready
            return False
        if isinstance(error, _KeyRace):
            return True
        if isinstance(error, DomainError):
            return self._refused()
        return isinstance(error, DBAPIError) and self._again(error)

    def _again(self, error: DBAPIError) -> bool:
        """Whether the request runs again after ``error`` (nothing was committed)."""
        return not self._last and (
            connection_dropped(error) or raced(error)
            or (isinstance(error, OperationalError) and retryable(error)))

    def _refused(self) -> bool:
        """A refusal is the request's answer, unless a copy of it committed meanwhile."""
        attempts = self._attempts
        if self._caller is not None:
            record_refused_use(attempts.found, self._caller)
        replay = _answered_meanwhile(attempts)
        if replay is None:
            return False
        attempts.answer = replay
        return True


def _answered_meanwhile(attempts: Attempts) -> Answer | None:
    """After a refusal, the answer a request with the same key committed meanwhile (two
    copies of one request at once: the second is refused by what the first did, and
    must answer as the first did)."""
    request = attempts.request
    if request.key is None:
        return None
    with attempts.found.read() as session:
        caller = check_token(session.connection(), attempts.token, attempts.found.auth)
        stored = stored_answer(session, caller.user_id, request.key)
    if stored is None or stored.request_hash != request.digest:
        return None
    return Answer(stored.status_code, stored.body.encode(), replayed=True)
