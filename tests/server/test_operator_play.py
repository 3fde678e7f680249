"""feltlab as a game supplier, through the API on SQLite and PostgreSQL, against the
reference operator wallet in its own process: a signed launch, the session's routes,
real-money rounds debited and paid through the operator's wallet (once each), refusals
and unclear answers leaving the round as it was (and rolled back), demo sessions making
no wallet call, and bad or stale signatures refused."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from feltlab.server import faults
from feltlab.server.app import create_app
from feltlab.server.models import table_of
from feltlab.server.operator_models import WalletTransaction
from feltlab.server.services.outbox import OutboxSettings, claim
from feltlab.server.services.outbox_worker import OutboxWorker
from server.answers import CheckingClient
from server.conftest import settings_for
from server.operators_helpers import (
    RULES,
    bearer,
    keyed,
    launch,
    open_table,
    register,
    signed_post,
    wallet_calls,
)
from server.wallet_process import WalletProcess, wallet_process, wallet_server

__all__ = ["wallet_process", "wallet_server"]  # fixtures, used by name
FAST = OutboxSettings(first_gap_seconds=0.05, max_gap_seconds=0.2, claim_seconds=30,
                      batch=20, tick_seconds=0.02)
START = 100_000  # the reference wallet's opening balance


@pytest.fixture
def app_client(database_url: str, wallet_server: WalletProcess) -> Iterator[TestClient]:
    app = create_app(settings_for(database_url), timers=False)
    with CheckingClient(app) as client:
        register(app.state.services.engine, wallet_server.url)
        yield client
    app.state.services.engine.dispose()


def unique(name: str) -> str:
    """A player id the module's wallet has not seen (it keeps its ledger between tests)."""
    return f"{name}-{uuid.uuid4().hex[:8]}"


def drain(client: TestClient, seconds: float = 10) -> None:
    """Send what the outbox owes until nothing is pending."""
    found = client.app.state.services  # type: ignore[attr-defined]
    worker = OutboxWorker(found.engine, found.wallets, FAST)
    deadline = time.monotonic() + seconds
    while any(call.state == "pending" for call in wallet_calls(found.engine)):
        assert time.monotonic() < deadline, [(call.kind, call.state, call.last_error)
                                             for call in wallet_calls(found.engine)]
        if not worker.run_once():
            time.sleep(0.02)


def bet(client: TestClient, session: str, table: int, ante: int = 10) -> Any:
    return client.post(f"/api/v1/tables/{table}/rounds", headers=keyed(session),
                       json={"wagers": {"ante": ante}, "colour": None})


def finish(client: TestClient, session: str, view: dict[str, Any]) -> dict[str, Any]:
    while view["phase"] != "complete":
        answer = client.post(f"/api/v1/rounds/{view['id']}/actions", headers=keyed(session),
                             json=view["options"][-1])
        assert answer.status_code == 200, answer.text
        view = answer.json()
    return view


def test_a_real_round_is_debited_and_paid_once_through_the_operator(
        app_client: TestClient, wallet_server: WalletProcess) -> None:
    engine = app_client.app.state.services.engine  # type: ignore[attr-defined]
    launched = launch(app_client, player=(alice := unique("alice")))
    session = launched["session"]
    assert launched["url"].split("#")[0].endswith("/play/casino")
    table = open_table(app_client, session)
    answer = bet(app_client, session, table)
    assert answer.status_code == 201, answer.text
    assert answer.json()["number"] == 1  # the table's first round (its id read first)
    finish(app_client, session, answer.json())
    drain(app_client)
    calls = wallet_calls(engine)
    bets = [call for call in calls if call.kind == "bet"]
    wins = [call for call in calls if call.kind == "win"]
    assert {call.state for call in bets} == {"acknowledged"}
    assert len(wins) == 1 and wins[0].state == "acknowledged"
    assert not [call for call in calls if call.kind == "rollback"]
    staked = sum(call.amount for call in bets)
    with wallet_server.ledger() as ledger:
        assert ledger.balance(alice, "EUR") == START - staked + wins[0].amount
    account = app_client.get("/api/v1/me", headers=bearer(session)).json()
    assert account["operator_balance"] == {
        "currency": "EUR", "chip_value": 1, "balance": START - staked + wins[0].amount}
    record = app_client.get(f"/api/v1/rounds/{bets[0].round_id}", headers=bearer(session))
    assert [(row["kind"], row["state"]) for row in record.json()["wallet_transactions"]] == [
        (call.kind, call.state) for call in calls]


