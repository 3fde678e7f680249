"""The reference operator wallet (examples/operator_wallet): signatures both ways, idempotency,
rollbacks, wins, the switchable faults, the ledger, and the CLI under uvicorn."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from examples.operator_wallet import (  # noqa: E402
    ConnectionDropped,
    FaultRule,
    create_wallet_app,
    open_ledger,
)

SECRET = "shared-secret"
OLD_SECRET = "previous-secret"
NOW = 1_750_000_000.0
START = 100_000


def signature(secret: str, message: bytes, t: int) -> str:
    digest = hmac.new(secret.encode(), f"{t}.".encode() + message, hashlib.sha256).hexdigest()
    return f"t={t},v1={digest}"


def signed_by(response: httpx.Response, secret: str = SECRET) -> bool:
    fields = dict(part.split("=", 1) for part in response.headers["feltlab-signature"].split(","))
    expected = signature(secret, response.content, int(fields["t"]))
    return hmac.compare_digest(expected, response.headers["feltlab-signature"])


class Caller:
    """feltlab's side: signs each call (at the wallet's fixed clock unless told otherwise)."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.requests = 0

    def post(self, path: str, payload: Any, *, secret: str = SECRET, t: float = NOW,
             header: str | None = None) -> httpx.Response:
        body = json.dumps(payload).encode()
        sig = signature(secret, body, int(t)) if header is None else header
        response: httpx.Response = self.client.post(path, content=body,
                                                    headers={"Feltlab-Signature": sig})
        return response

    def get(self, path: str, *, secret: str = SECRET) -> httpx.Response:
        response: httpx.Response = self.client.get(path, headers={
            "Feltlab-Signature": signature(secret, path.encode(), int(NOW))})
        return response

    def call(self, endpoint: str, **fields: Any) -> dict[str, Any]:
        self.requests += 1
        payload = {"request_id": f"req-{self.requests}", "player": "alice", "currency": "EUR",
                   "session": "sess-1", **fields}
        if endpoint == "bet":
            payload.setdefault("rules", {"game": "high-card-flush"})
        response = self.post(f"/{endpoint}", payload)
        assert response.status_code == 200, response.text
        assert signed_by(response)
        answer: dict[str, Any] = response.json()
        return answer

    def bet(self, tx: str, amount: int, round_id: str = "round-1") -> dict[str, Any]:
        return self.call("bet", transaction_id=tx, amount=amount, round_id=round_id)

    def win(self, tx: str, amount: int, bets: list[str], round_id: str = "round-1"
            ) -> dict[str, Any]:
        return self.call("win", transaction_id=tx, amount=amount, round_id=round_id, bets=bets)

    def rollback(self, tx: str, bet: str, round_id: str = "round-1") -> dict[str, Any]:
        return self.call("rollback", transaction_id=tx, rolled_back=bet, round_id=round_id)

    def balance(self) -> int:
        value: int = self.call("balance")["balance"]
        return value


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "wallet.db"


@pytest.fixture
def wallet(db: Path) -> Iterator[Caller]:
    app = create_wallet_app(db, [SECRET, OLD_SECRET], starting_balance=START, seed=7,
                            admin_token="admin-token", max_bet=50_000, clock=lambda: NOW)
    yield Caller(TestClient(app))
    app.state.store.close()


def faults(wallet: Caller, *rules: dict[str, Any]) -> None:
    response = wallet.post("/_faults", {"faults": list(rules), "seed": 1})
    assert response.status_code == 200, response.text


def ledger(db: Path) -> list[tuple[str, str, int, str]]:
    with open_ledger(db) as opened:
        return [(t.transaction_id, t.kind, t.delta, t.state) for t in opened.transactions()]


# Signatures ---------------------------------------------------------------------------------

BALANCE = {"request_id": "r", "player": "alice", "currency": "EUR", "session": "s"}


