"""An operator's real-money play: a bet or a decision whose stake the operator's wallet
debits (a seamless wallet, :mod:`feltlab.server.services.wallet_client`), through the
same steps as every money request (:mod:`feltlab.server.services.play`), with the wallet
call between two transactions and never inside one:

1. **hold**: one transaction reads and locks the table as every money request does,
   plays the request through the engine in memory (none of it written yet: no card is
   dealt or shown before the stake is debited), and writes the stake to the outbox as a
   *held* bet (only this request sends it) with its rollback queued behind it, due once
   the call must have ended. An opening bet's round is written too, waiting for its
   stake: no action, no seat (the wallet's call names the round). On PostgreSQL the
   first read takes the new round's id from its sequence, and the round and the held
   stake are one statement.
2. **call**: the wallet is asked to debit the stake, outside any transaction.
3. **settle**: a second transaction records the answer. If the wallet took the stake
   and the rollback was still untouched (it is taken back, in one conditional DELETE),
   the move played in step 1 is written as any request writes a round, the bet
   acknowledged, at the round's end its one win queued, and the answer stored with the
   Idempotency-Key. Nothing is read again: while its stake is held, nothing else
   changes the round (every other change of it is refused). On PostgreSQL this is one
   statement, all or nothing by itself, with no BEGIN or COMMIT around it: the taking
   back and the answer's key are its guards (either changing no row refuses it whole).
   Refused: the bet is marked so, and the player gets 409 with the wallet's reason (the
   round as it was: no card dealt, the decision still open). Unclear: the rollback is
   due at once, and the player gets 409.

The first read of step 1 is the money frame's (:mod:`money_frame`) with the table's
operator's session and wallet joined (the caller's token must be that session's), the
table's unfinished round with its seats (a bet), and whether a stake of the round is
still held. A crash anywhere leaves the held bet and its rollback behind: the outbox
sends the rollback when it falls due, so a stake whose outcome nobody recorded is never
kept; so does a failed step 3 (it is not run again).

A decision without a stake (a fold) needs no wallet call: one transaction, as at
feltlab's own tables. A demo session plays feltlab's own play money
(:mod:`feltlab.server.services.play`): no wallet call at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, cast

from sqlalchemy import Connection, bindparam, exists, select
from sqlalchemy.sql import ColumnElement
from sqlalchemy.sql.selectable import Join

from feltlab.server import faults
from feltlab.server.auth import Caller, token_digest
from feltlab.server.clock import now
from feltlab.server.errors import Conflict, Forbidden, not_found
from feltlab.server.models import AuthToken, GameTable, Round, table_of
from feltlab.server.operator_models import Operator, OperatorSession, WalletTransaction
from feltlab.server.services import outbox, play, round_store, round_writes, table_play
from feltlab.server.services.context import Services
from feltlab.server.services.idempotency import Answer, MoneyRequest
from feltlab.server.services.money_frame import HELD, Attempts, Frame, first_read
from feltlab.server.services.operator_stakes import (
    STAKE_TAKEN,
    Held,
    Seated,
    bets_of,
    hold,
    queue_win,
    record_answer,
    take_stake,
    taken_bets_column,
)
from feltlab.server.services.round_store import AtTable
from feltlab.server.services.statements import Batch, Prepared, Unchanged, next_id
from feltlab.server.services.table_play import Played, Wagers
from feltlab.server.services.wallet_client import Applied, OperatorWallet, Outcome, Unclear
from feltlab.server.views import Fresh

__all__ = ["bet", "decide", "seated_by_id", "seated_of"]

_TOKENS, _SESSIONS, _OPERATORS = (table_of(AuthToken), table_of(OperatorSession),
                                  table_of(Operator))
_TABLES, _ROUNDS, _CALLS = table_of(GameTable), table_of(Round), table_of(WalletTransaction)

SEATED_COLUMNS: Final = (
    _SESSIONS.c.id.label("o_session_id"), _SESSIONS.c.session.label("o_session"),
    _SESSIONS.c.token_id.label("o_token_id"),
    _SESSIONS.c.player.label("o_player"), _SESSIONS.c.currency.label("o_currency"),
    _SESSIONS.c.chip_value.label("o_chip_value"), _SESSIONS.c.rules_id.label("o_rules_id"),
    _SESSIONS.c.mode.label("o_mode"), _OPERATORS.c.id.label("o_operator_id"),
    _OPERATORS.c.wallet_url.label("o_wallet_url"),
    _OPERATORS.c.timeout_seconds.label("o_timeout_seconds"),
    _OPERATORS.c.secret.label("o_secret"),
    _OPERATORS.c.previous_secret.label("o_previous_secret"),
    _OPERATORS.c.disabled.label("o_disabled"))
"""The table's operator's session and its operator, read with the request's first read."""
_HELD = cast("ColumnElement[object]", exists().where(
    _CALLS.c.round_id == _ROUNDS.c.id, _CALLS.c.kind == "bet",
    _CALLS.c.state == outbox.PENDING).correlate(_ROUNDS).label("held"))
