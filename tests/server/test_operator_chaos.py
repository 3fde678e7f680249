"""The chaos test of feltlab as a game supplier, on SQLite and PostgreSQL: two players of
an operator play High Card Flush and Hold'em Stud (raises, street bets, a fold now and
then) against the reference operator wallet in its own process, which answers about 10%
of bets too slowly (after committing), drops 5% of answers after committing, fails 5%
before committing, and fails 30% of wins at first; and feltlab (``feltlab serve``) is
SIGKILLed once mid-play and restarted. Afterwards nothing is pending, every settled
round's bets and win at the operator equal feltlab's stake and return, every unsettled
or refused stake is rolled back (or was never taken), nothing is paid twice, and each
player's balance at the operator is the start plus feltlab's results to the unit.

CI plays 40 rounds (20 a player) with a 0.3 s wallet timeout; the slow test plays 200
(``pytest -m slow``)."""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from sqlalchemy import Engine, select

from feltlab.server.migrate import upgrade
from feltlab.server.models import GameTable, Round, RoundSeat
from feltlab.server.services.database import make_engine, normalise_url
from feltlab.server.signatures import HEADER, sign, verify
from server.helpers import assert_books_balance
from server.live_server import LiveServer
from server.operators_helpers import register, wallet_calls
from server.wallet_process import SECRET, WalletProcess

START = 100_000
TIMEOUT = 0.3
FAULTS = [
    {"mode": "slow", "endpoints": ["bet"], "probability": 0.10, "delay": 0.8},
    {"mode": "drop", "endpoints": ["bet"], "probability": 0.05 / 0.90},
    {"mode": "fail", "endpoints": ["bet"], "probability": 0.05 / 0.85},
    {"mode": "fail", "endpoints": ["win"], "probability": 0.30},
]
"""Each rule is drawn after the ones before it missed: 10%, 5% and 5% of all bets."""
GAMES = {"high-card-flush": {"wagers": {"ante": 10}, "colour": None},
         "nh-holdem-stud": {"wagers": {"ante": 5, "bonus3": 2}, "colour": None}}


@pytest.fixture
def wallet(tmp_path: Path) -> Iterator[WalletProcess]:
    (tmp_path / "wallet").mkdir()
    made = WalletProcess(tmp_path / "wallet")
    yield made
    made.stop()


class Player:
    """One player at its own table: bets, decides at random (raising or betting mostly,
    folding now and then), and rides out refusals and the server's death the way a page
    does (the same Idempotency-Key again after a dropped connection)."""

    def __init__(self, base: str, name: str, rules: str, rounds: int, seed: int) -> None:
        self.name, self.rules, self.rounds = name, rules, rounds
        self.random = random.Random(seed)
        self.http = httpx.Client(base_url=base, timeout=30)
        self.completed = self.refusals = 0
        self.error: BaseException | None = None
        self.session = ""
        self.played: list[int] = []
        self.thread = threading.Thread(target=self.run, name=name, daemon=True)

    def run(self) -> None:
        try:
            self.play()
        except BaseException as error:  # reported by the test
            self.error = error
        finally:
            self.http.close()

    def launch(self) -> None:
        body = orjson.dumps({"operator": "casino", "player": self.name, "currency": "EUR",
                             "rules": self.rules, "mode": "real"})
        answer = self.send("POST", "/api/v1/operator/sessions", content=body, headers={
            "content-type": "application/json", HEADER: sign(SECRET, body)})
        assert answer.status_code == 201, answer.text
        self.session = answer.json()["session"]

    def send(self, method: str, path: str, **options: Any) -> httpx.Response:
        """A request, sent again as it was while the server is down (up to 90 s)."""
        deadline = time.monotonic() + 90
        while True:
            try:
                return self.http.request(method, path, **options)
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def call(self, method: str, path: str, body: object = None) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.session}",
                   "Idempotency-Key": uuid.uuid4().hex}
        return self.send(method, path, json=body, headers=headers)

    def play(self) -> None:
        self.launch()
        opened = self.call("POST", "/api/v1/tables", {"rules": self.rules})
        assert opened.status_code == 201, opened.text
        table = opened.json()["id"]
        while self.completed < self.rounds:
            view = self.bet(table)
            while view["phase"] != "complete":
                view = self.decide(view)
            self.played.append(view["id"])
            self.completed += 1

    def bet(self, table: int) -> dict[str, Any]:
        for _ in range(500):
            answer = self.call("POST", f"/api/v1/tables/{table}/rounds", GAMES[self.rules])
            if answer.status_code == 201:
                found: dict[str, Any] = answer.json()
                return found
            assert answer.status_code == 409, answer.text
            self.refusals += 1
            shown = self.call("GET", f"/api/v1/tables/{table}").json()["round"]
            if shown is not None and shown["phase"] not in ("wagers", "complete"):
                return dict(shown)  # the bet went through before the server died
            time.sleep(0.05)
        raise AssertionError(f"{self.name}: no bet taken in 500 tries")

    def decide(self, view: dict[str, Any]) -> dict[str, Any]:
        options = view["options"]
        staking = [option for option in options if option["action"] != "fold"]
        choice = (self.random.choice(staking) if staking and self.random.random() < 0.9
                  else self.random.choice(options))
        answer = self.call("POST", f"/api/v1/rounds/{view['id']}/actions", choice)
        if answer.status_code == 200:
            found: dict[str, Any] = answer.json()
            return found
        assert answer.status_code == 409, answer.text
        self.refusals += 1
        time.sleep(0.05)
        again: dict[str, Any] = self.call("GET", f"/api/v1/rounds/{view['id']}").json()
        return again


