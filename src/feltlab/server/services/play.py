"""Playing at a table: a bet (a private table deals at once, a shared one takes it into
its betting window) and a decision, each a money request that answers the round as the
caller sees it and shows the table's watchers its new state. Each is one transaction
with the caller's token read inside it, in SQLAlchemy Core
(:mod:`feltlab.server.services.private_rounds`,
:mod:`feltlab.server.services.shared_rounds`)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, bindparam, select

from feltlab.server.auth import Caller, token_digest
from feltlab.server.errors import Conflict, Unauthorized
from feltlab.server.models import GameTable, Round, TableSeat, User, table_of
from feltlab.server.services import money_path, private_rounds, shared_rounds
from feltlab.server.services.accounts import caller_of, record_refused_use
from feltlab.server.services.context import Services
from feltlab.server.services.idempotency import Answer, MoneyRequest
from feltlab.server.services.private_rounds import Wagers
from feltlab.server.services.round_log import LoadedRound
from feltlab.server.services.statements import Batch
from feltlab.server.views import Fresh

__all__ = ["Wagers", "bet", "count_if_complete", "decide", "refuse_if_betting_closed"]

# built once, and in Core where no object is needed: these run on every bet
_SEATS, _TABLES, _ROUNDS = table_of(TableSeat), table_of(GameTable), table_of(Round)
_USERS = table_of(User)
_ROUND_IN_PLAY = (select(_ROUNDS.c.id).join(_TABLES, _TABLES.c.id == _ROUNDS.c.table_id)
                  .join(_SEATS, _SEATS.c.table_id == _ROUNDS.c.table_id)
                  .where(_ROUNDS.c.table_id == bindparam("table_id"),
                         _TABLES.c.shared.is_(True), _TABLES.c.status == "open",
                         _SEATS.c.user_id == _USERS.c.id,
                         _ROUNDS.c.phase.not_in(["wagers", "complete"]))
                  .limit(1).scalar_subquery().label("in_play"))
_BETTING_CLOSED = (select(*money_path.CALLER_COLUMNS, _ROUND_IN_PLAY)
                   .select_from(money_path.callers())
                   .where(bindparam("digest") == money_path.TOKEN_HASH))
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
    caller = caller_of(row[0], row.revoked, row.last_used_at, row.user_id, row.username,
                       row.role, found.auth)
    if row.request_hash is None and row.in_play is not None:
        record_refused_use(found, caller)
        raise Conflict(f"betting is closed: round {row.in_play} is being played")


def bet(found: Services, token: str, table_id: int, placed: Wagers,
        request: MoneyRequest) -> Answer:
    """Bet at the table (the wagers are debited here), then show its watchers. A shared
    table whose round is being played refuses with a read only, before the writer."""
    if not shared_table(found, table_id):
        return private_rounds.bet(found, token, table_id, placed, request, _became_shared)
    if not _betting_seen_open(found, table_id):
        refuse_if_betting_closed(found, token, table_id, request)
    answer, fresh = shared_rounds.bet(found, token, table_id, placed, request)
    if fresh is not None:  # the transaction sent NOTIFY (its first read)
        private_rounds.settled(found, fresh.state.loaded)
        found.publish(table_id, fresh, notified=True)
    return answer


def _became_shared(connection: Connection, caller: Caller, row: Any, batch: Batch
                   ) -> tuple[int, Any]:
    """Never runs: a table never changes kind, and its kind is asked before the bet."""
    raise Conflict(f"table {row.t_id} is shared: send the bet again")


_TABLE_KIND = select(_TABLES.c.shared).where(_TABLES.c.id == bindparam("table_id"))


def shared_table(found: Services, table_id: int) -> bool:
    """Whether the table is shared (kept per worker: a table never changes kind)."""
    known = found.shared_tables.get(table_id)
    if known is None:
        with found.read() as session:
            known = session.connection().execute(_TABLE_KIND, {"table_id": table_id}
                                                 ).scalar()
        if known is None:
            return False
        found.shared_tables[table_id] = bool(known)
    return bool(known)


def decide(found: Services, token: str, round_id: int, decision: dict[str, Any],
           request: MoneyRequest) -> Answer:
    """The caller's decision (a raise, play or bet is debited here), then show the
    table's watchers."""
    fresh: list[Fresh] = []
    answer, _ = private_rounds.decide(found, token, round_id, decision, request,
                                      shared_rounds.decide_work(found, round_id, decision,
                                                                fresh))
    for changed in fresh:  # the transaction sent NOTIFY (private_rounds' first read)
        private_rounds.settled(found, changed.state.loaded)
        found.publish(changed.state.view["id"], changed, notified=True)
    return answer


def count_if_complete(found: Services, loaded: LoadedRound) -> None:
    """Count a round that has just completed in the metrics."""
    private_rounds.rounds_done(found, loaded)
