"""Playing at a table: every money request (a bet, a decision) and every timer of a
shared table, through one pipeline, the same at private and shared tables (a private
table is a table with one seat and no timers). Each step is called once, top to bottom:

1. load and lock: the caller, their stored answer and the table (its row locked) with
   its round, in the first statement (:mod:`~feltlab.server.services.money_frame`,
   :mod:`~feltlab.server.services.round_store`);
2. play it in memory through the engine, which says which money moves
   (:mod:`~feltlab.server.services.table_play`);
3. post the money, stakes checked against the player's limits and balance
   (:func:`feltlab.server.services.ledger.post`, the one writer of the ledger);
4. write the round's rows and events (:mod:`~feltlab.server.services.round_writes`);
5. answer (stored with the Idempotency-Key), commit, and show the table's watchers.
"""

from __future__ import annotations

from sqlalchemy import Connection, bindparam, select

from feltlab.server.auth import token_digest
from feltlab.server.clock import aware, now
from feltlab.server.errors import Conflict, Unauthorized, not_found
from feltlab.server.models import GameTable, Round, TableSeat, User, table_of
from feltlab.server.services import ledger, round_store, round_writes, table_play
from feltlab.server.services.accounts import caller_of, record_refused_use
from feltlab.server.services.changes import NOTIFY_BYTES, notify_in, with_state
from feltlab.server.services.context import Services
from feltlab.server.services.database import write_connection
from feltlab.server.services.idempotency import Answer, MoneyRequest
from feltlab.server.services.money_frame import (
    CALLER_COLUMNS,
    TOKEN_HASH,
    Attempts,
    callers,
    first_read,
)
from feltlab.server.services.round_store import AtTable, LoadedRound
from feltlab.server.services.statements import Batch, Prepared, serial_writes
from feltlab.server.services.table_play import Played, Wagers
from feltlab.server.views import Fresh, table_state, view_of, wire_text

__all__ = ["Wagers", "bet", "decide", "run_timer"]  # and the steps operator_play shares

_BET_READ = first_read(*round_store.BET_COLUMNS, joined=round_store.at_the_table,
                       table_id=round_store.TABLE_ID, locked=round_store.LOCKED)
_ACT_READ = first_read(*round_store.ACT_COLUMNS, joined=round_store.round_and_my_seat,
                       table_id=round_store.TABLE_ID, locked=round_store.LOCKED)


def bet(found: Services, token: str, table_id: int, placed: Wagers,
        request: MoneyRequest) -> Answer:
    """Bet at the table: a private table opens a round and deals at once; a shared one
    takes the wagers into its betting window. A shared table whose round is being played
    refuses with a read only, before queueing for the writer."""
    if shared_table(found, table_id) and not _betting_seen_open(found, table_id):
        refuse_if_betting_closed(found, token, table_id, request)
    attempts = Attempts(found, token, request)
    for frame in attempts:
        done: tuple[Played, Fresh | None] | None = None
        with frame:
            values = frame.read(_BET_READ, {"table_id": table_id},
                                f"table {table_id}")
            if frame.replayed:
                break
            seen = found.hub.stamp(table_id)  # the table is locked: nobody changes it now
            at = after_the_lock(frame.connection, round_store.at_table(values))
            if at.table.currency not in ledger.CURRENCIES:  # an operator's money: its
                raise not_found(f"table {table_id}")  # session's path alone plays it
            moment = now()
            played = table_play.bet(at, loaded_of(frame.connection, at), frame.caller.user_id,
                                    placed, moment)
            if played.opened:
                round_writes.open_round(frame.connection, played)
            balances = ledger.post(frame.connection, _posting(played), played.moves,
                                   frame.account)
            _set_balances(frame.connection, played, balances, at.balance)
            batch = Batch()
            joined = round_writes.write(batch, played, moment)
            names = names_of(frame.connection, at, played, frame.caller.username)
            fresh = fresh_state(found, frame.connection, batch, seen, at, played, names)
            frame.answer(201, answer_view(played, frame.caller.user_id, names, fresh), batch)
            if played.new_seat is not None and joined is not None:
                played.new_seat.id = joined.values[0]
            done = played, fresh
    if done is not None:
        show_change(found, *done)
    assert attempts.answer is not None
    return attempts.answer


