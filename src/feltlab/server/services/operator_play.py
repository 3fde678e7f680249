"""An operator's real-money play: a bet or a decision whose stake the operator's wallet
debits (a seamless wallet, :mod:`feltlab.server.services.wallet_client`), through the
same steps as every money request (:mod:`feltlab.server.services.play`), with the wallet
call between two transactions and never inside one:

1. **hold**: one transaction reads and locks the table as every money request does,
   plays the request through the engine in memory to check it (none of that is written),
   and writes the stake to the outbox as a *held* bet (only this request sends it) with
   its rollback queued behind it, due once the call must have ended. An opening bet's
   round is written too, waiting for its stake: no card dealt, no action, no seat (the
   wallet's call names the round).
2. **call**: the wallet is asked to debit the stake, outside any transaction.
3. **settle**: a second transaction locks the table again. If the wallet took the stake
   and the rollback is still unsent, the request is played for real: the round's rows
   as any request writes them, the bet acknowledged, its rollback dropped, at the
   round's end its one win queued, the answer stored with the Idempotency-Key.
   Refused: the bet is marked so, its rollback dropped, and the player gets 409 with the
   wallet's reason (the round as it was: no card dealt, the decision still open).
   Unclear: the rollback is due at once, and the player gets 409.

A crash anywhere leaves the held bet and its rollback behind: the outbox sends the
rollback when it falls due, so a stake whose outcome nobody recorded is never kept. A
round holds one bet at a time: another stake meanwhile is refused (409).

A decision without a stake (a fold) needs no wallet call: one transaction, as at
feltlab's own tables. A demo session plays feltlab's own play money
(:mod:`feltlab.server.services.play`): no wallet call at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import NamedTuple

from sqlalchemy import Connection, bindparam, delete, select, update

from feltlab.server import faults
from feltlab.server.auth import token_digest
from feltlab.server.clock import aware, now
from feltlab.server.errors import Conflict, Forbidden, not_found
from feltlab.server.models import AuthToken, table_of
from feltlab.server.operator_models import Operator, OperatorSession, WalletTransaction
from feltlab.server.services import outbox, play, round_store, round_writes, table_play
from feltlab.server.services.context import Services
from feltlab.server.services.idempotency import Answer, MoneyRequest
from feltlab.server.services.money_frame import HELD, Attempts, Frame, first_read
from feltlab.server.services.round_store import AtTable, LoadedRound
from feltlab.server.services.statements import Batch, Prepared
from feltlab.server.services.table_play import Played, Wagers
from feltlab.server.services.wallet_client import Applied, OperatorWallet, Outcome, Refused
from feltlab.server.views import Fresh

_BET_READ = first_read(*round_store.BET_COLUMNS, joined=round_store.at_the_table,
                       table_id=round_store.TABLE_ID, locked=round_store.LOCKED)
_ACT_READ = first_read(*round_store.SEATED_COLUMNS, joined=round_store.round_and_seat,
                       table_id=round_store.TABLE_ID, locked=round_store.LOCKED)

_TOKENS, _SESSIONS = table_of(AuthToken), table_of(OperatorSession)
_OPERATORS, _CALLS = table_of(Operator), table_of(WalletTransaction)
_SESSIONS_AND_OPERATORS = (
    select(_SESSIONS.c.id, _SESSIONS.c.session, _SESSIONS.c.player, _SESSIONS.c.currency,
           _SESSIONS.c.chip_value, _SESSIONS.c.rules_id, _SESSIONS.c.mode,
           _OPERATORS.c.id.label("operator_id"), _OPERATORS.c.wallet_url,
           _OPERATORS.c.timeout_seconds, _OPERATORS.c.secret, _OPERATORS.c.previous_secret,
           _OPERATORS.c.disabled)
    .select_from(_TOKENS.join(_SESSIONS, _SESSIONS.c.token_id == _TOKENS.c.id)
                 .join(_OPERATORS, _OPERATORS.c.id == _SESSIONS.c.operator_id)))
_SESSION_OF = Prepared(_SESSIONS_AND_OPERATORS.where(
    _TOKENS.c.token_hash == bindparam("digest")))
_SESSION_BY_ID = Prepared(_SESSIONS_AND_OPERATORS.where(
    _SESSIONS.c.id == bindparam("session_id")))


@dataclass(frozen=True)
class Seated:
    """The operator's session a token is, and its operator's wallet."""

    session_id: int
    session: str
    player: str
    currency: str
    chip_value: int
    rules_id: str
    real: bool
    disabled: bool
    wallet: OperatorWallet


def seated(found: Services, token: str) -> Seated | None:
    """The session of ``token`` (None: no operator's session; the money request's own
    first read refuses an unknown token)."""
    with found.read_connection() as connection:
        row = _SESSION_OF.first(connection, {"digest": token_digest(token)})
    return None if row is None else _seated(_SessionRow._make(row))


def seated_by_id(connection: Connection, session_id: int) -> Seated:
    """The operator's session ``session_id`` (a table's), and its operator's wallet."""
    row = _SESSION_BY_ID.first(connection, {"session_id": session_id})
    if row is None:
        raise RuntimeError(f"operator session {session_id} does not exist")
    return _seated(_SessionRow._make(row))