"""Whether a stake of the round is still with the wallet (or being rolled back)."""


def _and_operator(joined: Join) -> Join:
    return (joined.outerjoin(_SESSIONS, _SESSIONS.c.id == _TABLES.c.operator_session_id)
            .outerjoin(_OPERATORS, _OPERATORS.c.id == _SESSIONS.c.operator_id))


def _table_and_its_round(joined: Join) -> Join:
    """The table, its unfinished round if any, and its operator."""
    return _and_operator(round_store.at_the_table(joined).outerjoin(_ROUNDS, (
        _ROUNDS.c.table_id == _TABLES.c.id) & (_ROUNDS.c.phase != "complete")))


_TAKEN = taken_bets_column(_ROUNDS.c.id)
_NEXT_ROUND_ID = cast("ColumnElement[object]", next_id(_ROUNDS.c.id).label("next_round_id"))
"""The id an opening bet's new round will have (None on SQLite: read once inserted)."""
_BET_READ = first_read(*round_store.BET_COLUMNS, *round_store.ROUND_COLUMNS,
                       round_store.seats_json(_ROUNDS.c.id), _HELD, _TAKEN, *SEATED_COLUMNS,
                       _NEXT_ROUND_ID,
                       joined=_table_and_its_round, table_id=round_store.TABLE_ID,
                       locked=round_store.LOCKED)
_ACT_READ = first_read(*round_store.SEATED_COLUMNS, _HELD, _TAKEN, *SEATED_COLUMNS,
                       joined=lambda joined: _and_operator(round_store.round_and_seat(joined)),
                       table_id=round_store.TABLE_ID, locked=round_store.LOCKED)
_MODE_OF = Prepared(select(_SESSIONS.c.mode).select_from(
    _TOKENS.join(_SESSIONS, _SESSIONS.c.token_id == _TOKENS.c.id))
    .where(_TOKENS.c.token_hash == bindparam("digest")))


def _real(found: Services, token: str) -> bool:
    """Whether ``token`` is a real-money operator's session (kept per worker: a
    session's mode never changes). An unknown token is not: the money request's own
    first read refuses it."""
    digest = token_digest(token)
    known = found.real_sessions.get(digest)
    if known is None:
        with found.read_connection() as connection:
            mode = _MODE_OF.scalar(connection, {"digest": digest})
        if mode is None:
            return False
        if len(found.real_sessions) > 100_000:
            found.real_sessions.clear()
        known = found.real_sessions[digest] = mode == "real"
    return known


def seated_of(values: dict[str, object]) -> Seated | None:
    """The operator's session and wallet a first read found with the table (None: the
    table is no operator's)."""
    if values.get("o_session_id") is None:
        return None
    secret, previous = str(values["o_secret"]), values["o_previous_secret"]
    accepted = (secret,) + ((str(previous),) if previous else ())
    return Seated(int(str(values["o_session_id"])), str(values["o_session"]),
                  str(values["o_player"]), str(values["o_currency"]),
                  int(str(values["o_chip_value"])), str(values["o_rules_id"]),
                  values["o_mode"] == "real", bool(values["o_disabled"]),
                  OperatorWallet(str(values["o_operator_id"]), str(values["o_wallet_url"]),
                                 float(str(values["o_timeout_seconds"])), secret, accepted))


# --- a bet ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Pending:
    """A held stake and what its first transaction found and played in memory, written
    by the second once the wallet answers (nothing else changes the round meanwhile: its
    held stake refuses every other change)."""

    held: Held
    seated: Seated
    at: AtTable
    played: Played
    caller: Caller
    status: int
    taken: list[str]
    """The round's bets the wallet took before this one."""


def bet(found: Services, token: str, table_id: int, placed: Wagers,
        request: MoneyRequest) -> Answer:
    """A bet at an operator's table (a demo session's at feltlab's own play money)."""
    if not _real(found, token):
        return play.bet(found, token, table_id, placed, request)
    pending = _hold_bet(found, token, table_id, placed, request)
    if isinstance(pending, Answer):
        return pending
    return _settle(found, token, request, pending, _call(found, pending))


