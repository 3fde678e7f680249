"""The wallet outbox: every call feltlab owes an operator's wallet, kept in
``wallet_transactions`` until the wallet answers it clearly.

A win is owed to the player the moment the round settles, but the operator's wallet is
another company's server, and may be slow, down or unreachable then. So the call is not
made inside the round's transaction (a database transaction held open over the network
would hold the table up, and could commit a round whose payment failed, or pay a round
that then failed to commit): it is written as a row in the *same* transaction as the
round's change (:func:`queue_call`), so that the round and the debt to the player commit
together or not at all, and then sent, and sent again with the same ``transaction_id``,
by :class:`OutboxWorker` until the wallet acknowledges it. The wallet applies each
transaction id once, so sending twice is harmless; sending never is what this prevents.

The retries back off (the first within :attr:`OutboxSettings.first_gap_seconds`, the gap
doubling up to :attr:`OutboxSettings.max_gap_seconds`); a call unanswered for
:attr:`OutboxSettings.give_up_after_seconds` (24 h) is ``flagged`` and left for a person
(:func:`retry_now`, :func:`resolve_by_hand`, both in the audit log).

A round's calls reach the wallet in order: a win or a rollback waits while an earlier call
of its round is pending (a win names its bets, which must be applied first; a rollback
must follow the bet it cancels). Several workers, in several processes, share the table:
each claims its batch in a short write transaction (``FOR UPDATE SKIP LOCKED`` on
PostgreSQL, the one writer at a time on SQLite) by moving the rows' ``next_try_at`` past
the time a call can take, so no other worker sends the same row meanwhile; a worker that
dies leaves its rows due again once that time has passed.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from sqlalchemy import (
    Connection,
    Engine,
    bindparam,
    exists,
    false,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.engine import RowMapping

from feltlab.server.clock import aware
from feltlab.server.clock import now as clock_now
from feltlab.server.errors import Conflict, NotFound, Refused
from feltlab.server.models import table_of
from feltlab.server.operator_models import WalletTransaction
from feltlab.server.services import audit
from feltlab.server.services.database import session_factory, transaction, write_connection
from feltlab.server.services.statements import Prepared
from feltlab.server.services.wallet_client import (
    Applied,
    Outcome,
    Unclear,
)

log = logging.getLogger("feltlab.server")
_CALLS: Final = table_of(WalletTransaction)
KINDS: Final = ("bet", "win", "rollback")
PENDING, ACKNOWLEDGED, REFUSED, ROLLED_BACK = "pending", "acknowledged", "refused", "rolled_back"


@dataclass(frozen=True)
class OutboxSettings:
    """The retry schedule and the worker's pace (tests shrink them)."""

    first_gap_seconds: float = 2.0
    """The wait before the first retry; each later one waits twice the one before..."""
    max_gap_seconds: float = 30.0
    """...up to this."""
    give_up_after_seconds: float = 24 * 3600.0
    """A call unanswered this long after it was queued is flagged and retried no more."""
    claim_seconds: float = 120.0
    """How long a worker's claim keeps other workers off a row: longer than any call can
    take (an operator's timeout is at most 60 s)."""
    batch: int = 20
    """Rows a worker claims at once."""
    tick_seconds: float = 0.25
    """How often an idle worker looks for due rows."""


@dataclass(frozen=True)
class WalletCall:
    """One row of the outbox."""

    id: int
    transaction_id: str
    operator_id: str
    player: str
    session: str
    currency: str
    kind: str
    amount: int
    round_id: int | None
    bets: tuple[str, ...]
    rolled_back: str | None
    rules: str
    state: str
    attempts: int
    next_try_at: datetime | None
    last_error: str | None
    flagged: bool
    created_at: datetime
    updated_at: datetime


def _call_of(mapping: RowMapping) -> WalletCall:
    bets: list[str] = json.loads(mapping["bets"])
    moment = mapping["next_try_at"]
    return WalletCall(
        id=mapping["id"], transaction_id=mapping["transaction_id"],
        operator_id=mapping["operator_id"], player=mapping["player"],
        session=mapping["session"], currency=mapping["currency"], kind=mapping["kind"],
        amount=mapping["amount"], round_id=mapping["round_id"], bets=tuple(bets),
        rolled_back=mapping["rolled_back"], rules=mapping["rules"], state=mapping["state"],
        attempts=mapping["attempts"], next_try_at=None if moment is None else aware(moment),
        last_error=mapping["last_error"], flagged=bool(mapping["flagged"]),
        created_at=aware(mapping["created_at"]), updated_at=aware(mapping["updated_at"]))


