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

import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Final, Protocol

from sqlalchemy import (
    BigInteger,
    Boolean,
    Connection,
    Engine,
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
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.sql.elements import BindParameter

from feltlab.server.clock import now
from feltlab.server.errors import Conflict, NotFound
from feltlab.server.models import LedgerEntry, LedgerTransaction, Wallet, table_of
from feltlab.server.services.limits import check_stake, refuse_if_barred
from feltlab.server.services.statements import Prepared

if TYPE_CHECKING:
    from feltlab.server.services.money_frame import Account

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


class MissingWallet(RuntimeError):
    """A wallet the ledger needs does not exist: the request is rolled back (a 500), and
    nothing moves. Every house wallet is created by the schema's migrations, never by a
    request (one created inside a request that rolled back was once kept by id)."""


def house_wallet(session: Session, name: str, lock: bool = False) -> Wallet:
    """The house wallet ``name`` (see :func:`house_name`); with ``lock``, locked."""
    seen = _known(session).get(name)
    if seen is not None and (seen[1] or not lock):
        return seen[0]
    query = _BY_NAME_LOCKED if lock else _BY_NAME
    wallet = session.scalars(query, {"name": name}).one_or_none()
    if wallet is None:
        raise MissingWallet(f"house wallet {name} does not exist")
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


# --- posting a round's money: the pipeline's one way to move it -------------------------------

@dataclass(frozen=True)
class Move:
    """What one step of a round moves between a seat and the house: ``stake`` (player to
    house) and ``payout`` (house to player: the stakes back plus the net result), either
    0; ``why`` names the stake in its memo (the wagers, or the decision)."""

    user_id: int
    seat: int
    stake: int
    payout: int
    why: str = "wagers"


@dataclass(frozen=True)
class Posting:
    """Where a step's moves are posted: the round, its table and currency; ``settles``
    when the step completed the round (every seat is paid, 0 included)."""

    currency: str
    table_id: int
    round_id: int
    settles: bool


class MoneyPoster(Protocol):
    """The money step of the pipeline: posts a step's moves, refusing a stake the player
    may not make (nothing moves then), and answers each moved player's balance after it.
    :func:`post` is the ledger's; an operator's wallet is another."""

    def __call__(self, connection: Connection, posting: Posting, moves: Sequence[Move],
                 account: Account | None) -> dict[int, int]: ...


def post(connection: Connection, posting: Posting, moves: Sequence[Move],
         account: Account | None) -> dict[int, int]:
    """Post ``moves`` in the request's transaction, each a balanced ledger transaction
    with the house's wallet for the table's shard: a stake is checked against the
    player's limits and balance first (:class:`feltlab.server.errors.Conflict` or
    ``Forbidden``: the request rolls back); one seat's stake and payout move in one
    guarded UPDATE, several seats' payouts in another. Answers each moved player's
    balance afterwards (a seat whose money did not move is left out)."""
    for move in moves:
        if move.stake:
            _check_stake(connection, posting, account, move.stake)
    if not any(move.stake or move.payout for move in moves) and not (
            posting.settles and len(moves) > 1):
        return {}
    house = house_wallet_id(connection, house_name(posting.currency,
                                                   house_shard(posting.table_id)))
    if len(moves) == 1:
        return {moves[0].user_id: _move_seat(connection, posting, house, moves[0])}
    balances = {move.user_id: _move_seat(connection, posting, house,
                                         Move(move.user_id, move.seat, move.stake, 0,
                                              move.why))
                for move in moves if move.stake}
    if posting.settles:
        balances |= pay_out(connection, posting.currency, house, posting.round_id, [
            Payout(move.user_id, move.payout, f"round {posting.round_id} seat {move.seat}")
            for move in sorted(moves, key=lambda item: item.user_id)])
    return balances


def _check_stake(connection: Connection, posting: Posting, account: Account | None,
                 stake: int) -> None:
    """The player's limits on a stake (:mod:`feltlab.server.services.limits`): at
    practice, the account's bar as the request's first read found it (no query); at
    cash, the house shard's wallet and then the player's locked first, then the daily
    loss limit's one query, so that stakes made at once at other tables are counted one
    after another."""
    if account is None:
        raise RuntimeError("a stake needs the account that makes it")
    if posting.currency != "cash":
        refuse_if_barred(account.locked, account.excluded_until, now())
        return
    session = Session(bind=connection)
    balance(session, account.user_id, posting.currency, lock=True,
            shard=house_shard(posting.table_id))
    check_stake(session, account.user_id, posting.currency, stake)


def _move_seat(connection: Connection, posting: Posting, house: int, move: Move) -> int:
    after = _move(connection, move.user_id, posting.currency, house, move,
                  posting.round_id, f"round {posting.round_id} seat {move.seat}")
    if after is None:
        have = player_balance(connection, move.user_id, posting.currency)
        raise Conflict(f"the {posting.currency} balance of {have} is less than the "
                       f"{move.stake} this needs")
    return after


# --- a round's money in Core (the private tables' path) ---------------------------------------

_WALLETS, _TRANSACTIONS = table_of(Wallet), table_of(LedgerTransaction)
_ENTRIES = table_of(LedgerEntry)
_WALLET_ID = Prepared(select(_WALLETS.c.id).where(_WALLETS.c.name == bindparam("name")))
_HOUSE_IDS: weakref.WeakKeyDictionary[Engine, dict[str, int]] = weakref.WeakKeyDictionary()
"""House wallet ids by database (its engine) and name, kept by each worker: every house
wallet is created by the migrations (committed before any request runs) and its id never
changes, so the money path looks none up twice."""


def house_wallet_id(connection: Connection, name: str) -> int:
    """The id of house wallet ``name``; usually no query. A missing one is an error that
    rolls the request back (:class:`MissingWallet`), never created here."""
    known = _HOUSE_IDS.setdefault(connection.engine, {})
    found = known.get(name)
    if found is not None:
        return found
    wallet_id = _WALLET_ID.scalar(connection, {"name": name})
    if wallet_id is None:
        raise MissingWallet(f"house wallet {name} does not exist")
    known[name] = int(wallet_id)
    return int(wallet_id)


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
        raise MissingWallet(f"round {round_id}: a wallet to pay out is missing")
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


# --- a round's money: one seat with the house -------------------------------------------------

@dataclass(frozen=True)
class _Entry:
    """One ledger entry: of transaction ``kind``, on the house's wallet or the player's,
    and the wallet's balance after it: its balance after the UPDATE plus ``offset`` (the
    stake is entered before the payout that the UPDATE made at once)."""

    kind: str
    house: bool
    amount: int
    offset: int


def _plan(money: Move, memo: str) -> tuple[list[tuple[str, str]], list[_Entry]]:
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
    """Where the database chains writes in one statement (PostgreSQL's data-modifying
    ``WITH``; nothing runs on SQLite): the guarded UPDATE, then ``transactions`` and their
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
    return Prepared.per_dialect(
        sqlite=None, postgresql=select(moved.c.id, moved.c.house, moved.c.balance)
        .add_cte(entered))


def _move(connection: Connection, user_id: int, currency: str, house_id: int,
          money: Move, round_id: int, memo: str) -> int | None:
    """Stake and pay out (see the module's text); returns the player's balance
    afterwards, or None when the balance is less than the stake (the caller refuses the
    request, and its transaction rolls back). ``memo`` names the round and seat."""
    stake, payout = money.stake, money.payout
    kinds, entries = _plan(money, memo)
    params: dict[str, Any] = {
        "house_id": house_id, "player": wallet_name(user_id, currency), "debit": stake,
        "house_delta": stake - payout, "player_delta": payout - stake}
    moment = now()
    chained = _chained(len(kinds), len(entries))
    if chained.runs_on(connection):
        params |= {"round_id": round_id, "created_at": moment}
        for index, (kind, text) in enumerate(kinds):
            params |= {f"kind_{index}": kind, f"memo_{index}": text}
        for index, entry in enumerate(entries):
            params |= {f"entry_kind_{index}": entry.kind, f"entry_house_{index}": entry.house,
                       f"entry_amount_{index}": entry.amount,
                       f"entry_offset_{index}": entry.offset}
        rows = chained.run(connection, params)
    else:
        rows = _MOVE.run(connection, params)
    wallets = {bool(house): (wallet_id, balance) for wallet_id, house, balance in rows}
    if True not in wallets:  # the player's row may have changed: roll it all back
        raise MissingWallet(f"round {round_id}: house wallet {house_id} does not exist")
    if False not in wallets:
        return None
    if not chained.runs_on(connection):  # the transactions and entries after the UPDATE
        ids = dict((kind, record_id) for record_id, kind in _NEW_TRANSACTIONS.run_rows(
            connection, [{"kind": kind, "round_id": round_id, "memo": text,
                          "created_at": moment} for kind, text in kinds]))
        NEW_ENTRIES.run_rows(connection, [
            {"transaction_id": ids[entry.kind], "wallet_id": wallets[entry.house][0],
             "amount": entry.amount, "balance_after": wallets[entry.house][1] + entry.offset}
            for entry in entries])
    return int(wallets[False][1])
