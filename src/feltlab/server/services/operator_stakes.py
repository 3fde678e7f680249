"""An operator's stakes and wins in the outbox (:mod:`feltlab.server.services.outbox`), as
the money path of :mod:`feltlab.server.services.operator_play` writes them: a stake held
(its bet, sent by the request alone, and the rollback queued behind it), the wallet's
answer recorded, and a settled round's one win.

Every statement is built once: an operator's stake writes four rows or so, and building
a statement costs more CPU than running it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Connection, bindparam, delete, select, update

from feltlab.server.clock import now
from feltlab.server.models import table_of
from feltlab.server.operator_models import WalletTransaction
from feltlab.server.services import outbox
from feltlab.server.services.round_store import LoadedRound
from feltlab.server.services.statements import Prepared
from feltlab.server.services.wallet_client import (
    Applied,
    ClientSettings,
    OperatorWallet,
    Outcome,
    Refused,
    Unclear,
)

_CALLS = table_of(WalletTransaction)


@dataclass(frozen=True)
class Seated:
    """The operator's session a table is played in, and its operator's wallet."""

    session_id: int
    session: str
    player: str
    currency: str
    chip_value: int
    rules_id: str
    real: bool
    disabled: bool
    wallet: OperatorWallet


@dataclass(frozen=True)
class Held:
    """A stake written to the outbox, not yet sent: its bet and the bet's rollback."""

    bet_id: str
    rollback_id: str
    round_id: int
    amount: int
    rollback_due: datetime


def hold(connection: Connection, seated: Seated, client: ClientSettings, round_id: int,
         stake: int) -> Held:
    """The stake's bet, held for the request to send, and its rollback behind it: due
    once the call must have ended and a grace after (the request records the answer
    well before, unless it crashed; a request that is late finds the rollback claimed
    and lets it go ahead)."""
    moment = now()
    wallet = seated.wallet
    amount = stake * seated.chip_value
    due = moment + timedelta(seconds=wallet.timeout_seconds + client.slot_wait_seconds
                             + client.rollback_grace_seconds)
    bet_id, rollback_id = outbox.new_transaction_id(), outbox.new_transaction_id()
    common = {"operator_id": wallet.operator_id, "player": seated.player,
              "session": seated.session, "currency": seated.currency, "amount": amount,
              "round_id": round_id, "bets": "[]", "state": outbox.PENDING, "attempts": 0,
              "last_error": None, "flagged": False, "created_at": moment,
              "updated_at": moment}
    outbox.QUEUE.run_rows(connection, [  # one statement: the bet, then its rollback
        common | {"transaction_id": bet_id, "kind": "bet", "rolled_back": None,
                  "rules": seated.rules_id, "next_try_at": None},
        common | {"transaction_id": rollback_id, "kind": "rollback", "rolled_back": bet_id,
                  "rules": "", "next_try_at": due}])
    return Held(bet_id, rollback_id, round_id, amount, due)


_TAKE_BACK = Prepared(delete(_CALLS).where(
    _CALLS.c.transaction_id == bindparam("tid"), _CALLS.c.state == outbox.PENDING,
    _CALLS.c.attempts == 0, _CALLS.c.next_try_at == bindparam("due"))
    .returning(_CALLS.c.id))
"""The rollback of a held stake, dropped if nobody has touched it: its time not come, no
worker's claim (which moves its time), no person's retry."""
_ANSWERED = Prepared(update(_CALLS).where(_CALLS.c.transaction_id == bindparam("tid")).values(
    state=bindparam("new_state"), attempts=1, last_error=bindparam("error"),
    updated_at=bindparam("moment")))
_ROLL_BACK_NOW = Prepared(update(_CALLS).where(
    _CALLS.c.transaction_id == bindparam("tid"), _CALLS.c.state == outbox.PENDING,
    _CALLS.c.next_try_at <= bindparam("due")).values(next_try_at=bindparam("moment")))


def record_answer(connection: Connection, held: Held, outcome: Outcome) -> str | None:
    """The wallet's answer to a held stake, in the request's second transaction: None
    if it took the stake and the rollback was still untouched (dropped now, the bet
    acknowledged); otherwise the refusal for the player, the bet's end written (refused;
    or, unclear, its rollback due now)."""
    moment = now()
    answered = {"tid": held.bet_id, "moment": moment}
    clear = isinstance(outcome, Applied | Refused)
    if clear and moment < held.rollback_due and _TAKE_BACK.run(
            connection, {"tid": held.rollback_id, "due": held.rollback_due}):
        if isinstance(outcome, Applied):
            _ANSWERED.run(connection, answered | {"new_state": outbox.ACKNOWLEDGED,
                                                  "error": None})
            return None
        assert isinstance(outcome, Refused)
        _ANSWERED.run(connection, answered | {"new_state": outbox.REFUSED,
                                              "error": outcome.error})
        return f"the casino's wallet refused the stake: {outcome.error}"
    why = outcome.reason if isinstance(outcome, Unclear) else "it took too long to record"
    _ANSWERED.run(connection, answered | {"new_state": outbox.PENDING, "error": why})
    _ROLL_BACK_NOW.run(connection, {"tid": held.rollback_id, "due": held.rollback_due,
                                    "moment": moment})
    return ("the casino's wallet did not answer clearly; the stake was not taken (it is "
            "rolled back)")


_TAKEN = Prepared(select(_CALLS.c.transaction_id).where(
    _CALLS.c.round_id == bindparam("round_id"), _CALLS.c.kind == "bet",
    _CALLS.c.state == outbox.ACKNOWLEDGED).order_by(_CALLS.c.id))


def queue_win(connection: Connection, seated: Seated, loaded: LoadedRound) -> None:
    """The settled round's one win to the outbox: everything it returns to the player
    (0 for a loss), naming the bets the wallet took."""
    seat = loaded.seats[0]
    assert seat.total is not None
    bets = [row[0] for row in _TAKEN.run(connection, {"round_id": loaded.record.id})]
    outbox.queue_call(connection, operator_id=seated.wallet.operator_id,
                      player=seated.player, session=seated.session,
                      currency=seated.currency, kind="win",
                      amount=(seat.staked + seat.total) * seated.chip_value,
                      round_id=loaded.record.id, bets=bets)
