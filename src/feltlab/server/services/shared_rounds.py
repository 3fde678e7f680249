"""The money requests of a shared table (a bet into the round's betting window, a
decision) and its timers (the window closing with a deal, an absent player folded), in
SQLAlchemy Core on :mod:`feltlab.server.services.money_path`'s frame, as the private
tables' are (:mod:`feltlab.server.services.private_rounds`).

Each is one transaction: the first statement reads the caller, their stored answer, the
table (locked) and the round with its whole log, its seats and who sits at the table
(:mod:`feltlab.server.services.round_rows`; on PostgreSQL the round is read again once
the lock is held, with them); the engine runs in memory, and the writes follow in batches
(the money of every seat by one guarded UPDATE each, the events in one INSERT, the seats
in one, the round's row once). A refusal writes nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import timedelta
from functools import cache
from typing import Any

from sqlalchemy import Connection, bindparam, case, func, insert, select, update
from sqlalchemy.sql.elements import BindParameter

from feltlab.core.engine import Deal, Fold, HandState, Phase, action_to_json
from feltlab.core.rules import load_rules
from feltlab.server.auth import Caller
from feltlab.server.clock import aware, now
from feltlab.server.errors import Conflict, not_found
from feltlab.server.fairness import commitment, new_server_seed
from feltlab.server.models import (
    GameTable,
    Round,
    RoundEvent,
    RoundSeat,
    TableSeat,
    User,
    detached,
    table_of,
)
from feltlab.server.services import changes, money_path, round_money, round_rows, rounds
from feltlab.server.services.context import Services
from feltlab.server.services.database import write_connection
from feltlab.server.services.idempotency import Answer, MoneyRequest
from feltlab.server.services.private_rounds import SharedWork, Wagers, rounds_done
from feltlab.server.services.round_log import (
    EMPTY_LOG,
    LoadedRound,
    actions_of,
    append_events,
    cached_deck,
    extend_log,
)
from feltlab.server.services.rounds import check_stake_on, run_actions
from feltlab.server.services.statements import Batch, Prepared
from feltlab.server.views import Fresh, table_state, view_of, wire_text

_TABLES, _ROUNDS, _SEATS = table_of(GameTable), table_of(Round), table_of(RoundSeat)
_SITTING, _USERS = table_of(TableSeat), table_of(User)
_EVENTS = table_of(RoundEvent)
_TABLE_NAMES, ROUND_NAMES, SEAT_NAMES = (tuple(column.name for column in table.c)
                                         for table in (_TABLES, _ROUNDS, _SEATS))
"""Column names, listed once: iterating a table's columns costs more than a query."""
TABLE_COLUMNS = tuple(column.label(f"t_{column.name}") for column in _TABLES.c)
ROUND_COLUMNS = tuple(column.label(f"r_{column.name}") for column in _ROUNDS.c)
_NEW_ROUND = Prepared(insert(_ROUNDS).returning(_ROUNDS.c.id))
_NEW_SEAT = Prepared(insert(_SEATS).returning(_SEATS.c.id))

_OTHER = _ROUNDS.alias("table_rounds")  # the table's rounds, apart from the one joined
_UNFINISHED = (select(func.min(_OTHER.c.id))
               .where(_OTHER.c.table_id == _TABLES.c.id, _OTHER.c.phase != "complete")
               .correlate(_TABLES).scalar_subquery())
_MY_SEAT = (select(_SITTING.c.seat).where(_SITTING.c.table_id == _TABLES.c.id,
                                          _SITTING.c.user_id == _USERS.c.id)
            .correlate(_TABLES, _USERS).scalar_subquery().label("my_seat"))


def _at_table(joined: Any) -> Any:
    return (joined.join(_TABLES, _TABLES.c.id == bindparam("table_id"))
            .outerjoin(_ROUNDS, _ROUNDS.c.id == _UNFINISHED))


_BET_READ = money_path.first_read(
    *TABLE_COLUMNS, *ROUND_COLUMNS, _MY_SEAT, joined=_at_table, table_id=_TABLES.c.id,
    locked=_TABLES, sqlite_only=round_rows.seats_and_sitting("sqlite", _ROUNDS.c.id,
                                                             _TABLES.c.id))
"""The caller, their stored answer, the table (locked), the caller's seat at it and the
table's unfinished round, if any, with its log; on SQLite the round's seats and who sits
at the table too (PostgreSQL reads the round again once the lock is held)."""
_ROUND_SEATS = Prepared(select(*(_SEATS.c[name] for name in SEAT_NAMES))
                        .where(_SEATS.c.round_id == bindparam("round_id"))
                        .order_by(_SEATS.c.seat))
