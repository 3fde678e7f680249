"""The wallet outbox on SQLite and PostgreSQL, against the reference operator wallet in
its own process: a win retried through faults until acknowledged and applied once at the
wallet; a round's rollback sent after its bet; the backoff; a call flagged after the
give-up age, then retried or resolved by a person (audit-logged); and two workers on one
database never sending one call twice."""

from __future__ import annotations

import itertools
import json
import time
import uuid
from collections.abc import Iterator, Sequence
from datetime import timedelta

import pytest
from sqlalchemy import Engine, insert, select

from feltlab.server.clock import now
from feltlab.server.errors import Conflict
from feltlab.server.migrate import upgrade
from feltlab.server.models import AuditRecord, GameTable, Round, table_of
from feltlab.server.services.database import (
    make_engine,
    normalise_url,
    session_factory,
    transaction,
    write_connection,
)
from feltlab.server.services.operators import add_operator
from feltlab.server.services.outbox import (
    OutboxSettings,
    WalletCall,
    due,
    find,
    queue_call,
    record,
    resolve_by_hand,
    retry_now,
)
from feltlab.server.services.outbox_worker import OutboxWorker
from feltlab.server.services.wallet_client import (
    Applied,
    ClientSettings,
    Refused,
    Unclear,
    WalletClient,
)
from server.wallet_process import SECRET, WalletProcess, wallet_process, wallet_server

__all__ = ["wallet_process", "wallet_server"]  # fixtures, used by name
FAST = OutboxSettings(first_gap_seconds=0.05, max_gap_seconds=0.2, claim_seconds=30,
                      batch=5, tick_seconds=0.02)
_seeds = itertools.count()


@pytest.fixture
def engine(database_url: str, wallet_server: WalletProcess) -> Iterator[Engine]:
    made = make_engine(normalise_url(database_url))
    upgrade(made)
    add_operator(made, "admin", "casino", wallet_server.url, {"EUR": 1}, SECRET,
                 timeout_seconds=0.5)
    yield made
    made.dispose()


@pytest.fixture
def client() -> Iterator[WalletClient]:
    made = WalletClient(ClientSettings(breaker_threshold=1000))
    yield made
    made.close()


def new_round(engine: Engine) -> int:
    """A settled round of a table of its own (the outbox's rows name a round)."""
    moment = now()
    with write_connection(engine) as connection:
        table_id = connection.execute(insert(table_of(GameTable)).values(
            rules_id="high-card-flush", fingerprint="f", currency="EUR", shared=False,
            status="open", name="", betting_seconds=20, decision_seconds=20,
            created_at=moment).returning(table_of(GameTable).c.id)).scalar_one()
        round_id: int = connection.execute(insert(table_of(Round)).values(
            table_id=table_id, rules_id="high-card-flush", fingerprint="f", currency="EUR",
            server_seed=f"seed-{uuid.uuid4().hex}-{next(_seeds)}", commitment="c",
            client_seed="", phase="complete", created_at=moment, completed_at=moment,
            log="", figures_pending=False).returning(table_of(Round).c.id)).scalar_one()
    return round_id


def queue(engine: Engine, player: str, kind: str, amount: int, round_id: int,
          bets: Sequence[str] = (), rolled_back: str | None = None) -> str:
    with write_connection(engine) as connection:
        return queue_call(connection, operator_id="casino", player=player, session="s1",
                          currency="EUR", kind=kind, amount=amount, round_id=round_id,
                          rules="high-card-flush", bets=bets, rolled_back=rolled_back)


def player() -> str:
    return f"p-{uuid.uuid4().hex[:12]}"


def call(engine: Engine, transaction_id: str) -> WalletCall:
    with engine.connect() as connection:
        found = find(connection, transaction_id)
    assert found is not None
    return found


def drain(worker: OutboxWorker, engine: Engine, transaction_ids: list[str],
          seconds: float = 10) -> None:
    """Run the worker's batches until every call is settled (or fail after ``seconds``)."""
    deadline = time.monotonic() + seconds
    while any(call(engine, tid).state == "pending" for tid in transaction_ids):
        assert time.monotonic() < deadline, [call(engine, tid) for tid in transaction_ids]
        if not worker.run_once():
            time.sleep(0.02)


