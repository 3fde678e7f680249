"""An operator's sessions through the API on SQLite and PostgreSQL, against the
reference wallet in its own process: what a launch checks and answers (signed), the
launch code good once, a session's end, a disabled operator, street bets and raises
through the wallet, a refused raise leaving the decision open, one stake a round at a
time, and an idle round folded with its win sent."""

from __future__ import annotations

import json
import threading
import time
from datetime import timedelta
from typing import Any
from unittest.mock import ANY

from fastapi.testclient import TestClient
from sqlalchemy import update
from starlette.testclient import WebSocketTestSession

from feltlab.server.clock import now
from feltlab.server.models import AuthToken
from feltlab.server.services.operator_idle import settle_idle
from feltlab.server.services.operators import disable_operator
from feltlab.server.signatures import HEADER, verify
from server.operators_helpers import (
    bearer,
    keyed,
    launch,
    open_table,
    register,
    signed_post,
    wallet_calls,
)
from server.test_operator_play import START, app_client, bet, drain, unique
from server.wallet_process import SECRET, WalletProcess, wallet_process, wallet_server

__all__ = ["app_client", "wallet_process", "wallet_server"]  # fixtures, used by name
STUD = "nh-holdem-stud"


def payload(**changes: Any) -> dict[str, Any]:
    return {"operator": "casino", "player": unique("pat"), "currency": "EUR",
            "rules": "high-card-flush", "mode": "real", **changes}


def test_a_launch_is_signed_checked_and_answered_signed(app_client: TestClient) -> None:
    answer = signed_post(app_client, "/api/v1/operator/sessions", payload())
    assert answer.status_code == 201, answer.text
    verify([SECRET], answer.headers[HEADER], answer.content)
    refusals = {
        "currency": payload(currency="USD"), "rule set": payload(rules="no-such-game"),
        "lobby_url": payload(lobby_url="https://elsewhere.example/lobby"),
        "player": payload(player="bad player!")}
    for named, body in refusals.items():
        refused = signed_post(app_client, "/api/v1/operator/sessions", body)
        assert refused.status_code in (404, 422), (named, refused.text)
        assert named in refused.text, (named, refused.text)
    lobby = signed_post(app_client, "/api/v1/operator/sessions",
                        payload(lobby_url="https://casino.example/lobby?x=1"))
    assert lobby.status_code == 201, lobby.text


def test_the_launch_code_is_good_once(app_client: TestClient) -> None:
    launched = launch(app_client, lobby_url="https://casino.example/lobby")
    code = launched["url"].split("#launch=")[1]
    traded = app_client.post("/api/v1/operator/launch", json={"code": code})
    assert traded.status_code == 200, traded.text
    assert traded.json()["session"] == launched["session"]
    assert traded.json()["lobby_url"] == "https://casino.example/lobby"
    again = app_client.post("/api/v1/operator/launch", json={"code": code})
    assert again.status_code == 401, again.text
    assert app_client.post("/api/v1/operator/launch",
                           json={"code": "guess"}).status_code == 401


def test_an_ended_session_is_refused_and_only_its_operator_ends_it(
        app_client: TestClient, wallet_server: WalletProcess) -> None:
    engine = app_client.app.state.services.engine  # type: ignore[attr-defined]
    register(engine, wallet_server.url, operator="other")
    session = launch(app_client)["session"]
    table = open_table(app_client, session)
    path = f"/api/v1/operator/sessions/{session}/end"
    assert signed_post(app_client, path, {"operator": "other"}).status_code == 404
    with app_client.websocket_connect(f"/api/v1/tables/{table}/live",
                                      headers=bearer(session)) as live:
        live.receive_json()
        ended = signed_post(app_client, path, {"operator": "casino"})
        assert received_within(live, 1.0) == {"type": "websocket.close", "code": 4401,
                                              "reason": ANY}
    assert ended.status_code == 200, ended.text
    verify([SECRET], ended.headers[HEADER], ended.content)
    assert signed_post(app_client, path, {"operator": "casino"}).status_code == 200
    assert app_client.get("/api/v1/me", headers=bearer(session)).status_code == 401
    assert bet(app_client, session, table).status_code == 401


def received_within(live: WebSocketTestSession, seconds: float) -> Any:
    """What the server sends ``live`` next, if it comes within ``seconds``."""
    received: list[Any] = []
    reader = threading.Thread(target=lambda: received.append(live.receive()), daemon=True)
    reader.start()
    reader.join(seconds)
    assert received, f"nothing within {seconds} s"
    return received[0]


def test_a_disabled_operator_opens_no_session_and_takes_no_stake(
        app_client: TestClient) -> None:
    engine = app_client.app.state.services.engine  # type: ignore[attr-defined]
    session = launch(app_client)["session"]
    table = open_table(app_client, session)
    disable_operator(engine, "admin", "casino")
    refused = signed_post(app_client, "/api/v1/operator/sessions", payload())
    assert refused.status_code == 403, refused.text
    assert bet(app_client, session, table).status_code == 403
    assert wallet_calls(engine) == []


def stud_round(client: TestClient, session: str, table: int) -> dict[str, Any]:
    """A Hold'em Stud round: the ante, then every street's biggest bet."""
    answer = bet(client, session, table, ante=5)
    assert answer.status_code == 201, answer.text
    view = answer.json()
    while view["phase"] != "complete":
        answer = client.post(f"/api/v1/rounds/{view['id']}/actions", headers=keyed(session),
                             json=view["options"][-1])
        assert answer.status_code == 200, answer.text
        view = answer.json()
    return view


