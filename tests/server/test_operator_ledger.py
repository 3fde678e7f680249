"""An operator's ledger on SQLite and PostgreSQL: ``GET /api/v1/operator/transactions``
signed by the operator (a tampered, stale or missing signature, or a stranger, is one
401), answered signed, paged and filtered; and ``operator_report``'s figures by UTC day
and currency, with its CSV safe to open in a spreadsheet."""

from __future__ import annotations

import time
from datetime import UTC, date, datetime
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from pydantic import TypeAdapter
from sqlalchemy import Engine, update

from feltlab.server.api.operator_responses import OperatorTransactions
from feltlab.server.errors import NotFound
from feltlab.server.models import table_of
from feltlab.server.operator_models import WalletTransaction
from feltlab.server.services.database import write_connection
from feltlab.server.services.operator_ledger import (
    DayFigures,
    operator_report,
    report_csv,
    report_totals,
)
from feltlab.server.services.operators import add_operator, disable_operator, rotate_secret
from feltlab.server.services.outbox import queue_call
from feltlab.server.signatures import HEADER, sign, verify
from server.test_outbox import new_round

SECRET = "s3cret-shared-with-the-casino-0001"
NEW = "the-next-secret-for-the-casino-0002"
OTHER = "another-casino-and-its-own-secret-9"
PATH = "/api/v1/operator/transactions"
D1, D2 = date(2026, 3, 1), date(2026, 3, 2)

ROWS: list[tuple[date, str, str, int, str, str]] = [
    # (day, HH:MM, kind, amount, state, currency): made in this order
    (D1, "10:00", "bet", 100, "acknowledged", "EUR"),
    (D1, "10:01", "win", 250, "acknowledged", "EUR"),
    (D1, "11:00", "bet", 40, "rolled_back", "EUR"),
    (D1, "11:01", "rollback", 40, "acknowledged", "EUR"),
    (D1, "12:00", "bet", 30, "refused", "EUR"),
    (D1, "12:30", "bet", 60, "acknowledged", "JPY"),
    (D2, "09:00", "bet", 500, "acknowledged", "EUR"),
    (D2, "09:01", "win", 0, "acknowledged", "EUR"),
    (D2, "09:02", "bet", 20, "pending", "EUR"),
    (D2, "23:59", "win", 80, "pending", "EUR"),
]


def make_ledger(engine: Engine) -> list[str]:
    """Operators ``casino`` (the rows of :data:`ROWS`) and ``other`` (one bet); answers
    casino's transaction ids in the order they were made."""
    add_operator(engine, "test", "casino", "https://wallet.casino.example", {"EUR": 1,
                 "JPY": 1}, SECRET)
    add_operator(engine, "test", "other", "https://wallet.other.example", {"EUR": 1}, OTHER)
    round_id = new_round(engine)
    made: list[str] = []
    calls = table_of(WalletTransaction)
    with write_connection(engine) as connection:
        for day, clock, kind, amount, state, currency in ROWS:
            hours, minutes = map(int, clock.split(":"))
            moment = datetime(day.year, day.month, day.day, hours, minutes, tzinfo=UTC)
            tid = queue_call(connection, operator_id="casino", player="p-1", session="s",
                             currency=currency, kind=kind, amount=amount, round_id=round_id,
                             rolled_back=made[2] if kind == "rollback" else None,
                             now=moment)
            connection.execute(update(calls).where(calls.c.transaction_id == tid)
                               .values(state=state))
            made.append(tid)
        queue_call(connection, operator_id="other", player="p-2", session="s",
                   currency="EUR", kind="bet", amount=999, round_id=round_id,
                   now=datetime(2026, 3, 1, 10, 30, tzinfo=UTC))
    return made


@pytest.fixture
def ledger(client: TestClient) -> list[str]:
    return make_ledger(client.app.state.services.engine)  # type: ignore[attr-defined]


def signed_get(client: TestClient, query: str, secret: str = SECRET,
               at: int | None = None, sent: str | None = None) -> httpx.Response:
    """GET the path with ``query``, signed over ``query`` (and sent with ``sent`` in its
    place when given: a tampered request)."""
    header = sign(secret, f"{PATH}?{query}".encode(), at=at)
    return client.get(f"{PATH}?{query if sent is None else sent}", headers={HEADER: header})


def answered(response: httpx.Response, secret: str = SECRET) -> dict[str, Any]:
    """The answer's body, its signature checked and its shape held to the model."""
    assert response.status_code == 200, response.text
    verify([secret], response.headers[HEADER], response.content)
    body: dict[str, Any] = response.json()
    TypeAdapter(OperatorTransactions).validate_python(body, strict=True)
    return body


def ids(body: dict[str, Any]) -> list[str]:
    return [row["transaction_id"] for row in body["transactions"]]


def test_a_signed_request_gets_every_call_newest_first_signed(
        client: TestClient, ledger: list[str]) -> None:
    body = answered(signed_get(client, "operator=casino"))
    assert ids(body) == ledger[::-1] and body["next_before"] is None
    first = body["transactions"][-1]
    assert {key: first[key] for key in ("kind", "player", "currency", "amount", "state",
                                        "attempts", "last_error", "created_at")} == {
        "kind": "bet", "player": "p-1", "currency": "EUR", "amount": 100,
        "state": "acknowledged", "attempts": 0, "last_error": None,
        "created_at": "2026-03-01T10:00:00+00:00"}
    assert first["round_id"] is not None and first["round_id"].isdigit()
    # while the operator rotates, its previous secret is accepted; feltlab signs with the new
    rotate_secret(client.app.state.services.engine, "test", "casino", NEW)  # type: ignore[attr-defined]
    assert ids(answered(signed_get(client, "operator=casino"), secret=NEW)) == ledger[::-1]


