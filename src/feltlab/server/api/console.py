"""The admin API the operator's console needs: players (search, detail with rating, lock
and unlock, limits, cash), the shared tables as the pit sees them, and the rule sets in
play. Every change is audit-logged with the admin's name and the reason given."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from feltlab.server.api.contract import refusals
from feltlab.server.api.deps import AdminDep, ServicesDep, moves_money
from feltlab.server.api.money import EncodedJSON, encoded, money_request
from feltlab.server.api.reports import Currency, DayText, FromDay, span_of
from feltlab.server.api.responses import (
    CashAdjusted,
    ConsoleTable,
    PlayerDetail,
    PlayerView,
    RuleSetInPlay,
)
from feltlab.server.api.schemas import (
    LockRequest,
    PlayerCashRequest,
    PlayerLimitsRequest,
    RowId,
)
from feltlab.server.middleware import StrictJSONRoute
from feltlab.server.services import admin_players, console

router = APIRouter(prefix="/api/v1/admin", tags=["admin"], responses=refusals(403),
                   route_class=StrictJSONRoute)

@router.get("/players", response_model=list[PlayerView])
def search_players(caller: AdminDep, found: ServicesDep,
                   q: Annotated[str, Query(max_length=64)] = "",
                   limit: Annotated[int, Query(ge=1, le=200)] = 50) -> list[dict[str, Any]]:
    """Accounts whose name contains ``q`` (any case), with balances, limits and lock."""
    return admin_players.search(found, q, limit)


@router.get("/players/{user_id}", response_model=PlayerDetail, responses=refusals(404))
def read_player(user_id: RowId, caller: AdminDep, found: ServicesDep, start: FromDay = None,
                to: DayText = None, currency: Currency = "cash") -> dict[str, Any]:
    """One account with its rating: hands an hour, average bet, theo, decision cost per
    100 hands and the three costliest decision patterns."""
    return admin_players.player(found, user_id, span_of(start, to, currency))


@router.post("/players/{user_id}/lock", response_model=PlayerView, responses=refusals(404))
def lock_player(user_id: RowId, body: LockRequest, caller: AdminDep, found: ServicesDep
                ) -> dict[str, Any]:
    """Lock an account: it places no bet until unlocked."""
    return admin_players.set_locked(found, caller, user_id, True, body.reason)


@router.post("/players/{user_id}/unlock", response_model=PlayerView,
              responses=refusals(404))
def unlock_player(user_id: RowId, body: LockRequest, caller: AdminDep, found: ServicesDep
                  ) -> dict[str, Any]:
    """Unlock an account."""
    return admin_players.set_locked(found, caller, user_id, False, body.reason)


@router.put("/players/{user_id}/limits", response_model=PlayerView, responses=refusals(404))
def set_player_limits(user_id: RowId, body: PlayerLimitsRequest, caller: AdminDep,
                      found: ServicesDep) -> dict[str, Any]:
    """Change a player's limits by the rules of the player's own change."""
    return admin_players.set_limits(found, caller, user_id, body.daily_loss_limit,
                                    body.self_exclude_days, body.reason)


@router.post("/players/{user_id}/cash", response_model=CashAdjusted,
              responses=refusals(404, 409))
@moves_money
def adjust_player_cash(user_id: RowId, body: PlayerCashRequest, caller: AdminDep,
                       found: ServicesDep, request: Request) -> EncodedJSON:
    """Credit (amount > 0) or debit (amount < 0) a player's cash, with the reason (never
    the admin's own: 403)."""
    return encoded(admin_players.adjust_cash(
        found, caller, user_id, body.amount, body.reason,
        money_request(request, body.model_dump())))


@router.get("/console/tables", response_model=list[ConsoleTable],
            response_model_exclude_unset=True)
def console_tables(caller: AdminDep, found: ServicesDep) -> list[dict[str, Any]]:
    """Every shared table, open first: who sits where and its open round."""
    return console.tables(found)


@router.get("/console/rules", response_model=list[RuleSetInPlay])
def console_rules(caller: AdminDep, found: ServicesDep) -> list[dict[str, Any]]:
    """The rule sets of the tables opened, with each wager's exact house edge."""
    return console.rule_sets(found)
