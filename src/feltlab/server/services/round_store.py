"""The rounds as stored, loaded one way: each round is its append-only log of engine
actions (on its row, and one event a row) beside the seeds that give its deck, so its
state is always the replay of that log and a round resumes after any crash exactly where
its last committed action left it.

This is the one module that builds a :class:`LoadedRound`, from typed rows: the table
(:class:`GameTable`), the round (:class:`Round`) and its seats (:class:`RoundSeat`).
A money request reads them in its first statement (:data:`BET_READ`, :data:`ACT_READ`,
with the caller, see :mod:`feltlab.server.services.money_frame`), the table's row locked;
a shared table's round is read again once that lock is held (:func:`shared_round`),
since on PostgreSQL a statement that waited for a lock still reads the other rows as
they were when it began. Readers load a round by id (:func:`read_round`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Final, NamedTuple

from sqlalchemy import (
    ColumnElement,
    Connection,
    Label,
    Table,
    and_,
    bindparam,
    exists,
    func,
    literal_column,
    select,
)
from sqlalchemy.sql.selectable import Join

from feltlab.core import jsontext
from feltlab.core.cards import Card
from feltlab.core.engine import Action, HandState, action_from_json
from feltlab.core.rules import Rules, load_rules
from feltlab.server.errors import Conflict, not_found
from feltlab.server.fairness import deck_from_seed
from feltlab.server.models import (
    GameTable,
    Round,
    RoundEvent,
    RoundSeat,
    TableSeat,
    User,
    Wallet,
    detached,
    table_of,
)
from feltlab.server.services.statements import Prepared, json_rows

_TABLES, _ROUNDS, _SEATS = table_of(GameTable), table_of(Round), table_of(RoundSeat)
_SITTING, _USERS, _EVENTS = table_of(TableSeat), table_of(User), table_of(RoundEvent)
_WALLETS = table_of(Wallet)
TABLE_NAMES: Final = tuple(column.name for column in _TABLES.c)
ROUND_NAMES: Final = tuple(column.name for column in _ROUNDS.c)
SEAT_NAMES: Final = tuple(column.name for column in _SEATS.c)
"""Column names, listed once: iterating a table's columns costs more than a query."""


def _labelled(names: tuple[str, ...], prefix: str, table: Table) -> tuple[Label[object], ...]:
    return tuple(table.c[name].label(f"{prefix}{name}") for name in names)


TABLE_COLUMNS: Final = _labelled(TABLE_NAMES, "t_", _TABLES)
ROUND_COLUMNS: Final = _labelled(ROUND_NAMES, "r_", _ROUNDS)
SEAT_COLUMNS: Final = _labelled(SEAT_NAMES, "s_", _SEATS)


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


# --- the log ----------------------------------------------------------------------------------

EMPTY_LOG: Final = "[]"


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


# --- building a loaded round: here only -------------------------------------------------------

def rules_of(rules_id: str, fingerprint: str, to_change: bool) -> Rules:
    """The rule set a round (or table) was opened with. To change a round, one whose
    content changed since is refused; to read one, it is replayed as it is now (and its
    log verified again, see :func:`loaded_round`)."""
    rules = load_rules(rules_id)
    if to_change and rules.fingerprint != fingerprint:
        raise Conflict(f"rule set {rules_id} changed since this table opened "
                       f"(fingerprint {fingerprint[:12]}); open a new table")
    return rules


_EVENT_TEXTS = Prepared(select(_EVENTS.c.action).where(_EVENTS.c.round_id == bindparam(
    "round_id")).order_by(_EVENTS.c.seq))


def loaded_round(connection: Connection, record: Round, seats: list[RoundSeat],
                 shared: bool, to_change: bool) -> LoadedRound:
    """The round replayed from its log (``to_change``: refused if its rule set changed;
    see :func:`rules_of`); a round from before the log column reads its events once."""
    if not record.log:
        texts = [row[0] for row in _EVENT_TEXTS.run(connection, {"round_id": record.id})]
        record.log = extend_log("", texts)
    actions = actions_of(record.log)
    rules = rules_of(record.rules_id, record.fingerprint, to_change)
    state = HandState.replay(rules, cached_deck(record.server_seed, record.client_seed),
                             actions, verified=rules.fingerprint == record.fingerprint)
    seats.sort(key=lambda seat: seat.seat)
    return LoadedRound(record, seats, rules, state, len(actions), shared)


def opened_round(record: Round, rules: Rules, shared: bool) -> LoadedRound:
    """A round opened now, with no action yet."""
    state = HandState(rules, cached_deck(record.server_seed, record.client_seed))
    return LoadedRound(record, [], rules, state, 0, shared)


# --- typed rows -------------------------------------------------------------------------------

class Sitting(NamedTuple):
    """Who sits at a shared table: a seat, its player and their name."""

    seat: int
    user_id: int
    username: str


