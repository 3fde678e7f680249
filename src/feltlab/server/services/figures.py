"""The pit's figures of settled rounds: one row a settled seat in ``seat_figures``,
computed by :func:`feltlab.analysis.figures.seat_figures` (exact math, nothing solved
here).

They are written off the money path, so that the pit's analytics never hold a player's
money request up nor refuse it: the request that settles a round marks it
``figures_pending`` in its own transaction and, once committed, hands the round's final
state to its worker's :class:`Recorder`, which computes and writes a batch of rounds in
one transaction a fraction of a second later. The mark makes that safe: a worker that dies
before writing leaves its rounds marked, and they are computed again from the database
(:func:`record_pending`), by any worker in the background and always before a report
reads the figures, so reports stay exact. ``feltlab db backfill`` writes the figures of
rounds settled before figures existed.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Collection, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Engine, bindparam, delete, select, true, update
from sqlalchemy.orm import Session

from feltlab.analysis.figures import SeatFigures, round_figures, seat_figures
from feltlab.core.engine import HandState
from feltlab.server.clock import aware, now
from feltlab.server.figure_models import ReportDays, SeatFigure, SeatFigureDay
from feltlab.server.models import Round, RoundSeat, table_of
from feltlab.server.services.database import write_connection
from feltlab.server.services.round_store import read_round
from feltlab.server.services.statements import insert_ignoring

log = logging.getLogger("feltlab.server")

_FIGURES, _ROUNDS, _SEATS = table_of(SeatFigure), table_of(Round), table_of(RoundSeat)
_DAYS, _STATE = table_of(SeatFigureDay), table_of(ReportDays)
_INSERT = insert_ignoring(_FIGURES, ["round_seat_id"])
"""Once a seat: a round computed again (a recorder and a report at once) writes nothing."""
_PENDING = (select(_ROUNDS.c.id).where(_ROUNDS.c.figures_pending == true(),
                                       _ROUNDS.c.completed_at < bindparam("before"))
            .order_by(_ROUNDS.c.id).limit(bindparam("limit")))
_RECORDED = (update(_ROUNDS).where(_ROUNDS.c.id.in_(bindparam("ids", expanding=True)))
             .values(figures_pending=False))
BATCH_SECONDS = 0.25
"""How long a worker's recorder gathers settled rounds before writing them."""
SWEEP_SECONDS = 5.0
"""How often it looks for rounds left marked (another worker died before writing them)."""


def figure_row(state: HandState, round_seat: RoundSeat, record: Round, first: bool
               ) -> dict[str, Any]:
    """The ``seat_figures`` row of one settled seat (a pure function of the round);
    ``first``: the round's first seat (its rounds are counted once)."""
    return _row(_round_part(record), seat_figures(state, round_seat.seat), round_seat, first)


def _round_part(record: Round) -> dict[str, Any]:
    """What the rows of a round's seats have alike."""
    settled = aware(record.completed_at or record.created_at)
    return {"round_id": record.id, "table_id": record.table_id, "rules_id": record.rules_id,
            "currency": record.currency, "settled_at": settled, "day": day_of(settled)}


def _row(common: dict[str, Any], figures: SeatFigures, round_seat: RoundSeat, first: bool
         ) -> dict[str, Any]:
    return {"round_seat_id": round_seat.id, "user_id": round_seat.user_id, **common,
            "handle": figures.handle, "win": figures.win, "theo_win": figures.theo_win,
            "expected_win": figures.expected_win, "variance": figures.variance,
            "main_stake": figures.main_stake, "first_seat": int(first),
            "costs": json.dumps([[cost.pattern, cost.cost] for cost in figures.decisions])}


def settled_rows(state: HandState, seats: Sequence[RoundSeat], record: Round,
                 written: Collection[int] = ()) -> list[dict[str, Any]]:
    """The figures of every settled seat of a round, but those whose round seat ids are
    ``written`` already (the rows :func:`figure_row` makes, the round replayed once for
    them all)."""
    todo = [seat for seat in seats if seat.id not in written]
    if not todo:
        return []
    first = min(seat.seat for seat in seats)
    figures = round_figures(state, [seat.seat for seat in todo])
    common = _round_part(record)
    return [_row(common, figures[seat.seat], seat, seat.seat == first) for seat in todo]