_SEATED = Prepared(select(_SITTING.c.seat, _SITTING.c.user_id, _USERS.c.username)
                   .join(_USERS, _USERS.c.id == _SITTING.c.user_id)
                   .where(_SITTING.c.table_id == bindparam("table_id"))
                   .order_by(_SITTING.c.seat))
_NAMES_OF = select(_USERS.c.id, _USERS.c.username).where(
    _USERS.c.id.in_(bindparam("user_ids", expanding=True)))


@cache
def _seats_moved(seats: int) -> Prepared:
    """``seats`` seats' stakes, results and balances changed in one statement."""
    ids: list[BindParameter[int]] = [bindparam(f"seat_id_{index}") for index in range(seats)]

    def each(name: str) -> Any:
        return case(*((_SEATS.c.id == seat_id,
                       bindparam(f"{name}_{index}", type_=_SEATS.c[name].type))
                      for index, seat_id in enumerate(ids)))

    return Prepared(update(_SEATS).where(_SEATS.c.id.in_(ids)).values(
        staked=each("staked"), total=each("total"), balance_after=each("balance_after")))


_ROUND_MOVED = Prepared(update(_ROUNDS).where(_ROUNDS.c.id == bindparam("round_id_")).values(
    phase=bindparam("new_phase"), log=bindparam("new_log"),
    deadline=bindparam("new_deadline"), client_seed=bindparam("new_client_seed"),
    completed_at=bindparam("new_completed_at"),
    figures_pending=bindparam("new_figures_pending")))
_DUE = (select(*TABLE_COLUMNS, *ROUND_COLUMNS)
        .select_from(_ROUNDS.join(_TABLES, _TABLES.c.id == _ROUNDS.c.table_id))
        .where(_ROUNDS.c.id == bindparam("round_id"), _ROUNDS.c.deadline <= bindparam("moment")))
_DUE_READ = {"sqlite": Prepared(_DUE), "postgresql": Prepared(
    _DUE.with_for_update(of=_TABLES, skip_locked=True))}
"""A round whose timer ran out, and its table (locked, skipped if another transaction
holds it, on PostgreSQL)."""


_AGAIN = round_rows.seats_and_sitting("postgresql", _ROUNDS.c.id, _ROUNDS.c.table_id)
"""What PostgreSQL's read of the round once the lock is held carries besides: its seats
and who sits at its table (see :func:`_after_the_lock`)."""
_CURRENT_ROUND = Prepared(select(*ROUND_COLUMNS, *_AGAIN).where(_ROUNDS.c.id == (
    select(func.min(_OTHER.c.id)).where(_OTHER.c.table_id == bindparam("table_id"),
                                        _OTHER.c.phase != "complete").scalar_subquery())))
_ROUND_BY_ID = Prepared(select(*ROUND_COLUMNS, *_AGAIN).where(
    _ROUNDS.c.id == bindparam("round_id")))


def _after_the_lock(connection: Connection, row: Any, query: Prepared,
                    params: dict[str, Any]) -> Any:
    """The round as the first read found it, or on PostgreSQL as it is now: there the
    first read's snapshot was taken before it waited for the table's lock, so a change
    committed meanwhile by the holder (a round opened, an action taken) is read again,
    in a statement of its own. (SQLite's writer waits before its transaction begins.)"""
    if connection.dialect.name != "postgresql":
        return None if row.r_id is None else row
    return query.first(connection, params)  # PostgreSQL's only: see _AGAIN


def table_from_row(row: Any) -> GameTable:
    """The table as a read with :data:`TABLE_COLUMNS` found it (not attached to a
    session)."""
    return detached(GameTable, {name: getattr(row, f"t_{name}") for name in _TABLE_NAMES})


@dataclass
class Seated:
    """Who sits at the table now: (seat, username) in seat order, and their user ids."""

    sitting: list[tuple[int, str]]
    user_ids: set[int]
    names: dict[int, str]


def seated_now(connection: Connection, table_id: int, row: Any = None) -> Seated:
    """Who sits at the table now, with their names: as ``row`` carries it
    (:mod:`feltlab.server.services.round_rows`), else one statement."""
    rows = None if row is None else round_rows.sitting_of(row)
    if rows is None:
        rows = [tuple(found) for found in _SEATED.run(connection, {"table_id": table_id})]
    return Seated([(seat, name) for seat, _, name in rows], {row[1] for row in rows},
                   {user_id: name for _, user_id, name in rows})


