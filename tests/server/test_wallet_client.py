"""The wallet client against the reference operator wallet in its own process: a bet
applied (once, however often it is sent), a refusal, every fault the wallet can put on
(slow past the timeout, a dropped connection, a 502, a 500, a bad signature) unclear;
the answers a real wallet would hardly give (stale or missing signatures, malformed JSON)
through a stand-in transport; the circuit breaker and the slots."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator

import orjson
import pytest

from feltlab.server.migrate import upgrade
from feltlab.server.services.database import make_engine, normalise_url
from feltlab.server.services.operators import add_operator
from feltlab.server.services.wallet_client import (
    BUSY,
    CIRCUIT_OPEN,
    Applied,
    ClientSettings,
    OperatorWallet,
    Refused,
    Reply,
    Unclear,
    WalletClient,
    wallet_of,
)
from feltlab.server.signatures import sign
from server.wallet_process import SECRET, WalletProcess, wallet_process, wallet_server

__all__ = ["wallet_process", "wallet_server"]  # fixtures, used by name
TIMEOUT = 0.4


def wallet_at(url: str, timeout: float = TIMEOUT) -> OperatorWallet:
    return OperatorWallet("casino", url, timeout, SECRET, (SECRET,))


@pytest.fixture
def client() -> Iterator[WalletClient]:
    made = WalletClient(ClientSettings(breaker_threshold=1000))
    yield made
    made.close()


def player() -> str:
    return f"p-{uuid.uuid4().hex[:12]}"


def bet(client: WalletClient, wallet: OperatorWallet, name: str, amount: int = 500,
        transaction_id: str | None = None) -> Applied | Refused | Unclear:
    return client.bet(wallet, transaction_id or f"fl-{uuid.uuid4().hex}", name, "EUR",
                      amount, "r1", "s1", "high-card-flush")


def test_a_bet_is_applied_once_and_in_the_wallets_ledger(
        wallet_server: WalletProcess, client: WalletClient, sqlite_url: str) -> None:
    engine = make_engine(normalise_url(sqlite_url))
    try:
        upgrade(engine)
        add_operator(engine, "admin", "casino", wallet_server.url, {"EUR": 1}, SECRET,
                     timeout_seconds=TIMEOUT)
        wallet = wallet_of(engine, "casino")
    finally:
        engine.dispose()
    name = player()
    assert client.balance(wallet, name, "EUR", "s1") == Applied(100_000)
    tid = f"fl-{uuid.uuid4().hex}"
    assert bet(client, wallet, name, 500, tid) == Applied(99_500)
    assert bet(client, wallet, name, 500, tid) == Applied(99_500)  # a retry: not again
    win = client.win(wallet, f"fl-{uuid.uuid4().hex}", name, "EUR", 1200, "r1", [tid], "s1")
    assert win == Applied(100_700)
    with wallet_server.ledger() as ledger:
        assert ledger.balance(name, "EUR") == 100_700
        rows = ledger.transactions(name, "EUR")
    assert [(row.kind, row.transaction_id, row.delta) for row in rows][:1] == \
        [("bet", tid, -500)]
    assert [row.kind for row in rows] == ["bet", "win"]


def test_refusals(wallet_server: WalletProcess, client: WalletClient) -> None:
    wallet, name = wallet_at(wallet_server.url), player()
    assert bet(client, wallet, name, 200_000) == Refused("INSUFFICIENT_FUNDS", 100_000)
    wallet_server.faults([{"mode": "refuse", "error": "PLAYER_BLOCKED", "count": 1}])
    assert bet(client, wallet, name) == Refused("PLAYER_BLOCKED", 100_000)
    with wallet_server.ledger() as ledger:
        assert ledger.balance(name, "EUR") == 100_000
        assert {row.state for row in ledger.transactions(name, "EUR")} == {"refused"}


@pytest.mark.parametrize(("fault", "committed"), [
    ({"mode": "slow", "delay": TIMEOUT + 0.6}, True),
    ({"mode": "drop"}, True),
    ({"mode": "drop", "status": 502}, True),
    ({"mode": "fail"}, False),
    ({"mode": "bad_signature"}, True),
], ids=["slow", "drop", "502", "fail", "bad_signature"])
def test_every_fault_is_unclear(wallet_server: WalletProcess, client: WalletClient,
                                fault: dict[str, object], committed: bool) -> None:
    """Unclear whether the wallet committed the bet or not (all but ``fail`` did)."""
    wallet, name = wallet_at(wallet_server.url), player()
    wallet_server.faults([{**fault, "count": 1}])
    outcome = bet(client, wallet, name)
    assert isinstance(outcome, Unclear), outcome
    # the line still works; the wallet had applied the bet or not
    assert bet(client, wallet, name) == Applied(99_000 if committed else 99_500)


Sent = tuple[str, bytes]
"""What a stand-in network saw: the URL and the raw body."""


def stand_in(answer: Callable[[Sent], Reply]) -> WalletClient:
    return WalletClient(ClientSettings(), send=lambda url, body, headers, timeout: answer(
        (url, body)))


Answer = Callable[[], Reply]


def signed(body: bytes, status: int = 200, ago: int = 0, secret: str = SECRET) -> Answer:
    """An answer signed ``ago`` seconds before it is made (at the test's run, not its
    collection, which may be minutes earlier)."""
    return lambda: Reply(status, body, sign(secret, body, int(time.time()) - ago))


@pytest.mark.parametrize(("answer", "expected"), [
    (signed(b'{"balance":5}'), Applied(5)),
    (signed(b'{"error":"SESSION_EXPIRED","balance":5}', 403),
     Refused("SESSION_EXPIRED", 5)),
    (signed(b'{"error":"LIMIT_EXCEEDED"}'), Refused("LIMIT_EXCEEDED", None)),
    (signed(b'{"balance":5}', ago=1000), "stale"),
    (lambda: Reply(200, b'{"balance":5}', None), "missing"),
    (signed(b'{"balance":5}', secret="x" * 32), "no secret matches"),
    (signed(b'{"balance":'), "malformed JSON"),
    (signed(b'{"balance":true}'), "no balance"),
    (signed(b'{"balance":"5"}'), "no balance"),
    (signed(b'{"detail":"bad body"}', 400), "no balance"),
    (signed(b'{"error":"X","balance":5}', 503), "HTTP 503"),
    (signed(b'{"balance":5}', 302), "HTTP 302"),
], ids=["applied", "refused-403", "refused-no-balance", "stale", "unsigned", "wrong-secret",
        "malformed", "bool", "string", "400", "503", "302"])
def test_answers_classified(answer: Answer, expected: object) -> None:
    sent: list[Sent] = []

    def reply(request: Sent) -> Reply:
        sent.append(request)
        return answer()

    client = stand_in(reply)
    outcome = client.bet(wallet_at("http://wallet.test/api"), "fl-1", "alice", "EUR", 5,
                         "r1", "s1", "rules")
    client.close()
    if isinstance(expected, str):
        assert isinstance(outcome, Unclear) and expected in outcome.reason, outcome
    else:
        assert outcome == expected
    ((url, content),) = sent
    assert url == "http://wallet.test/api/bet"
    body = orjson.loads(content)
    assert len(body.pop("request_id")) == 32
    assert body == {"transaction_id": "fl-1", "player": "alice", "currency": "EUR",
                    "amount": 5, "round_id": "r1", "session": "s1", "rules": "rules"}


def test_each_call_a_new_request_id_a_retry_the_same_transaction_id() -> None:
    bodies: list[dict[str, object]] = []

    def reply(request: Sent) -> Reply:
        bodies.append(orjson.loads(request[1]))
        return Reply(500, b"", None)

    client, wallet = stand_in(reply), wallet_at("http://wallet.test")
    for _ in range(2):
        client.rollback(wallet, "fl-rb", "fl-bet", "alice", "EUR", "r1", "s1")
    client.close()
    assert bodies[0]["request_id"] != bodies[1]["request_id"]
    assert {body.pop("request_id") and None for body in bodies} == {None}
    assert bodies[0] == bodies[1] == {"transaction_id": "fl-rb", "rolled_back": "fl-bet",
                                      "player": "alice", "currency": "EUR", "round_id": "r1",
                                      "session": "s1"}


def test_the_circuit_opens_after_n_unclear_and_closes_after_the_cool_down(
        wallet_server: WalletProcess) -> None:
    moment = [0.0]
    client = WalletClient(ClientSettings(breaker_threshold=3, breaker_cooldown_seconds=10),
                          clock=lambda: moment[0])
    wallet, name = wallet_at(wallet_server.url), player()
    wallet_server.faults([{"mode": "fail", "count": 4}])
    try:
        for _ in range(3):
            assert bet(client, wallet, name) == Unclear("HTTP 500")
        assert client.circuit_open("casino")
        assert bet(client, wallet, name) == Unclear(CIRCUIT_OPEN)  # never sent
        assert wallet_server.remaining() == [1]
        moment[0] = 9.9
        assert bet(client, wallet, name) == Unclear(CIRCUIT_OPEN)
        moment[0] = 10.0  # cooled down: one trial, which fails: open again
        assert bet(client, wallet, name) == Unclear("HTTP 500")
        assert bet(client, wallet, name) == Unclear(CIRCUIT_OPEN)
        moment[0] = 20.0  # the next trial is answered: closed
        assert bet(client, wallet, name) == Applied(99_500)
        assert not client.circuit_open("casino")
        assert bet(client, wallet, name) == Applied(99_000)
    finally:
        client.close()


def test_a_call_without_a_free_slot_is_busy(wallet_server: WalletProcess) -> None:
    client = WalletClient(ClientSettings(max_concurrent=1, slot_wait_seconds=0.05))
    wallet, name = wallet_at(wallet_server.url, timeout=3), player()
    wallet_server.faults([{"mode": "slow", "delay": 0.8, "count": 1}])
    slow: list[object] = []
    first = threading.Thread(target=lambda: slow.append(bet(client, wallet, name)))
    try:
        first.start()
        time.sleep(0.3)
        assert bet(client, wallet, name) == Unclear(BUSY)
        first.join()
        assert slow == [Applied(99_500)]
        assert bet(client, wallet, name) == Applied(99_000)
    finally:
        first.join()
        client.close()
