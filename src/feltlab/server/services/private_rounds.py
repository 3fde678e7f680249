"""The money requests of a private table (a bet that deals at once, a decision), in
SQLAlchemy Core on :mod:`feltlab.server.services.money_path`'s frame.

A bet or a decision is one transaction of at most eight statements on SQLite, four on
PostgreSQL: the first reads the caller, their stored answer, the table (locked) and, for
a decision, the round with its whole log and the caller's seat; then the round's row, the
money (:mod:`feltlab.server.services.round_money`), and a batch of the last writes: the
events, the seat, the round's new state and the stored answer. The engine runs in memory
between the read and the writes, so a refusal writes nothing. The next round's seed is
derived, not written (its table's seed key and the newest round's seed, in the bet's
first read); the pit's figures of a settled round are written after the commit
(:mod:`feltlab.server.services.figures`). A shared table's request runs in the same
transaction, on the same first row, through
:mod:`feltlab.server.services.shared_rounds`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Connection,
    and_,
    bindparam,
    func,
    insert,
    literal_column,
    select,
    update,
)
from sqlalchemy.sql.selectable import Join

from feltlab.core.engine import Deal, HandState, Phase, action_to_json
from feltlab.server.auth import Caller
from feltlab.server.clock import now
from feltlab.server.errors import Conflict, not_found
from feltlab.server.fairness import commitment, new_server_seed, next_seed
from feltlab.server.models import (
    GameTable,
    Round,
    RoundEvent,
    RoundSeat,
    User,
    Wallet,
    detached,
    table_of,
)
from feltlab.server.services import money_path, round_money, round_rows, rounds
from feltlab.server.services.context import Services
from feltlab.server.services.idempotency import Answer, MoneyRequest
from feltlab.server.services.round_log import (
    EMPTY_LOG,
    LoadedRound,
    actions_of,
    append_events,
    cached_deck,
    extend_log,
)
from feltlab.server.services.statements import Batch, Prepared
from feltlab.server.views import Fresh, table_state, view_of

_TABLES, _ROUNDS, _SEATS = table_of(GameTable), table_of(Round), table_of(RoundSeat)
_EVENTS, _WALLETS, _USERS = table_of(RoundEvent), table_of(Wallet), table_of(User)
_TABLE_NAMES, _ROUND_NAMES, _SEAT_NAMES = (tuple(column.name for column in table.c)
                                           for table in (_TABLES, _ROUNDS, _SEATS))
"""Column names, listed once: iterating a table's columns costs more than a query."""
_TABLE_COLUMNS = tuple(column.label(f"t_{column.name}") for column in _TABLES.c)
_ROUND_COLUMNS = tuple(column.label(f"r_{column.name}") for column in _ROUNDS.c)
_SEAT_COLUMNS = tuple(column.label(f"s_{column.name}") for column in _SEATS.c)
_UNFINISHED = (select(func.min(_ROUNDS.c.id))
               .where(_ROUNDS.c.table_id == _TABLES.c.id,
                      _ROUNDS.c.phase != literal_column("'complete'"))  # as the index
               .scalar_subquery().label("unfinished"))
_LAST_SEED = (select(_ROUNDS.c.server_seed).where(_ROUNDS.c.table_id == _TABLES.c.id)
              .order_by(_ROUNDS.c.id.desc()).limit(1).scalar_subquery().label("last_seed"))
"""The server seed of the table's newest round, from which its next one is derived."""


def _at_table(joined: Join) -> Join:
    return joined.join(_TABLES, _TABLES.c.id == bindparam("table_id"))


def _in_round(joined: Join) -> Join:
    return (joined.join(_SEATS, and_(_SEATS.c.round_id == bindparam("round_id"),
                                     _SEATS.c.user_id == _USERS.c.id))
            .join(_ROUNDS, _ROUNDS.c.id == _SEATS.c.round_id)
            .join(_TABLES, _TABLES.c.id == _ROUNDS.c.table_id)
            .join(_WALLETS, and_(_WALLETS.c.user_id == _USERS.c.id,
                                 _WALLETS.c.currency == _ROUNDS.c.currency)))


