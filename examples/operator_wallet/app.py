"""The wallet as a FastAPI app: :func:`create_wallet_app`.

Wallet calls: ``POST <prefix>/balance|bet|win|rollback``, signed by feltlab, answers signed by us.
Operator endpoints (signed the same way, or ``Authorization: Bearer <admin_token>``):
``GET /_ledger?player=&currency=``, ``GET|POST /_faults``, ``POST /_accounts``; and an unsigned
``GET /_health`` to wait for the server to start.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.types import Receive, Scope, Send

from . import protocol as p
from .faults import FaultPlan, FaultRule, Faults
from .signing import HEADER, TOLERANCE_SECONDS, SignatureError, get_message, sign, verify
from .store import Store

DEFAULT_STARTING_BALANCE = 100_000


class ConnectionDropped(Exception):
    """Raised by the ``drop`` fault after committing, so that the server closes the connection."""


class _DroppedResponse(Response):
    """Start an answer that promises a body, then fail: the client gets no complete answer."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", b"64")]})
        raise ConnectionDropped("operator wallet fault: connection dropped after commit")


class AccountChange(BaseModel):
    """The body of ``POST /_accounts``: set a balance and/or block or unblock a player."""

    model_config = ConfigDict(strict=True, extra="forbid")

    player: str = Field(min_length=1)
    currency: str = Field(min_length=1)
    balance: int | None = Field(default=None, ge=0)
    blocked: bool | None = None


class _Wallet:
    def __init__(self, store: Store, faults: Faults, secrets: Sequence[str],
                 admin_token: str | None, clock: Callable[[], float], tolerance: int) -> None:
        self.store = store
        self.faults = faults
        self.secrets = tuple(secrets)
        self.admin_token = admin_token
        self.clock = clock
        self.tolerance = tolerance

    def answer(self, status: int, payload: Any, *, bad_signature: bool = False) -> Response:
        """A JSON answer signed with the current secret (or deliberately wrongly)."""
        body = json.dumps(payload, separators=(",", ":")).encode("utf-8")
        secret = self.secrets[0] + ("-wrong" if bad_signature else "")
        return Response(body, status_code=status, media_type="application/json",
                        headers={HEADER: sign(secret, body, int(self.clock()))})

    def verify(self, request: Request, body: bytes) -> None:
        message = body if request.method == "POST" else get_message(
            request.url.path, request.url.query)
        verify(request.headers.get(HEADER), message, self.secrets, now=self.clock(),
               tolerance=self.tolerance)

    def verify_admin(self, request: Request, body: bytes) -> None:
        """A valid signature, or the admin token as ``Authorization: Bearer <token>``."""
        given = request.headers.get("authorization", "")
        if self.admin_token and given.startswith("Bearer ") and hmac.compare_digest(
                given[len("Bearer "):].encode(), self.admin_token.encode()):
            return
        self.verify(request, body)


def _secrets(secrets: str | Sequence[str]) -> tuple[str, ...]:
    found = (secrets,) if isinstance(secrets, str) else tuple(secrets)
    if not 1 <= len(found) <= 2 or not all(found):
        raise ValueError("give one or two non-empty secrets (the current one first)")
    return found