def decide(found: Services, token: str, round_id: int, decision: dict[str, object],
           request: MoneyRequest) -> Answer:
    """The caller's decision in round ``round_id`` (a raise, play or bet is debited
    here), the round run on and settled when complete, then the table's watchers shown."""
    kind, amount = str(decision["action"]), decision.get("amount")
    attempts = Attempts(found, token, request)
    for frame in attempts:
        done: tuple[Played, Fresh | None] | None = None
        with frame:
            values = frame.read(_ACT_READ, {"round_id": round_id},
                                f"round {round_id}")
            if frame.replayed:
                break
            at = round_store.at_table(values)
            seen = found.hub.stamp(at.table.id)  # locked: nobody changes it now
            at = after_the_lock(frame.connection, at, round_id)
            loaded = loaded_of(frame.connection, at)
            assert loaded is not None  # a round is never deleted
            moment = now()
            played = table_play.decide(at.table, loaded, frame.caller.user_id, kind,
                                       None if amount is None else int(str(amount)), moment)
            balances = ledger.post(frame.connection, _posting(played), played.moves,
                                   frame.account)
            _set_balances(frame.connection, played, balances, at.balance)
            batch = Batch()
            round_writes.write(batch, played, moment)
            names = names_of(frame.connection, at, played, frame.caller.username)
            fresh = fresh_state(found, frame.connection, batch, seen, at, played, names)
            frame.answer(200, answer_view(played, frame.caller.user_id, names, fresh), batch)
            done = played, fresh
    if done is not None:
        show_change(found, *done)
    assert attempts.answer is not None
    return attempts.answer


_TABLES, _ROUNDS = table_of(GameTable), table_of(Round)
_DUE = Prepared(select(*round_store.TABLE_COLUMNS, *round_store.ROUND_COLUMNS)
                .select_from(_ROUNDS.join(_TABLES, _TABLES.c.id == _ROUNDS.c.table_id))
                .where(_ROUNDS.c.id == bindparam("round_id"),
                       _ROUNDS.c.deadline <= bindparam("moment"))
                .with_for_update(of=_TABLES, skip_locked=True))
"""A round whose timer ran out, and its table (locked; on PostgreSQL skipped while
another transaction holds it)."""


def run_timer(found: Services, round_id: int) -> int | None:
    """A shared round whose timer ran out: deal it if its betting window closed, or fold
    the seat whose time ran out; then show the table's watchers. Answers its table, or
    None if another worker holds the table or the round moved already."""
    with write_connection(found.engine) as connection:
        row = _DUE.first(connection, {"round_id": round_id, "moment": now()})
        if row is None:
            return None  # not due, or another worker is at this table now
        at = round_store.at_table(row._asdict())
        seen = found.hub.stamp(at.table.id)
        at = after_the_lock(connection, at, round_id)
        if (at.round is None or at.round.deadline is None
                or aware(at.round.deadline) > now()):
            return None  # moved by the lock's holder meanwhile
        loaded = loaded_of(connection, at)
        assert loaded is not None
        moment = now()
        played = table_play.timer(at.table, loaded, moment)
        if played is None:
            return None
        balances = ledger.post(connection, _posting(played), played.moves, None)
        _set_balances(connection, played, balances, None)
        batch = Batch()
        round_writes.write(batch, played, moment)
        fresh = fresh_state(found, connection, batch, seen, at, played,
                       names_of(connection, at, played, None), told=False)
        batch.run(connection)
    show_change(found, played, fresh)
    return at.table.id


# --- the steps they share ---------------------------------------------------------------------

def after_the_lock(connection: Connection, at: AtTable, round_id: int | None = None
                    ) -> AtTable:
    """A shared table's round read again now that the table's lock is held, with its
    seats and who sits at the table (see :func:`round_store.shared_round`)."""
    if not at.table.shared:
        return at
    return round_store.shared_round(connection, at, round_id)


def loaded_of(connection: Connection, at: AtTable) -> LoadedRound | None:
    if at.round is None:
        return None
    return round_store.loaded_round(connection, at.round, list(at.seats), at.table.shared,
                                    to_change=True)


def _posting(played: Played) -> ledger.Posting:
    record = played.loaded.record
    return ledger.Posting(record.currency, record.table_id, record.id, played.complete)


def _set_balances(connection: Connection, played: Played, balances: dict[int, int],
                  read: int | None) -> None:
    """Each seat's balance before its bet and after the round, from what the ledger
    answered (or, for a seat whose money did not move, the caller's balance as read, or
    a read of it now)."""
    currency = played.loaded.record.currency
    one_seat = len(played.loaded.seats) == 1

    def after(user_id: int) -> int:
        if user_id in balances:
            return balances[user_id]
        if read is not None and one_seat:
            return read
        return ledger.player_balance(connection, user_id, currency)

    seat = played.new_seat
    if seat is not None:
        move = next(move for move in played.moves if move.user_id == seat.user_id)
        seat.balance_before = after(seat.user_id) - move.payout + move.stake
    if played.complete:
        for each in played.loaded.seats:
            each.balance_after = after(each.user_id)


_USERS = table_of(User)
_NAMES_OF = select(_USERS.c.id, _USERS.c.username).where(
    _USERS.c.id.in_(bindparam("user_ids", expanding=True)))


def names_of(connection: Connection, at: AtTable, played: Played, caller: str | None
           ) -> dict[int, str]:
    """The names of the round's players: at a private table the caller's; at a shared
    one those seated, and any who left the table since they bet read once."""
    seats = played.loaded.seats
    if not at.table.shared:
        return {seat.user_id: caller or "" for seat in seats}
    seated = {sitting.user_id: sitting.username for sitting in at.sitting}
    names = {seat.user_id: seated[seat.user_id] for seat in seats if seat.user_id in seated}
    missing = sorted({seat.user_id for seat in seats} - names.keys())
    if missing:
        names |= dict(connection.execute(_NAMES_OF, {"user_ids": missing}).tuples().all())
    return names