def test_every_bad_signature_and_a_stranger_get_the_same_401(
        client: TestClient, ledger: list[str]) -> None:
    wrong = signed_get(client, "operator=casino", secret=OTHER)
    assert wrong.status_code == 401
    assert wrong.json() == {"detail": "no secret matches the signature"}
    assert wrong.headers["WWW-Authenticate"] == HEADER and HEADER not in wrong.headers
    tampered = signed_get(client, "operator=casino&limit=5", sent="operator=casino&limit=6")
    assert tampered.status_code == 401 and tampered.json() == wrong.json()
    stale = signed_get(client, "operator=casino", at=int(time.time()) - 3600)
    assert stale.status_code == 401 and "stale" in stale.json()["detail"]
    missing = client.get(f"{PATH}?operator=casino")
    assert missing.status_code == 401 and "missing" in missing.json()["detail"]
    for stranger in ("nobody", "NOT-AN-ID", ""):
        unknown = signed_get(client, f"operator={stranger}")
        assert (unknown.status_code, unknown.json()) == (401, wrong.json()), stranger
    disable_operator(client.app.state.services.engine, "test", "casino")  # type: ignore[attr-defined]
    disabled = signed_get(client, "operator=casino")
    assert (disabled.status_code, disabled.json()) == (401, wrong.json())


def test_pages_and_filters(client: TestClient, ledger: list[str]) -> None:
    seen: list[str] = []
    query = "operator=casino&limit=4"
    while True:
        body = answered(signed_get(client, query))
        assert len(body["transactions"]) <= 4
        seen += ids(body)
        if body["next_before"] is None:
            break
        query = f"operator=casino&limit=4&before={body['next_before']}"
    assert seen == ledger[::-1]
    rolled_back = answered(signed_get(client, "operator=casino&state=rolled_back"))
    assert ids(rolled_back) == [ledger[2]]
    window = answered(signed_get(
        client, "operator=casino&from=2026-03-02T00:00:00Z&to=2026-03-02T09:02:00Z"))
    assert ids(window) == [ledger[7], ledger[6]]  # `to` is exclusive
    zoned = answered(signed_get(client, "operator=casino&from=2026-03-02T10:00:00%2B01:00"))
    assert ids(zoned) == ledger[:5:-1]  # from 09:00 UTC on
    other = answered(signed_get(client, "operator=other", secret=OTHER), secret=OTHER)
    assert [row["amount"] for row in other["transactions"]] == [999]


@pytest.mark.parametrize(("query", "named"), [
    ("operator=casino&limit=10001", "limit"),
    ("operator=casino&limit=0", "limit"),
    ("operator=casino&state=settled", "state"),
    ("operator=casino&from=yesterday", "from"),
    ("operator=casino&before=x", "before"),
])
def test_a_bad_parameter_is_422_naming_it(client: TestClient, ledger: list[str],
                                          query: str, named: str) -> None:
    refused = signed_get(client, query)
    assert refused.status_code == 422, refused.text
    assert refused.json()["detail"].startswith(f"query.{named}"), refused.json()


def test_the_report_sums_by_day_and_currency(client: TestClient, ledger: list[str]) -> None:
    engine: Engine = client.app.state.services.engine  # type: ignore[attr-defined]
    days = operator_report(engine, "casino", D1, D2)
    assert [figures.as_json() for figures in days] == [
        {"day": "2026-03-01", "currency": "EUR", "bets": 100, "wins": 250, "rollbacks": 1,
         "rolled_back_amount": 40, "ggr": -150},
        {"day": "2026-03-01", "currency": "JPY", "bets": 60, "wins": 0, "rollbacks": 0,
         "rolled_back_amount": 0, "ggr": 60},
        {"day": "2026-03-02", "currency": "EUR", "bets": 500, "wins": 0, "rollbacks": 0,
         "rolled_back_amount": 0, "ggr": 500},
    ]
    assert report_totals(days) == {
        "EUR": {"bets": 600, "wins": 250, "rollbacks": 1, "rolled_back_amount": 40,
                "ggr": 350},
        "JPY": {"bets": 60, "wins": 0, "rollbacks": 0, "rolled_back_amount": 0, "ggr": 60}}
    assert [figures.day for figures in operator_report(engine, "casino", D2, D2)] == [D2]
    assert operator_report(engine, "other", D2, D2) == []
    with pytest.raises(NotFound):
        operator_report(engine, "nobody", D1, D2)


def test_the_csv_cannot_start_a_formula() -> None:
    days = [DayFigures(D1, "=A1", bets=5, wins=9), DayFigures(D1, "EUR", bets=7)]
    assert report_csv(days).splitlines() == [
        "day,currency,bets,wins,rollbacks,rolled_back_amount,ggr",
        "2026-03-01,'=A1,5,9,0,0,-4",  # a negative figure stays a number
        "2026-03-01,EUR,7,0,0,0,7",
    ]
