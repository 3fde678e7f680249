"""The admin's side of feltlab as a game supplier: the operators (list, add, disable,
enable, rotate a secret) and the calls feltlab owes their wallets (list, retry now,
resolve by hand). Every change is one line of the audit log in the admin's name.

A secret only ever goes in (the add and the rotation): no answer carries one, and a
refusal names the field without repeating its value. A bad field is 422 naming it
(:class:`~feltlab.server.services.operators.InvalidField`), an unknown operator or call
404, an id already taken or a call no longer pending 409.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query

from feltlab.server.api.contract import refusals
from feltlab.server.api.deps import AdminDep, ServicesDep
from feltlab.server.api.operator_responses import OperatorView, WalletCallView
from feltlab.server.api.schemas import (
    NewOperator,
    OperatorPath,
    ResolveRequest,
    SecretRequest,
    TransactionPath,
)
from feltlab.server.middleware import StrictJSONRoute
from feltlab.server.services import operators, wallet_calls

router = APIRouter(prefix="/api/v1/admin", tags=["admin"], responses=refusals(403),
                   route_class=StrictJSONRoute)

CallState = Literal["pending", "acknowledged", "refused", "rolled_back"]


@router.get("/operators", response_model=list[OperatorView])
def list_operators(caller: AdminDep, found: ServicesDep) -> list[dict[str, object]]:
    """Every operator by id, the disabled ones too; no secret."""
    return [view.as_json() for view in operators.list_operators(found.engine)]


@router.post("/operators", status_code=201, response_model=OperatorView,
             responses=refusals(409))
def add_operator(body: NewOperator, caller: AdminDep, found: ServicesDep
                 ) -> dict[str, object]:
    """Register an operator, enabled (the secret is kept, never shown)."""
    return operators.add_operator(
        found.engine, caller.username, body.id, body.wallet_url, body.currencies,
        body.secret, timeout_seconds=body.timeout_seconds,
        frame_origins=body.frame_origins).as_json()


@router.post("/operators/{operator_id}/disable", response_model=OperatorView,
             responses=refusals(404))
def disable_operator(operator_id: OperatorPath, caller: AdminDep, found: ServicesDep
                     ) -> dict[str, object]:
    """Disable an operator: its players place no stake and nothing new is signed for it
    (the wins and rollbacks it is owed are still sent)."""
    return operators.disable_operator(found.engine, caller.username, operator_id).as_json()


@router.post("/operators/{operator_id}/enable", response_model=OperatorView,
             responses=refusals(404))
def enable_operator(operator_id: OperatorPath, caller: AdminDep, found: ServicesDep
                    ) -> dict[str, object]:
    """Enable an operator again."""
    return operators.enable_operator(found.engine, caller.username, operator_id).as_json()


@router.post("/operators/{operator_id}/rotate", response_model=OperatorView,
             responses=refusals(404))
def rotate_secret(operator_id: OperatorPath, body: SecretRequest, caller: AdminDep,
                  found: ServicesDep) -> dict[str, object]:
    """Sign with the new secret from now on, and accept the one it replaces too until the
    next rotation (``rotating`` says so)."""
    return operators.rotate_secret(found.engine, caller.username, operator_id,
                                   body.secret).as_json()


@router.get("/wallet-calls", response_model=list[WalletCallView])
def list_wallet_calls(
        caller: AdminDep, found: ServicesDep, state: CallState | None = None,
        flagged: bool | None = None,
        operator: Annotated[str | None, Query(max_length=32,
                                              pattern=r"^[a-z0-9_-]{1,32}$")] = None,
        limit: Annotated[int, Query(ge=1, le=wallet_calls.MAX_LIMIT)] = 100
        ) -> list[dict[str, Any]]:
    """The wallet calls, newest first: in a state (``pending`` holds the flagged ones),
    flagged or not, of one operator, as far as each is asked."""
    return wallet_calls.list_calls(found, state=state, flagged=flagged, operator=operator,
                                   limit=limit)


@router.post("/wallet-calls/{transaction_id}/retry", response_model=WalletCallView,
             responses=refusals(404, 409))
def retry_wallet_call(transaction_id: TransactionPath, caller: AdminDep, found: ServicesDep
                      ) -> dict[str, Any]:
    """Send a pending call (flagged or not) at once; unanswered, it is retried and
    flagged as any call."""
    return wallet_calls.retry_now(found, transaction_id, caller.username)


@router.post("/wallet-calls/{transaction_id}/resolve", response_model=WalletCallView,
             responses=refusals(404, 409))
def resolve_wallet_call(transaction_id: TransactionPath, body: ResolveRequest,
                        caller: AdminDep, found: ServicesDep) -> dict[str, Any]:
    """Mark a pending call settled with the operator outside the outbox (its wallet
    confirmed it, or it was paid another way): acknowledged, never sent again; the note
    says how."""
    return wallet_calls.resolve_by_hand(found, transaction_id, caller.username, body.note)
