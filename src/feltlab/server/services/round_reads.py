"""Reading rounds and tables for their callers: a round as its player sees it, its recall,
the caller's latest rounds, a table with its current round, and the state every live
watcher of a table shares. The views themselves are :mod:`feltlab.server.views`."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, bindparam, func, select

from feltlab.server.auth import Caller
from feltlab.server.errors import not_found
from feltlab.server.models import GameTable, Round, RoundSeat, User, table_of
from feltlab.server.operator_models import WalletTransaction
from feltlab.server.services.accounts import check_token, note_use
from feltlab.server.services.context import Services
from feltlab.server.services.ledger import CURRENCIES
from feltlab.server.services.round_store import (
    ROUND_COLUMNS,
    TABLE_COLUMNS,
    LoadedRound,
    Sitting,
    loaded_round,
    read_round,
    round_of_row,
    seats_json,
    seats_of_json,
    sitting_at,
    table_of_row,
)
from feltlab.server.services.tables import next_commitment, seated, visible_table
from feltlab.server.views import (
    TableState,
    needs_names,
    recall,
    table_json,
    table_state,
    view_of,
)

_USERS, _TABLES, _ROUNDS = table_of(User), table_of(GameTable), table_of(Round)
_SEAT_ROWS = table_of(RoundSeat)
_NAMES_OF = select(_USERS.c.id, _USERS.c.username).where(
    _USERS.c.id.in_(bindparam("user_ids", expanding=True)))
_USERNAMES: dict[tuple[str, int], str] = {}
"""Usernames by database and user id, kept by each worker: a username never changes once
chosen."""


def usernames(connection: Connection, loaded: LoadedRound) -> dict[int, str]:
    """The names of the round's seated players, by user id."""
    database = str(connection.engine.url)
    wanted = {item.user_id for item in loaded.seats}
    missing = {user_id for user_id in wanted if (database, user_id) not in _USERNAMES}
    if missing:
        if len(_USERNAMES) > 100_000:
            _USERNAMES.clear()
        rows = connection.execute(_NAMES_OF, {"user_ids": sorted(missing)})
        _USERNAMES.update({(database, user_id): name for user_id, name in rows})
    return {user_id: _USERNAMES[database, user_id] for user_id in wanted
            if (database, user_id) in _USERNAMES}


_CALLS = table_of(WalletTransaction)
_CALLS_OF = (select(_CALLS.c.transaction_id, _CALLS.c.kind, _CALLS.c.amount, _CALLS.c.state)
             .where(_CALLS.c.round_id == bindparam("round_id")).order_by(_CALLS.c.id))


def round_view(connection: Connection, loaded: LoadedRound, user_id: int) -> dict[str, Any]:
    """The round as ``user_id`` may see it: no hidden card before its reveal. An
    operator's round (its money in the operator's wallet) lists its wallet transactions
    and their states."""
    names = usernames(connection, loaded) if needs_names(loaded, user_id) else {}
    view = view_of(loaded, user_id, names)
    if loaded.record.currency not in CURRENCIES:
        view["wallet_transactions"] = [
            {"transaction_id": tid, "kind": kind, "amount": amount, "state": state}
            for tid, kind, amount, state in connection.execute(
                _CALLS_OF, {"round_id": loaded.record.id})]
    return view


def read_round_view(found: Services, token: str, round_id: int) -> dict[str, Any]:
    """The round as the caller of ``token`` may see it; another player's round is not
    found. One read transaction, in Core: the token, then the round with its log and its
    seats (a stale token's use is then written down, as every signed-in read does)."""
    with found.read_connection() as connection:
        caller = check_token(connection, token, found.auth)
        _, loaded = read_round(connection, round_id, caller.user_id)
        view = round_view(connection, loaded, caller.user_id)
    note_use(found, caller)
    return view


def read_recall(found: Services, round_id: int, caller: Caller) -> dict[str, Any]:
    """The caller's round step by step (:func:`feltlab.server.views.recall`)."""
    with found.read_connection() as connection:
        _, loaded = read_round(connection, round_id, caller.user_id)
    mine = loaded.seat_of(caller.user_id)
    if mine is None:
        raise not_found(f"round {round_id}")
    return recall(loaded, mine)


_RECENT = (select(_SEAT_ROWS.c.round_id).where(_SEAT_ROWS.c.user_id == bindparam("user_id"))
           .order_by(_SEAT_ROWS.c.round_id.desc()).limit(bindparam("limit")))


def recent_views(found: Services, caller: Caller, limit: int, before: int | None = None
                 ) -> list[dict[str, Any]]:
    """The caller's latest rounds, newest first; with ``before``, those older than it
    (a cursor: the last id of the page before)."""
    query = _RECENT if before is None else _RECENT.where(_SEAT_ROWS.c.round_id < before)
    with found.read_connection() as connection:
        ids = connection.execute(query, {"user_id": caller.user_id, "limit": limit}
                                 ).scalars().all()
        return [round_view(connection, read_round(connection, round_id)[1], caller.user_id)
                for round_id in ids]


_UNFINISHED = select(func.min(_ROUNDS.c.id)).where(_ROUNDS.c.table_id == bindparam("table_id"),
                                                   _ROUNDS.c.phase != "complete")


def read_table(found: Services, table_id: int, caller: Caller) -> dict[str, Any]:
    """The table, and its current round as the caller may see it."""
    with found.read() as session:
        table = visible_table(session, table_id, caller)
        view = table_json(table, seated(session, table.id) if table.shared else None,
                          next_commitment(session, table))
        connection = session.connection()
        current = connection.execute(_UNFINISHED, {"table_id": table.id}).scalar()
        view["round"] = (None if current is None else round_view(
            connection, read_round(connection, current)[1], caller.user_id))
        return view


_OTHER = _ROUNDS.alias("table_rounds")  # the table's rounds, apart from the one joined
_CURRENT = func.coalesce(
    select(func.min(_OTHER.c.id)).where(_OTHER.c.table_id == _TABLES.c.id,
                                        _OTHER.c.phase != "complete")
    .correlate(_TABLES).scalar_subquery(),
    select(func.max(_OTHER.c.id)).where(_OTHER.c.table_id == _TABLES.c.id)
    .correlate(_TABLES).scalar_subquery())
_LIVE_READ = (select(*TABLE_COLUMNS, *ROUND_COLUMNS, seats_json(_ROUNDS.c.id))
              .select_from(_TABLES.outerjoin(_ROUNDS, _ROUNDS.c.id == _CURRENT))
              .where(_TABLES.c.id == bindparam("table_id")))
"""The table and its current round (the unfinished one or, between rounds, its last)
with the round's log: one statement."""


def live_state(found: Services, table_id: int, stamp: int) -> TableState:
    """The table's state read now: its unfinished round or, between rounds, its last (in
    Core: the table with its round, the round's seats, and at a shared table who sits
    where with their names)."""
    with found.read_connection() as connection:
        row = connection.execute(_LIVE_READ, {"table_id": table_id}).first()
        if row is None:
            raise not_found(f"table {table_id}")
        values = row._asdict()
        table, record = table_of_row(values), round_of_row(values)
        loaded = None if record is None else loaded_round(
            connection, record, seats_of_json(values["seats_json"]), table.shared,
            to_change=False)
        if not table.shared:
            names = {} if loaded is None else usernames(connection, loaded)
            return table_state(table, None, loaded, names, stamp)
        sitting: list[Sitting] = sitting_at(connection, table.id)
        names = {} if loaded is None else usernames(connection, loaded)
        return table_state(table, [(each.seat, each.username) for each in sitting], loaded,
                           names, stamp)