def test_street_bets_go_through_the_wallet_and_the_win_names_them(
        app_client: TestClient, wallet_server: WalletProcess) -> None:
    engine = app_client.app.state.services.engine  # type: ignore[attr-defined]
    player = unique("stud")
    session = launch(app_client, player=player, rules=STUD, currency="JPY")["session"]
    table = open_table(app_client, session, STUD)
    view = stud_round(app_client, session, table)
    drain(app_client)
    calls = wallet_calls(engine)
    bets = [call for call in calls if call.kind == "bet"]
    (win,) = [call for call in calls if call.kind == "win"]
    assert len(bets) >= 2 and {call.state for call in bets} == {"acknowledged"}
    assert sorted(json.loads(win.bets)) == sorted(call.transaction_id for call in bets)
    staked = sum(call.amount for call in bets)
    assert staked % 100 == 0  # JPY: 100 minor units a chip
    with wallet_server.ledger() as ledger:
        assert ledger.balance(player, "JPY") == START - staked + win.amount
    assert view["phase"] == "complete"


def test_a_refused_raise_leaves_the_decision_open_and_one_stake_waits_for_another(
        app_client: TestClient, wallet_server: WalletProcess) -> None:
    engine = app_client.app.state.services.engine  # type: ignore[attr-defined]
    session = launch(app_client, player=unique("ray"))["session"]
    table = open_table(app_client, session)
    opened = bet(app_client, session, table)
    assert opened.status_code == 201, opened.text
    view = opened.json()
    act = f"/api/v1/rounds/{view['id']}/actions"
    wallet_server.faults([{"mode": "refuse", "endpoints": ["bet"], "count": 1,
                           "error": "LIMIT_EXCEEDED"}])
    refused = app_client.post(act, headers=keyed(session), json=view["options"][-1])
    assert refused.status_code == 409 and "LIMIT_EXCEEDED" in refused.text
    shown = app_client.get(f"/api/v1/rounds/{view['id']}", headers=bearer(session)).json()
    assert shown["phase"] == "decisions" and shown["options"] == view["options"]
    wallet_server.faults([{"mode": "fail", "endpoints": ["bet"], "count": 1}])
    unclear = app_client.post(act, headers=keyed(session), json=view["options"][-1])
    assert unclear.status_code == 409, unclear.text
    waiting = app_client.post(act, headers=keyed(session), json=view["options"][-1])
    assert waiting.status_code == 409 and "still with" in waiting.text
    drain(app_client)  # the unclear bet's rollback
    raised = app_client.post(act, headers=keyed(session), json=view["options"][-1])
    assert raised.status_code == 200, raised.text
    drain(app_client)
    kinds = [(call.kind, call.state) for call in wallet_calls(engine)]
    assert kinds == [("bet", "acknowledged"), ("bet", "refused"), ("bet", "rolled_back"),
                     ("rollback", "acknowledged"), ("bet", "acknowledged"),
                     ("win", "acknowledged")]


def test_an_idle_round_is_folded_and_its_win_sent(
        app_client: TestClient, wallet_server: WalletProcess) -> None:
    found = app_client.app.state.services  # type: ignore[attr-defined]
    player = unique("idle")
    session = launch(app_client, player=player)["session"]
    table = open_table(app_client, session)
    opened = bet(app_client, session, table)
    assert opened.status_code == 201 and opened.json()["phase"] == "decisions"
    assert settle_idle(found) == 0  # not idle yet
    with found.engine.begin() as connection:
        connection.execute(update(AuthToken).values(
            last_used_at=now() - timedelta(minutes=found.auth.idle_minutes + 1)))
    assert settle_idle(found) == 1
    drain(app_client)
    (win,) = [call for call in wallet_calls(found.engine) if call.kind == "win"]
    assert (win.amount, win.state) == (0, "acknowledged")  # High Card Flush: a fold loses
    with wallet_server.ledger() as ledger:
        assert ledger.balance(player, "EUR") == START - 10


def test_a_table_is_played_by_its_own_session_only(app_client: TestClient) -> None:
    """Another session of the same player (a relaunch) does not stake at the first
    session's table: its wallet calls would name the wrong session."""
    player = unique("twice")
    first = launch(app_client, player=player)["session"]
    table = open_table(app_client, first)
    second = launch(app_client, player=player)["session"]
    demo = launch(app_client, player=player, mode="demo")["session"]
    assert bet(app_client, second, table).status_code == 404
    assert bet(app_client, demo, table).status_code == 404  # not feltlab's play money
    assert bet(app_client, first, table).status_code == 201


def test_a_rollback_touched_while_the_wallet_answers_wins_over_the_answer(
        app_client: TestClient, wallet_server: WalletProcess) -> None:
    """The wallet took the stake, but meanwhile the stake's rollback was made due (a
    person's "retry now"): the move is not written, the player is refused, and the
    rollback gives the stake back."""
    from feltlab.server.operator_models import WalletTransaction

    engine = app_client.app.state.services.engine  # type: ignore[attr-defined]
    player = unique("late")
    session = launch(app_client, player=player)["session"]
    table = open_table(app_client, session)
    wallet_server.faults([{"mode": "slow", "endpoints": ["bet"], "count": 1, "delay": 0.3}])
    answers: list[Any] = []
    betting = threading.Thread(target=lambda: answers.append(bet(app_client, session, table)))
    betting.start()
    time.sleep(0.15)  # the bet is with the wallet now
    with engine.begin() as connection:
        connection.execute(update(WalletTransaction).where(
            WalletTransaction.kind == "rollback").values(next_try_at=now()))
    betting.join()
    assert answers[0].status_code == 409, answers[0].text
    drain(app_client)
    assert [(call.kind, call.state) for call in wallet_calls(engine)] == [
        ("bet", "rolled_back"), ("rollback", "acknowledged")]
    with wallet_server.ledger() as ledger:
        assert ledger.balance(player, "EUR") == START
