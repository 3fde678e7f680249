"""What a money request writes of its round, after the ledger has posted its money: a
new round's row first (the ledger's transactions name it), then, as the request's last
writes in one batch (:class:`feltlab.server.services.statements.Batch`), the actions it
appended to the log (one event a row), the seat that joined, the seats it changed and
the round's row. A settled round is marked ``figures_pending`` for the pit's figures
(written after the commit by the worker's recorder)."""

from __future__ import annotations

from datetime import datetime
from functools import cache

from sqlalchemy import Connection, bindparam, case, func, insert, select, update
from sqlalchemy.sql.elements import BindParameter, Case

from feltlab.server import faults
from feltlab.server.models import Round, RoundEvent, RoundSeat, table_of
from feltlab.server.services.round_store import ROUND_NAMES, SEAT_NAMES, extend_log
from feltlab.server.services.statements import Batch, Deferred, Prepared
from feltlab.server.services.table_play import Played

_ROUNDS, _SEATS, _EVENTS = table_of(Round), table_of(RoundSeat), table_of(RoundEvent)
_PREVIOUS = _ROUNDS.alias("previous")
_NEXT_NUMBER = func.coalesce(
    select(_PREVIOUS.c.number).where(_PREVIOUS.c.table_id == bindparam("number_at_table"))
    .order_by(_PREVIOUS.c.id.desc()).limit(1).scalar_subquery(), 0) + 1
"""A new round's number at its table: one more than its newest round's. Read by the
INSERT itself, once the table's row is locked: on PostgreSQL a statement that waited for
that lock would still see the table's rounds as they were when it began."""
_NEW_ROUND = Prepared(insert(_ROUNDS).values(number=_NEXT_NUMBER)
                      .returning(_ROUNDS.c.id, _ROUNDS.c.number))
_GIVEN = ("id", "number")
"""A new round's columns the database gives it."""
_NEW_SEAT = Prepared(insert(_SEATS).returning(_SEATS.c.id))
_NEW_EVENTS = Prepared(insert(_EVENTS))
_ROUND_MOVED = Prepared(update(_ROUNDS).where(_ROUNDS.c.id == bindparam("round_id_")).values(
    phase=bindparam("new_phase"), log=bindparam("new_log"),
    deadline=bindparam("new_deadline"), client_seed=bindparam("new_client_seed"),
    completed_at=bindparam("new_completed_at"),
    figures_pending=bindparam("new_figures_pending")))


@cache
def _seats_moved(seats: int) -> Prepared:
    """``seats`` seats' stakes, results and balances changed in one statement."""
    ids: list[BindParameter[int]] = [bindparam(f"seat_id_{index}") for index in range(seats)]

    def each(name: str) -> Case[object]:
        return case(*((_SEATS.c.id == seat_id,
                       bindparam(f"{name}_{index}", type_=_SEATS.c[name].type))
                      for index, seat_id in enumerate(ids)))

    return Prepared(update(_SEATS).where(_SEATS.c.id.in_(ids)).values(
        staked=each("staked"), total=each("total"), balance_after=each("balance_after")))


def open_round(connection: Connection, played: Played) -> None:
    """Insert the round ``played`` opened, as it now is (its id set on it and on its
    seat); its log holds every action already, so :func:`write` adds only events."""
    record = played.loaded.record
    record.log = extend_log(record.log, played.texts)
    _insert(connection, record)
    for seat in played.loaded.seats:
        seat.round_id = record.id


def reserve(connection: Connection, record: Round) -> int:
    """Insert a round waiting for its stake (:func:`table_play.waiting_round`) as it is
    (no action, no seat); its id, set on it too."""
    _insert(connection, record)
    return record.id


_RESERVED = Prepared(insert(_ROUNDS).values(number=_NEXT_NUMBER).returning(_ROUNDS.c.number))


def reserve_among(batch: Batch, record: Round, round_id: int) -> Deferred:
    """:func:`reserve` among the request's last writes, for a round whose id the
    request's first read took (:func:`~feltlab.server.services.statements.next_id`): set
    on it now; the write answers its number once the batch has run."""
    record.id = round_id
    values = {name: getattr(record, name) for name in ROUND_NAMES if name != "number"}
    return batch.add(_RESERVED, {**values, "number_at_table": record.table_id})


def _insert(connection: Connection, record: Round) -> None:
    """Insert a new round's row; its id and its number at its table set on it."""
    values = {name: getattr(record, name) for name in ROUND_NAMES if name not in _GIVEN}
    row = _NEW_ROUND.first(connection, {**values, "number_at_table": record.table_id})
    assert row is not None
    record.id, record.number = int(row.id), int(row.number)


def write(batch: Batch, played: Played, moment: datetime) -> Deferred | None:
    """The round's changes as the request's last writes (see the module's text); the
    insert of the seat that joined, whose id it answers once the batch has run."""
    loaded = played.loaded
    record = loaded.record
    texts = played.texts
    if not played.opened:  # an opened round's log has them all already (open_round)
        record.log = extend_log(record.log, texts)
    if texts:
        batch.add_rows(_NEW_EVENTS, [{"round_id": record.id, "seq": loaded.events + index,
                                      "action": text, "at": moment}
                                     for index, text in enumerate(texts)])
        for _ in texts:
            faults.event_appended()
    loaded.events += len(texts)
    seat, joined = played.new_seat, None
    if seat is not None:
        joined = batch.add(_NEW_SEAT, {name: getattr(seat, name) for name in SEAT_NAMES
                                       if name != "id"})
    if played.changed:
        moved: dict[str, object] = {}
        for index, changed in enumerate(played.changed):
            moved |= {f"seat_id_{index}": changed.id, f"staked_{index}": changed.staked,
                      f"total_{index}": changed.total,
                      f"balance_after_{index}": changed.balance_after}
        batch.add(_seats_moved(len(played.changed)), moved)
    if not played.opened:
        batch.add(_ROUND_MOVED, {
            "round_id_": record.id, "new_phase": record.phase, "new_log": record.log,
            "new_deadline": record.deadline, "new_client_seed": record.client_seed,
            "new_completed_at": record.completed_at,
            "new_figures_pending": bool(record.figures_pending)})
    return joined
