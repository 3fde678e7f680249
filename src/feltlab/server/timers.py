"""Shared-table timers, kept in the database so they survive a restart: a betting window
that closes with a deal, and a decision timer after which an absent player folds.

Every worker runs :func:`run_due` in a background thread; a due round is locked
(``SKIP LOCKED`` on PostgreSQL), so only one worker acts on it.
"""

from __future__ import annotations

import logging
import threading
from datetime import timedelta

from sqlalchemy import select

from feltlab.core.engine import Phase
from feltlab.server import rounds
from feltlab.server.clock import now
from feltlab.server.models import Round
from feltlab.server.services import Services

log = logging.getLogger("feltlab.server")


def due_rounds(found: Services) -> list[int]:
    with found.read() as session:
        return list(session.scalars(select(Round.id).where(
            Round.deadline.is_not(None), Round.deadline <= now(),
            Round.phase.in_([Phase.WAGERS.value, Phase.DECISIONS.value])).limit(50)))


def run_due(found: Services) -> int:
    """Deal every round whose betting window closed; fold every seat whose time ran out.
    Returns how many rounds moved."""
    moved = 0
    for round_id in due_rounds(found):
        table_id = _run_one(found, round_id)
        if table_id is not None:
            found.publish(table_id)
            moved += 1
    return moved


def _run_one(found: Services, round_id: int) -> int | None:
    with found.transaction() as session:
        table_id = session.scalar(select(Round.table_id).where(Round.id == round_id))
        table = None if table_id is None else rounds.lock_table(session, table_id,
                                                                skip_locked=True)
        if table is None:
            return None  # another worker is at this table now
        query = select(Round).where(Round.id == round_id, Round.deadline <= now())
        if session.scalars(query.with_for_update()).one_or_none() is None:
            return None
        loaded = rounds.load_round(session, round_id)
        decision = timedelta(seconds=table.decision_seconds)
        if loaded.state.phase is Phase.WAGERS:
            rounds.deal(session, loaded, decision)
        elif loaded.state.phase is Phase.DECISIONS:
            rounds.fold_absent(session, loaded, decision)
        if loaded.state.phase is Phase.COMPLETE:
            found.metrics.round_completed(loaded.rules.id,
                                          sum(seat.staked for seat in loaded.seats))
        return table.id


class Ticker:
    """A daemon thread running :func:`run_due` every ``interval`` seconds."""

    def __init__(self, found: Services, interval: float = 0.5) -> None:
        self.found, self.interval = found, interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="feltlab-timers", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                run_due(self.found)
            except Exception:  # a timer must never stop the server; try again next tick
                log.exception("shared-table timers failed; retrying")