def names_of(connection: Connection, loaded: LoadedRound, seated: Seated) -> dict[int, str]:
    """The names of the round's players: those seated from the table's read, any who left
    the table since they bet read once."""
    names = {seat.user_id: seated.names[seat.user_id] for seat in loaded.seats
             if seat.user_id in seated.names}
    missing = sorted({seat.user_id for seat in loaded.seats} - names.keys())
    if missing:
        names |= dict(connection.execute(_NAMES_OF, {"user_ids": missing}).tuples().all())
    return names


def loaded_from_row(connection: Connection, row: Any, shared: bool = True,
                    to_change: bool = True) -> LoadedRound:
    """The round from the first read's row (its log on it), its seats read once, its
    state replayed; ``to_change``: refused if its rule set changed since (a read shows
    it as it was)."""
    record = detached(Round, {name: getattr(row, f"r_{name}") for name in ROUND_NAMES})
    carried = round_rows.seats_of(row)
    seats = [detached(RoundSeat, seat) for seat in (
        [seat._asdict() for seat in _ROUND_SEATS.run(connection, {"round_id": record.id})]
        if carried is None else carried)]
    if not record.log:  # a round from before the log column: its events, once
        texts = connection.execute(select(_EVENTS.c.action).where(
            _EVENTS.c.round_id == record.id).order_by(_EVENTS.c.seq)).scalars().all()
        record.log = extend_log("", list(texts))
    actions = actions_of(record.log)
    rules = (rounds.rules_for(record.rules_id, record.fingerprint) if to_change
             else load_rules(record.rules_id))
    state = HandState.replay(rules, cached_deck(record.server_seed, record.client_seed),
                             actions, verified=rules.fingerprint == record.fingerprint)
    return LoadedRound(record, seats, rules, state, len(actions), shared=shared)


def _opened(connection: Connection, table: GameTable) -> LoadedRound:
    """A new round at ``table`` in its betting window; its commitment is fixed now,
    before any seat's client seed is seen."""
    rules = rounds.rules_for(table.rules_id, table.fingerprint)
    seed, moment = new_server_seed(), now()
    record = detached(Round, {
        "table_id": table.id, "rules_id": rules.id, "fingerprint": rules.fingerprint,
        "currency": table.currency, "server_seed": seed, "commitment": commitment(seed),
        "client_seed": "", "phase": Phase.WAGERS.value, "created_at": moment,
        "deadline": moment + timedelta(seconds=table.betting_seconds), "log": EMPTY_LOG,
        "completed_at": None, "figures_pending": False})
    record.id = _NEW_ROUND.scalar(connection, {
        name: getattr(record, name) for name in ROUND_NAMES if name != "id"})
    state = HandState(rules, cached_deck(seed, ""))
    return LoadedRound(record, [], rules, state, 0, shared=True)


# --- the steps every change shares ---------------------------------------------------------

def _advance(connection: Connection, table: GameTable, loaded: LoadedRound) -> None:
    """Run the dealer's part up to the next decision or the end, set the decision timer,
    and pay every seat out at once when the round is complete (the payments in user id
    order)."""
    run_actions(loaded.state, [])
    state, record = loaded.state, loaded.record
    record.phase = state.phase.value
    if state.phase is Phase.DECISIONS:
        record.deadline = now() + timedelta(seconds=table.decision_seconds)
    elif state.phase is not Phase.WAGERS:
        record.deadline = None
    if state.phase is not Phase.COMPLETE:
        return
    for seat in loaded.seats:
        settlement = state.seats[seat.seat].settlement
        assert settlement is not None
        seat.total = settlement.total
    rounds.pay_seats(connection, loaded, sorted(loaded.seats, key=lambda item: item.user_id))
    record.completed_at = now()


def _deal(loaded: LoadedRound) -> None:
    """Close the wagers: mix the seats' client seeds into the deck, and deal."""
    rounds.mix_client_seeds(loaded)
    run_actions(loaded.state, [Deal()])