class _SessionRow(NamedTuple):
    """The columns of :data:`_SESSIONS_AND_OPERATORS`, typed."""

    id: int
    session: str
    player: str
    currency: str
    chip_value: int
    rules_id: str
    mode: str
    operator_id: str
    wallet_url: str
    timeout_seconds: float
    secret: str
    previous_secret: str | None
    disabled: bool


def _seated(found: _SessionRow) -> Seated:
    accepted = (found.secret,) + ((found.previous_secret,) if found.previous_secret else ())
    return Seated(found.id, found.session, found.player, found.currency, found.chip_value,
                  found.rules_id, found.mode == "real", bool(found.disabled),
                  OperatorWallet(found.operator_id, found.wallet_url, found.timeout_seconds,
                                 found.secret, accepted))


@dataclass(frozen=True)
class Held:
    """A stake written to the outbox, not yet sent: its bet and the bet's rollback."""

    bet_id: str
    rollback_id: str
    round_id: int
    amount: int
    rollback_due: datetime


# --- a bet ------------------------------------------------------------------------------------

def bet(found: Services, token: str, table_id: int, placed: Wagers,
        request: MoneyRequest) -> Answer:
    """A bet at an operator's table (a demo session's at feltlab's own play money)."""
    at_operator = seated(found, token)
    if at_operator is None or not at_operator.real:
        return play.bet(found, token, table_id, placed, request)
    held = _hold_bet(found, token, table_id, placed, request, at_operator)
    if isinstance(held, Answer):
        return held
    outcome = found.wallets.bet(at_operator.wallet, held.bet_id, at_operator.player,
                                at_operator.currency, held.amount, str(held.round_id),
                                at_operator.session, at_operator.rules_id)
    faults.wallet_answered()
    return _settle_bet(found, token, table_id, placed, request, at_operator, held, outcome)


def _hold_bet(found: Services, token: str, table_id: int, placed: Wagers,
              request: MoneyRequest, at_operator: Seated) -> Held | Answer:
    attempts = Attempts(found, token, request)
    held: Held | None = None
    for frame in attempts:
        with frame:
            values = frame.read(_BET_READ, {"table_id": table_id}, f"table {table_id}")
            if frame.replayed:
                break
            at = _at_their_table(frame.connection, round_store.at_table(values), at_operator)
            current = play.loaded_of(frame.connection, at)
            if current is not None:
                _refuse_if_held(frame.connection, current.record.id)
            played = table_play.bet(at, current, frame.caller.user_id, placed, now())
            round_id = (round_writes.reserve(frame.connection, table_play.waiting_round(played))
                        if current is None else current.record.id)
            held = _hold(found, frame.connection, at_operator, round_id,
                         _stake(played, frame))
            frame.keep(Batch())
    if attempts.answer is not HELD or held is None:
        assert attempts.answer is not None
        return attempts.answer
    return held


