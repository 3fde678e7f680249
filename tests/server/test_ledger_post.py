"""One seat's stake and payout with the house, posted by the ledger
(:func:`feltlab.server.services.ledger.post`): the same transactions and entries, in the
same order, on SQLite (three statements) and PostgreSQL (one); a stake the balance does
not cover writes nothing, and a house wallet that is missing is an error, never a skip."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Connection, text

from feltlab.server.errors import Conflict
from feltlab.server.services import ledger
from feltlab.server.services.database import write_connection
from feltlab.server.services.money_frame import Account
from server.conftest import sign_up
from server.test_ledger_payouts import _user_id, a_round, house_and_balance


def _post(connection: Connection, user: int, round_id: int, stake: int, payout: int
          ) -> dict[int, int]:
    """Post one seat's move at a table of house shard 3."""
    return ledger.post(connection, ledger.Posting("practice", 3, round_id, bool(payout)),
                       [ledger.Move(user, 2, stake, payout, "raise")],
                       Account(user, False, None, None))


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
        _, before = house_and_balance(connection, statements)
        after = _post(connection, user, round_id, stake, payout)[user]
        assert len(statements) == (1 if engine.dialect.name == "postgresql" else 3)
        assert after == 1000 - stake + payout
        house_after = before + stake - payout
        raised, settled = f"round {round_id} seat 2: raise", f"round {round_id} seat 2: settlement"
        expected = []
        if stake:
            expected += [("stake", raised, False, -stake, after - payout),
                         ("stake", raised, True, stake, house_after + payout)]
        if payout:
            expected += [("settle", settled, True, -payout, house_after),
                         ("settle", settled, False, payout, after)]
        assert _written(connection, round_id)[-len(expected):] == expected


def test_a_stake_not_covered_writes_no_transaction(client: TestClient) -> None:
    round_id = a_round(client)
    user = _user_id(client, sign_up(client))
    engine = client.app.state.services.engine  # type: ignore[attr-defined]
    with write_connection(engine) as connection:
        entries = len(_written(connection, round_id))
        with pytest.raises(Conflict, match="balance of 1000 is less than the 1001"):
            _post(connection, user, round_id, 1001, 0)
        if engine.dialect.name == "postgresql":  # one statement: its inserts saw it
            assert len(_written(connection, round_id)) == entries
        connection.rollback()  # as the money path does, refusing the request
    with engine.connect() as connection:
        assert connection.execute(text("SELECT balance FROM wallets WHERE name = :name"),
                                  {"name": ledger.wallet_name(user, "practice")}
                                  ).scalar_one() == 1000
    with write_connection(engine) as connection:
        assert _post(connection, user, round_id, 0, 0) == {}


def test_a_missing_house_wallet_rolls_the_request_back(client: TestClient) -> None:
    """Once a house shard created inside a refused request was kept by id, and later
    stakes moved only the player's wallet: now a house wallet that is not there is an
    error (the request rolls back), whether this worker knew its id or not."""
    round_id = a_round(client)
    user = _user_id(client, sign_up(client))
    engine = client.app.state.services.engine  # type: ignore[attr-defined]
    with write_connection(engine) as connection:
        with pytest.raises(ledger.MissingWallet):
            ledger.house_wallet_id(connection, "house:practice:999")
        house = ledger.house_wallet_id(connection, ledger.house_name("practice", 3))
        connection.execute(text("DELETE FROM wallets WHERE id = :id"), {"id": house})
        with pytest.raises(ledger.MissingWallet):  # its id known: the UPDATE finds no row
            _post(connection, user, round_id, 5, 0)
        connection.rollback()
    with engine.connect() as connection:
        assert connection.execute(text("SELECT balance FROM wallets WHERE name = :name"),
                                  {"name": ledger.wallet_name(user, "practice")}
                                  ).scalar_one() == 1000
