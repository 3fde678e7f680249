"""Shared-table deadlines, kept in the database so they survive a restart: a betting
window that closes with a deal, and a decision timer after which an absent player folds.

A due round's table is locked first (``SKIP LOCKED`` on PostgreSQL), so only one worker
acts on it; :mod:`feltlab.server.timers` runs these in every worker. The work itself is
:func:`feltlab.server.services.play.run_timer`, in Core as the money requests are.
"""

from __future__ import annotations

from sqlalchemy import bindparam, select

from feltlab.core.engine import Phase
from feltlab.server.clock import now
from feltlab.server.models import Round, table_of
from feltlab.server.services import play
from feltlab.server.services.context import Services

_ROUNDS = table_of(Round)
_DUE = (select(_ROUNDS.c.id)
        .where(_ROUNDS.c.deadline.is_not(None), _ROUNDS.c.deadline <= bindparam("moment"),
               _ROUNDS.c.phase.in_([Phase.WAGERS.value, Phase.DECISIONS.value]))
        .limit(50))


def due_rounds(found: Services) -> list[int]:
    """Rounds whose betting window or decision timer has run out (at most 50)."""
    with found.read() as session:
        return list(session.connection().execute(_DUE, {"moment": now()}).scalars())


def run_one(found: Services, round_id: int) -> int | None:
    """Deal the round if its betting window closed, or fold the seat whose time ran out,
    and show the table's watchers (:func:`feltlab.server.services.play.run_timer`);
    returns its table, or None if another worker holds the table or it moved already."""
    return play.run_timer(found, round_id)