def _hold_bet(found: Services, token: str, table_id: int, placed: Wagers,
              request: MoneyRequest) -> Pending | Answer:
    """Check the bet and play it in memory (a new round reserved for it first, waiting
    for its stake); hold its stake."""
    attempts = Attempts(found, token, request)
    pending: Pending | None = None
    for frame in attempts:
        with frame:
            values = frame.read(_BET_READ, {"table_id": table_id}, f"table {table_id}")
            if frame.replayed:
                break
            at, seated = _their_table(values, frame.caller)
            current = play.loaded_of(frame.connection, at)
            moment = now()
            batch, reserved = Batch(), None
            if current is None:
                current = table_play.waiting_round(at.table, at, placed.client_seed, moment)
                taken_id = values["next_round_id"]
                if taken_id is None:  # its id is known only once it is inserted
                    round_writes.reserve(frame.connection, current.record)
                else:
                    reserved = round_writes.reserve_among(batch, current.record,
                                                          int(str(taken_id)))
            played = table_play.bet(at, current, frame.caller.user_id, placed, moment)
            pending = _hold(found, frame, at, seated, played, 201,
                            bets_of(values["taken_bets"]), batch)
            if reserved is not None:
                current.record.number = int(reserved.values[0])
    return _pending_or_answer(attempts, pending)


# --- a decision -------------------------------------------------------------------------------

def decide(found: Services, token: str, round_id: int, decision: dict[str, object],
           request: MoneyRequest) -> Answer:
    """A decision in an operator's round: a raise, play or bet debited by its wallet."""
    if not _real(found, token):
        return play.decide(found, token, round_id, decision, request)
    pending = _hold_decision(found, token, round_id, decision, request)
    if isinstance(pending, Answer):
        return pending
    return _settle(found, token, request, pending, _call(found, pending))


def _hold_decision(found: Services, token: str, round_id: int, decision: dict[str, object],
                   request: MoneyRequest) -> Pending | Answer:
    """Play the decision in memory and hold its stake; a decision without one is
    written at once, in this transaction."""
    kind, amount = str(decision["action"]), decision.get("amount")
    attempts = Attempts(found, token, request)
    pending: Pending | None = None
    for frame in attempts:
        done: tuple[Played, Fresh | None] | None = None
        with frame:
            values = frame.read(_ACT_READ, {"round_id": round_id}, f"round {round_id}")
            if frame.replayed:
                break
            at, seated = _their_table(values, frame.caller)
            seen = found.hub.stamp(at.table.id)
            loaded = play.loaded_of(frame.connection, at)
            assert loaded is not None
            played = table_play.decide(at.table, loaded, frame.caller.user_id, kind,
                                       None if amount is None else int(str(amount)), now())
            taken = bets_of(values["taken_bets"])
            if _stake(played, frame.caller) == 0:
                done = played, _commit(found, frame, at, seen, played, seated, 200, taken,
                                       Batch())
                continue
            pending = _hold(found, frame, at, seated, played, 200, taken, Batch())
    if done is not None:
        play.show_change(found, *done)
    return _pending_or_answer(attempts, pending)


# --- holding, calling, settling ---------------------------------------------------------------

def _hold(found: Services, frame: Frame, at: AtTable, seated: Seated, played: Played,
          status: int, taken: list[str], batch: Batch) -> Pending:
    """Write the stake to the outbox, held, among the first transaction's last writes
    (``batch``: an opening bet's round, where its id was read first), and end it."""
    held = hold(batch, seated, found.wallets.settings, played.loaded.record.id,
                _stake(played, frame.caller))
    frame.keep(batch)
    return Pending(held, seated, at, played, frame.caller, status, taken)


def _pending_or_answer(attempts: Attempts, pending: Pending | None) -> Pending | Answer:
    if attempts.answer is HELD and pending is not None:
        return pending
    assert attempts.answer is not None
    return attempts.answer


def _call(found: Services, pending: Pending) -> Outcome:
    """The wallet asked to debit the held stake (no transaction is open)."""
    seated, held = pending.seated, pending.held
    outcome = found.wallets.bet(seated.wallet, held.bet_id, seated.player, seated.currency,
                                held.amount, str(held.round_id), seated.session,
                                seated.rules_id)
    faults.wallet_answered()
    return outcome


class _Late(Exception):
    """The held stake's rollback was no longer there to take back: the transaction that
    would have written the move rolls back."""