def _write(connection: Connection, loaded: LoadedRound, before: int,
           changed: list[RoundSeat], new_seat: RoundSeat | None = None,
           batch: Batch | None = None) -> None:
    """Write what the request did: the actions after the first ``before`` of the log,
    the seats ``changed`` (and ``new_seat``, inserted), and the round's row, marked at
    the end of the round for the pit's figures (written after the commit by the worker's
    recorder, :func:`feltlab.server.services.private_rounds.settled`): with ``batch``, as
    the request's last writes; without, at once."""
    writes = batch or Batch()
    record, state = loaded.record, loaded.state
    texts = [json.dumps(action_to_json(action)) for action in state.log[before:]]
    moment = now()
    record.log = extend_log(record.log, texts)
    append_events(writes, record.id, loaded.events, texts, moment)
    loaded.events += len(texts)
    if new_seat is not None:
        writes.add(_NEW_SEAT, {name: getattr(new_seat, name) for name in SEAT_NAMES
                               if name != "id"},
                   then=lambda ids: setattr(new_seat, "id", ids[0]))
    if state.phase is Phase.COMPLETE:
        changed = [seat for seat in loaded.seats if seat is not new_seat]
    if changed:
        moved: dict[str, Any] = {}
        for index, seat in enumerate(changed):
            moved |= {f"seat_id_{index}": seat.id, f"staked_{index}": seat.staked,
                      f"total_{index}": seat.total,
                      f"balance_after_{index}": seat.balance_after}
        writes.add(_seats_moved(len(changed)), moved)
    writes.add(_ROUND_MOVED, {
        "round_id_": record.id, "new_phase": record.phase, "new_log": record.log,
        "new_deadline": record.deadline, "new_client_seed": record.client_seed,
        "new_completed_at": record.completed_at,
        "new_figures_pending": state.phase is Phase.COMPLETE})
    if batch is None:
        writes.run(connection)


def _answer(found: Services, connection: Connection, table: GameTable, loaded: LoadedRound,
            user_id: int, seen: int, seated: Seated | None = None) -> tuple[dict[str, Any],
                                                                          Fresh]:
    """The round as the caller sees it, and the table's new state for its watchers."""
    seated = seated or seated_now(connection, table.id)
    names = names_of(connection, loaded, seated)
    rounds_done(found, loaded)
    fresh = Fresh(seen, table_state(table, seated.sitting, loaded, names))
    tell_others(found, connection, table.id, fresh, told=True)
    return view_of(loaded, user_id, names), fresh


def tell_others(found: Services, connection: Connection, table_id: int, fresh: Fresh,
                told: bool) -> None:
    """On PostgreSQL, NOTIFY the other workers of the table's new state when the
    transaction commits, if it fits a NOTIFY (a money request's first statement ``told``
    them of the change already; without the state they read the table again)."""
    if connection.dialect.name != "postgresql":
        return  # SQLite's workers are told after the commit (feltlab.server.notify)
    head = f"{table_id}:{found.origin}"
    payload = changes.with_state(head, wire_text(fresh.state), changes.NOTIFY_BYTES)
    if payload != head or not told:
        changes.notify_in(connection, table_id, payload)


# --- a bet ---------------------------------------------------------------------------------

def bet(found: Services, token: str, table_id: int, placed: Wagers, request: MoneyRequest
        ) -> tuple[Answer, Fresh | None]:
    """Bet at shared table ``table_id``: the bet joins the round in its betting window
    (opening one if none is open), its wagers debited now and its client seed kept on the
    seat; once every seated player has bet, the seeds are mixed and the round is dealt.
    Also answers the table's new state for its watchers (None on a retry's answer)."""
    fresh: list[Fresh] = []

    def work(connection: Connection, caller: Caller, row: Any, batch: Batch
             ) -> tuple[int, Any]:
        fresh.clear()
        table = table_from_row(row)
        if not table.shared:  # a private table's bet: never sent here
            raise not_found(f"table {table_id}")
        if table.status != "open":
            raise Conflict(f"table {table_id} is closed")
        if row.my_seat is None:
            raise Conflict(f"take a seat at table {table_id} before betting")
        seen = found.hub.stamp(table_id)  # the table is locked: nobody changes it now
        current = _after_the_lock(connection, row, _CURRENT_ROUND, {"table_id": table_id})
        if current is None:
            loaded = _opened(connection, table)
        else:
            if current.r_phase != Phase.WAGERS.value:
                raise Conflict(f"betting is closed: round {current.r_id} is being played")
            loaded = loaded_from_row(connection, current)
        if loaded.seat_of(caller.user_id) is not None:
            raise Conflict(f"you have already bet in round {loaded.record.id}")
        record = loaded.record
        actions = rounds.wager_actions(loaded.rules, row.my_seat, placed.wagers,
                                       placed.colour)
        stake = sum(amount for amount in placed.wagers.values() if amount)
        check_stake_on(connection, money_path.user_of(row), table.id, record.currency, stake)
        run_actions(HandState(loaded.rules, loaded.state.deck), [*actions, Deal()])  # a trial
        before = len(loaded.state.log)
        run_actions(loaded.state, actions)
        seat = detached(RoundSeat, {
            "round_id": record.id, "seat": row.my_seat, "user_id": caller.user_id,
            "staked": stake, "client_seed": placed.client_seed, "total": None,
            "balance_after": None})
        after = rounds.move_seat_money(connection, loaded, seat,
                                       round_money.RoundMoney(stake, 0, "wagers"))
        seat.balance_before = after + stake
        loaded.seats.append(seat)
        loaded.seats.sort(key=lambda item: item.seat)
        seated = seated_now(connection, table.id, row if current is None else current)
        if {item.user_id for item in loaded.seats} >= seated.user_ids:
            _deal(loaded)
            _advance(connection, table, loaded)
        _write(connection, loaded, before, [], seat, batch)
        view, state = _answer(found, connection, table, loaded, caller.user_id, seen, seated)
        fresh.append(state)
        return 201, view

    answer = money_path.run(found, token, request, _BET_READ, {"table_id": table_id}, work,
                            lambda: not_found(f"table {table_id}"))
    return answer, (fresh[-1] if fresh else None)


