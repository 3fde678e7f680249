"""What a table looks like to its callers: the table's JSON, who sits where, and the
state every live watcher of a table shares (:class:`TableState`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from feltlab.core.rules import load_rules
from feltlab.server import rounds
from feltlab.server.models import GameTable, TableSeat, User, table_of

_SEATS, _USERS = table_of(TableSeat), table_of(User)
_SEATED = (select(_SEATS.c.seat, _USERS.c.username)
           .join(_USERS, _USERS.c.id == _SEATS.c.user_id)
           .where(_SEATS.c.table_id == bindparam("table_id")).order_by(_SEATS.c.seat))


def seated(session: Session, table_id: int) -> list[tuple[int, str]]:
    """Who sits where at a shared table: (seat, username) in seat order."""
    return [(seat, name) for seat, name in
            session.connection().execute(_SEATED, {"table_id": table_id})]



def table_json(table: GameTable, seats: list[tuple[int, str]] | None = None) -> dict[str, Any]:
    rules = load_rules(table.rules_id)
    view: dict[str, Any] = {
        "id": table.id, "rules": table.rules_id, "name": table.name or rules.name,
        "fingerprint": table.fingerprint, "currency": table.currency,
        "practice": table.currency == "practice" and not table.shared,
        "shared": table.shared, "status": table.status, "seats": rules.seats,
        "limits": {name: {"min": limit.min, "max": limit.max}
                   for name, limit in rules.limits.items()},
        "required_wagers": list(rules.required_wagers),
    }
    if table.shared:
        view |= {"betting_seconds": table.betting_seconds,
                 "decision_seconds": table.decision_seconds,
                 "seated": [{"seat": seat, "player": name} for seat, name in seats or []]}
    return view


@dataclass(frozen=True)
class TableState:
    """What every watcher of a table shares at one announcement: built once per worker,
    then each watcher's view is cut from it without another database read."""

    stamp: int
    owner_id: int | None
    shared: bool
    view: dict[str, Any]
    loaded: rounds.LoadedRound | None
    names: dict[int, str]
    version: tuple[object, ...]


def table_state(session: Session, table: GameTable, loaded: rounds.LoadedRound | None,
                stamp: int = -1) -> TableState:
    """The table's state with ``loaded`` as its current round (the unfinished one, or
    between rounds the last one)."""
    sitting = seated(session, table.id) if table.shared else None
    names = {} if loaded is None else rounds.usernames(session, loaded)
    version = (table.status, tuple(sitting or ()),
               None if loaded is None else loaded.record.id,
               None if loaded is None else loaded.events)
    return TableState(stamp, table.owner_id, table.shared, table_json(table, sitting), loaded,
                      names, version)


@dataclass(frozen=True)
class Fresh:
    """A table state built by the transaction that changed the table, with the worker's
    announcement count for the table seen while the table was locked: it becomes the
    table's live state at once if nothing else was announced meanwhile."""

    seen: int
    state: TableState