def new_transaction_id() -> str:
    """A feltlab transaction id, unique without asking the database."""
    return f"fl-{secrets.token_hex(16)}"  # 128 random bits, as a uuid4's 122


def queue_call(connection: Connection, *, operator_id: str, player: str, session: str,
               currency: str, kind: str, amount: int, round_id: int,
               bets: Sequence[str] = (), rolled_back: str | None = None, rules: str = "",
               transaction_id: str | None = None, now: datetime | None = None,
               first_try_at: datetime | None = None, held: bool = False) -> str:
    """Add a call to the outbox on ``connection``, inside the caller's transaction (it
    commits with the round's change, or not at all); answers its transaction id. The
    call is :func:`call_row`'s."""
    row = call_row(operator_id=operator_id, player=player, session=session,
                   currency=currency, kind=kind, amount=amount, round_id=round_id, bets=bets,
                   rolled_back=rolled_back, rules=rules, transaction_id=transaction_id,
                   now=now, first_try_at=first_try_at, held=held)
    QUEUE.run(connection, row)
    return str(row["transaction_id"])


def call_row(*, operator_id: str, player: str, session: str, currency: str, kind: str,
             amount: int, round_id: int, bets: Sequence[str] = (),
             rolled_back: str | None = None, rules: str = "",
             transaction_id: str | None = None, now: datetime | None = None,
             first_try_at: datetime | None = None, held: bool = False
             ) -> dict[str, object]:
    """A new call's row for :data:`QUEUE` (a caller writing several at once, or among its
    batch's writes, runs it itself).

    It is due at once, unless ``first_try_at`` says later: a caller that sends the call
    itself first sets it past its own call's end, so that a worker only picks the row up
    if that caller never recorded an answer. A ``held`` call is never due: its caller
    sends it (an operator's bet, whose answer the player waits for; the rollback queued
    with it undoes it if the caller never records an answer). Every kind names its round
    (the wallet's protocol asks for it)."""
    if kind not in KINDS:
        raise ValueError(f"a wallet call is one of {', '.join(KINDS)}, got {kind!r}")
    if (kind == "bet" and amount <= 0) or amount < 0:
        raise ValueError(f"a {kind}'s amount cannot be {amount}")
    if (kind == "rollback") != (rolled_back is not None):
        raise ValueError("a rollback, and only a rollback, names the bet it rolls back")
    moment = now or clock_now()
    return {
        "transaction_id": transaction_id or new_transaction_id(), "operator_id": operator_id,
        "player": player, "session": session, "currency": currency, "kind": kind,
        "amount": amount, "round_id": round_id, "bets": json.dumps(list(bets)),
        "rolled_back": rolled_back, "rules": rules, "state": PENDING, "attempts": 0,
        "next_try_at": None if held else first_try_at or moment, "last_error": None,
        "flagged": False, "created_at": moment, "updated_at": moment}


QUEUE = Prepared(insert(_CALLS))
"""Built once: every stake an operator's player makes writes two rows."""


_EARLIER = _CALLS.alias("earlier")
_WAITS = exists().where(_EARLIER.c.round_id == _CALLS.c.round_id,
                        _EARLIER.c.id < _CALLS.c.id, _EARLIER.c.state == PENDING,
                        or_(_EARLIER.c.kind != "bet", _EARLIER.c.next_try_at.is_not(None)))
_DUE = (select(_CALLS)
        .where(_CALLS.c.state == PENDING, _CALLS.c.flagged == false(),
               _CALLS.c.next_try_at <= bindparam("now"),
               or_(_CALLS.c.kind == "bet", _CALLS.c.round_id.is_(None), ~_WAITS))
        .order_by(_CALLS.c.next_try_at, _CALLS.c.id).limit(bindparam("limit")))
_DUE_LOCKED = _DUE.with_for_update(skip_locked=True)
_CLAIMED = (update(_CALLS).where(_CALLS.c.id.in_(bindparam("ids", expanding=True)))
            .values(next_try_at=bindparam("until")))
"""Built once: the worker asks them every tick."""


def due(connection: Connection, now: datetime, limit: int, *, lock: bool = False
        ) -> list[WalletCall]:
    """Up to ``limit`` pending calls, not flagged, due by ``now``, soonest first; a win or
    a rollback only once no earlier call of its round is pending, but for a held bet
    (its request sends it, and the rollback behind it is what undoes it if the request
    never recorded the answer). ``lock``: lock the rows found, skipping rows another
    transaction has locked (PostgreSQL; SQLite's writers run one at a time anyway)."""
    query = _DUE_LOCKED if lock else _DUE
    return [_call_of(found) for found in connection.execute(
        query, {"now": now, "limit": limit}).mappings()]