# the table's row is locked first, as on every path that changes a round (no cycles)
_BET_READ = money_path.first_read(*_TABLE_COLUMNS, _UNFINISHED, _LAST_SEED,
                                  joined=_at_table,
                                  table_id=_TABLES.c.id, locked=_TABLES)
_ACT_READ = money_path.first_read(
    *_TABLE_COLUMNS, *_ROUND_COLUMNS, *_SEAT_COLUMNS, _WALLETS.c.balance.label("balance"),
    joined=_in_round, table_id=_TABLES.c.id, locked=_TABLES,
    sqlite_only=round_rows.seats_and_sitting("sqlite", _ROUNDS.c.id, _TABLES.c.id,
                                             _TABLES.c.shared))
"""The caller, their stored answer, the table (locked), the round with its log, the
caller's seat and balance; at a shared table on SQLite the round's seats and who sits at
the table too (PostgreSQL reads the round again once the lock is held)."""
_NEW_ROUND = Prepared(insert(_ROUNDS).returning(_ROUNDS.c.id))
_NEW_SEAT = Prepared(insert(_SEATS).returning(_SEATS.c.id))
_SEAT_FIGURES = Prepared(update(_SEATS).where(_SEATS.c.id == bindparam("seat_id")).values(
    staked=bindparam("new_staked"), total=bindparam("new_total"),
    balance_after=bindparam("new_balance_after")))
_ROUND_MOVED = Prepared(update(_ROUNDS).where(_ROUNDS.c.id == bindparam("round_id_")).values(
    phase=bindparam("new_phase"), log=bindparam("new_log"),
    completed_at=bindparam("new_completed_at"),
    figures_pending=bindparam("new_figures_pending")))

SharedWork = money_path.Work
"""A shared table's work in the same transaction, on the first read's row (the table
locked, the caller's account and seat), its last writes in the batch."""


@dataclass(frozen=True)
class Wagers:
    """A bet as the caller places it: wager amounts by name, the colour where the game
    has one, and the client seed (checked already; "" for none)."""

    wagers: dict[str, int]
    colour: str | None
    client_seed: str


def _table(row: Any) -> GameTable:
    """The table as the first read found it (not attached to a session)."""
    return detached(GameTable, {name: getattr(row, f"t_{name}") for name in _TABLE_NAMES})


# --- a bet ---------------------------------------------------------------------------------

def bet(found: Services, token: str, table_id: int, placed: Wagers, request: MoneyRequest,
        shared: SharedWork) -> Answer:
    """Bet at table ``table_id``: a private table opens a round, stakes the wagers and
    deals (and settles, if nobody has a decision to make); a shared one runs ``shared``."""
    made: list[tuple[LoadedRound, Fresh | None]] = []

    def work(connection: Connection, caller: Caller, row: Any, batch: Batch
             ) -> tuple[int, Any]:
        made.clear()
        table = _table(row)
        if table.shared:
            return shared(connection, caller, row, batch)
        if table.owner_id != caller.user_id:
            raise not_found(f"table {table_id}")
        if table.status != "open":
            raise Conflict(f"table {table_id} is closed")
        # on PostgreSQL a bet that waited for this table's lock read the other rows as
        # they were before: a round opened meanwhile is caught by the database (one
        # unfinished round a table, a seed used once) and this bet runs again
        if row.unfinished is not None:
            raise Conflict(f"round {row.unfinished} at this table is not finished")
        seen = found.hub.stamp(table_id)  # the table is locked: nobody changes it now
        loaded = _deal(found, connection, batch, caller, row, table, placed)
        made.append((loaded, _fresh(found, seen, table, loaded, caller)))
        return 201, view_of(loaded, caller.user_id, {})

    answer = money_path.run(found, token, request, _BET_READ, {"table_id": table_id}, work,
                            lambda: not_found(f"table {table_id}"))
    if made:
        loaded, fresh = made[-1]
        settled(found, loaded)
        found.publish(table_id, fresh, notified=True)
    return answer


