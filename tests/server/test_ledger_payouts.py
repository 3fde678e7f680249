"""A settled shared round's payouts, all seats in three statements: each payment a
balanced transaction, the house's balance after each one in the order paid."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Connection, event, text

from feltlab.server.services import ledger
from feltlab.server.services.database import write_connection
from server.conftest import balances, play_round, practice_table, sign_up
from server.helpers import assert_books_balance


def _user_id(client: TestClient, headers: dict[str, str]) -> int:
    name = client.get("/api/v1/me", headers=headers).json()["username"]
    engine = client.app.state.services.engine  # type: ignore[attr-defined]
    with engine.connect() as connection:
        return int(connection.execute(text("SELECT id FROM users WHERE username = :name"),
                                      {"name": name}).scalar_one())


def a_round(client: TestClient) -> int:
    """A round's id, for the transactions to name (another player's)."""
    dealer = sign_up(client)
    table = practice_table(client, dealer, "high-card-flush")
    return int(play_round(client, dealer, table, {"wagers": {"ante": 1}})["id"])


def house_and_balance(connection: Connection, statements: list[str]) -> tuple[int, int]:
    """The practice house wallet of table shard 3 and its balance; from then on, every
    statement run on ``connection`` is added to ``statements``."""
    house = ledger.house_wallet_id(connection, ledger.house_name("practice", 3))
    before = int(connection.execute(text("SELECT balance FROM wallets WHERE id = :id"),
                                    {"id": house}).scalar_one())
    event.listen(connection, "before_cursor_execute",
                 lambda *args: statements.append(args[2]))
    return house, before


def test_every_seat_paid_in_one_go(client: TestClient, database_url: str) -> None:
    round_id = a_round(client)
    players = [sign_up(client) for _ in range(3)]
    users = [_user_id(client, headers) for headers in players]
    engine = client.app.state.services.engine  # type: ignore[attr-defined]
    statements: list[str] = []
    with write_connection(engine) as connection:
        house, before = house_and_balance(connection, statements)
        after = ledger.pay_out(connection, "practice", house, round_id, [
            ledger.Payout(users[0], 30, "round seat 1"),
            ledger.Payout(users[1], 0, "round seat 2"),
            ledger.Payout(users[2], 5, "round seat 3")])
    assert after == {users[0]: 1030, users[1]: 1000, users[2]: 1005}
    assert len(statements) == 3, [statement[:60] for statement in statements]
    assert [balances(client, headers)["practice"] for headers in players] == [1030, 1000, 1005]
    with engine.connect() as connection:
        rows = connection.execute(text(
            "SELECT t.memo, e.wallet_id, e.amount, e.balance_after FROM ledger_entries e "
            "JOIN ledger_transactions t ON t.id = e.transaction_id WHERE t.round_id = :id "
            "AND t.memo LIKE 'round seat%' ORDER BY e.id"), {"id": round_id}).all()
    house_side = [(memo, amount, balance) for memo, wallet, amount, balance in rows
                  if wallet == house]
    assert house_side == [("round seat 1: settlement", -30, before - 30),
                          ("round seat 3: settlement", -5, before - 35)]
    assert_books_balance(database_url)


def test_a_player_paid_twice_is_refused_before_anything_moves(client: TestClient) -> None:
    round_id = a_round(client)
    headers = sign_up(client)
    user = _user_id(client, headers)
    engine = client.app.state.services.engine  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="paid twice"), write_connection(engine) as connection:
        house = ledger.house_wallet_id(connection, ledger.house_name("practice", 3))
        ledger.pay_out(connection, "practice", house, round_id, [
            ledger.Payout(user, 10, "round seat 1"), ledger.Payout(user, 10, "round seat 2")])
    assert balances(client, headers)["practice"] == 1000
