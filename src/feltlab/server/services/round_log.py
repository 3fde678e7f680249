"""The rounds as stored: each one is its append-only event log (one engine action a row)
beside the seeds that give its deck. Its state is always the replay of that log, so a
round resumes after any crash exactly where its last committed event left it.

This module loads rounds (:class:`LoadedRound`), appends to their logs and finds them;
:mod:`feltlab.server.services.rounds` drives them through their lifecycle.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from sqlalchemy import bindparam, func, insert, select
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from feltlab.core import jsontext
from feltlab.core.cards import Card
from feltlab.core.engine import (
    Action,
    ActionError,
    HandState,
    Phase,
    action_from_json,
    action_to_json,
)
from feltlab.core.rules import Rules, load_rules
from feltlab.server import faults
from feltlab.server.clock import now
from feltlab.server.errors import Refused, not_found
from feltlab.server.fairness import deck_from_seed
from feltlab.server.models import GameTable, Round, RoundEvent, RoundSeat, table_of
from feltlab.server.services.statements import Batch, Prepared
from feltlab.server.services.tables import lock_table


@dataclass
class LoadedRound:
    """A round with its seats and its state replayed from the log."""

    record: Round
    seats: list[RoundSeat]
    rules: Rules
    state: HandState
    events: int
    shared: bool = False
    """At a shared table: the seats' client seeds are mixed at the deal."""

    def seat_of(self, user_id: int) -> RoundSeat | None:
        return next((seat for seat in self.seats if seat.user_id == user_id), None)


# Statements run on every request are built once: building one costs more CPU than
# running it, and a statement kept keeps its compiled form's cache key too.
_ROUND = (select(Round, GameTable.shared).join(GameTable, GameTable.id == Round.table_id)
          .where(Round.id == bindparam("round_id")))
_ROUND_LOCKED = _ROUND.with_for_update(of=Round)
_SEATS = (select(RoundSeat).where(RoundSeat.round_id == bindparam("round_id"))
          .order_by(RoundSeat.seat))
_ROUNDS, _ROUND_SEATS, _EVENT_LOG = table_of(Round), table_of(RoundSeat), table_of(RoundEvent)
_EVENTS = (select(_EVENT_LOG.c.action).where(_EVENT_LOG.c.round_id == bindparam("round_id"))
           .order_by(_EVENT_LOG.c.seq))
_TABLE_OF_SEAT = (select(_ROUNDS.c.table_id)
                  .join(_ROUND_SEATS, _ROUND_SEATS.c.round_id == _ROUNDS.c.id)
                  .where(_ROUND_SEATS.c.round_id == bindparam("round_id"),
                         _ROUND_SEATS.c.user_id == bindparam("user_id")))
_UNFINISHED = select(func.min(_ROUNDS.c.id)).where(_ROUNDS.c.table_id == bindparam("table_id"),
                                                   _ROUNDS.c.phase != Phase.COMPLETE.value)
_LATEST = select(func.max(_ROUNDS.c.id)).where(_ROUNDS.c.table_id == bindparam("table_id"))
_NEW_EVENT = Prepared(insert(_EVENT_LOG))


def load_round(session: Session, round_id: int, lock: bool = False) -> LoadedRound:
    """The round replayed from its log; with ``lock``, its row is locked."""
    key = {"round_id": round_id}
    row = session.execute(_ROUND_LOCKED if lock else _ROUND, key).one_or_none()
    if row is None:
        raise not_found(f"round {round_id}")
    record, shared = row
    seats = list(session.scalars(_SEATS, key))
    if not record.log:  # a round from before the log column: its events, once
        texts = list(session.connection().execute(_EVENTS, key).scalars())
        set_committed_value(record, "log", extend_log("", texts))
    actions = actions_of(record.log)
    rules = load_rules(record.rules_id)
    state = HandState.replay(rules, cached_deck(record.server_seed, record.client_seed),
                             actions)
    return LoadedRound(record, seats, rules, state, len(actions), shared)


EMPTY_LOG = "[]"