def _fresh(found: Services, seen: int, table: GameTable, loaded: LoadedRound,
           caller: Caller) -> Fresh | None:
    """The private table's new state, if anyone is to be shown it (a watcher in this
    worker, or on SQLite another worker); else None: nobody reads it, and the table's next
    watcher reads the table."""
    if not found.shows(table.id):
        return None
    return Fresh(seen, table_state(table, None, loaded, {caller.user_id: caller.username}))


def _deal(found: Services, connection: Connection, batch: Batch, caller: Caller, row: Any,
          table: GameTable, placed: Wagers) -> LoadedRound:
    rules = rounds.rules_for(table.rules_id, table.fingerprint)
    actions = rounds.wager_actions(rules, 1, placed.wagers, placed.colour)
    stake = sum(amount for amount in placed.wagers.values() if amount)
    rounds.check_stake_on(connection, money_path.user_of(row), table.id, table.currency,
                          stake)
    # the seed whose commitment the table showed before the bet (a table from before
    # seed keys has none to show: a fresh seed, committed to at the deal)
    seed = (next_seed(table.seed_key, row.last_seed) if table.seed_key
            else new_server_seed())
    state = HandState(rules, cached_deck(seed, placed.client_seed))  # kept for the decisions
    rounds.run_actions(state, [*actions, Deal()])
    moment = now()
    texts = [json.dumps(action_to_json(action)) for action in state.log]
    record = detached(Round, {
        "table_id": table.id, "rules_id": rules.id, "fingerprint": rules.fingerprint,
        "currency": table.currency, "server_seed": seed, "commitment": commitment(seed),
        "client_seed": placed.client_seed, "phase": state.phase.value, "created_at": moment,
        "deadline": None, "log": extend_log(EMPTY_LOG, texts),
        "completed_at": moment if state.phase is Phase.COMPLETE else None,
        "figures_pending": state.phase is Phase.COMPLETE})
    record.id = _NEW_ROUND.scalar(connection, _round_values(record))
    seat = detached(RoundSeat, {
        "round_id": record.id, "seat": 1, "user_id": caller.user_id, "staked": stake,
        "client_seed": placed.client_seed, "balance_before": None, "balance_after": None,
        "total": None})
    loaded = LoadedRound(record, [seat], rules, state, len(texts))
    payout = _settle(loaded)
    after = rounds.move_seat_money(connection, loaded, seat,
                                   round_money.RoundMoney(stake, payout, "wagers"))
    seat.balance_before = after - payout + stake
    if state.phase is Phase.COMPLETE:
        seat.balance_after = after
    batch.add(_NEW_SEAT, {name: getattr(seat, name) for name in _SEAT_NAMES if name != "id"},
              then=lambda ids: setattr(seat, "id", ids[0]))
    append_events(batch, record.id, 0, texts, moment)
    rounds_done(found, loaded)
    return loaded


def _round_values(record: Round) -> dict[str, Any]:
    return {name: getattr(record, name) for name in _ROUND_NAMES if name != "id"}


# --- a decision ----------------------------------------------------------------------------

def decide(found: Services, token: str, round_id: int, decision: dict[str, Any],
           request: MoneyRequest, shared: SharedWork) -> tuple[Answer, int | None]:
    """The caller's decision in round ``round_id`` (its stake debited, the round run on,
    settled when complete); a shared table's runs ``shared``. Also answers the table, so
    that the caller can show its watchers (None at a shared table: ``shared`` does)."""
    made: list[tuple[LoadedRound, Fresh | None]] = []

    def work(connection: Connection, caller: Caller, row: Any, batch: Batch
             ) -> tuple[int, Any]:
        made.clear()
        table = _table(row)
        if table.shared:
            return shared(connection, caller, row, batch)
        seen = found.hub.stamp(table.id)  # the table is locked: nobody changes it now
        loaded = _loaded(connection, row)
        _decide(found, connection, batch, row, loaded, caller, decision)
        made.append((loaded, _fresh(found, seen, table, loaded, caller)))
        return 200, view_of(loaded, caller.user_id, {})

    answer = money_path.run(found, token, request, _ACT_READ, {"round_id": round_id}, work,
                            lambda: not_found(f"round {round_id}"))
    if not made:
        return answer, None
    loaded, fresh = made[-1]
    settled(found, loaded)
    table_id = loaded.record.table_id
    found.publish(table_id, fresh, notified=True)
    return answer, table_id