def test_a_refused_opening_bet_deals_nothing_and_the_next_bet_plays_the_round(
        app_client: TestClient, wallet_server: WalletProcess) -> None:
    engine = app_client.app.state.services.engine  # type: ignore[attr-defined]
    session = launch(app_client, player=unique("bob"))["session"]
    table = open_table(app_client, session)
    wallet_server.faults([{"mode": "refuse", "endpoints": ["bet"], "count": 1,
                           "error": "INSUFFICIENT_FUNDS"}])
    refused = bet(app_client, session, table)
    assert refused.status_code == 409, refused.text
    assert "INSUFFICIENT_FUNDS" in refused.json()["detail"]
    shown = app_client.get(f"/api/v1/tables/{table}", headers=bearer(session)).json()
    assert shown["round"] is None or not shown["round"].get("cards")
    answer = bet(app_client, session, table)
    assert answer.status_code == 201, answer.text
    assert answer.json()["number"] == 1  # the round the refused bet opened
    finish(app_client, session, answer.json())
    again = bet(app_client, session, table)
    assert again.status_code == 201 and again.json()["number"] == 2, again.text
    finish(app_client, session, again.json())
    drain(app_client)
    states = [(call.kind, call.state) for call in wallet_calls(engine)]
    assert states[0] == ("bet", "refused") and ("win", "acknowledged") in states
    assert not [state for state in states if state[0] == "rollback"]


@pytest.mark.parametrize("fault", [{"mode": "fail"}, {"mode": "slow", "delay": 1.0},
                                   {"mode": "drop"}, {"mode": "bad_signature"}])
def test_an_unclear_bet_is_refused_and_rolled_back(
        app_client: TestClient, wallet_server: WalletProcess, fault: dict[str, Any]) -> None:
    engine = app_client.app.state.services.engine  # type: ignore[attr-defined]
    session = launch(app_client, player=(carol := unique("carol")))["session"]
    table = open_table(app_client, session)
    wallet_server.faults([{**fault, "endpoints": ["bet"], "count": 1}])
    refused = bet(app_client, session, table)
    assert refused.status_code == 409, refused.text
    drain(app_client)
    calls = wallet_calls(engine)
    assert [(call.kind, call.state) for call in calls] == [
        ("bet", "rolled_back"), ("rollback", "acknowledged")]
    with wallet_server.ledger() as ledger:
        assert ledger.balance(carol, "EUR") == START