def _settle_bet(found: Services, token: str, table_id: int, placed: Wagers,
                request: MoneyRequest, at_operator: Seated, held: Held, outcome: Outcome
                ) -> Answer:
    attempts = Attempts(found, token, request)
    refusal: str | None = None
    for frame in attempts:
        done: tuple[Played, Fresh | None] | None = None
        with frame:
            values = frame.read(_BET_READ, {"table_id": table_id}, f"table {table_id}")
            if frame.replayed:
                break
            seen = found.hub.stamp(table_id)
            at = _at_their_table(frame.connection, round_store.at_table(values), at_operator)
            refusal = _unless_taken(frame, held, outcome)
            if refusal is not None:
                continue
            assert isinstance(outcome, Applied)
            current = play.loaded_of(frame.connection, at)
            if current is None or current.record.id != held.round_id:
                raise RuntimeError(f"round {held.round_id} moved while its stake was held")
            played = table_play.bet(at, current, frame.caller.user_id, placed, now())
            assert played.new_seat is not None
            played.new_seat.balance_before = _chips(outcome.balance, at_operator) + \
                played.new_seat.staked
            done = played, _commit(found, frame, at, seen, played, at_operator, 201)
    if refusal is not None:
        raise Conflict(refusal)
    if done is not None:
        play.show_change(found, *done)
    assert attempts.answer is not None
    return attempts.answer


# --- a decision -------------------------------------------------------------------------------

def decide(found: Services, token: str, round_id: int, decision: dict[str, object],
           request: MoneyRequest) -> Answer:
    """A decision in an operator's round: a raise, play or bet debited by its wallet."""
    at_operator = seated(found, token)
    if at_operator is None or not at_operator.real:
        return play.decide(found, token, round_id, decision, request)
    kind, amount = str(decision["action"]), decision.get("amount")
    wanted = None if amount is None else int(str(amount))
    held = _hold_decision(found, token, round_id, kind, wanted, request, at_operator)
    if isinstance(held, Answer):
        return held
    outcome = found.wallets.bet(at_operator.wallet, held.bet_id, at_operator.player,
                                at_operator.currency, held.amount, str(round_id),
                                at_operator.session, at_operator.rules_id)
    faults.wallet_answered()
    return _settle_decision(found, token, round_id, kind, wanted, request, at_operator,
                            held, outcome)


def _hold_decision(found: Services, token: str, round_id: int, kind: str,
                   amount: int | None, request: MoneyRequest, at_operator: Seated
                   ) -> Held | Answer:
    """Hold a decision's stake; a decision without one is played at once."""
    attempts = Attempts(found, token, request)
    held: Held | None = None
    for frame in attempts:
        done: tuple[Played, Fresh | None] | None = None
        with frame:
            values = frame.read(_ACT_READ, {"round_id": round_id}, f"round {round_id}")
            if frame.replayed:
                break
            at = _at_their_table(frame.connection, round_store.at_table(values), at_operator)
            seen = found.hub.stamp(at.table.id)
            _refuse_if_held(frame.connection, round_id)
            loaded = play.loaded_of(frame.connection, at)
            assert loaded is not None
            played = table_play.decide(at.table, loaded, frame.caller.user_id, kind, amount,
                                       now())
            stake = _stake(played, frame)
            if stake == 0:
                done = played, _commit(found, frame, at, seen, played, at_operator, 200)
                continue
            held = _hold(found, frame.connection, at_operator, round_id, stake)
            frame.keep(Batch())
    if done is not None:
        play.show_change(found, *done)
    if attempts.answer is not HELD or held is None:
        assert attempts.answer is not None
        return attempts.answer
    return held