def extend_log(log: str, texts: list[str]) -> str:
    """A round's log (a JSON array of actions) with the actions ``texts`` (each one
    action's JSON) appended, without decoding it.

    >>> extend_log("[]", ['{"type": "Deal"}'])
    '[{"type": "Deal"}]'
    >>> extend_log('[{"type": "Deal"}]', ['{"type": "Reveal"}', '{"type": "Settle"}'])
    '[{"type": "Deal"},{"type": "Reveal"},{"type": "Settle"}]'
    """
    if not texts:
        return log or EMPTY_LOG
    if not log or log == EMPTY_LOG:
        return "[" + ",".join(texts) + "]"
    return log[:-1] + "," + ",".join(texts) + "]"


def actions_of(log: str) -> list[Action]:
    """The actions of a round's log."""
    return [action_from_json(item) for item in jsontext.loads(log or EMPTY_LOG)]


@lru_cache(maxsize=4096)
def cached_deck(server_seed: str, client_seed: str) -> tuple[Card, ...]:
    """:func:`deck_from_seed`, kept for the rounds a worker loads again and again."""
    return deck_from_seed(server_seed, client_seed)


def load_for(session: Session, round_id: int, user_id: int) -> LoadedRound:
    """The round if the caller has a seat in it; another player's round is not found."""
    table_of_seat(session, round_id, user_id)
    return load_round(session, round_id)


def lock_for(session: Session, round_id: int, user_id: int
             ) -> tuple[GameTable, LoadedRound]:
    """:func:`load_for` to change the round: its table's row is locked first, then the
    round's."""
    table = lock_table(session, table_of_seat(session, round_id, user_id))
    assert table is not None
    return table, load_round(session, round_id, lock=True)


def table_of_seat(session: Session, round_id: int, user_id: int) -> int:
    """The table of a round in which the caller has a seat."""
    table_id: int | None = session.connection().execute(
        _TABLE_OF_SEAT, {"round_id": round_id, "user_id": user_id}).scalar()
    if table_id is None:
        raise not_found(f"round {round_id}")
    return table_id


def append(session: Session, loaded: LoadedRound, action: Action) -> None:
    """Apply ``action`` to the state and append it to the log (same transaction)."""
    try:
        loaded.state.apply(action)
    except ActionError as error:
        raise Refused(str(error)) from None
    text = json.dumps(action_to_json(action))
    _NEW_EVENT.run(session.connection(), {  # Core: outside the unit of work
        "round_id": loaded.record.id, "seq": loaded.events, "action": text, "at": now()})
    loaded.record.log = extend_log(loaded.record.log, [text])
    loaded.events += 1
    faults.event_appended()


def append_events(batch: Batch, round_id: int, first: int, texts: list[str],
                  moment: datetime) -> None:
    """Append actions (as their JSON texts) to the round's event log, numbered from
    ``first``, with the transaction's last writes (one statement)."""
    if not texts:
        return
    batch.add_rows(_NEW_EVENT, [{"round_id": round_id, "seq": first + index,
                                 "action": text, "at": moment}
                                for index, text in enumerate(texts)])
    for _ in texts:
        faults.event_appended()


def unfinished_round(session: Session, table_id: int) -> int | None:
    """The table's round that is not complete yet, if any."""
    found: int | None = session.connection().execute(
        _UNFINISHED, {"table_id": table_id}).scalar()
    return found


def latest_round(session: Session, table_id: int) -> int | None:
    found: int | None = session.connection().execute(_LATEST, {"table_id": table_id}).scalar()
    return found


def open_round_of(session: Session, user_id: int, currency: str) -> int | None:
    """An unfinished round in which the player has a seat, in ``currency``."""
    return session.scalar(select(func.min(Round.id)).join(
        RoundSeat, RoundSeat.round_id == Round.id).where(
        RoundSeat.user_id == user_id, Round.currency == currency,
        Round.phase != Phase.COMPLETE.value))


def recent_rounds(session: Session, user_id: int, limit: int, before: int | None = None
                  ) -> list[int]:
    """Ids of the caller's latest rounds, newest first; with ``before``, only those with a
    smaller id (a cursor: the last id of the page before)."""
    query = select(RoundSeat.round_id).where(RoundSeat.user_id == user_id)
    if before is not None:
        query = query.where(RoundSeat.round_id < before)
    return list(session.scalars(query.order_by(RoundSeat.round_id.desc()).limit(limit)))