def test_a_win_is_retried_until_acknowledged_and_applied_once(
        engine: Engine, client: WalletClient, wallet_server: WalletProcess) -> None:
    name, round_id = player(), new_round(engine)
    bet = queue(engine, name, "bet", 500, round_id)
    win = queue(engine, name, "win", 1500, round_id, bets=[bet])
    # two 500s (nothing committed), then a dropped answer (committed): unclear three times
    wallet_server.faults([{"mode": "fail", "endpoints": ["win"], "count": 2},
                          {"mode": "drop", "endpoints": ["win"], "count": 1}])
    drain(OutboxWorker(engine, client, FAST), engine, [bet, win])
    assert wallet_server.remaining() == [0, 0]
    assert (call(engine, bet).state, call(engine, bet).attempts) == ("acknowledged", 1)
    settled = call(engine, win)
    assert (settled.state, settled.attempts, settled.flagged) == ("acknowledged", 4, False)
    assert settled.last_error is None and settled.next_try_at is None
    with wallet_server.ledger() as ledger:
        rows = ledger.transactions(name, "EUR")
        assert ledger.balance(name, "EUR") == 100_000 - 500 + 1500
    assert [(row.kind, row.transaction_id, row.state) for row in rows] == [
        ("bet", bet, "applied"), ("win", win, "applied")]


def test_a_rollback_waits_for_the_bet_it_cancels(
        engine: Engine, client: WalletClient, wallet_server: WalletProcess) -> None:
    name, round_id = player(), new_round(engine)
    other = queue(engine, player(), "win", 0, new_round(engine))
    bet = queue(engine, name, "bet", 700, round_id)
    rollback = queue(engine, name, "rollback", 700, round_id, rolled_back=bet)
    with engine.connect() as connection:  # the round's rollback waits; the others are due
        assert [found.transaction_id for found in due(connection, now(), 10)] == [other, bet]
    wallet_server.faults([{"mode": "fail", "endpoints": ["bet"], "count": 2}])
    drain(OutboxWorker(engine, client, FAST), engine, [other, bet, rollback])
    assert call(engine, bet).state == "rolled_back"  # its rollback was acknowledged
    assert (call(engine, bet).attempts, call(engine, rollback).state) == (3, "acknowledged")
    with wallet_server.ledger() as ledger:
        rows = ledger.transactions(name, "EUR")
        assert ledger.balance(name, "EUR") == 100_000
    assert [(row.kind, row.state, row.delta) for row in rows] == [
        ("bet", "rolled_back", -700), ("rollback", "applied", 700)]