def _settle_decision(found: Services, token: str, round_id: int, kind: str,
                     amount: int | None, request: MoneyRequest, at_operator: Seated,
                     held: Held, outcome: Outcome) -> Answer:
    attempts = Attempts(found, token, request)
    refusal: str | None = None
    for frame in attempts:
        done: tuple[Played, Fresh | None] | None = None
        with frame:
            values = frame.read(_ACT_READ, {"round_id": round_id}, f"round {round_id}")
            if frame.replayed:
                break
            at = _at_their_table(frame.connection, round_store.at_table(values), at_operator)
            seen = found.hub.stamp(at.table.id)
            refusal = _unless_taken(frame, held, outcome)
            if refusal is not None:
                continue
            loaded = play.loaded_of(frame.connection, at)
            assert loaded is not None
            played = table_play.decide(at.table, loaded, frame.caller.user_id, kind, amount,
                                       now())
            done = played, _commit(found, frame, at, seen, played, at_operator, 200)
    if refusal is not None:
        raise Conflict(refusal)
    if done is not None:
        play.show_change(found, *done)
    assert attempts.answer is not None
    return attempts.answer


# --- the steps they share ---------------------------------------------------------------------

def _at_their_table(connection: Connection, at: AtTable, at_operator: Seated) -> AtTable:
    """The table and its unfinished round, if the session plays it and may stake."""
    if at.table.operator_session_id != at_operator.session_id:
        raise not_found(f"table {at.table.id}")
    if at_operator.disabled:
        raise Forbidden(f"operator {at_operator.wallet.operator_id!r} is disabled: it takes "
                        "no stake")
    if at.round is not None:
        return at
    return round_store.shared_round(connection, at)  # the table's unfinished round, if any


def _stake(played: Played, frame: Frame) -> int:
    return sum(move.stake for move in played.moves if move.user_id == frame.caller.user_id)


_HELD_IN = Prepared(select(_CALLS.c.transaction_id).where(
    _CALLS.c.round_id == bindparam("round_id"), _CALLS.c.kind == "bet",
    _CALLS.c.state == outbox.PENDING).limit(1))


def _refuse_if_held(connection: Connection, round_id: int) -> None:
    """One stake a round at a time: another's answer (or rollback) comes first."""
    if _HELD_IN.first(connection, {"round_id": round_id}) is not None:
        raise Conflict(f"a stake in round {round_id} is still with the casino's wallet; "
                       "try again in a moment")


def _hold(found: Services, connection: Connection, at_operator: Seated, round_id: int,
          stake: int) -> Held:
    """The stake's bet, held for this request to send, and its rollback behind it: due
    once the call must have ended and a grace after (the request records the answer
    well before, unless it crashed; and if it is late, it finds the rollback claimed and
    lets it go ahead)."""
    moment = now()
    wallet = at_operator.wallet
    amount = stake * at_operator.chip_value
    bet_id = outbox.queue_call(
        connection, operator_id=wallet.operator_id, player=at_operator.player,
        session=at_operator.session, currency=at_operator.currency, kind="bet",
        amount=amount, round_id=round_id, rules=at_operator.rules_id, now=moment, held=True)
    client = found.wallets.settings
    due = moment + timedelta(seconds=wallet.timeout_seconds + client.slot_wait_seconds
                             + client.rollback_grace_seconds)
    rollback_id = outbox.queue_call(
        connection, operator_id=wallet.operator_id, player=at_operator.player,
        session=at_operator.session, currency=at_operator.currency, kind="rollback",
        amount=amount, round_id=round_id, rolled_back=bet_id, now=moment, first_try_at=due)
    return Held(bet_id, rollback_id, round_id, amount, due)


