"""Tables: private practice tables against the house, shared tables opened by admins,
and the rounds started at them."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from feltlab.core.rules import RulesError, builtin_ids, load_rules
from feltlab.server import rounds
from feltlab.server.api.deps import (
    CallerDep,
    ServicesDep,
    idempotency_key,
    in_writer_thread,
    moves_money,
    record_refused_use,
    run_money_request,
    stored_answer,
)
from feltlab.server.api.rounds import count_if_complete
from feltlab.server.api.schemas import RoundRequest, RowId, SeatRequest, TableRequest
from feltlab.server.api.views import Fresh, seated, table_json, table_state
from feltlab.server.auth import Caller
from feltlab.server.clock import now
from feltlab.server.errors import ApiError, conflict, not_found
from feltlab.server.fairness import FairnessError, check_client_seed
from feltlab.server.models import GameTable, Round, TableSeat, User, table_of

router = APIRouter(prefix="/api/v1", tags=["tables"])


def builtin_rules(rules_id: str) -> Any:
    if rules_id not in builtin_ids():
        raise ApiError(422, f"unknown rule set {rules_id[:64]!r}; rule sets are "
                            f"{', '.join(builtin_ids())}")
    try:
        return load_rules(rules_id)
    except RulesError as error:
        raise ApiError(422, str(error)) from None


def visible_table(session: Session, table_id: RowId, caller: Caller) -> GameTable:
    table = session.get(GameTable, table_id)
    if table is None or (not table.shared and table.owner_id != caller.user_id):
        raise not_found(f"table {table_id}")
    return table


# built once, and in Core where no object is needed: see feltlab.server.rounds
_SEATS, _TABLES, _ROUNDS = table_of(TableSeat), table_of(GameTable), table_of(Round)
_SEAT_OF = select(_SEATS.c.seat).where(_SEATS.c.table_id == bindparam("table_id"),
                                       _SEATS.c.user_id == bindparam("user_id"))
_SEATED_USERS = select(_SEATS.c.user_id).where(_SEATS.c.table_id == bindparam("table_id"))
_USER = select(User).where(User.id == bindparam("user_id"))
_ROUND_IN_PLAY = (select(_ROUNDS.c.id).join(_TABLES, _TABLES.c.id == _ROUNDS.c.table_id)
                  .join(_SEATS, _SEATS.c.table_id == _ROUNDS.c.table_id)
                  .where(_ROUNDS.c.table_id == bindparam("table_id"),
                         _TABLES.c.shared.is_(True), _TABLES.c.status == "open",
                         _SEATS.c.user_id == bindparam("user_id"),
                         _ROUNDS.c.phase.not_in(["wagers", "complete"])))


@router.post("/tables", status_code=201)
def create_table(body: TableRequest, caller: CallerDep, found: ServicesDep) -> dict[str, Any]:
    """A private table against the house, ready at once (practice, or cash)."""
    rules = builtin_rules(body.rules)
    with found.transaction() as session:
        table = GameTable(rules_id=rules.id, fingerprint=rules.fingerprint,
                          currency="practice" if body.practice else "cash", shared=False,
                          owner_id=caller.user_id, status="open", created_at=now())
        session.add(table)
        session.flush()
        return table_json(table)


@router.get("/tables")
def list_tables(caller: CallerDep, found: ServicesDep) -> list[dict[str, Any]]:
    """The shared tables open now and the caller's own tables."""
    with found.read() as session:
        tables = session.scalars(select(GameTable).where(
            ((GameTable.shared.is_(True)) & (GameTable.status == "open"))
            | (GameTable.owner_id == caller.user_id)).order_by(GameTable.id.desc()).limit(100))
        return [table_json(table, seated(session, table.id) if table.shared else None)
                for table in tables]


@router.get("/tables/{table_id}")
def get_table(table_id: RowId, caller: CallerDep, found: ServicesDep) -> dict[str, Any]:
    """The table, and its current round as the caller may see it."""
    with found.read() as session:
        table = visible_table(session, table_id, caller)
        view = table_json(table, seated(session, table.id) if table.shared else None)
        current = rounds.unfinished_round(session, table.id)
        view["round"] = (None if current is None else rounds.round_view(
            session, rounds.load_round(session, current), caller.user_id))
        return view


@router.post("/tables/{table_id}/seats", status_code=201)
def take_seat(table_id: RowId, body: SeatRequest, caller: CallerDep,
              found: ServicesDep) -> dict[str, Any]:
    """Sit at a shared table."""
    with found.transaction() as session:
        table = visible_table(session, table_id, caller)
        if not table.shared or table.status != "open":
            raise conflict(f"table {table_id} is not an open shared table")
        if body.seat > load_rules(table.rules_id).seats:
            raise ApiError(422, f"seat {body.seat} does not exist at table {table_id}")
        taken = session.scalars(select(TableSeat).where(TableSeat.table_id == table_id))
        for row in taken:
            if row.user_id == caller.user_id:
                raise conflict(f"you already sit at seat {row.seat}")
            if row.seat == body.seat:
                raise conflict(f"seat {body.seat} is taken")
        session.add(TableSeat(table_id=table_id, seat=body.seat, user_id=caller.user_id))
        session.flush()
        answer = table_json(table, seated(session, table_id))
    found.publish(table_id)
    return answer


