"""A seat's stake and payout with the house (:mod:`feltlab.server.services.round_money`):
the same transactions and entries, in the same order, on SQLite (three statements) and
PostgreSQL (one); a stake the balance does not cover writes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Connection, text

from feltlab.server.services import ledger
from feltlab.server.services.database import write_connection
from feltlab.server.services.round_money import RoundMoney, move_round_money
from server.conftest import sign_up
from server.test_ledger_payouts import _user_id, a_round, house_and_balance


def _written(connection: Connection, round_id: int) -> list[tuple[Any, ...]]:
    """The round's ledger entries in id order: (kind, memo, wallet is the house's,
    amount, balance after)."""
    return [tuple(row) for row in connection.execute(text(
        "SELECT t.kind, t.memo, w.house, e.amount, e.balance_after FROM ledger_entries e "
        "JOIN ledger_transactions t ON t.id = e.transaction_id "
        "JOIN wallets w ON w.id = e.wallet_id WHERE t.round_id = :round ORDER BY e.id"),
        {"round": round_id})]


@pytest.mark.parametrize(("stake", "payout"), [(5, 0), (0, 12), (5, 12)])
def test_stake_and_payout_entered_in_order(client: TestClient, stake: int, payout: int
                                           ) -> None:
    round_id = a_round(client)
    user = _user_id(client, sign_up(client))
    engine = client.app.state.services.engine  # type: ignore[attr-defined]
    statements: list[str] = []
    with write_connection(engine) as connection:
        house, before = house_and_balance(connection, statements)
        after = move_round_money(connection, user, "practice", house,
                                 RoundMoney(stake, payout, "raise"), round_id, "round 1 seat 2")
        assert len(statements) == (1 if engine.dialect.name == "postgresql" else 3)
        assert after == 1000 - stake + payout
        house_after = before + stake - payout
        expected = []
        if stake:
            expected += [("stake", "round 1 seat 2: raise", False, -stake, after - payout),
                         ("stake", "round 1 seat 2: raise", True, stake, house_after + payout)]
        if payout:
            expected += [("settle", "round 1 seat 2: settlement", True, -payout, house_after),
                         ("settle", "round 1 seat 2: settlement", False, payout, after)]
        assert _written(connection, round_id)[-len(expected):] == expected


def test_a_stake_not_covered_writes_no_transaction(client: TestClient) -> None:
    round_id = a_round(client)
    user = _user_id(client, sign_up(client))
    engine = client.app.state.services.engine  # type: ignore[attr-defined]
    with write_connection(engine) as connection:
        house = ledger.house_wallet_id(connection, ledger.house_name("practice", 3))
        entries = len(_written(connection, round_id))
        assert move_round_money(connection, user, "practice", house,
                                RoundMoney(1001, 0), round_id, "round 1 seat 2") is None
        if engine.dialect.name == "postgresql":  # one statement: its inserts saw it
            assert len(_written(connection, round_id)) == entries
        connection.rollback()  # as the money path does, refusing the request
    with engine.connect() as connection:
        assert connection.execute(text("SELECT balance FROM wallets WHERE name = :name"),
                                  {"name": ledger.wallet_name(user, "practice")}
                                  ).scalar_one() == 1000
    with write_connection(engine) as connection:
        assert move_round_money(connection, user, "practice", house, RoundMoney(0, 0),
                                round_id, "x") is None