def _settle(found: Services, token: str, request: MoneyRequest, pending: Pending,
            outcome: Outcome) -> Answer:
    """The second transaction: if the wallet took the stake, the move played in the
    first written with the stake's rollback taken back and its bet acknowledged, all
    among the request's last writes (one statement on PostgreSQL), and answered; else,
    or if the rollback was not there to take back, the wallet's answer recorded and the
    player refused. One attempt: if it fails, the held stake's rollback gives the stake
    back when it falls due."""
    if isinstance(outcome, Applied) and now() < pending.held.rollback_due:
        try:
            return _write_the_move(found, token, request, pending, outcome)
        except _Late:
            outcome = Unclear("the answer came too late to record")
    frame = Frame(Attempts(found, token, request), last=True)
    with frame:
        frame.resume(pending.caller)
        refusal = record_answer(frame.connection, pending.held, outcome)
        frame.keep(Batch())
    raise Conflict(refusal)


def _write_the_move(found: Services, token: str, request: MoneyRequest, pending: Pending,
                    outcome: Applied) -> Answer:
    """The move written with the stake taken, all in one statement on PostgreSQL (nothing
    is read: the held stake kept the round as the first transaction left it)."""
    attempts = Attempts(found, token, request)
    frame = Frame(attempts, last=True, one_statement=True)
    played, at = pending.played, pending.at
    try:
        with frame:
            frame.resume(pending.caller)
            seen = found.hub.stamp(at.table.id)
            if played.new_seat is not None:
                played.new_seat.balance_before = (outcome.balance // pending.seated.chip_value
                                                  + played.new_seat.staked)
            batch = Batch()
            take_stake(batch, pending.held)
            fresh = _commit(found, frame, at, seen, played, pending.seated, pending.status,
                            [*pending.taken, pending.held.bet_id], batch)
    except Unchanged as unchanged:
        if unchanged.guard == STAKE_TAKEN:
            raise _Late from None
        raise
    play.show_change(found, played, fresh)
    assert attempts.answer is not None
    return attempts.answer


# --- the steps they share ---------------------------------------------------------------------

def _their_table(values: dict[str, object], caller: Caller) -> tuple[AtTable, Seated]:
    """What the first read found: the table, its round with its seats, and the session
    it is played in, if the caller's session is that one and may stake now."""
    at = round_store.at_table(values)
    if "seats_json" in values:  # a bet's read: the table's unfinished round, all seats
        at = AtTable(at.table, at.round, round_store.seats_of_json(values["seats_json"]),
                     at.sitting, at.last_seed, at.my_seat, at.balance, at.unfinished)
    seated = seated_of(values)
    if seated is None or not seated.real or values["o_token_id"] != caller.token_id:
        raise not_found(f"table {at.table.id}")
    if seated.disabled:
        raise Forbidden(f"operator {seated.wallet.operator_id!r} is disabled: it takes no "
                        "stake")
    if values.get("held") and at.round is not None:
        raise Conflict(f"a stake in round {at.round.id} is still with the casino's wallet; "
                       "try again in a moment")
    return at, seated


def _stake(played: Played, caller: Caller) -> int:
    return sum(move.stake for move in played.moves if move.user_id == caller.user_id)


def _commit(found: Services, frame: Frame, at: AtTable, seen: int, played: Played,
            seated: Seated, status: int, taken: list[str], batch: Batch) -> Fresh | None:
    """Write the round's step (and at its end, its win to the outbox, naming the bets
    ``taken``) among the request's last writes (``batch``), and answer."""
    if played.complete:
        for seat in played.loaded.seats:
            if seat.total is not None:
                seat.balance_after = seat.balance_before + seat.total
        queue_win(batch, seated, played.loaded, taken)
    joined = round_writes.write(batch, played, now())
    names = play.names_of(frame.connection, at, played, frame.caller.username)
    fresh = play.fresh_state(found, frame.connection, batch, seen, at, played, names)
    frame.answer(status, play.answer_view(played, frame.caller.user_id, names, fresh), batch)
    if played.new_seat is not None and joined is not None:
        played.new_seat.id = joined.values[0]
    return fresh


def seated_by_id(connection: Connection, session_id: int) -> Seated:
    """The operator's session ``session_id`` (a table's), and its operator's wallet."""
    row = _BY_ID.first(connection, {"session_id": session_id})
    if row is None:
        raise RuntimeError(f"operator session {session_id} does not exist")
    found = seated_of(row._asdict())
    assert found is not None
    return found


_BY_ID = Prepared(select(*SEATED_COLUMNS).select_from(
    _SESSIONS.join(_OPERATORS, _OPERATORS.c.id == _SESSIONS.c.operator_id))
    .where(_SESSIONS.c.id == bindparam("session_id")))