@dataclass(frozen=True)
class AtTable:
    """What a money request found at its table, its row locked: the table, its round (the
    unfinished one for a bet, the decided one for a decision; None before a bet opens
    one) with its seats, who sits at it (shared tables), the seed of its newest round
    (a private table derives the next from it) and the caller's seat and balance."""

    table: GameTable
    round: Round | None
    seats: list[RoundSeat]
    sitting: list[Sitting]
    last_seed: str | None
    my_seat: int | None
    balance: int | None
    unfinished: int | None = None
    """A bet's first read: the id of the table's unfinished round, if any."""


def table_of_row(values: dict[str, object]) -> GameTable:
    return detached(GameTable, {name: values[f"t_{name}"] for name in TABLE_NAMES})


def round_of_row(values: dict[str, object]) -> Round | None:
    if values.get("r_id") is None:
        return None
    return detached(Round, {name: values[f"r_{name}"] for name in ROUND_NAMES})


def seats_of_json(text: object) -> list[RoundSeat]:
    rows = [] if text is None else (text if isinstance(text, list) else jsontext.loads(str(text)))
    return [detached(RoundSeat, dict(zip(SEAT_NAMES, row, strict=True))) for row in rows]


def _sitting_of(text: object) -> list[Sitting]:
    rows = [] if text is None else (text if isinstance(text, list) else jsontext.loads(str(text)))
    return sorted(Sitting(int(seat), int(user_id), str(name)) for seat, user_id, name in rows)


def seats_json(round_id: ColumnElement[int]) -> Label[object]:
    return (select(json_rows(*(_SEATS.c[name] for name in SEAT_NAMES)))
            .where(_SEATS.c.round_id == round_id).correlate_except(_SEATS)
            .scalar_subquery().label("seats_json"))


def _sitting_json(table_id: ColumnElement[int]) -> Label[object]:
    return (select(json_rows(_SITTING.c.seat, _SITTING.c.user_id, _USERS.c.username))
            .select_from(_SITTING.join(_USERS, _USERS.c.id == _SITTING.c.user_id))
            .where(_SITTING.c.table_id == table_id).correlate_except(_SITTING, _USERS)
            .scalar_subquery().label("sitting_json"))


# --- a money request's first read -------------------------------------------------------------

_OTHER = _ROUNDS.alias("table_rounds")  # the table's rounds, apart from the one joined
_UNFINISHED = (select(func.min(_OTHER.c.id))
               .where(_OTHER.c.table_id == _TABLES.c.id,
                      _OTHER.c.phase != literal_column("'complete'"))  # as the index
               .correlate(_TABLES).scalar_subquery())
_LAST_SEED = (select(_OTHER.c.server_seed).where(_OTHER.c.table_id == _TABLES.c.id)
              .order_by(_OTHER.c.id.desc()).limit(1).correlate(_TABLES)
              .scalar_subquery().label("last_seed"))
_MY_SEAT = (select(_SITTING.c.seat).where(_SITTING.c.table_id == _TABLES.c.id,
                                          _SITTING.c.user_id == _USERS.c.id)
            .correlate(_TABLES, _USERS).scalar_subquery().label("my_seat"))


def at_the_table(joined: Join) -> Join:
    return joined.join(_TABLES, _TABLES.c.id == bindparam("table_id"))


def round_and_seat(joined: Join) -> Join:
    """The round, the caller's seat in it and its table."""
    return (joined.join(_SEATS, and_(_SEATS.c.round_id == bindparam("round_id"),
                                     _SEATS.c.user_id == _USERS.c.id))
            .join(_ROUNDS, _ROUNDS.c.id == _SEATS.c.round_id)
            .join(_TABLES, _TABLES.c.id == _ROUNDS.c.table_id))


def round_and_my_seat(joined: Join) -> Join:
    """:func:`round_and_seat` and the caller's wallet in the round's currency."""
    return round_and_seat(joined).join(_WALLETS, and_(
        _WALLETS.c.user_id == _USERS.c.id, _WALLETS.c.currency == _ROUNDS.c.currency))


BET_COLUMNS: Final = (*TABLE_COLUMNS, _UNFINISHED.label("unfinished"), _LAST_SEED,
                      _MY_SEAT)
"""What a bet reads with the caller (:func:`at_the_table` joins it): the table, the id
of its unfinished round if any (a private table's refuses the bet; a shared table's is
read once the lock is held, :func:`shared_round`), its newest round's seed and the
caller's seat at it."""
ACT_COLUMNS: Final = (*TABLE_COLUMNS, *ROUND_COLUMNS, *SEAT_COLUMNS,
                      _WALLETS.c.balance.label("balance"))
