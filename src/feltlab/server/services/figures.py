"""The pit's figures written when a round settles: one row a settled seat in
``seat_figures``, computed by :func:`feltlab.analysis.figures.seat_figures` (exact math,
nothing solved here), inserted in one statement beside the payouts, in the same
transaction. ``feltlab db backfill`` writes them for rounds settled before they existed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, insert, select
from sqlalchemy.orm import Session

from feltlab.analysis.figures import seat_figures
from feltlab.core.engine import HandState
from feltlab.server.clock import aware
from feltlab.server.models import Round, RoundSeat, SeatFigure, table_of
from feltlab.server.services.reports import forget_day_sums
from feltlab.server.services.round_log import load_round

_FIGURES, _ROUNDS, _SEATS = table_of(SeatFigure), table_of(Round), table_of(RoundSeat)
_INSERT = insert(_FIGURES)


def figure_row(state: HandState, round_seat: RoundSeat, record: Round, first: bool
               ) -> dict[str, Any]:
    """The ``seat_figures`` row of one settled seat (a pure function of the round);
    ``first``: the round's first seat (its rounds are counted once)."""
    figures = seat_figures(state, round_seat.seat)
    settled = aware(record.completed_at or record.created_at)
    return {"round_seat_id": round_seat.id, "round_id": record.id,
            "table_id": record.table_id, "user_id": round_seat.user_id,
            "rules_id": record.rules_id, "currency": record.currency,
            "settled_at": settled, "day": day_of(settled), "handle": figures.handle,
            "win": figures.win, "theo_win": figures.theo_win,
            "expected_win": figures.expected_win, "variance": figures.variance,
            "main_stake": figures.main_stake, "first_seat": int(first),
            "costs": json.dumps([[cost.pattern, cost.cost] for cost in figures.decisions])}


def record_settled(connection: Connection, state: HandState, seats: Sequence[RoundSeat],
                   record: Round, written: Collection[int] = ()) -> None:
    """Insert the figures of every settled seat of a round (one statement), but those
    whose round seat ids are ``written`` already."""
    first = min((seat.seat for seat in seats), default=None)
    rows = [figure_row(state, seat, record, seat.seat == first) for seat in seats
            if seat.id not in written]
    if rows:
        connection.execute(_INSERT, rows)


def day_of(moment: datetime) -> str:
    """The UTC day of a moment, as the reports group by it."""
    return aware(moment).astimezone(UTC).strftime("%Y-%m-%d")


def missing_rounds(connection: Connection) -> list[int]:
    """Complete rounds with a seat that has no figures yet, oldest first."""
    missing = (select(_SEATS.c.round_id).distinct()
               .join(_ROUNDS, _ROUNDS.c.id == _SEATS.c.round_id)
               .outerjoin(_FIGURES, _FIGURES.c.round_seat_id == _SEATS.c.id)
               .where(_ROUNDS.c.phase == "complete", _FIGURES.c.id.is_(None))
               .order_by(_SEATS.c.round_id))
    return list(connection.execute(missing).scalars())


def backfill(session_factory: Callable[[], Session],
             progress: Callable[[int, int], None] | None = None, batch: int = 200) -> int:
    """Write the figures of every complete round that has none, replaying each round from
    its log; commits every ``batch`` rounds. Answers how many rounds got figures."""
    with session_factory() as session:
        todo = missing_rounds(session.connection())
    done = 0
    for start in range(0, len(todo), batch):
        with session_factory() as session, session.begin():
            for round_id in todo[start:start + batch]:
                loaded = load_round(session, round_id)
                have = set(session.connection().execute(
                    select(_FIGURES.c.round_seat_id).where(_FIGURES.c.round_id == round_id)
                ).scalars())
                record_settled(session.connection(), loaded.state, loaded.seats,
                               loaded.record, have)
                done += 1
        if progress is not None:
            progress(done, len(todo))
    if done:  # seats were written into days whose sums the reports may keep
        with session_factory() as session, session.begin():
            forget_day_sums(session.connection())
    return done

