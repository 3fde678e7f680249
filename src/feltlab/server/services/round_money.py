"""A seat's stake and payout with the house in a request's transaction: both wallets
changed by one guarded UPDATE (the player's row only if it holds the stake, so no
balance is read first), and each movement a balanced ledger transaction (the stake, then
the settlement) whose entries record the balances the UPDATE left.

What moves, and each entry's amount and balance, is worked out once
(:func:`_plan`). On SQLite that is three statements (the UPDATE, the transactions, the
entries); on PostgreSQL one, the UPDATE and both INSERTs chained as ``WITH`` queries,
which writes no transaction unless both wallets changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Connection,
    Integer,
    String,
    and_,
    bindparam,
    case,
    column,
    func,
    insert,
    literal_column,
    or_,
    select,
    update,
    values,
)

from feltlab.server.clock import now
from feltlab.server.models import LedgerEntry, LedgerTransaction, Wallet, table_of
from feltlab.server.services.ledger import NEW_ENTRIES, wallet_name
from feltlab.server.services.statements import Prepared

_WALLETS, _TRANSACTIONS = table_of(Wallet), table_of(LedgerTransaction)
_ENTRIES = table_of(LedgerEntry)


@dataclass(frozen=True)
class RoundMoney:
    """What one request moves between a seat and the house: ``stake`` (player to house)
    and ``payout`` (house to player, the stakes back plus the net result), either 0."""

    stake: int
    payout: int
    why: str = "wagers"
    """What the stake is for, in its memo (the wagers, or the decision's name)."""


@dataclass(frozen=True)
class _Entry:
    """One ledger entry: of transaction ``kind``, on the house's wallet or the player's,
    and the wallet's balance after it: its balance after the UPDATE plus ``offset`` (the
    stake is entered before the payout that the UPDATE made at once)."""

    kind: str
    house: bool
    amount: int
    offset: int


def _plan(money: RoundMoney, memo: str) -> tuple[list[tuple[str, str]], list[_Entry]]:
    """The transactions (kind, memo) and entries of ``money``, in the order written."""
    stake, payout = money.stake, money.payout
    kinds, entries = [], []
    if stake:
        kinds.append(("stake", f"{memo}: {money.why}"))
        entries += [_Entry("stake", False, -stake, -payout), _Entry("stake", True, stake, payout)]
    if payout:
        kinds.append(("settle", f"{memo}: settlement"))
        entries += [_Entry("settle", True, -payout, 0), _Entry("settle", False, payout, 0)]
    return kinds, entries


_GUARDED = (update(_WALLETS)
            .where(or_(_WALLETS.c.id == bindparam("house_id"),
                       and_(_WALLETS.c.name == bindparam("player"),
                            _WALLETS.c.balance >= bindparam("debit"))))
            .values(balance=_WALLETS.c.balance + case(
                (_WALLETS.c.house, bindparam("house_delta", type_=BigInteger)),
                else_=bindparam("player_delta", type_=BigInteger)))
            .returning(_WALLETS.c.id, _WALLETS.c.house, _WALLETS.c.balance))
_MOVE = Prepared(_GUARDED)
_NEW_TRANSACTIONS = Prepared(insert(_TRANSACTIONS).returning(_TRANSACTIONS.c.id,
                                                             _TRANSACTIONS.c.kind))
"""Several rows in one statement (the rows come back in any order, told apart by their
kind)."""


@cache
def _chained(transactions: int, entries: int) -> Prepared:
    """PostgreSQL's one statement: the guarded UPDATE, then ``transactions`` and their
    ``entries`` inserted only if both wallets changed; answers the UPDATE's rows."""
    moved = _GUARDED.cte("moved")
    kinds = values(column("kind", String), column("memo", String),
                   column("position", Integer), name="kinds").data([
        (bindparam(f"kind_{index}", type_=String), bindparam(f"memo_{index}", type_=String),
         literal_column(str(index), Integer)) for index in range(transactions)])
    written = (insert(_TRANSACTIONS).from_select(
        ["kind", "round_id", "memo", "created_at"],
        select(kinds.c.kind, bindparam("round_id", type_=Integer), kinds.c.memo,
               bindparam("created_at", type_=_TRANSACTIONS.c.created_at.type))
        .where(select(func.count()).select_from(moved).scalar_subquery() == 2)
        .order_by(kinds.c.position))  # ids in the order written, as on SQLite
        .returning(_TRANSACTIONS.c.id, _TRANSACTIONS.c.kind).cte("written"))
    lines = values(column("kind", String), column("house", Boolean),
                   column("amount", BigInteger), column("offset", BigInteger),
                   column("position", Integer), name="lines").data([
        (bindparam(f"entry_kind_{index}", type_=String),
         bindparam(f"entry_house_{index}", type_=Boolean),
         bindparam(f"entry_amount_{index}", type_=BigInteger),
         bindparam(f"entry_offset_{index}", type_=BigInteger), literal_column(str(index), Integer))
        for index in range(entries)])
    entered = insert(_ENTRIES).from_select(
        ["transaction_id", "wallet_id", "amount", "balance_after"],
        select(written.c.id, moved.c.id, lines.c.amount, moved.c.balance + lines.c.offset)
        .select_from(lines.join(written, written.c.kind == lines.c.kind)
                     .join(moved, moved.c.house == lines.c.house))
        .order_by(lines.c.position)).cte("entered")
    return Prepared(select(moved.c.id, moved.c.house, moved.c.balance).add_cte(entered))


def move_round_money(connection: Connection, user_id: int, currency: str, house_id: int,
                     money: RoundMoney, round_id: int, memo: str) -> int | None:
    """Stake and pay out (see the module's text); returns the player's balance
    afterwards, or None when the balance is less than the stake (the caller refuses the
    request, and its transaction rolls back). ``memo`` names the round and seat."""
    stake, payout = money.stake, money.payout
    if not stake and not payout:
        return None
    kinds, entries = _plan(money, memo)
    params: dict[str, Any] = {
        "house_id": house_id, "player": wallet_name(user_id, currency), "debit": stake,
        "house_delta": stake - payout, "player_delta": payout - stake}
    moment = now()
    if connection.dialect.name == "postgresql":
        params |= {"round_id": round_id, "created_at": moment}
        for index, (kind, text) in enumerate(kinds):
            params |= {f"kind_{index}": kind, f"memo_{index}": text}
        for index, entry in enumerate(entries):
            params |= {f"entry_kind_{index}": entry.kind, f"entry_house_{index}": entry.house,
                       f"entry_amount_{index}": entry.amount,
                       f"entry_offset_{index}": entry.offset}
        rows = _chained(len(kinds), len(entries)).run(connection, params)
    else:
        rows = _MOVE.run(connection, params)
    wallets = {bool(house): (wallet_id, balance) for wallet_id, house, balance in rows}
    if False not in wallets:
        return None
    if connection.dialect.name != "postgresql":
        ids = dict((kind, record_id) for record_id, kind in _NEW_TRANSACTIONS.run_rows(
            connection, [{"kind": kind, "round_id": round_id, "memo": text,
                          "created_at": moment} for kind, text in kinds]))
        NEW_ENTRIES.run_rows(connection, [
            {"transaction_id": ids[entry.kind], "wallet_id": wallets[entry.house][0],
             "amount": entry.amount, "balance_after": wallets[entry.house][1] + entry.offset}
            for entry in entries])
    return int(wallets[False][1])