def create_wallet_app(
    database_path: str | Path,
    secrets: str | Sequence[str],
    *,
    starting_balance: int | Mapping[str, int] = DEFAULT_STARTING_BALANCE,
    seed: int | None = None,
    faults: Sequence[FaultRule] = (),
    admin_token: str | None = None,
    prefix: str = "",
    max_bet: int | None = None,
    clock: Callable[[], float] = time.time,
    tolerance: int = TOLERANCE_SECONDS,
) -> FastAPI:
    """The operator wallet over the SQLite file ``database_path`` (created if need be).

    ``secrets``: the shared secret, or the current and the previous one during a rotation
    (requests signed with either are accepted; answers are signed with the first).
    ``starting_balance``: a new player's balance in every currency, or per currency (0 if absent).
    ``seed``: seeds the fault generator; ``faults``: the initial fault plan.
    ``prefix``: the wallet calls are ``POST <prefix>/balance`` etc. ``max_bet``: bets above it are
    refused with ``LIMIT_EXCEEDED``. ``clock``: unix seconds, for signatures and the ledger.
    """
    wallet = _Wallet(
        Store(database_path, starting_balance=starting_balance, max_bet=max_bet, clock=clock),
        Faults(faults, seed), _secrets(secrets), admin_token, clock, tolerance)
    app = FastAPI(title="Reference operator wallet", openapi_url=None)
    app.state.wallet = wallet
    app.state.store = wallet.store
    app.state.faults = wallet.faults

    for endpoint in p.ENDPOINTS:
        app.add_api_route(f"{prefix}/{endpoint}", _wallet_call(wallet, endpoint),
                          methods=["POST"], name=endpoint)

    @app.get("/_health")
    async def health() -> dict[str, bool]:
        return {"ok": True}

    @app.get("/_ledger")
    async def ledger(request: Request, player: str | None = None,
                     currency: str | None = None) -> Response:
        denied = await _admin(wallet, request)
        if denied is not None:
            return denied
        accounts = [vars(a) for a in wallet.store.accounts(player, currency)]
        transactions = [t.as_json() for t in wallet.store.transactions(player, currency)]
        return wallet.answer(200, {"accounts": accounts, "transactions": transactions})

    @app.api_route("/_faults", methods=["GET", "POST"])
    async def set_faults(request: Request) -> Response:
        denied = await _admin(wallet, request)
        if denied is not None:
            return denied
        if request.method == "POST":
            try:
                plan = FaultPlan.model_validate_json(await request.body())
            except ValidationError as exc:
                return wallet.answer(400, {"detail": json.loads(exc.json(include_url=False))})
            wallet.faults.replace(plan.faults, plan.seed)
        return wallet.answer(200, {"faults": wallet.faults.describe()})

    @app.post("/_accounts")
    async def set_account(request: Request) -> Response:
        denied = await _admin(wallet, request)
        if denied is not None:
            return denied
        try:
            change = AccountChange.model_validate_json(await request.body())
        except ValidationError as exc:
            return wallet.answer(400, {"detail": json.loads(exc.json(include_url=False))})
        account = wallet.store.set_account(
            change.player, change.currency, balance=change.balance, blocked=change.blocked,
            transaction_id=f"adjustment-{uuid.uuid4()}")
        return wallet.answer(200, vars(account))

    return app


async def _admin(wallet: _Wallet, request: Request) -> Response | None:
    """None if the request may use an operator endpoint, else the 401 answer."""
    try:
        wallet.verify_admin(request, await request.body())
    except SignatureError as exc:
        return wallet.answer(401, {"detail": str(exc)})
    return None


def _wallet_call(wallet: _Wallet,
                 endpoint: p.Endpoint) -> Callable[[Request], Awaitable[Response]]:
    model = p.CALLS[endpoint]

    async def call(request: Request) -> Response:
        body = await request.body()
        try:
            wallet.verify(request, body)
        except SignatureError as exc:
            return wallet.answer(401, {"detail": str(exc)})
        try:
            parsed = model.model_validate_json(body)
        except ValidationError as exc:
            return wallet.answer(400, {"detail": json.loads(exc.json(include_url=False))})
        fault = wallet.faults.draw(endpoint)
        mode = None if fault is None else fault.mode
        if fault is not None and mode == "fail":
            return wallet.answer(500, {"detail": "operator wallet fault: failed before commit"})
        refuse = fault.error if fault is not None and mode == "refuse" else None
        result = await run_in_threadpool(_operate, wallet.store, parsed, refuse)
        if fault is not None and mode == "slow":
            await asyncio.sleep(fault.delay)
        if fault is not None and mode == "drop":
            if fault.status is None:
                return _DroppedResponse()
            return Response(b"operator wallet fault: dropped after commit",
                            status_code=fault.status, media_type="text/plain")
        return wallet.answer(200, result, bad_signature=mode == "bad_signature")

    call.__name__ = f"wallet_{endpoint}"
    return call


def _operate(store: Store, call: BaseModel, refuse: str | None) -> p.Answer:
    if isinstance(call, p.BetCall):
        return store.bet(call, refuse)
    if isinstance(call, p.WinCall):
        return store.win(call)
    if isinstance(call, p.RollbackCall):
        return store.rollback(call)
    if isinstance(call, p.BalanceCall):
        return store.balance_of(call)
    raise TypeError(f"not a wallet call: {call!r}")