def _loaded(connection: Connection, row: Any) -> LoadedRound:
    """The round and the caller's seat from the first read (no further read: the log is
    on the round's row; a round from before that column reads its events once)."""
    record = detached(Round, {name: getattr(row, f"r_{name}") for name in _ROUND_NAMES})
    seat = detached(RoundSeat, {name: getattr(row, f"s_{name}") for name in _SEAT_NAMES})
    if not record.log:
        texts = connection.execute(select(_EVENTS.c.action).where(
            _EVENTS.c.round_id == record.id).order_by(_EVENTS.c.seq)).scalars().all()
        record.log = extend_log("", list(texts))
    actions = actions_of(record.log)
    rules = rounds.rules_for(record.rules_id, record.fingerprint)
    state = HandState.replay(rules, cached_deck(record.server_seed, record.client_seed),
                             actions, verified=True)  # the rule set's fingerprint checked
    return LoadedRound(record, [seat], rules, state, len(actions))


def _decide(found: Services, connection: Connection, batch: Batch, row: Any,
            loaded: LoadedRound, caller: Caller, decision: dict[str, Any]) -> None:
    seat, action, stake = rounds.checked_decision(loaded, caller.user_id, decision)
    record = loaded.record
    if stake:
        rounds.check_stake_on(connection, money_path.user_of(row), record.table_id,
                              record.currency, stake)
    before = len(loaded.state.log)
    rounds.run_actions(loaded.state, [action])
    seat.staked += stake
    state = loaded.state
    texts = [json.dumps(action_to_json(item)) for item in state.log[before:]]
    moment = now()
    record.log = extend_log(record.log, texts)
    record.phase = state.phase.value
    if state.phase is Phase.COMPLETE:
        record.completed_at = moment
    payout = _settle(loaded)
    money = round_money.RoundMoney(stake, payout, decision["action"])
    if state.phase is Phase.COMPLETE:
        seat.balance_after = (rounds.move_seat_money(connection, loaded, seat, money)
                              if stake or payout else row.balance)
    elif stake:
        rounds.move_seat_money(connection, loaded, seat, money)
    append_events(batch, record.id, loaded.events, texts, moment)
    loaded.events += len(texts)
    if stake or state.phase is Phase.COMPLETE:
        batch.add(_SEAT_FIGURES, {"seat_id": seat.id, "new_staked": seat.staked,
                                  "new_total": seat.total,
                                  "new_balance_after": seat.balance_after})
    batch.add(_ROUND_MOVED, {"round_id_": record.id, "new_phase": record.phase,
                             "new_log": record.log, "new_completed_at": record.completed_at,
                             "new_figures_pending": state.phase is Phase.COMPLETE})
    rounds_done(found, loaded)


# --- the steps both share --------------------------------------------------------------------

def _settle(loaded: LoadedRound) -> int:
    """Settlement, in one place: when the round is complete, each seat's net result is
    set on it and what the house pays back (its stakes plus that result) is answered."""
    if loaded.state.phase is not Phase.COMPLETE:
        return 0
    payout = 0
    for seat in loaded.seats:
        settlement = loaded.state.seats[seat.seat].settlement
        assert settlement is not None
        seat.total = settlement.total
        payout += seat.staked + settlement.total
    return payout


def settled(found: Services, loaded: LoadedRound | None) -> None:
    """A round the committed request settled (marked ``figures_pending``) goes to the
    worker's recorder of the pit's figures."""
    if loaded is not None and loaded.state.phase is Phase.COMPLETE:
        found.recorder.settled(loaded.state, loaded.seats, loaded.record)


def rounds_done(found: Services, loaded: LoadedRound) -> None:
    """Count a round that has just completed in the metrics."""
    if loaded.record.phase == Phase.COMPLETE.value:
        found.metrics.round_completed(loaded.rules.id, rounds.staked(loaded))