def claim(engine: Engine, now: datetime, settings: OutboxSettings) -> list[WalletCall]:
    """Take a batch of due calls for this worker: in one short write transaction, find
    them (locked, skipping those another worker is claiming) and move their
    ``next_try_at`` :attr:`~OutboxSettings.claim_seconds` ahead, so that no other worker
    finds them due while this one sends them."""
    with write_connection(engine) as connection:
        calls = due(connection, now, settings.batch, lock=True)
        if calls:
            connection.execute(_CLAIMED, {
                "ids": [call.id for call in calls],
                "until": now + timedelta(seconds=settings.claim_seconds)})
    return calls


def gap(attempts: int, settings: OutboxSettings) -> float:
    """Seconds before the next try, after ``attempts`` tries.

    >>> [gap(n, OutboxSettings()) for n in (1, 2, 3, 4, 5, 6)]
    [2.0, 4.0, 8.0, 16.0, 30.0, 30.0]
    """
    if attempts > 60:
        return settings.max_gap_seconds
    doubled: float = settings.first_gap_seconds * 2.0 ** max(attempts - 1, 0)
    return min(doubled, settings.max_gap_seconds)


_BY_TRANSACTION = select(_CALLS).where(_CALLS.c.transaction_id == bindparam("tid"))
_LOCKED = _BY_TRANSACTION.with_for_update()
_ROLLED_BACK = (update(_CALLS).where(
    _CALLS.c.transaction_id.in_(bindparam("bet_ids", expanding=True)), _CALLS.c.kind == "bet",
    _CALLS.c.state.in_([ACKNOWLEDGED, PENDING]))
    .values(state=ROLLED_BACK, updated_at=bindparam("moment")))
_ACKNOWLEDGED = (update(_CALLS).where(
    _CALLS.c.transaction_id.in_(bindparam("tids", expanding=True)), _CALLS.c.state == PENDING)
                 .values(state=ACKNOWLEDGED, attempts=_CALLS.c.attempts + 1, next_try_at=None,
                         last_error=None, flagged=False, updated_at=bindparam("moment"))
                 .returning(*_CALLS.c))
_TRIED = (update(_CALLS).where(_CALLS.c.id == bindparam("call_id")).values(
    state=bindparam("new_state"), attempts=bindparam("new_attempts"),
    next_try_at=bindparam("new_next_try_at"), last_error=bindparam("new_last_error"),
    flagged=bindparam("new_flagged"), updated_at=bindparam("moment"))
    .returning(*_CALLS.c))


def find(connection: Connection, transaction_id: str) -> WalletCall | None:
    """The outbox's call with this transaction id, if any."""
    found = connection.execute(_BY_TRANSACTION, {"tid": transaction_id}
                               ).mappings().one_or_none()
    return None if found is None else _call_of(found)


def record(engine: Engine, transaction_id: str, outcome: Outcome,
           now: datetime | None = None, settings: OutboxSettings = OutboxSettings()
           ) -> WalletCall:
    """Keep what the wallet answered to one try of a call; answers the row as it is now.

    Applied: acknowledged (a rollback also marks its bet ``rolled_back``). Refused: a bet
    is ``refused`` (the wallet will refuse it again); a win or a rollback is owed all the
    same, so it is retried like an unclear one, its error kept in ``last_error``. Unclear:
    tried again after :func:`gap`, or flagged once it is older than the give-up age. A
    call no longer pending (resolved by hand meanwhile) is left as it is."""
    (kept,) = record_all(engine, [(transaction_id, outcome)], now, settings)
    return kept


def record_all(engine: Engine, answers: Sequence[tuple[str, Outcome]],
               now: datetime | None = None, settings: OutboxSettings = OutboxSettings()
               ) -> list[WalletCall]:
    """:func:`record` for several calls' answers, in one transaction (a worker's batch)."""
    moment = now or clock_now()
    applied = [transaction_id for transaction_id, outcome in answers
               if isinstance(outcome, Applied)]
    with write_connection(engine) as connection:
        kept = {call.transaction_id: call for call in _acknowledge(connection, applied, moment)}
        return [kept[transaction_id] if transaction_id in kept
                else _record(connection, transaction_id, outcome, moment, settings)
                for transaction_id, outcome in answers]