def _unless_taken(frame: Frame, held: Held, outcome: Outcome) -> str | None:
    """After the wallet's answer: None if it took the stake and the bet is still held
    (its rollback dropped, the bet acknowledged); otherwise the refusal for the player,
    the bet's end written (refused; or its rollback due now) and the attempt kept."""
    connection, moment = frame.connection, now()
    rows = {row.transaction_id: row for row in connection.execute(
        select(_CALLS.c.transaction_id, _CALLS.c.state, _CALLS.c.attempts,
               _CALLS.c.next_try_at)
        .where(_CALLS.c.transaction_id.in_([held.bet_id, held.rollback_id]))
        .with_for_update())}
    bet_row, rollback = rows.get(held.bet_id), rows.get(held.rollback_id)
    untouched = (bet_row is not None and bet_row.state == outbox.PENDING
                 and rollback is not None and rollback.state == outbox.PENDING
                 and rollback.attempts == 0 and rollback.next_try_at is not None
                 and abs((aware(rollback.next_try_at) - held.rollback_due).total_seconds())
                 < 0.001 and moment < held.rollback_due)
    bet_where = _CALLS.c.transaction_id == held.bet_id
    if untouched and isinstance(outcome, Applied | Refused):
        connection.execute(delete(_CALLS).where(_CALLS.c.transaction_id == held.rollback_id))
    if untouched and isinstance(outcome, Applied):
        connection.execute(update(_CALLS).where(bet_where).values(
            state=outbox.ACKNOWLEDGED, attempts=1, updated_at=moment))
        return None
    if untouched and isinstance(outcome, Refused):
        connection.execute(update(_CALLS).where(bet_where).values(
            state=outbox.REFUSED, attempts=1, last_error=outcome.error, updated_at=moment))
        frame.keep(Batch())
        return f"the casino's wallet refused the stake: {outcome.error}"
    why = ("it took too long to record" if isinstance(outcome, Applied | Refused)
           else outcome.reason)
    connection.execute(update(_CALLS).where(bet_where).values(
        attempts=1, last_error=why, updated_at=moment))
    if rollback is not None and rollback.state == outbox.PENDING:
        connection.execute(update(_CALLS).where(
            _CALLS.c.transaction_id == held.rollback_id,
            _CALLS.c.next_try_at <= held.rollback_due).values(next_try_at=moment))
    frame.keep(Batch())
    return ("the casino's wallet did not answer clearly; the stake was not taken (it is "
            "rolled back)")


def _chips(balance: int, at_operator: Seated) -> int:
    """An operator's balance (minor units) in whole chips."""
    return balance // at_operator.chip_value


def _commit(found: Services, frame: Frame, at: AtTable, seen: int, played: Played,
            at_operator: Seated, status: int) -> Fresh | None:
    """Write the round's step (and at its end, its win to the outbox) and answer."""
    connection, moment = frame.connection, now()
    if played.complete:
        for seat in played.loaded.seats:
            if seat.total is not None:
                seat.balance_after = seat.balance_before + seat.total
        queue_win(connection, at_operator, played.loaded)
    batch = Batch()
    joined = round_writes.write(batch, played, moment)
    names = play.names_of(connection, at, played, frame.caller.username)
    fresh = play.fresh_state(found, connection, batch, seen, at, played, names)
    frame.answer(status, play.answer_view(played, frame.caller.user_id, names, fresh), batch)
    if played.new_seat is not None and joined is not None:
        played.new_seat.id = joined.values[0]
    return fresh


_TAKEN = select(_CALLS.c.transaction_id).where(
    _CALLS.c.round_id == bindparam("round_id"), _CALLS.c.kind == "bet",
    _CALLS.c.state == outbox.ACKNOWLEDGED).order_by(_CALLS.c.id)


def queue_win(connection: Connection, at_operator: Seated, loaded: LoadedRound) -> None:
    """The settled round's one win to the outbox: everything it returns to the player
    (0 for a loss), naming the bets the wallet took."""
    seat = loaded.seats[0]
    assert seat.total is not None
    bets = list(connection.execute(_TAKEN, {"round_id": loaded.record.id}).scalars())
    outbox.queue_call(connection, operator_id=at_operator.wallet.operator_id,
                      player=at_operator.player, session=at_operator.session,
                      currency=at_operator.currency, kind="win",
                      amount=(seat.staked + seat.total) * at_operator.chip_value,
                      round_id=loaded.record.id, bets=bets)