def fresh_state(found: Services, connection: Connection, batch: Batch, seen: int, at: AtTable,
           played: Played, names: dict[int, str], told: bool = True) -> Fresh | None:
    """The table's new state for its watchers. A private table's only if anyone is to
    be shown it (a watcher in this worker, or on SQLite another worker): its next
    watcher reads the table. A shared table's is also sent to the other workers with the
    commit (on PostgreSQL, in a NOTIFY among the ``batch``'s writes if it fits; a money
    request's first statement ``told`` them of the change already, and a timer's did
    not)."""
    table = at.table
    if not table.shared:
        if not found.shows(table.id):
            return None
        return Fresh(seen, table_state(table, None, played.loaded, names))
    sitting = [(sitting.seat, sitting.username) for sitting in at.sitting]
    fresh = Fresh(seen, table_state(table, sitting, played.loaded, names))
    if not serial_writes(connection):  # SQLite's workers are told after the commit
        head = f"{table.id}:{found.origin}"
        payload = with_state(head, wire_text(fresh.state), NOTIFY_BYTES)
        if payload != head or not told:
            notify_in(batch, table.id, payload)
    return fresh


def answer_view(played: Played, user_id: int, names: dict[int, str], fresh: Fresh | None
          ) -> dict[str, object]:
    """The caller's answer: the round as they may see it, made of the parts the table's
    watchers are shown when they are shown it."""
    return view_of(played.loaded, user_id, names, None if fresh is None else fresh.state)


def show_change(found: Services, played: Played, fresh: Fresh | None) -> None:
    """After the commit: a settled round goes to the worker's recorder of the pit's
    figures and is counted, and the table's watchers are shown its new state."""
    loaded = played.loaded
    if played.complete:
        found.recorder.settled(loaded.state, loaded.seats, loaded.record)
        found.metrics.round_completed(loaded.rules.id,
                                      sum(seat.staked for seat in loaded.seats))
    found.publish(played.table.id, fresh, notified=True)


# --- a shared table's bet refused early -------------------------------------------------------

_SEATS = table_of(TableSeat)
_ROUND_IN_PLAY = (select(_ROUNDS.c.id).join(_TABLES, _TABLES.c.id == _ROUNDS.c.table_id)
                  .join(_SEATS, _SEATS.c.table_id == _ROUNDS.c.table_id)
                  .where(_ROUNDS.c.table_id == bindparam("table_id"),
                         _TABLES.c.shared.is_(True), _TABLES.c.status == "open",
                         _SEATS.c.user_id == _USERS.c.id,
                         _ROUNDS.c.phase.not_in(["wagers", "complete"]))
                  .limit(1).scalar_subquery().label("in_play"))
_BETTING_CLOSED = (select(*CALLER_COLUMNS, _ROUND_IN_PLAY).select_from(callers())
                   .where(bindparam("digest") == TOKEN_HASH))
"""The caller, their stored answer and the shared table's round being played, if any."""


def _betting_seen_open(found: Services, table_id: int) -> bool:
    """Whether this worker's live state of the table, current with every change announced
    here, shows no round being played. Then the bet goes straight to the writer (whose
    transaction refuses it all the same if betting closed meanwhile); otherwise a read
    refuses it first."""
    state = found.snapshots.get(table_id)
    return (state is not None and state.stamp == found.hub.stamp(table_id)
            and state.phase in (None, "wagers", "complete"))


def refuse_if_betting_closed(found: Services, token: str, table_id: int,
                             request: MoneyRequest) -> None:
    """Refuse, with one read, a bet at a shared table whose round is being played: the
    same refusal the write transaction would give, without queueing for the writer (the
    token is checked here as well). A retry of a request already answered goes on to
    get its first answer."""
    with found.read_connection() as connection:
        row = connection.execute(_BETTING_CLOSED, {
            "digest": token_digest(token), "key": request.key, "table_id": table_id}
        ).first()
    if row is None:
        raise Unauthorized("sign in first: the token is missing or unknown")
    caller = caller_of(row.token_id, row.revoked, row.last_used_at, row.user_id,
                       row.username, row.role, found.auth)
    if row.request_hash is None and row.in_play is not None:
        record_refused_use(found, caller)
        raise Conflict(f"betting is closed: round {row.in_play} is being played")


_TABLE_KIND = select(_TABLES.c.shared).where(_TABLES.c.id == bindparam("table_id"))


def shared_table(found: Services, table_id: int) -> bool:
    """Whether the table is shared (kept per worker: a table never changes kind)."""
    known = found.shared_tables.get(table_id)
    if known is None:
        with found.read_connection() as connection:
            known = connection.execute(_TABLE_KIND, {"table_id": table_id}).scalar()
        if known is None:
            return False
        found.shared_tables[table_id] = bool(known)
    return bool(known)