@router.delete("/tables/{table_id}/seats")
def leave_seat(table_id: RowId, caller: CallerDep, found: ServicesDep) -> dict[str, Any]:
    with found.transaction() as session:
        table = visible_table(session, table_id, caller)
        row = session.scalars(select(TableSeat).where(
            TableSeat.table_id == table_id, TableSeat.user_id == caller.user_id)).one_or_none()
        if row is None:
            raise conflict(f"you have no seat at table {table_id}")
        session.delete(row)
        session.flush()
        answer = table_json(table, seated(session, table_id))
    found.publish(table_id)
    return answer


@router.post("/tables/{table_id}/rounds", status_code=201)
@moves_money
async def start_round(table_id: RowId, body: RoundRequest, caller: CallerDep,
                      found: ServicesDep, request: Request) -> JSONResponse:
    """Bet: a practice table deals at once; a shared table takes the wagers into its open
    betting window. The wagers are debited here."""
    try:
        client_seed = check_client_seed(body.client_seed or "")
    except FairnessError as error:
        raise ApiError(422, str(error)) from None

    fresh: list[Fresh] = []

    def work(session: Session) -> tuple[int, Any]:
        fresh.clear()
        table = rounds.lock_table(session, table_id)
        if table is None or (not table.shared and table.owner_id != caller.user_id):
            raise not_found(f"table {table_id}")
        if table.status != "open":
            raise conflict(f"table {table_id} is closed")
        seen = found.hub.stamp(table_id)  # the table is locked: nobody changes it now
        user = session.scalars(_USER, {"user_id": caller.user_id}).one()
        if table.shared:
            loaded = _bet_at_shared(session, table, user, body, client_seed)
        else:
            loaded = _deal_private(session, table, user, body, client_seed)
            count_if_complete(found, loaded)
        fresh.append(Fresh(seen, table_state(session, table, loaded)))
        return 201, rounds.round_view(session, loaded, caller.user_id)

    await run_in_threadpool(betting_closed, found, table_id, caller, idempotency_key(request))

    def respond() -> JSONResponse:
        response = run_money_request(found, caller, request, body.model_dump(), work)
        found.publish(table_id, fresh[-1] if fresh else None)
        return response

    return await in_writer_thread(found, respond)


def betting_closed(found: ServicesDep, table_id: RowId, caller: Caller, key: str | None
                   ) -> None:
    """Refuse, with a read only, a bet at a shared table whose round is being played: the
    same refusal the write transaction would give, without queueing for the writer. A
    retry of a request already answered goes on to get its first answer."""
    with found.read() as session:
        if key is not None and stored_answer(session, caller.user_id, key) is not None:
            return
        current = session.connection().execute(_ROUND_IN_PLAY, {
            "table_id": table_id, "user_id": caller.user_id}).first()
    if current is not None:
        record_refused_use(found, caller)
        raise conflict(f"betting is closed: round {current.id} is being played")


def _deal_private(session: Session, table: GameTable, user: User, body: RoundRequest,
                  client_seed: str) -> rounds.LoadedRound:
    current = rounds.unfinished_round(session, table.id)
    if current is not None:
        raise conflict(f"round {current} at this table is not finished")
    loaded = rounds.open_round(session, table, client_seed)
    rounds.place_wagers(session, loaded, user, 1, body.wagers, body.colour)
    rounds.deal(session, loaded)
    return loaded


def _bet_at_shared(session: Session, table: GameTable, user: User, body: RoundRequest,
                   client_seed: str) -> rounds.LoadedRound:
    """The bet joins the round in its betting window (opening one if none is open); the
    player's client seed is kept on their seat and mixed with the others' at the deal."""
    seat = session.connection().execute(_SEAT_OF, {"table_id": table.id, "user_id": user.id}
                                        ).scalar()
    if seat is None:
        raise conflict(f"take a seat at table {table.id} before betting")
    current = rounds.unfinished_round(session, table.id)
    if current is None:
        loaded = rounds.open_round(session, table, "",
                                   timedelta(seconds=table.betting_seconds))
    else:
        loaded = rounds.load_round(session, current, lock=True)
        if loaded.record.phase != "wagers":
            raise conflict(f"betting is closed: round {current} is being played")
    rounds.place_wagers(session, loaded, user, seat, body.wagers, body.colour, client_seed)
    seated_now = session.connection().execute(_SEATED_USERS, {"table_id": table.id}
                                              ).scalars().all()
    if {item.user_id for item in loaded.seats} >= set(seated_now):
        rounds.deal(session, loaded, timedelta(seconds=table.decision_seconds))
    return loaded


def rounds_at(session: Session, table_id: RowId) -> list[int]:
    return list(session.scalars(select(Round.id).where(Round.table_id == table_id)))
