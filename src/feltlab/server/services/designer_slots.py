"""The designer's limit on computations, held in the database so that it holds across
every worker and host: at most ``limit`` designs computed at once in the whole deployment
(the setting ``designer_jobs``), and one per account; beyond either, 429.

A computation holds a row of ``designer_jobs`` (:class:`~feltlab.server.designer_models.
DesignerJob`) in one of the slots ``0 .. limit - 1`` from before it starts until it ends,
and renews it every :data:`RENEW_SECONDS` while it runs. A row not renewed for
:data:`LEASE` is a killed worker's: the next claim deletes it and the slot is free again.
A claim first reads the slots (a refusal writes nothing), then writes its row in a
transaction that holds a lock on PostgreSQL (SQLite runs one writer at a time); the
table's keys (the slot, the account) refuse a second row all the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from sqlalchemy import Connection, bindparam, delete, insert, select, update

from feltlab.server.clock import aware, now
from feltlab.server.designer_models import DesignerJob
from feltlab.server.errors import TooMany
from feltlab.server.models import table_of
from feltlab.server.services.context import Services
from feltlab.server.services.database import write_connection
from feltlab.server.services.statements import transaction_lock

LEASE: Final = timedelta(seconds=15)
"""A computation's row not renewed for this long is a killed worker's: its slot is free."""
RENEW_SECONDS: Final = 3.0
"""How often a running computation renews its row."""
RETRY_AFTER: Final = 1
"""Seconds a refused design is told to wait."""
YOURS: Final = "a design of yours is still being computed; wait for its answer"
BUSY: Final = "the designer is busy with other designs; try again in a moment"
_LOCK_KEY: Final = 7000014
"""PostgreSQL's transaction lock around a claim (one claim at a time)."""

_JOBS = table_of(DesignerJob)
_SLOTS = select(_JOBS.c.slot, _JOBS.c.user_id, _JOBS.c.renewed_at)
_EXPIRED = delete(_JOBS).where(_JOBS.c.renewed_at < bindparam("before"))
_RENEW = (update(_JOBS).where(_JOBS.c.slot == bindparam("key"),
                              _JOBS.c.holder == bindparam("by"))
          .values(renewed_at=bindparam("at")))
_RELEASE = delete(_JOBS).where(_JOBS.c.slot == bindparam("key"),
                               _JOBS.c.holder == bindparam("by"))


@dataclass(frozen=True)
class Slot:
    """A claimed slot: a computation of ``user_id``'s may run."""

    slot: int
    user_id: int
    holder: str


def claim(found: Services, user_id: int, kind: str, limit: int, holder: str) -> Slot:
    """Hold a slot for one computation of ``user_id``'s, or refuse (429) while one of
    theirs runs or every one of the ``limit`` slots is taken."""
    moment = now()
    with found.read_connection() as connection:
        _free_slot(connection, user_id, limit, moment)  # refused here without a write
    with write_connection(found.engine) as connection:
        transaction_lock(connection, _LOCK_KEY)
        connection.execute(_EXPIRED, {"before": moment - LEASE})
        slot = _free_slot(connection, user_id, limit, moment)
        connection.execute(insert(_JOBS), {"slot": slot, "user_id": user_id, "kind": kind,
                                           "holder": holder, "started_at": moment,
                                           "renewed_at": moment})
    return Slot(slot, user_id, holder)


def _free_slot(connection: Connection, user_id: int, limit: int, moment: datetime) -> int:
    live = [row for row in connection.execute(_SLOTS)
            if aware(row.renewed_at) >= moment - LEASE]
    if any(row.user_id == user_id for row in live):
        raise TooMany(YOURS, RETRY_AFTER)
    taken = {row.slot for row in live}
    free = [slot for slot in range(limit) if slot not in taken]
    if not free:
        raise TooMany(BUSY, RETRY_AFTER)
    return free[0]


def renew(found: Services, held: Slot) -> None:
    """Renew the lease of a running computation's slot."""
    with write_connection(found.engine) as connection:
        connection.execute(_RENEW, {"key": held.slot, "by": held.holder, "at": now()})


def release(found: Services, held: Slot) -> None:
    """Free the slot of a computation that ended (or never ran)."""
    with write_connection(found.engine) as connection:
        connection.execute(_RELEASE, {"key": held.slot, "by": held.holder})
