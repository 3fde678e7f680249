"""The double-entry ledger: every movement is a balanced pair of entries.

Each account has a ``practice`` and a ``cash`` wallet; the house has one wallet per
currency that takes the other side of every stake and payout and of the practice
top-ups. A player's wallet can never go below zero: the database refuses it (a CHECK
constraint), and :func:`transfer` refuses it first with a clear sentence. Each call
writes one :class:`LedgerTransaction` whose entries sum to zero, in the caller's
database transaction, so the money moves with the game event that caused it or not at
all.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Final

from sqlalchemy import (
    Connection,
    bindparam,
    case,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.sql.elements import BindParameter

from feltlab.server.clock import now
from feltlab.server.errors import Conflict, NotFound
from feltlab.server.models import LedgerEntry, LedgerTransaction, Wallet, table_of
from feltlab.server.services.statements import Prepared

CURRENCIES: Final = ("practice", "cash")
PRACTICE_START: Final = 1000


def wallet_name(user_id: int, currency: str) -> str:
    return f"user:{user_id}:{currency}"


HOUSE_SHARDS: Final = 256
"""The house's side of the rounds is split over this many wallets per currency (by table),
so that rounds at different tables never wait for one another's lock on one house row
(with 16, a benchmark's 50 tables shared each wallet three ways: a stake waited 3.5 ms
for it on average, and held its table's lock meanwhile). Changing it is safe at any time:
each movement is balanced on the wallets it names."""


def house_name(currency: str, shard: int = 0) -> str:
    """``house:CURRENCY`` (shard 0: resets, adjustments) or ``house:CURRENCY:SHARD``."""
    return f"house:{currency}" if shard == 0 else f"house:{currency}:{shard}"


def house_shard(table_id: int) -> int:
    """The house wallet that takes the stakes and pays the results of a table's rounds."""
    return table_id % HOUSE_SHARDS


def _known(session: Session) -> dict[str, tuple[Wallet, bool]]:
    """The wallets this transaction has read already, and whether it locked each: a
    locked wallet is not read again (nobody else can change it before the commit)."""
    known: dict[str, tuple[Wallet, bool]] = session.info.setdefault("wallets", {})
    return known


_BY_NAME = select(Wallet).where(Wallet.name == bindparam("name")).execution_options(
    populate_existing=True)
_BY_NAME_LOCKED = _BY_NAME.with_for_update()
"""Built once: wallets are read on every money request."""


def _wallet(session: Session, name: str, lock: bool = True) -> Wallet:
    seen = _known(session).get(name)
    if seen is not None and (seen[1] or not lock):
        return seen[0]
    query = _BY_NAME_LOCKED if lock else _BY_NAME
    wallet = session.scalars(query, {"name": name}).one_or_none()
    if wallet is None:
        raise NotFound(f"wallet {name} does not exist")
    _known(session)[name] = (wallet, lock)
    return wallet


def house_wallet(session: Session, name: str, lock: bool = False) -> Wallet:
    """The house wallet ``name`` (see :func:`house_name`), created on first use; with
    ``lock``, locked (one query when it exists)."""
    seen = _known(session).get(name)
    if seen is not None and (seen[1] or not lock):
        return seen[0]
    query = _BY_NAME_LOCKED if lock else _BY_NAME
    wallet = session.scalars(query, {"name": name}).one_or_none()
    if wallet is None:  # two first uses at once: one inserts, the other finds it
        dialect = session.get_bind().dialect.name
        module = postgresql if dialect == "postgresql" else sqlite
        session.execute(module.insert(Wallet).values(
            name=name, user_id=None, currency=name.split(":")[1], house=True, balance=0
        ).on_conflict_do_nothing(index_elements=["name"]))
        wallet = session.scalars(query, {"name": name}).one()
    _known(session)[name] = (wallet, lock)
    return wallet


def open_wallets(session: Session, user_id: int) -> None:
    """A new account's wallets: practice topped up to the starting 1,000, cash at 0."""
    for currency in CURRENCIES:
        session.add(Wallet(name=wallet_name(user_id, currency), user_id=user_id,
                           currency=currency, house=False, balance=0))
    session.flush()
    transfer(session, house_name("practice"), wallet_name(user_id, "practice"),
             PRACTICE_START, "open", memo="starting practice balance")


def balance(session: Session, user_id: int, currency: str, lock: bool = False,
            shard: int = 0) -> int:
    """A player's balance; with ``lock``, the house wallet ``shard`` is locked first, as
    every transfer does, so that transactions always lock in one order and never
    deadlock."""
    if lock:
        house_wallet(session, house_name(currency, shard), lock=True)
    return _wallet(session, wallet_name(user_id, currency), lock).balance


def balances(session: Session, user_id: int) -> dict[str, int]:
    wallets = session.scalars(select(Wallet).where(Wallet.user_id == user_id)).all()
    return {wallet.currency: wallet.balance for wallet in wallets}


_NEW_TRANSACTION = insert(table_of(LedgerTransaction)).returning(
    table_of(LedgerTransaction).c.id)
_SET_BALANCE = (update(table_of(Wallet)).where(table_of(Wallet).c.id == bindparam("wallet_id"))
                .values(balance=bindparam("new_balance")))
_NEW_ENTRY = insert(table_of(LedgerEntry))
NEW_ENTRIES = Prepared(_NEW_ENTRY)
"""Several entries in one statement (the round money's and the payouts')."""


def transfer(session: Session, source: str, destination: str, amount: int, kind: str,
             round_id: int | None = None, memo: str = "") -> int:
    """Move ``amount`` (> 0) from wallet ``source`` to ``destination`` as one balanced
    transaction; returns its id. Wallets are locked in name order so concurrent transfers
    cannot deadlock."""
    if amount <= 0:
        raise ValueError(f"a transfer moves a positive amount, got {amount}")
    for name in (source, destination):  # "house:..." sorts before "user:...": name order
        if name.startswith("house:"):
            house_wallet(session, name, lock=True)
    wallets = {name: _wallet(session, name) for name in sorted({source, destination})}
    paying, receiving = wallets[source], wallets[destination]
    if paying.currency != receiving.currency:
        raise ValueError("a transfer stays within one currency")
    if not paying.house and paying.balance < amount:
        raise Conflict(f"the {paying.currency} balance of {paying.balance} is less than "
                       f"the {amount} this needs")
    connection = session.connection()  # Core statements: no unit of work to run
    record_id: int = connection.execute(_NEW_TRANSACTION, {
        "kind": kind, "round_id": round_id, "memo": memo[:200], "created_at": now()}
    ).scalar_one()
    moved = {paying: paying.balance - amount, receiving: receiving.balance + amount}
    # the CHECK constraint speaks here if the balance would go negative
    connection.execute(_SET_BALANCE, [{"wallet_id": wallet.id, "new_balance": balance}
                                      for wallet, balance in moved.items()])
    for wallet, balance in moved.items():
        set_committed_value(wallet, "balance", balance)
    connection.execute(_NEW_ENTRY, [
        {"transaction_id": record_id, "wallet_id": paying.id, "amount": -amount,
         "balance_after": paying.balance},
        {"transaction_id": record_id, "wallet_id": receiving.id, "amount": amount,
         "balance_after": receiving.balance},
    ])
    return record_id


def stake(session: Session, user_id: int, currency: str, amount: int, round_id: int,
          memo: str, shard: int = 0) -> None:
    """The player puts ``amount`` on the table: from their wallet to the house."""
    if amount:
        transfer(session, wallet_name(user_id, currency), house_name(currency, shard), amount,
                 "stake", round_id, memo)


def pay(session: Session, user_id: int, currency: str, amount: int, round_id: int,
        memo: str, shard: int = 0) -> None:
    """The house returns ``amount`` (stakes back plus winnings) to the player."""
    if amount:
        transfer(session, house_name(currency, shard), wallet_name(user_id, currency), amount,
                 "settle", round_id, memo)


# --- a round's money in Core (the private tables' path) -----------------------------------

_WALLETS, _TRANSACTIONS = table_of(Wallet), table_of(LedgerTransaction)
_WALLET_ID = Prepared(select(_WALLETS.c.id).where(_WALLETS.c.name == bindparam("name")))
_HOUSE_IDS: dict[tuple[str, str], int] = {}
"""House wallet ids by database and name, kept by each worker: a wallet's id never
changes, so the money path looks none up."""


def house_wallet_id(connection: Connection, name: str) -> int:
    """The id of house wallet ``name`` (created on first use); usually no query."""
    key = (str(connection.engine.url), name)
    found = _HOUSE_IDS.get(key)
    if found is not None:
        return found
    wallet_id = _WALLET_ID.scalar(connection, {"name": name})
    if wallet_id is not None:  # committed: kept
        _HOUSE_IDS[key] = wallet_id
        return int(wallet_id)
    module = postgresql if connection.dialect.name == "postgresql" else sqlite
    connection.execute(module.insert(_WALLETS).values(
        name=name, user_id=None, currency=name.split(":")[1], house=True, balance=0
    ).on_conflict_do_nothing(index_elements=["name"]))
    return int(_WALLET_ID.scalar(connection, {"name": name}))  # not kept:
    # this transaction may yet roll back


_PLAYER_BALANCE = Prepared(select(_WALLETS.c.balance).where(
    _WALLETS.c.name == bindparam("name")))


def player_balance(connection: Connection, user_id: int, currency: str) -> int:
    """A player's balance, read in Core (no wallet object, no lock)."""
    return int(_PLAYER_BALANCE.scalar(connection, {"name": wallet_name(user_id, currency)}))


@dataclass(frozen=True)
class Payout:
    """What the house pays one seat of a settled round (the stakes back plus the net
    result; 0 when the seat lost them all), and its memo."""

    user_id: int
    amount: int
    memo: str


@cache
def _payouts(seats: int) -> Prepared:
    """The house's wallet gives the payouts' sum and each of ``seats`` players' wallets
    takes its own, in one statement (a player paid 0 is only read)."""
    names: list[BindParameter[str]] = [bindparam(f"name_{index}") for index in range(seats)]
    player_delta = case(*((_WALLETS.c.name == name, bindparam(f"amount_{index}"))
                          for index, name in enumerate(names)), else_=0)
    return Prepared(
        update(_WALLETS)
        .where(or_(_WALLETS.c.id == bindparam("house_id"), _WALLETS.c.name.in_(names)))
        .values(balance=_WALLETS.c.balance + case(
            (_WALLETS.c.house, bindparam("house_delta")), else_=player_delta))
        .returning(_WALLETS.c.id, _WALLETS.c.name, _WALLETS.c.house, _WALLETS.c.balance))


_SETTLEMENTS = Prepared(insert(_TRANSACTIONS).returning(_TRANSACTIONS.c.id,
                                                        _TRANSACTIONS.c.memo))
"""The payments' transactions in one statement; the rows come back in any order, told
apart by their memos (a seat's each)."""


def pay_out(connection: Connection, currency: str, house_id: int, round_id: int,
            payouts: list[Payout]) -> dict[int, int]:
    """Pay every seat of a settled round at once, in the order given, each payment a
    balanced ledger transaction; answers each player's balance afterwards. Three
    statements whatever the number of seats (one when nobody is paid)."""
    names = {wallet_name(payout.user_id, currency): payout for payout in payouts}
    memos = {f"{payout.memo}: settlement" for payout in payouts}
    if len(names) != len(payouts) or len(memos) != len(payouts):
        raise ValueError(f"round {round_id}: a player is paid twice, or two payouts have "
                         "one memo")
    if any(payout.amount < 0 for payout in payouts):
        raise ValueError(f"round {round_id}: a payout is below 0")
    total = sum(payout.amount for payout in payouts)
    params: dict[str, object] = {"house_id": house_id, "house_delta": -total}
    for index, (name, payout) in enumerate(names.items()):
        params[f"name_{index}"], params[f"amount_{index}"] = name, payout.amount
    wallets: dict[str, tuple[int, int]] = {}
    house_after = None
    for wallet_id, name, house, after in _payouts(len(names)).run(connection, params):
        if house:
            house_after = after
        else:
            wallets[name] = (wallet_id, after)
    if house_after is None or len(wallets) != len(names):
        raise RuntimeError(f"round {round_id}: a wallet to pay out is missing")
    paid = [(name, payout) for name, payout in names.items() if payout.amount]
    if paid:
        moment = now()
        settled = [f"{payout.memo}: settlement" for _, payout in paid]
        ids = dict((memo, transaction_id) for transaction_id, memo in _SETTLEMENTS.run_rows(
            connection, [{"kind": "settle", "round_id": round_id, "memo": memo,
                          "created_at": moment} for memo in settled]))
        house_balance = house_after + total  # as it was before: paid one by one
        entries = []
        for memo, (name, payout) in zip(settled, paid, strict=True):
            transaction_id = ids[memo]
            house_balance -= payout.amount
            player_id, player_after = wallets[name]
            entries += [{"transaction_id": transaction_id, "wallet_id": house_id,
                         "amount": -payout.amount, "balance_after": house_balance},
                        {"transaction_id": transaction_id, "wallet_id": player_id,
                         "amount": payout.amount, "balance_after": player_after}]
        NEW_ENTRIES.run_rows(connection, entries)
    return {names[name].user_id: after for name, (_, after) in wallets.items()}


def reset_practice(session: Session, user_id: int) -> int:
    """Bring the practice balance back to 1,000 (either way); returns the new balance."""
    current = balance(session, user_id, "practice", lock=True)
    mine, house = wallet_name(user_id, "practice"), house_name("practice")
    if current < PRACTICE_START:
        transfer(session, house, mine, PRACTICE_START - current, "reset", memo="practice reset")
    elif current > PRACTICE_START:
        transfer(session, mine, house, current - PRACTICE_START, "reset", memo="practice reset")
    return PRACTICE_START


def adjust_cash(session: Session, user_id: int, amount: int, memo: str) -> int:
    """An admin's credit (> 0) or debit (< 0) of a player's cash; returns the new balance."""
    mine, house = wallet_name(user_id, "cash"), house_name("cash")
    if amount > 0:
        transfer(session, house, mine, amount, "adjust", memo=memo)
    elif amount < 0:
        transfer(session, mine, house, -amount, "adjust", memo=memo)
    return balance(session, user_id, "cash")


def entries_sum(session: Session) -> int:
    """The sum of every ledger entry: always zero."""
    return int(session.scalar(select(func.coalesce(func.sum(LedgerEntry.amount), 0))) or 0)


def unbalanced_transactions(session: Session) -> list[int]:
    """Ids of transactions whose entries do not sum to zero (there should be none)."""
    query = (select(LedgerEntry.transaction_id).group_by(LedgerEntry.transaction_id)
             .having(func.sum(LedgerEntry.amount) != 0))
    return list(session.scalars(query))


def wallets_disagreeing_with_entries(session: Session) -> list[str]:
    """Wallets whose balance is not the sum of their entries (there should be none)."""
    sums = dict(session.execute(select(LedgerEntry.wallet_id, func.sum(LedgerEntry.amount))
                                .group_by(LedgerEntry.wallet_id)).all())
    return [wallet.name for wallet in session.scalars(select(Wallet))
            if wallet.balance != int(sums.get(wallet.id, 0))]