def record_settled(connection: Connection, state: HandState, seats: Sequence[RoundSeat],
                   record: Round, written: Collection[int] = ()) -> None:
    """Insert the figures of every settled seat of a round now (one statement) and clear
    its mark."""
    write_rows(connection, settled_rows(state, seats, record, written))
    connection.execute(_RECORDED, {"ids": [record.id]})


def write_rows(connection: Connection, rows: list[dict[str, Any]]) -> None:
    """Insert figure rows (one statement), skipping seats that have theirs already."""
    if rows:
        # (executemany: the driver's pipeline. A multi-row INSERT on the driver's cursor,
        # Prepared.run_rows, took 2.5 times its CPU a row on PostgreSQL, psycopg parsing
        # again each time a statement of more than 50 parameters, and no less on SQLite)
        _INSERT.execute(connection, rows)


def record_pending(engine: Engine, reader: Engine, settled_before: datetime | None = None,
                   batch: int = 200) -> int:
    """Compute again, from the database, the figures of up to ``batch`` rounds still
    marked pending (settled before ``settled_before``, if given), then write them and
    clear their marks in one short write transaction: the computing (the first time a
    rule set's PAR sheet is needed, it is made) holds no writer's lock. Answers how many
    rounds. Another worker writing the same rounds at once writes each seat once."""
    with reader.connect() as connection:
        ids = list(connection.execute(_PENDING, {
            "before": settled_before or now() + timedelta(days=1), "limit": batch}).scalars())
        rows: list[dict[str, Any]] = []
        for round_id in ids:
            _, loaded = read_round(connection, round_id)
            rows += settled_rows(loaded.state, loaded.seats, loaded.record)
    if ids:
        with write_connection(engine) as connection:
            write_rows(connection, rows)
            connection.execute(_RECORDED, {"ids": ids})
    return len(ids)


class Recorder:
    """A worker's writer of the pit's figures: rounds its requests settled, a batch a
    transaction, :data:`BATCH_SECONDS` after the first; every :data:`SWEEP_SECONDS` it
    also computes rounds another worker left marked. :meth:`flush` writes everything
    marked, here and in the database, before a report reads the figures."""

    def __init__(self, engine: Engine, reader: Engine | None = None) -> None:
        self.engine, self.reader = engine, reader or engine
        self._rounds: list[tuple[HandState, Sequence[RoundSeat], Round]] = []
        self._lock = threading.Lock()
        self._wake, self._stop = threading.Event(), threading.Event()
        self._thread: threading.Thread | None = None

    def settled(self, state: HandState, seats: Sequence[RoundSeat], record: Round) -> None:
        """A round whose settlement has committed (marked pending), with its final state:
        its figures are computed and written in this recorder's thread."""
        with self._lock:
            self._rounds.append((state, seats, record))
        self._wake.set()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="feltlab-figures",
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        try:
            self._write_queued()
        except Exception:  # the marks stay: another worker, or the next start, writes them
            log.warning("figures not written at shutdown; they will be computed again")

    def flush(self) -> None:
        """Write every round marked pending: this worker's queue, then any other left in
        the database (settled by another worker a moment ago, or before a crash)."""
        self._write_queued()
        while record_pending(self.engine, self.reader):
            pass

    def _run(self) -> None:
        while not self._stop.is_set():
            woken = self._wake.wait(SWEEP_SECONDS)
            self._wake.clear()
            if woken:
                self._stop.wait(BATCH_SECONDS)
            try:
                self._write_queued()
                if not woken:
                    record_pending(self.engine, self.reader,
                                   now() - timedelta(seconds=SWEEP_SECONDS))
            except Exception:  # the marks stay: written on the next try
                log.exception("writing the pit's figures failed; retrying")

    def _write_queued(self) -> None:
        with self._lock:
            rounds, self._rounds = self._rounds, []
        if not rounds:
            return
        # if this fails, the rounds stay marked: computed again from the database later
        rows = [row for state, seats, record in rounds
                for row in settled_rows(state, seats, record)]
        with write_connection(self.engine) as connection:
            write_rows(connection, rows)
            connection.execute(_RECORDED, {"ids": [record.id for *_, record in rounds]})


def forget_day_sums(connection: Connection) -> None:
    """Drop the sums by day (after seats were written into days that are over)."""
    connection.execute(delete(_DAYS))
    connection.execute(delete(_STATE))


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
                _, loaded = read_round(session.connection(), round_id)
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