def _acknowledge(connection: Connection, transaction_ids: list[str], moment: datetime
                 ) -> list[WalletCall]:
    """The pending calls among ``transaction_ids`` acknowledged, in one statement (a
    worker's batch is mostly wins the wallet answered); a rollback's bet marked
    ``rolled_back``."""
    if not transaction_ids:
        return []
    calls = [_call_of(found) for found in connection.execute(
        _ACKNOWLEDGED, {"tids": transaction_ids, "moment": moment}).mappings()]
    rolled_back = [call.rolled_back for call in calls
                   if call.kind == "rollback" and call.rolled_back is not None]
    if rolled_back:
        connection.execute(_ROLLED_BACK, {"bet_ids": rolled_back, "moment": moment})
    return calls


def _record(connection: Connection, transaction_id: str, outcome: Outcome,
            moment: datetime, settings: OutboxSettings) -> WalletCall:
    """One answer that is not an acknowledgement (or one of a call no longer pending)."""
    call = _locked(connection, transaction_id)
    if call.state != PENDING or isinstance(outcome, Applied):
        return call
    tried = {"call_id": call.id, "new_state": PENDING, "new_attempts": call.attempts + 1,
             "new_next_try_at": None, "new_last_error": None, "new_flagged": False,
             "moment": moment}
    if not isinstance(outcome, Unclear) and call.kind == "bet":
        tried |= {"new_state": REFUSED, "new_last_error": outcome.error}
    else:
        error = (outcome.reason if isinstance(outcome, Unclear)
                 else f"refused: {outcome.error}")
        tried["new_last_error"] = error
        if (moment - call.created_at).total_seconds() >= settings.give_up_after_seconds:
            tried["new_flagged"] = True
            log.error("wallet call %s (%s, operator %s) unanswered since %s: flagged, "
                      "no more retries (%s)", call.transaction_id, call.kind,
                      call.operator_id, call.created_at.isoformat(), error)
        else:
            tried["new_next_try_at"] = moment + timedelta(
                seconds=gap(call.attempts + 1, settings))
    return _call_of(connection.execute(_TRIED, tried).mappings().one())


def _locked(connection: Connection, transaction_id: str) -> WalletCall:
    found = connection.execute(_LOCKED, {"tid": transaction_id}).mappings().one_or_none()
    if found is None:
        raise NotFound(f"no wallet call has transaction id {transaction_id!r}")
    return _call_of(found)


def _locked_pending(connection: Connection, transaction_id: str) -> WalletCall:
    """The pending call ``transaction_id``, locked for a person's change (anything else
    was answered already, or is a held bet: a conflict). A held bet is its request's to
    send; if the request never records the answer, the rollback behind it settles it."""
    call = _locked(connection, transaction_id)
    if call.state != PENDING:
        raise Conflict(f"wallet call {transaction_id!r} is {call.state}, not pending")
    if call.kind == "bet" and call.next_try_at is None and not call.flagged:
        raise Conflict(f"wallet call {transaction_id!r} is a stake its request is sending; "
                       "the rollback queued behind it settles it if the request does not")
    return call


def retry_now(engine: Engine, transaction_id: str, actor: str,
              now: datetime | None = None) -> WalletCall:
    """A person's "try it again now": a pending call (flagged or not) is due at once. A
    flagged call's retry is one more try: unanswered, it is flagged again."""
    moment = now or clock_now()
    with transaction(session_factory(engine)) as db:
        call = _locked_pending(db.connection(), transaction_id)
        db.connection().execute(update(_CALLS).where(_CALLS.c.id == call.id).values(
            next_try_at=moment, flagged=False, updated_at=moment))
        audit.record(db, actor, "wallet_call_retry_now", transaction_id=transaction_id,
                     operator=call.operator_id, call_kind=call.kind, attempts=call.attempts,
                     was_flagged=call.flagged)
        return _locked(db.connection(), transaction_id)


def resolve_by_hand(engine: Engine, transaction_id: str, actor: str, note: str,
                    now: datetime | None = None) -> WalletCall:
    """A person settled a pending call with the operator outside the outbox (its wallet
    confirmed it, or it was paid another way): it is acknowledged and sent no more; the
    note says how, in the row and in the audit log."""
    if not note.strip():
        raise Refused("say in the note how the call was resolved")
    moment = now or clock_now()
    with transaction(session_factory(engine)) as db:
        call = _locked_pending(db.connection(), transaction_id)
        db.connection().execute(update(_CALLS).where(_CALLS.c.id == call.id).values(
            state=ACKNOWLEDGED, next_try_at=None, flagged=False, updated_at=moment,
            last_error=f"resolved by hand by {actor[:64]}: {note}"))
        audit.record(db, actor, "wallet_call_resolved_by_hand",
                     transaction_id=transaction_id, operator=call.operator_id,
                     call_kind=call.kind, amount=call.amount, attempts=call.attempts, note=note)
        return _locked(db.connection(), transaction_id)
