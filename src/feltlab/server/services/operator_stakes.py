"""An operator's stakes and wins in the outbox (:mod:`feltlab.server.services.outbox`), as
the money path of :mod:`feltlab.server.services.operator_play` writes them: a stake held
(its bet, sent by the request alone, and the rollback queued behind it), the wallet's
answer recorded, and a settled round's one win.

Every statement is built once: an operator's stake writes four rows or so, and building
a statement costs more CPU than running it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import cast

from sqlalchemy import Connection, bindparam, delete, select, update
from sqlalchemy.sql import ColumnElement

from feltlab.server.clock import now
from feltlab.server.models import table_of
from feltlab.server.operator_models import WalletTransaction
from feltlab.server.services import outbox
from feltlab.server.services.round_store import LoadedRound
from feltlab.server.services.statements import Batch, Prepared, json_rows
from feltlab.server.services.wallet_client import (
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


def hold(batch: Batch, seated: Seated, client: ClientSettings, round_id: int,
         stake: int) -> Held:
    """Among the request's last writes (``batch``): the stake's bet, held for the
    request to send, and its rollback behind it, due once the call must have ended and
    a grace after (the request records the answer well before, unless it crashed; a
    request that is late finds the rollback claimed and lets it go ahead)."""
    moment = now()
    wallet = seated.wallet
    amount = stake * seated.chip_value
    due = moment + timedelta(seconds=wallet.timeout_seconds + client.slot_wait_seconds
                             + client.rollback_grace_seconds)
    bet = outbox.call_row(
        operator_id=wallet.operator_id, player=seated.player, session=seated.session,
        currency=seated.currency, kind="bet", amount=amount, round_id=round_id,
        rules=seated.rules_id, now=moment, held=True)
    bet_id = str(bet["transaction_id"])
    rollback = outbox.call_row(
        operator_id=wallet.operator_id, player=seated.player, session=seated.session,
        currency=seated.currency, kind="rollback", amount=amount, round_id=round_id,
        rolled_back=bet_id, now=moment, first_try_at=due)
    batch.add_rows(outbox.QUEUE, [bet, rollback])  # one statement, the bet first
    rollback_id = str(rollback["transaction_id"])
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


def record_answer(connection: Connection, held: Held, outcome: Outcome) -> str:
    """The end of a held stake the move was not written for, in the request's second
    transaction; answers the refusal for the player. Refused by the wallet (and the
    rollback still untouched: dropped now): the bet is ``refused``. Anything else (no
    clear answer, or an answer recorded too late to take the rollback back): the
    rollback is due at once."""
    moment = now()
    answered = {"tid": held.bet_id, "moment": moment}
    if isinstance(outcome, Refused) and moment < held.rollback_due and _TAKE_BACK.run(
            connection, {"tid": held.rollback_id, "due": held.rollback_due}):
        _ANSWERED.run(connection, answered | {"new_state": outbox.REFUSED,
                                              "error": outcome.error})
        return f"the casino's wallet refused the stake: {outcome.error}"
    why = outcome.reason if isinstance(outcome, Unclear) else "it took too long to record"
    _ANSWERED.run(connection, answered | {"new_state": outbox.PENDING, "error": why})
    _ROLL_BACK_NOW.run(connection, {"tid": held.rollback_id, "due": held.rollback_due,
                                    "moment": moment})
    return ("the casino's wallet did not answer clearly; the stake was not taken (it is "
            "rolled back)")


_ACKNOWLEDGE = Prepared(update(_CALLS).where(
    _CALLS.c.transaction_id == bindparam("tid"), _CALLS.c.state == outbox.PENDING)
    .values(state=outbox.ACKNOWLEDGED, attempts=1, last_error=None,
            updated_at=bindparam("moment")))


STAKE_TAKEN = "stake_taken"
"""The guard of :func:`take_stake`: the held stake's rollback was there to take back."""


def take_stake(batch: Batch, held: Held) -> None:
    """Among the request's last writes (``batch``): the held stake's rollback taken back,
    if nobody has touched it, and its bet acknowledged. If the rollback was not there to
    take back (claimed, or due already), the batch writes nothing and raises
    :class:`~feltlab.server.services.statements.Unchanged` (:data:`STAKE_TAKEN`): the
    caller records the answer as too late instead (see :func:`record_answer`)."""
    batch.add(_TAKE_BACK, {"tid": held.rollback_id, "due": held.rollback_due},
              changes=[(_CALLS, held.rollback_id)], guard=STAKE_TAKEN)
    batch.add(_ACKNOWLEDGE, {"tid": held.bet_id, "moment": now()},
              changes=[(_CALLS, held.bet_id)])


def queue_win(batch: Batch, seated: Seated, loaded: LoadedRound, bets: Sequence[str]
              ) -> None:
    """The settled round's one win to the outbox, among the request's last writes:
    everything it returns to the player (0 for a loss), naming the bets the wallet took
    (``bets``: :func:`taken_bets`, and the stake taken now if any)."""
    seat = loaded.seats[0]
    assert seat.total is not None
    batch.add(outbox.QUEUE, outbox.call_row(
        operator_id=seated.wallet.operator_id, player=seated.player, session=seated.session,
        currency=seated.currency, kind="win",
        amount=(seat.staked + seat.total) * seated.chip_value, round_id=loaded.record.id,
        bets=bets))


def taken_bets_column(round_id: ColumnElement[int]) -> ColumnElement[object]:
    """The bets of round ``round_id`` the wallet took, as a column of JSON rows (read
    with the round; :func:`bets_of` decodes it)."""
    return cast("ColumnElement[object]", select(json_rows(_CALLS.c.transaction_id)).where(
        _CALLS.c.round_id == round_id, _CALLS.c.kind == "bet",
        _CALLS.c.state == outbox.ACKNOWLEDGED).scalar_subquery().label("taken_bets"))


_TAKEN = Prepared(select(taken_bets_column(bindparam("round_id"))))


def taken_bets(connection: Connection, round_id: int) -> list[str]:
    """The round's bets the wallet took, in transaction id order."""
    return bets_of(_TAKEN.scalar(connection, {"round_id": round_id}))


def bets_of(found: object) -> list[str]:
    """The transaction ids of :func:`taken_bets_column` as read (its JSON rows, decoded
    by PostgreSQL's driver, text from SQLite's), in transaction id order."""
    rows = [] if found is None else (found if isinstance(found, list)
                                     else json.loads(str(found)))
    return sorted(str(row[0]) for row in rows)