def test_a_stake_taken_after_its_rollback_was_claimed_is_refused_and_given_back(
        app_client: TestClient, wallet_server: WalletProcess,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The wallet took the raise, but a worker claimed its rollback before the answer was
    recorded: the move is not written (its one statement refuses itself on PostgreSQL),
    the player is refused, the decision stays open, and the stake goes back."""
    engine = app_client.app.state.services.engine  # type: ignore[attr-defined]
    session = launch(app_client, player=(erin := unique("erin")))["session"]
    table = open_table(app_client, session)
    dealt = bet(app_client, session, table).json()
    worker = OutboxWorker(engine, app_client.app.state.services.wallets,  # type: ignore[attr-defined]
                          FAST)
    monkeypatch.setattr(faults, "wallet_answered", lambda: claim(
        engine, datetime.now(UTC) + timedelta(hours=1), FAST))
    late = app_client.post(f"/api/v1/rounds/{dealt['id']}/actions", headers=keyed(session),
                           json=dealt["options"][-1])
    assert late.status_code == 409, late.text
    assert "did not answer clearly" in late.json()["detail"]
    monkeypatch.undo()
    shown = app_client.get(f"/api/v1/rounds/{dealt['id']}", headers=bearer(session)).json()
    assert shown["phase"] == dealt["phase"] and shown["options"] == dealt["options"]
    raised = [call for call in wallet_calls(engine) if call.kind == "bet"][-1]
    assert (raised.state, raised.last_error) == ("pending", "the answer came too late to record")
    with engine.begin() as connection:  # the claim lapses: the rollback is due again
        connection.execute(update(table_of(WalletTransaction)).where(
            table_of(WalletTransaction).c.rolled_back == raised.transaction_id)
            .values(next_try_at=datetime.now(UTC)))
    while worker.run_once():
        pass
    assert [call.state for call in wallet_calls(engine)
            if raised.transaction_id in (call.transaction_id, call.rolled_back)] == [
        "rolled_back", "acknowledged"]
    opening = next(call for call in wallet_calls(engine) if call.kind == "bet")
    with wallet_server.ledger() as ledger:
        assert ledger.balance(erin, "EUR") == START - opening.amount


def test_demo_sessions_make_no_wallet_call(app_client: TestClient,
                                           wallet_server: WalletProcess) -> None:
    engine = app_client.app.state.services.engine  # type: ignore[attr-defined]
    session = launch(app_client, player=(dora := unique("dora")), mode="demo")["session"]
    table = open_table(app_client, session)
    answer = bet(app_client, session, table)
    assert answer.status_code == 201, answer.text
    finish(app_client, session, answer.json())
    assert wallet_calls(engine) == []
    with wallet_server.ledger() as ledger:
        assert ledger.balance(dora, "EUR") is None


def test_a_session_may_use_only_the_game_routes(app_client: TestClient) -> None:
    session = launch(app_client)["session"]
    for method, path in [("GET", "/api/v1/admin/players"), ("POST", "/api/v1/logout"),
                         ("PUT", "/api/v1/me/limits"), ("GET", "/api/v1/admin/alerts"),
                         ("POST", "/api/v1/tables/1/seats"), ("POST", "/api/v1/advice"),
                         ("GET", "/api/v1/rulecards")]:
        answer = app_client.request(method, path, headers=bearer(session), json={})
        assert answer.status_code == 403, (path, answer.text)
    assert app_client.get("/api/v1/me", headers=bearer(session)).status_code == 200
    # what the framed page draws its table with: its rule card, its cards laid out
    card = app_client.get(f"/api/v1/rulecards/{RULES}", headers=bearer(session))
    assert card.status_code == 200 and card.json()["id"] == RULES
    shown = app_client.post("/api/v1/display", headers=bearer(session), json={
        "rules": RULES, "cards": {"player": "2s Ah 9h Kh 3c 4d 5d"}})
    assert shown.status_code == 200 and shown.json()["player"]["describe"]
    other = app_client.post("/api/v1/tables", json={"rules": "nine-card-flush"},
                            headers=bearer(session))
    assert other.status_code == 403, other.text


def test_bad_and_stale_signatures_are_refused(app_client: TestClient) -> None:
    payload = {"operator": "casino", "player": "eve", "currency": "EUR", "rules": RULES,
               "mode": "real"}
    wrong = signed_post(app_client, "/api/v1/operator/sessions", payload, secret="x" * 40)
    stale = signed_post(app_client, "/api/v1/operator/sessions", payload,
                        timestamp=int(time.time()) - 301)
    stranger = signed_post(app_client, "/api/v1/operator/sessions",
                           {**payload, "operator": "nobody"})
    for answer in (wrong, stale, stranger):
        assert answer.status_code == 401, answer.text
        assert set(answer.json()) == {"detail"}