def test_backoff_refusals_and_the_give_up_age(engine: Engine) -> None:
    settings = OutboxSettings(first_gap_seconds=2, max_gap_seconds=30,
                              give_up_after_seconds=24 * 3600)
    start = now()
    round_id, name = new_round(engine), player()
    with write_connection(engine) as connection:
        win = queue_call(connection, operator_id="casino", player=name, session="s",
                         currency="EUR", kind="win", amount=10, round_id=round_id, now=start)
        bet = queue_call(connection, operator_id="casino", player=name, session="s",
                         currency="EUR", kind="bet", amount=10, round_id=round_id, now=start)
    gaps = []
    for attempt in range(6):
        moment = start + timedelta(seconds=attempt)
        kept = record(engine, win, Unclear("timeout"), moment, settings)
        assert kept.next_try_at is not None
        gaps.append((kept.next_try_at - moment).total_seconds())
    assert gaps == [2, 4, 8, 16, 30, 30]
    kept = record(engine, win, Refused("UNKNOWN_BET", 5), start, settings)
    assert (kept.state, kept.last_error, kept.attempts) == ("pending", "refused: UNKNOWN_BET", 7)
    assert record(engine, bet, Refused("INSUFFICIENT_FUNDS", 5), start, settings).state \
        == "refused"
    # a day later, still no answer: flagged, never due again by itself
    late = start + timedelta(hours=24, seconds=1)
    kept = record(engine, win, Unclear("HTTP 500"), late, settings)
    assert (kept.flagged, kept.next_try_at, kept.state) == (True, None, "pending")
    with engine.connect() as connection:
        assert due(connection, late + timedelta(days=1), 10) == []
    kept = retry_now(engine, win, "ops-alice", now=late)
    assert (kept.flagged, kept.next_try_at) == (False, late)
    with engine.connect() as connection:
        assert [found.transaction_id for found in due(connection, late, 10)] == [win]
    assert record(engine, win, Unclear("HTTP 500"), late, settings).flagged  # one more try
    kept = resolve_by_hand(engine, win, "ops-bob", "paid by the operator's support, #4411")
    assert (kept.state, kept.flagged) == ("acknowledged", False)
    assert kept.last_error is not None and "#4411" in kept.last_error
    with pytest.raises(Conflict):
        retry_now(engine, win, "ops-alice")
    assert record(engine, win, Unclear("late"), late, settings).state == "acknowledged"
    with transaction(session_factory(engine)) as session:
        lines = [(line.actor, line.kind, json.loads(line.detail)) for line in session.scalars(
            select(AuditRecord).where(AuditRecord.kind.like("wallet_call%"))
            .order_by(AuditRecord.id))]
    assert [(actor, kind) for actor, kind, _ in lines] == [
        ("ops-alice", "wallet_call_retry_now"), ("ops-bob", "wallet_call_resolved_by_hand")]
    assert lines[1][2]["note"] == "paid by the operator's support, #4411"
    assert lines[1][2]["transaction_id"] == win


def test_an_applied_answer_acknowledges(engine: Engine) -> None:
    tid = queue(engine, player(), "win", 0, new_round(engine))
    kept = record(engine, tid, Applied(12), now())
    assert (kept.state, kept.attempts, kept.next_try_at) == ("acknowledged", 1, None)


def test_two_workers_never_send_one_call_twice(
        database_url: str, engine: Engine, wallet_server: WalletProcess) -> None:
    names = [player() for _ in range(24)]
    wins = [queue(engine, name, "win", 100, new_round(engine)) for name in names]
    # every call to the wallet takes a little while (so the workers overlap) and is counted
    wallet_server.faults([{"mode": "slow", "delay": 0.01, "endpoints": ["win"],
                           "count": 1000}])
    second = make_engine(normalise_url(database_url))  # as another process would have
    clients = [WalletClient(ClientSettings(breaker_threshold=1000)) for _ in range(2)]
    workers = [OutboxWorker(engine, clients[0], FAST, name="outbox-1"),
               OutboxWorker(second, clients[1], FAST, name="outbox-2")]
    try:
        for worker in workers:
            worker.start()
        deadline = time.monotonic() + 15
        while any(call(engine, tid).state == "pending" for tid in wins):
            assert time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        for worker in workers:
            worker.stop()
        for made in clients:
            made.close()
        second.dispose()
    assert wallet_server.remaining() == [1000 - len(wins)]  # each call sent once
    assert {call(engine, tid).attempts for tid in wins} == {1}
    with wallet_server.ledger() as ledger:
        assert [ledger.balance(name, "EUR") for name in names] == [100_100] * len(names)


def test_a_held_bet_is_neither_retried_nor_resolved_by_hand(engine: Engine) -> None:
    """A held bet is its request's to send (the rollback behind it settles it)."""
    round_id = new_round(engine)
    with write_connection(engine) as connection:
        held = queue_call(connection, operator_id="casino", player=player(), session="s",
                          currency="EUR", kind="bet", amount=5, round_id=round_id,
                          held=True)
    with pytest.raises(Conflict, match="its request is sending"):
        retry_now(engine, held, "admin")
    with pytest.raises(Conflict, match="its request is sending"):
        resolve_by_hand(engine, held, "admin", "paid")
    assert call(engine, held).state == "pending"
