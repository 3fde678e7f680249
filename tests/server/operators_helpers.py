"""Driving feltlab as an operator would: register an operator whose wallet is the
reference wallet, launch signed sessions, and play through them as the framed page
does (the session's bearer token, Idempotency-Keys)."""

from __future__ import annotations

import uuid
from typing import Any

import orjson
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select

from feltlab.server.operator_models import WalletTransaction
from feltlab.server.services.operators import add_operator
from feltlab.server.signatures import HEADER, sign
from server.wallet_process import SECRET

RULES = "high-card-flush"


def register(engine: Engine, wallet_url: str, operator: str = "casino",
             timeout: float = 0.5, currencies: dict[str, int] | None = None,
             origins: tuple[str, ...] = ("https://casino.example",)) -> str:
    add_operator(engine, "admin", operator, wallet_url, currencies or {"EUR": 1, "JPY": 100},
                 SECRET, timeout_seconds=timeout, frame_origins=origins)
    return operator


def signed_post(client: TestClient, path: str, payload: dict[str, Any],
                secret: str = SECRET, timestamp: int | None = None) -> Any:
    body = orjson.dumps(payload)
    return client.post(path, content=body, headers={
        "content-type": "application/json", HEADER: sign(secret, body, timestamp)})


def launch(client: TestClient, operator: str = "casino", player: str | None = None,
           currency: str = "EUR", rules: str = RULES, mode: str = "real",
           **extra: Any) -> dict[str, Any]:
    answer = signed_post(client, "/api/v1/operator/sessions", {
        "operator": operator, "player": player or f"p-{uuid.uuid4().hex[:10]}",
        "currency": currency, "rules": rules, "mode": mode, **extra})
    assert answer.status_code == 201, answer.text
    launched: dict[str, Any] = answer.json()
    return launched


def bearer(session: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {session}"}


def open_table(client: TestClient, session: str, rules: str = RULES) -> int:
    answer = client.post("/api/v1/tables", json={"rules": rules}, headers=bearer(session))
    assert answer.status_code == 201, answer.text
    table_id: int = answer.json()["id"]
    return table_id


def keyed(session: str) -> dict[str, str]:
    return {**bearer(session), "Idempotency-Key": uuid.uuid4().hex}


def wallet_calls(engine: Engine) -> list[WalletTransaction]:
    with engine.connect() as connection:
        return [WalletTransaction(**row._mapping) for row in connection.execute(
            select(WalletTransaction.__table__).order_by(WalletTransaction.id))]
