"""An operator's real-money rounds left idle: a dealt round whose session expired (idle past the
tokens' idle time, or ended by the operator) while it waited for the player's decision
is settled as the game's default decision, a fold, and its win (possibly 0) goes to the
outbox like any round's. Only a bet with no clear answer is rolled back; a round with a
stake still with the wallet waits for it (:mod:`feltlab.server.services.operator_play`).

The shared tables' timer thread (:mod:`feltlab.server.timers`) runs :func:`settle_idle`
every so often; each round is one transaction with its table locked, no wallet call.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Final

from sqlalchemy import bindparam, exists, or_, select

from feltlab.server.clock import now
from feltlab.server.errors import DomainError
from feltlab.server.models import AuthToken, GameTable, Round, table_of
from feltlab.server.operator_models import OperatorSession, WalletTransaction
from feltlab.server.services import outbox, play, round_store, round_writes, table_play
from feltlab.server.services.context import Services
from feltlab.server.services.database import write_connection
from feltlab.server.services.operator_play import seated_by_id
from feltlab.server.services.operator_stakes import queue_win, taken_bets
from feltlab.server.services.round_store import AtTable
from feltlab.server.services.statements import Batch, Prepared

log = logging.getLogger("feltlab.server")
BATCH: Final = 50
"""Idle rounds settled in one pass at most (the next pass takes the rest)."""

_ROUNDS, _TABLES = table_of(Round), table_of(GameTable)
_SESSIONS, _TOKENS = table_of(OperatorSession), table_of(AuthToken)
_CALLS = table_of(WalletTransaction)
_IDLE = (select(_ROUNDS.c.id)
         .join(_TABLES, _TABLES.c.id == _ROUNDS.c.table_id)
         .join(_SESSIONS, _SESSIONS.c.id == _TABLES.c.operator_session_id)
         .join(_TOKENS, _TOKENS.c.id == _SESSIONS.c.token_id)
         .where(_ROUNDS.c.phase == "decisions", _SESSIONS.c.mode == "real",
                or_(_TOKENS.c.last_used_at < bindparam("cutoff"), _TOKENS.c.revoked),
                ~exists().where(_CALLS.c.round_id == _ROUNDS.c.id, _CALLS.c.kind == "bet",
                                _CALLS.c.state == outbox.PENDING))
         .order_by(_ROUNDS.c.id).limit(BATCH))
_LOCKED = Prepared(select(*round_store.TABLE_COLUMNS, *round_store.ROUND_COLUMNS,
                          round_store.seats_json(_ROUNDS.c.id))
                   .select_from(_ROUNDS.join(_TABLES, _TABLES.c.id == _ROUNDS.c.table_id))
                   .where(_ROUNDS.c.id == bindparam("round_id"))
                   .with_for_update(of=_TABLES))


def settle_idle(found: Services) -> int:
    """Fold every idle operator's round (see the module's text); how many were settled."""
    cutoff = now() - timedelta(minutes=found.auth.idle_minutes)
    with found.read_connection() as connection:
        idle = list(connection.execute(_IDLE, {"cutoff": cutoff}).scalars())
    settled = 0
    for round_id in idle:
        try:
            settled += _fold(found, round_id)
        except DomainError as error:  # the game offers no fold here: left for a person
            log.warning("idle round %s could not be settled: %s", round_id, error.detail)
    return settled


def _fold(found: Services, round_id: int) -> int:
    with write_connection(found.engine) as connection:
        row = _LOCKED.first(connection, {"round_id": round_id})
        values = row._asdict()
        table, record = round_store.table_of_row(values), round_store.round_of_row(values)
        if record is None or record.phase != "decisions" or table.operator_session_id is None:
            return 0  # the player decided meanwhile
        at = AtTable(table, record, round_store.seats_of_json(values["seats_json"]), [],
                     None, None, None)
        loaded = play.loaded_of(connection, at)
        assert loaded is not None
        seat = next(each for each in loaded.seats if each.seat == loaded.state.to_act)
        moment = now()
        played = table_play.decide(table, loaded, seat.user_id, "fold", None, moment)
        batch = Batch()
        if played.complete:
            for each in loaded.seats:
                if each.total is not None:
                    each.balance_after = each.balance_before + each.total
            queue_win(batch, seated_by_id(connection, table.operator_session_id), loaded,
                      taken_bets(connection, loaded.record.id))
        round_writes.write(batch, played, moment)
        batch.run(connection)
    play.show_change(found, played, None)
    return 1