def test_a_good_signature_is_accepted_and_the_answer_is_signed(wallet: Caller) -> None:
    response = wallet.post("/balance", BALANCE)
    assert response.status_code == 200
    assert response.json() == {"balance": START}
    assert signed_by(response)
    assert not signed_by(response, OLD_SECRET)
    assert wallet.post("/balance", BALANCE, secret=OLD_SECRET).status_code == 200  # rotation
    assert wallet.post("/balance", BALANCE, t=NOW - 300).status_code == 200


@pytest.mark.parametrize("header", [None, "", "t=1750000000", "v1=abc", "t=x,v1=abc"])
def test_a_missing_or_malformed_signature_is_refused(wallet: Caller, header: str | None) -> None:
    body = json.dumps(BALANCE).encode()
    headers = {} if header is None else {"Feltlab-Signature": header}
    response = wallet.client.post("/balance", content=body, headers=headers)
    assert response.status_code == 401
    assert "detail" in response.json()
    assert signed_by(response)


def test_a_bad_or_stale_signature_is_refused(wallet: Caller, db: Path) -> None:
    for response in (
        wallet.post("/balance", BALANCE, secret="not-the-secret"),
        wallet.post("/balance", BALANCE, t=NOW - 301),
        wallet.post("/balance", BALANCE, t=NOW + 301),
        wallet.post("/balance", BALANCE, header=signature(SECRET, b"other body", int(NOW))),
    ):
        assert response.status_code == 401, response.text
        assert response.json()["detail"]
    with open_ledger(db) as opened:
        assert opened.accounts() == []  # nothing created by a refused call


def test_bad_requests_are_answered_400(wallet: Caller) -> None:
    bet = {**BALANCE, "transaction_id": "t", "round_id": "r", "rules": {}}
    assert wallet.post("/bet", {**bet, "amount": "10"}).status_code == 400
    assert wallet.post("/bet", {**bet, "amount": 0}).status_code == 400
    assert wallet.post("/bet", {**bet, "amount": 1.5}).status_code == 400
    assert wallet.post("/win", {**bet, "amount": -1, "bets": []}).status_code == 400


# Money --------------------------------------------------------------------------------------

def test_a_bet_debits_once_however_often_it_is_retried(wallet: Caller, db: Path) -> None:
    assert wallet.bet("bet-1", 2_500) == {"balance": START - 2_500}
    assert wallet.bet("bet-1", 2_500) == {"balance": START - 2_500}  # retry, new request_id
    assert wallet.balance() == START - 2_500
    assert ledger(db) == [("bet-1", "bet", -2_500, "applied")]
    assert wallet.bet("bet-1", 999)["error"] == "DUPLICATE_TRANSACTION"


def test_refusals(wallet: Caller, db: Path) -> None:
    assert wallet.bet("limit", 50_001) == {"error": "LIMIT_EXCEEDED", "balance": START}
    changed = wallet.post("/_accounts", {"player": "alice", "currency": "EUR", "balance": 300})
    assert changed.status_code == 200 and changed.json()["balance"] == 300
    assert wallet.bet("big", 301) == {"error": "INSUFFICIENT_FUNDS", "balance": 300}
    blocked = wallet.post("/_accounts", {"player": "alice", "currency": "EUR", "blocked": True})
    assert blocked.status_code == 200 and blocked.json()["blocked"] is True
    assert wallet.bet("blocked", 10) == {"error": "PLAYER_BLOCKED", "balance": 300}
    assert wallet.balance() == 300
    assert [(kind, delta, state) for _, kind, delta, state in ledger(db)] == [
        ("bet", 0, "refused"), ("adjustment", 300 - START, "applied"),
        ("bet", 0, "refused"), ("bet", 0, "refused")]


def test_a_rollback_credits_the_bet_back_once(wallet: Caller, db: Path) -> None:
    wallet.bet("bet-1", 1_000)
    assert wallet.rollback("rb-1", "bet-1") == {"balance": START}
    assert wallet.rollback("rb-1", "bet-1") == {"balance": START}  # retried
    assert wallet.rollback("rb-2", "bet-1") == {"balance": START}  # another rollback of it
    assert wallet.balance() == START
    assert ledger(db) == [("bet-1", "bet", -1_000, "rolled_back"),
                          ("rb-1", "rollback", 1_000, "applied"),
                          ("rb-2", "rollback", 0, "applied")]
    assert wallet.bet("bet-1", 1_000)["error"] == "TRANSACTION_ROLLED_BACK"
    assert wallet.balance() == START