def play_with_a_kill(server: LiveServer, players: list[Player]) -> None:
    for player in players:
        player.thread.start()
    total = sum(player.rounds for player in players)
    deadline = time.monotonic() + 600
    while sum(player.completed for player in players) < total // 2:
        assert time.monotonic() < deadline and all(p.error is None for p in players)
        time.sleep(0.02)
    server.kill()  # mid-play: some request is between its two transactions, or in one
    time.sleep(0.3)
    server.start()
    for player in players:
        player.thread.join(timeout=600)
        assert player.error is None, player.error
        assert player.completed == player.rounds


def wait_until_nothing_pending(engine: Engine, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while any(call.state == "pending" for call in wallet_calls(engine)):
        assert time.monotonic() < deadline, [
            (call.kind, call.state, call.attempts, call.last_error, call.flagged)
            for call in wallet_calls(engine) if call.state == "pending"]
        time.sleep(0.2)


def check_the_ledgers_agree(engine: Engine, wallet: WalletProcess,
                            players: list[Player]) -> dict[str, int]:
    """Everything the module's text promises; answers a few counts for the report."""
    calls = wallet_calls(engine)
    with engine.connect() as connection:
        seats = {row.round_id: row for row in connection.execute(
            select(RoundSeat.round_id, RoundSeat.staked, RoundSeat.total, Round.phase)
            .join(Round, Round.id == RoundSeat.round_id)
            .join(GameTable, GameTable.id == Round.table_id)
            .where(GameTable.operator_session_id.is_not(None)))}
    with wallet.ledger() as ledger:
        at_wallet = {row.transaction_id: row for row in ledger.transactions()}
        balances = {player.name: ledger.balance(player.name, "EUR") for player in players}
    mine = {call.transaction_id: call for call in calls}
    assert set(at_wallet) <= set(mine), "the wallet applied a transaction feltlab never made"
    assert {call.state for call in calls} <= {"acknowledged", "refused", "rolled_back"}
    for round_id, seat in seats.items():
        bets = [call for call in calls if call.round_id == round_id and call.kind == "bet"]
        taken = [call for call in bets if call.state == "acknowledged"]
        wins = [at_wallet[call.transaction_id] for call in calls
                if call.round_id == round_id and call.kind == "win"]
        applied = [at_wallet[call.transaction_id] for call in taken]
        assert all(row.state == "applied" for row in applied), (round_id, applied)
        if seat.phase == "complete":
            assert sum(call.amount for call in taken) == seat.staked, round_id
            assert sum(row.amount for row in applied) == seat.staked, round_id
            assert [(row.amount, row.state) for row in wins] == [
                (seat.staked + seat.total, "applied")], round_id
        else:
            assert not taken and not wins, round_id
        for call in bets:
            if call.state != "acknowledged" and call.transaction_id in at_wallet:
                assert at_wallet[call.transaction_id].state in ("rolled_back", "refused")
    for player in players:
        result = sum(seats[round_id].total or 0 for round_id in player.played)
        assert balances[player.name] == START + result, player.name
    return {"calls": len(calls), "rounds": len(seats),
            "rolled_back": sum(call.state == "rolled_back" for call in calls),
            "refused": sum(call.state == "refused" for call in calls)}


def check_the_reconciliation_feed(base: str, engine: Engine) -> None:
    path = "/api/v1/operator/transactions?operator=casino&limit=10000"
    answer = httpx.get(base + path, headers={HEADER: sign(SECRET, path.encode())})
    assert answer.status_code == 200, answer.text
    verify([SECRET], answer.headers[HEADER], answer.content)
    feed = {row["transaction_id"]: row["state"] for row in answer.json()["transactions"]}
    assert feed == {call.transaction_id: call.state for call in wallet_calls(engine)}


def chaos(database_url: str, tmp_path: Path, wallet: WalletProcess, rounds: int,
          monkeypatch: pytest.MonkeyPatch) -> None:
    engine = make_engine(normalise_url(database_url))
    upgrade(engine)
    register(engine, wallet.url, timeout=TIMEOUT)
    for name, value in {"RETRY_FIRST_SECONDS": "0.1", "RETRY_MAX_SECONDS": "0.5",
                        "ROLLBACK_GRACE_SECONDS": "1"}.items():
        monkeypatch.setenv(f"FELTLAB_WALLET_{name}", value)
    assert wallet.admin.post("/_faults", json={"faults": FAULTS, "seed": 7}).is_success
    server = LiveServer(database_url, tmp_path / "server.log")
    server.start()
    try:
        players = [Player(server.base, f"hcf-{uuid.uuid4().hex[:6]}", "high-card-flush",
                          rounds // 2, 1),
                   Player(server.base, f"stud-{uuid.uuid4().hex[:6]}", "nh-holdem-stud",
                          rounds // 2, 2)]
        play_with_a_kill(server, players)
        wait_until_nothing_pending(engine)
        counts = check_the_ledgers_agree(engine, wallet, players)
        check_the_reconciliation_feed(server.base, engine)
    finally:
        server.stop()
    assert_books_balance(database_url)  # feltlab's own ledger untouched by operator money
    engine.dispose()
    assert counts["rounds"] >= rounds and counts["rolled_back"] > 0, counts
    print(f"chaos: {counts} refusals {[player.refusals for player in players]}")


def test_forty_rounds_through_faults_and_a_kill(database_url: str, tmp_path: Path,
                                                wallet: WalletProcess,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    chaos(database_url, tmp_path, wallet, 40, monkeypatch)


@pytest.mark.slow
def test_two_hundred_rounds_through_faults_and_a_kill(database_url: str, tmp_path: Path,
                                                      wallet: WalletProcess,
                                                      monkeypatch: pytest.MonkeyPatch
                                                      ) -> None:
    chaos(database_url, tmp_path, wallet, 200, monkeypatch)


def restart_when_dead(server: LiveServer) -> threading.Thread:
    """Start the server again once its fault injection has killed it."""
    def watch() -> None:
        assert server.process is not None
        server.process.wait(timeout=120)
        server.start()

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("crash", [{"commits": 1}, {"wallet_calls": 1}, {"commits": 2}],
                         ids=["after-the-hold", "after-the-debit", "after-the-settle"])
def test_a_kill_around_the_wallet_call_never_keeps_a_stake_unrecorded(
        database_url: str, tmp_path: Path, wallet: WalletProcess,
        monkeypatch: pytest.MonkeyPatch, crash: dict[str, int]) -> None:
    """Killed after the stake is held, after the wallet debited it, or after the round
    was written but before the answer went out: the player's retry (the same key) gets
    the bet played once, and the wallet ends with exactly the round's money."""
    engine = make_engine(normalise_url(database_url))
    upgrade(engine)
    register(engine, wallet.url, timeout=TIMEOUT)
    monkeypatch.setenv("FELTLAB_WALLET_ROLLBACK_GRACE_SECONDS", "1")
    monkeypatch.setenv("FELTLAB_WALLET_RETRY_FIRST_SECONDS", "0.1")
    server = LiveServer(database_url, tmp_path / "server.log")
    server.start(**crash)
    try:
        player = Player(server.base, f"k-{uuid.uuid4().hex[:6]}", "high-card-flush", 1, 3)
        restarted = restart_when_dead(server)
        player.thread.start()
        player.thread.join(timeout=120)
        restarted.join(timeout=120)
        assert player.error is None, player.error
        assert server.starts == 2
        wait_until_nothing_pending(engine)
        check_the_ledgers_agree(engine, wallet, [player])
        states = [(call.kind, call.state) for call in wallet_calls(engine)]
        if "commits" in crash and crash["commits"] == 2:
            assert ("rollback", "acknowledged") not in states  # the answer was replayed
        else:
            assert states[:2] == [("bet", "rolled_back"), ("rollback", "acknowledged")]
    finally:
        server.stop()
        engine.dispose()