# --- a decision ----------------------------------------------------------------------------

def decide_work(found: Services, round_id: int, decision: dict[str, Any],
                fresh: list[Fresh]) -> SharedWork:
    """The work of a decision in round ``round_id`` at a shared table, in the transaction
    of :func:`feltlab.server.services.private_rounds.decide` (whose first read locked the
    table and found the caller's seat): the round read once with its log, checked by the
    engine and the player's limits, its stake debited, the round run on; the table's new
    state put in ``fresh``."""

    def work(connection: Connection, caller: Caller, row: Any, batch: Batch
             ) -> tuple[int, Any]:
        fresh.clear()
        table, user = table_from_row(row), money_path.user_of(row)
        seen = found.hub.stamp(table.id)  # the table is locked: nobody changes it now
        current = _after_the_lock(connection, row, _ROUND_BY_ID, {"round_id": round_id})
        assert current is not None  # a round is never deleted
        loaded = loaded_from_row(connection, current)
        seat, action, stake = rounds.checked_decision(loaded, caller.user_id, decision)
        record = loaded.record
        if stake:  # a raise, a street bet, a play: checked as the opening bet is
            check_stake_on(connection, user, record.table_id, record.currency, stake)
        before = len(loaded.state.log)
        run_actions(loaded.state, [action])
        if stake:
            rounds.move_seat_money(connection, loaded, seat,
                                   round_money.RoundMoney(stake, 0, decision["action"]))
        seat.staked += stake
        _advance(connection, table, loaded)
        _write(connection, loaded, before, [seat] if stake else [], batch=batch)
        view, state = _answer(found, connection, table, loaded, caller.user_id, seen,
                              seated_now(connection, table.id, current))
        fresh.append(state)
        return 200, view

    return work


# --- the timers ----------------------------------------------------------------------------

def run_due(found: Services, round_id: int) -> tuple[int, Fresh] | None:
    """Deal the round if its betting window closed, or fold the seat whose time ran out;
    answers its table and the table's new state, or None if another worker holds the
    table or the round moved already. The table's row is locked first (skipped if
    another transaction holds it, on PostgreSQL), as on every path that changes a round."""
    with write_connection(found.engine) as connection:
        row = _DUE_READ[connection.dialect.name].first(
            connection, {"round_id": round_id, "moment": now()})
        if row is None:
            return None  # not due, or another worker is at this table now
        table = table_from_row(row)
        seen = found.hub.stamp(table.id)
        current = _after_the_lock(connection, row, _ROUND_BY_ID, {"round_id": round_id})
        if (current is None or current.r_deadline is None
                or aware(current.r_deadline) > now()):
            return None  # moved by the lock's holder meanwhile
        loaded = loaded_from_row(connection, current)
        before = len(loaded.state.log)
        if loaded.state.phase is Phase.WAGERS:
            _deal(loaded)
        elif loaded.state.phase is Phase.DECISIONS and loaded.state.to_act is not None:
            run_actions(loaded.state, [Fold(loaded.state.to_act)])
        else:
            return None
        _advance(connection, table, loaded)
        _write(connection, loaded, before, [])
        seated = seated_now(connection, table.id)
        names = names_of(connection, loaded, seated)
        rounds_done(found, loaded)
        fresh = Fresh(seen, table_state(table, seated.sitting, loaded, names))
        tell_others(found, connection, table.id, fresh, told=False)
        return table.id, fresh