def test_a_rollback_of_an_unseen_bet_succeeds_and_the_bet_is_never_applied(
        wallet: Caller, db: Path) -> None:
    assert wallet.rollback("rb-1", "late-bet") == {"balance": START}
    answer = wallet.bet("late-bet", 1_000)
    assert answer == {"error": "TRANSACTION_ROLLED_BACK", "balance": START}
    assert wallet.balance() == START
    assert ("late-bet", "bet", 0, "rolled_back") in ledger(db)


def test_a_win_is_applied_once(wallet: Caller, db: Path) -> None:
    wallet.bet("bet-1", 1_000)
    assert wallet.win("win-1", 3_000, ["bet-1"]) == {"balance": START + 2_000}
    assert wallet.win("win-1", 3_000, ["bet-1"]) == {"balance": START + 2_000}
    assert wallet.win("win-2", 3_000, ["bet-1"])["error"] == "ROUND_ALREADY_SETTLED"
    assert wallet.win("win-3", 5, ["nope"], round_id="round-2")["error"] == "UNKNOWN_BET"
    assert wallet.balance() == START + 2_000
    with open_ledger(db) as opened:
        (account,) = opened.accounts()
        assert account.balance == account.opening_balance + sum(
            t.delta for t in opened.transactions())


# Faults -------------------------------------------------------------------------------------

def test_slow_commits_then_sleeps(wallet: Caller, db: Path) -> None:
    faults(wallet, {"mode": "slow", "endpoints": ["bet"], "count": 1, "delay": 0.4})
    answers: list[dict[str, Any]] = []
    started = time.monotonic()
    worker = threading.Thread(target=lambda: answers.append(wallet.bet("bet-1", 100)))
    worker.start()
    time.sleep(0.2)
    assert worker.is_alive()
    assert ledger(db) == [("bet-1", "bet", -100, "applied")]  # committed before the answer
    worker.join()
    assert time.monotonic() - started >= 0.4
    assert answers == [{"balance": START - 100}]
    assert wallet.bet("bet-2", 100) == {"balance": START - 200}  # count used up


def test_drop_commits_and_gives_no_answer(wallet: Caller, db: Path) -> None:
    faults(wallet, {"mode": "drop", "endpoints": ["bet"], "count": 1})
    with pytest.raises(ConnectionDropped):
        wallet.bet("bet-1", 100)
    assert ledger(db) == [("bet-1", "bet", -100, "applied")]
    assert wallet.bet("bet-1", 100) == {"balance": START - 100}  # the retry learns the outcome
    faults(wallet, {"mode": "drop", "endpoints": ["win"], "count": 1, "status": 502})
    response = wallet.post("/win", {**BALANCE, "transaction_id": "win-1", "amount": 7,
                                    "round_id": "round-1", "bets": ["bet-1"]})
    assert response.status_code == 502
    assert "feltlab-signature" not in response.headers
    assert ledger(db)[-1] == ("win-1", "win", 7, "applied")


def test_fail_commits_nothing(wallet: Caller, db: Path) -> None:
    faults(wallet, {"mode": "fail", "count": 2})
    bet = {**BALANCE, "transaction_id": "bet-1", "amount": 100, "round_id": "r", "rules": {}}
    assert wallet.post("/bet", bet).status_code == 500
    assert wallet.post("/balance", BALANCE).status_code == 500
    assert ledger(db) == []
    with open_ledger(db) as opened:
        assert opened.accounts() == []
    assert wallet.bet("bet-1", 100) == {"balance": START - 100}


def test_refuse_answers_an_error_for_bets_only(wallet: Caller) -> None:
    faults(wallet, {"mode": "refuse", "error": "SESSION_EXPIRED", "count": 1})
    assert wallet.balance() == START
    assert wallet.bet("bet-1", 100) == {"error": "SESSION_EXPIRED", "balance": START}
    assert wallet.bet("bet-2", 100) == {"balance": START - 100}


