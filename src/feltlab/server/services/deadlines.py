"""Shared-table deadlines, kept in the database so they survive a restart: a betting
window that closes with a deal, and a decision timer after which an absent player folds.

A due round's table is locked first (``SKIP LOCKED`` on PostgreSQL), so only one worker
acts on it; :mod:`feltlab.server.timers` runs these in every worker.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from feltlab.core.engine import Phase
from feltlab.server.clock import now
from feltlab.server.models import Round
from feltlab.server.services import rounds
from feltlab.server.services.context import Services
from feltlab.server.services.round_log import load_round
from feltlab.server.services.tables import lock_table


def due_rounds(found: Services) -> list[int]:
    """Rounds whose betting window or decision timer has run out (at most 50)."""
    with found.read() as session:
        return list(session.scalars(select(Round.id).where(
            Round.deadline.is_not(None), Round.deadline <= now(),
            Round.phase.in_([Phase.WAGERS.value, Phase.DECISIONS.value])).limit(50)))


def run_one(found: Services, round_id: int) -> int | None:
    """Deal the round if its betting window closed, or fold the seat whose time ran out;
    returns its table, or None if another worker holds the table or it moved already."""
    with found.transaction() as session:
        table_id = session.scalar(select(Round.table_id).where(Round.id == round_id))
        table = None if table_id is None else lock_table(session, table_id, skip_locked=True)
        if table is None:
            return None  # another worker is at this table now
        query = select(Round).where(Round.id == round_id, Round.deadline <= now())
        if session.scalars(query.with_for_update()).one_or_none() is None:
            return None
        loaded = load_round(session, round_id)
        decision = timedelta(seconds=table.decision_seconds)
        if loaded.state.phase is Phase.WAGERS:
            rounds.deal(session, loaded, decision)
        elif loaded.state.phase is Phase.DECISIONS:
            rounds.fold_absent(session, loaded, decision)
        if loaded.state.phase is Phase.COMPLETE:
            found.metrics.round_completed(loaded.rules.id, rounds.staked(loaded))
    if loaded.state.phase is Phase.COMPLETE:  # committed: the pit's figures, off this path
        found.recorder.settled(loaded.state, loaded.seats, loaded.record)
    return table.id