"""What a decision reads with the caller (:func:`round_and_my_seat` joins it): the table,
the round with its log, the caller's seat in it and their balance in its currency."""
SEATED_COLUMNS: Final = (*TABLE_COLUMNS, *ROUND_COLUMNS, *SEAT_COLUMNS)
"""What an operator's decision reads with the caller (:func:`round_and_seat`): its money
is in the operator's wallet, not feltlab's."""
TABLE_ID: Final = _TABLES.c.id
LOCKED: Final = _TABLES
"""The row a money request locks first, as every path that changes a round does (no
cycles): its table's."""


def at_table(values: dict[str, object]) -> AtTable:
    """What a first read found (its columns by name, the caller's aside)."""
    record = round_of_row(values)
    seats = []
    if "s_id" in values:
        seats = [detached(RoundSeat, {name: values[f"s_{name}"] for name in SEAT_NAMES})]
    balance, my_seat = values.get("balance"), values.get("my_seat")
    last_seed, unfinished = values.get("last_seed"), values.get("unfinished")
    return AtTable(table_of_row(values), record, seats, [],
                   None if last_seed is None else str(last_seed),
                   None if my_seat is None else int(str(my_seat)),
                   None if balance is None else int(str(balance)),
                   None if unfinished is None else int(str(unfinished)))


_AGAIN = (seats_json(_ROUNDS.c.id), _sitting_json(_ROUNDS.c.table_id))
_SHARED_CURRENT = Prepared(
    select(*ROUND_COLUMNS, *_AGAIN).where(_ROUNDS.c.id == (
        select(func.min(_OTHER.c.id)).where(_OTHER.c.table_id == bindparam("table_id"),
                                            _OTHER.c.phase != "complete").scalar_subquery())))
_SHARED_BY_ID = Prepared(select(*ROUND_COLUMNS, *_AGAIN).where(
    _ROUNDS.c.id == bindparam("round_id")))
_SITTING_AT = Prepared(select(_sitting_json(bindparam("table_id"))))


def sitting_at(connection: Connection, table_id: int) -> list[Sitting]:
    """Who sits at the table now."""
    return _sitting_of(_SITTING_AT.scalar(connection, {"table_id": table_id}))


def shared_round(connection: Connection, found: AtTable, round_id: int | None = None
                 ) -> AtTable:
    """A shared table's round as it is now that the table's lock is held (its unfinished
    one, or round ``round_id``), with its seats and who sits at the table."""
    table = found.table
    if round_id is None:
        row = _SHARED_CURRENT.first(connection, {"table_id": table.id})
    else:
        row = _SHARED_BY_ID.first(connection, {"round_id": round_id})
    if row is None:
        return AtTable(table, None, [], sitting_at(connection, table.id), found.last_seed,
                       found.my_seat, found.balance)
    values = row._asdict()
    return AtTable(table, round_of_row(values), seats_of_json(values["seats_json"]),
                   _sitting_of(values["sitting_json"]), found.last_seed, found.my_seat,
                   found.balance)


# --- reading a round by id --------------------------------------------------------------------

_SEATED_ROUND = (select(*TABLE_COLUMNS, *ROUND_COLUMNS, seats_json(_ROUNDS.c.id))
                 .select_from(_ROUNDS.join(_TABLES, _TABLES.c.id == _ROUNDS.c.table_id))
                 .where(_ROUNDS.c.id == bindparam("round_id")))
_READ_ROUND = Prepared(_SEATED_ROUND)
_READ_ROUND_OF = Prepared(_SEATED_ROUND.where(exists().where(
    _SEATS.c.round_id == _ROUNDS.c.id, _SEATS.c.user_id == bindparam("user_id"))))


def read_round(connection: Connection, round_id: int, user_id: int | None = None
               ) -> tuple[GameTable, LoadedRound]:
    """Round ``round_id`` and its table, to read (with ``user_id``, only if that player
    has a seat in it: another's round is not found)."""
    if user_id is None:
        row = _READ_ROUND.first(connection, {"round_id": round_id})
    else:
        row = _READ_ROUND_OF.first(connection, {"round_id": round_id, "user_id": user_id})
    if row is None:
        raise not_found(f"round {round_id}")
    values = row._asdict()
    table, record = table_of_row(values), round_of_row(values)
    assert record is not None
    return table, loaded_round(connection, record, seats_of_json(values["seats_json"]),
                               table.shared, to_change=False)


_OPEN_ROUND_OF = (select(func.min(_ROUNDS.c.id))
                  .join(_SEATS, _SEATS.c.round_id == _ROUNDS.c.id)
                  .where(_SEATS.c.user_id == bindparam("user_id"),
                         _ROUNDS.c.currency == bindparam("currency"),
                         _ROUNDS.c.phase != "complete"))


def open_round_of(connection: Connection, user_id: int, currency: str) -> int | None:
    """An unfinished round in which the player has a seat, in ``currency``."""
    found = connection.execute(_OPEN_ROUND_OF, {"user_id": user_id, "currency": currency}
                               ).scalar()
    return None if found is None else int(found)