def test_bad_signature_answers_fail_verification(wallet: Caller, db: Path) -> None:
    faults(wallet, {"mode": "bad_signature", "endpoints": ["bet"], "count": 1})
    bet = {**BALANCE, "transaction_id": "bet-1", "amount": 100, "round_id": "r", "rules": {}}
    response = wallet.post("/bet", bet)
    assert response.status_code == 200
    assert not signed_by(response) and not signed_by(response, OLD_SECRET)
    assert ledger(db) == [("bet-1", "bet", -100, "applied")]
    assert signed_by(wallet.post("/bet", bet))


def test_probabilistic_faults_are_reproducible(db: Path, tmp_path: Path) -> None:
    def run(path: Path) -> list[int]:
        rule = FaultRule(mode="fail", probability=0.5)
        caller = Caller(TestClient(create_wallet_app(path, SECRET, seed=42, faults=[rule],
                                                     clock=lambda: NOW)))
        return [caller.post("/balance", BALANCE).status_code for _ in range(20)]

    first, second = run(db), run(tmp_path / "other.db")
    assert first == second
    assert set(first) == {200, 500}


def test_operator_endpoints_need_a_signature_or_the_admin_token(wallet: Caller) -> None:
    assert wallet.client.post("/_faults", json={"faults": []}).status_code == 401
    assert wallet.client.get("/_ledger").status_code == 401
    token = {"Authorization": "Bearer admin-token"}
    response = wallet.client.post("/_faults", json={"faults": [{"mode": "slow", "count": 2}]},
                                  headers=token)
    assert response.status_code == 200
    assert response.json()["faults"][0]["remaining"] == 2
    assert wallet.client.post("/_faults", json={"faults": [{"mode": "explode"}]},
                              headers=token).status_code == 400
    assert wallet.client.get("/_faults", headers=token).json()["faults"][0]["mode"] == "slow"


def test_the_ledger_endpoint(wallet: Caller) -> None:
    wallet.bet("bet-1", 100)
    wallet.rollback("rb-1", "bet-1")
    wallet.call("balance", player="bob")
    response = wallet.get("/_ledger?player=alice&currency=EUR")
    assert response.status_code == 200 and signed_by(response)
    state = response.json()
    assert [a["player"] for a in state["accounts"]] == ["alice"]
    assert [(t["transaction_id"], t["kind"], t["amount"], t["round_id"], t["state"])
            for t in state["transactions"]] == [("bet-1", "bet", 100, "round-1", "rolled_back"),
                                                ("rb-1", "rollback", 100, "round-1", "applied")]
    assert len(wallet.get("/_ledger").json()["accounts"]) == 2
    tampered = wallet.client.get("/_ledger?player=bob", headers={
        "Feltlab-Signature": signature(SECRET, b"/_ledger?player=alice", int(NOW))})
    assert tampered.status_code == 401


# The CLI under uvicorn ----------------------------------------------------------------------

def test_the_cli_serves_the_wallet_and_drop_closes_the_connection(db: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    plan = json.dumps({"faults": [{"mode": "drop", "endpoints": ["bet"], "count": 1}]})
    env = {**os.environ, "OPERATOR_WALLET_SECRET": SECRET, "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen(
        [sys.executable, "-m", "examples.operator_wallet", "--port", str(port), "--db", str(db),
         "--faults", plan, "--log-level", "critical"],
        cwd=ROOT, env=env, stdin=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                if httpx.get(f"{base}/_health").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
        bet = json.dumps({**BALANCE, "transaction_id": "bet-1", "amount": 100,
                          "round_id": "r", "rules": {}}).encode()
        headers = {"Feltlab-Signature": signature(SECRET, bet, int(time.time()))}
        with pytest.raises(httpx.RemoteProtocolError):
            httpx.post(f"{base}/bet", content=bet, headers=headers)
        response = httpx.post(f"{base}/bet", content=bet, headers=headers)
        assert response.json() == {"balance": START - 100} and signed_by(response)
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert ledger(db) == [("bet-1", "bet", -100, "applied")]
