"""The wallet's own ledger in SQLite: accounts and transactions, changed in one SQL transaction.

Every transaction row keeps the balance change it made (``delta``), so for each account
``balance == opening_balance + sum(delta)`` over its rows. A bet's ``state`` becomes
``rolled_back`` when a rollback credits it back (its ``delta`` stays; the rollback row carries
the credit). :func:`open_ledger` opens the same file read-only for reconciliation.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from . import protocol as p

SCHEMA = """
CREATE TABLE IF NOT EXISTS accounts (
    player TEXT NOT NULL,
    currency TEXT NOT NULL,
    balance INTEGER NOT NULL,
    opening_balance INTEGER NOT NULL,
    blocked INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (player, currency)
);
CREATE TABLE IF NOT EXISTS transactions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    transaction_id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,            -- bet | win | rollback | adjustment
    player TEXT NOT NULL,
    currency TEXT NOT NULL,
    amount INTEGER NOT NULL,       -- as asked (0 for a bet known only from its rollback)
    delta INTEGER NOT NULL,        -- the balance change made (0 when refused)
    round_id TEXT,
    state TEXT NOT NULL,           -- applied | refused | rolled_back
    error TEXT,
    reference TEXT,                -- JSON: the rolled-back bet id, or a win's bet ids
    request_id TEXT,
    answer TEXT,                   -- the JSON answer, replayed to a retry
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS transactions_by_account ON transactions (player, currency, seq);
CREATE INDEX IF NOT EXISTS transactions_by_round ON transactions (round_id, kind);
"""


@dataclass(frozen=True)
class Account:
    player: str
    currency: str
    balance: int
    opening_balance: int
    blocked: bool


@dataclass(frozen=True)
class Transaction:
    seq: int
    transaction_id: str
    kind: str
    player: str
    currency: str
    amount: int
    delta: int
    round_id: str | None
    state: str
    error: str | None
    reference: Any
    request_id: str | None
    created_at: float

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def _account(row: sqlite3.Row) -> Account:
    return Account(row["player"], row["currency"], row["balance"], row["opening_balance"],
                   bool(row["blocked"]))


def _transaction(row: sqlite3.Row) -> Transaction:
    reference = None if row["reference"] is None else json.loads(row["reference"])
    return Transaction(
        row["seq"], row["transaction_id"], row["kind"], row["player"], row["currency"],
        row["amount"], row["delta"], row["round_id"], row["state"], row["error"], reference,
        row["request_id"], row["created_at"],
    )


class Ledger:
    """Read access to a wallet database (also the base of the writing :class:`Store`)."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        connection.row_factory = sqlite3.Row
        self._db = connection
        self._lock = threading.RLock()

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def accounts(self, player: str | None = None, currency: str | None = None) -> list[Account]:
        where, args = _filters(player, currency)
        with self._lock:
            rows = self._db.execute(f"SELECT * FROM accounts{where} ORDER BY player, currency",
                                    args).fetchall()
        return [_account(row) for row in rows]

    def balance(self, player: str, currency: str) -> int | None:
        found = self.accounts(player, currency)
        return found[0].balance if found else None

    def transactions(
        self, player: str | None = None, currency: str | None = None
    ) -> list[Transaction]:
        where, args = _filters(player, currency)
        with self._lock:
            rows = self._db.execute(f"SELECT * FROM transactions{where} ORDER BY seq",
                                    args).fetchall()
        return [_transaction(row) for row in rows]

    def transaction(self, transaction_id: str) -> Transaction | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM transactions WHERE transaction_id = ?",
                                   (transaction_id,)).fetchone()
        return None if row is None else _transaction(row)


def _filters(player: str | None, currency: str | None) -> tuple[str, list[str]]:
    clauses, args = [], []
    if player is not None:
        clauses.append("player = ?")
        args.append(player)
    if currency is not None:
        clauses.append("currency = ?")
        args.append(currency)
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), args


def open_ledger(database_path: str | Path) -> Ledger:
    """Open a wallet's database read-only, e.g. to reconcile it with feltlab's own records."""
    uri = Path(database_path).resolve().as_uri() + "?mode=ro"
    return Ledger(sqlite3.connect(uri, uri=True, check_same_thread=False))


class Store(Ledger):
    """The wallet's operations; each runs in one SQL transaction (balance and ledger together)."""

    def __init__(
        self,
        database_path: str | Path,
        *,
        starting_balance: int | Mapping[str, int],
        max_bet: int | None = None,
        clock: Callable[[], float],
    ) -> None:
        connection = sqlite3.connect(str(database_path), isolation_level=None,
                                     check_same_thread=False)
        super().__init__(connection)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.executescript(SCHEMA)
        self._starting = starting_balance
        self._max_bet = max_bet
        self._clock = clock

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _opening(self, currency: str) -> int:
        if isinstance(self._starting, int):
            return self._starting
        return self._starting.get(currency, 0)

    def _ensure(self, db: sqlite3.Connection, player: str, currency: str) -> Account:
        row = db.execute("SELECT * FROM accounts WHERE player = ? AND currency = ?",
                         (player, currency)).fetchone()
        if row is not None:
            return _account(row)
        opening = self._opening(currency)
        db.execute("INSERT INTO accounts (player, currency, balance, opening_balance) "
                   "VALUES (?, ?, ?, ?)", (player, currency, opening, opening))
        return Account(player, currency, opening, opening, False)

    def _record(self, db: sqlite3.Connection, transaction_id: str, kind: str,
                account: Account, amount: int, delta: int, round_id: str | None, *,
                state: str = "applied", error: str | None = None, reference: Any = None,
                request_id: str | None = None) -> p.Answer:
        """Insert one ledger row, move the balance by ``delta``; return the stored answer."""
        balance = account.balance + delta
        if delta:
            db.execute("UPDATE accounts SET balance = ? WHERE player = ? AND currency = ?",
                       (balance, account.player, account.currency))
        answer: p.Answer = {"balance": balance} if error is None else {
            "error": error, "balance": balance}
        db.execute(
            "INSERT INTO transactions (transaction_id, kind, player, currency, amount, delta, "
            "round_id, state, error, reference, request_id, answer, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (transaction_id, kind, account.player, account.currency, amount, delta, round_id,
             state, error, None if reference is None else json.dumps(reference), request_id,
             json.dumps(answer), self._clock()),
        )
        return answer

    def _replay(self, db: sqlite3.Connection, call: p.BetCall | p.WinCall | p.RollbackCall,
                kind: str, account: Account,
                amount: int | None, reference: Any) -> p.Answer | None:
        """The answer to a transaction id already seen, or None if it is new."""
        row = db.execute("SELECT * FROM transactions WHERE transaction_id = ?",
                         (call.transaction_id,)).fetchone()
        if row is None:
            return None
        seen = _transaction(row)
        if seen.kind == "bet" and kind == "bet" and seen.state == "rolled_back":
            return {"error": p.TRANSACTION_ROLLED_BACK, "balance": account.balance}
        if (seen.kind, seen.player, seen.currency) != (kind, call.player, call.currency) or (
            amount is not None and seen.amount != amount) or (
            reference is not None and seen.reference != reference):
            return {"error": p.DUPLICATE_TRANSACTION, "balance": account.balance}
        answer: p.Answer = json.loads(row["answer"])
        return answer

    def balance_of(self, call: p.BalanceCall) -> p.Answer:
        with self._tx() as db:
            return {"balance": self._ensure(db, call.player, call.currency).balance}

    def bet(self, call: p.BetCall, refuse: str | None = None) -> p.Answer:
        """Debit a bet once; ``refuse`` (a fault) answers that error instead."""
        with self._tx() as db:
            account = self._ensure(db, call.player, call.currency)
            replay = self._replay(db, call, "bet", account, call.amount, None)
            if replay is not None:
                return replay
            error = refuse
            if error is None and account.blocked:
                error = p.PLAYER_BLOCKED
            if error is None and self._max_bet is not None and call.amount > self._max_bet:
                error = p.LIMIT_EXCEEDED
            if error is None and account.balance < call.amount:
                error = p.INSUFFICIENT_FUNDS
            return self._record(
                db, call.transaction_id, "bet", account, call.amount,
                0 if error else -call.amount, call.round_id, state="refused" if error else
                "applied", error=error, request_id=call.request_id)

    def win(self, call: p.WinCall) -> p.Answer:
        """Credit a round's win once, after checking the bets it names were applied."""
        with self._tx() as db:
            account = self._ensure(db, call.player, call.currency)
            replay = self._replay(db, call, "win", account, call.amount, call.bets)
            if replay is not None:
                return replay
            error = None
            for bet_id in call.bets:
                bet = db.execute(
                    "SELECT 1 FROM transactions WHERE transaction_id = ? AND kind = 'bet' AND "
                    "state = 'applied' AND player = ? AND currency = ? AND round_id = ?",
                    (bet_id, call.player, call.currency, call.round_id)).fetchone()
                if bet is None:
                    error = p.UNKNOWN_BET
            settled = db.execute(
                "SELECT 1 FROM transactions WHERE kind = 'win' AND state = 'applied' AND "
                "round_id = ? AND player = ? AND currency = ?",
                (call.round_id, call.player, call.currency)).fetchone()
            if error is None and settled is not None:
                error = p.ROUND_ALREADY_SETTLED
            return self._record(
                db, call.transaction_id, "win", account, call.amount,
                0 if error else call.amount, call.round_id, state="refused" if error else
                "applied", error=error, reference=call.bets, request_id=call.request_id)

    def rollback(self, call: p.RollbackCall) -> p.Answer:
        """Credit back an applied bet once; remember a bet never seen so it is never applied."""
        with self._tx() as db:
            account = self._ensure(db, call.player, call.currency)
            replay = self._replay(db, call, "rollback", account, None, call.rolled_back)
            if replay is not None:
                return replay
            row = db.execute("SELECT * FROM transactions WHERE transaction_id = ?",
                             (call.rolled_back,)).fetchone()
            bet = None if row is None else _transaction(row)
            credit = 0
            if bet is None:
                self._record(db, call.rolled_back, "bet", account, 0, 0, call.round_id,
                             state="rolled_back", error=p.TRANSACTION_ROLLED_BACK,
                             request_id=call.request_id)
            elif (bet.kind, bet.player, bet.currency) != ("bet", call.player, call.currency):
                return {"error": p.UNKNOWN_BET, "balance": account.balance}
            elif bet.state == "applied":
                credit = bet.amount
                db.execute("UPDATE transactions SET state = 'rolled_back' WHERE seq = ?",
                           (bet.seq,))
            return self._record(db, call.transaction_id, "rollback", account, credit, credit,
                                call.round_id, reference=call.rolled_back,
                                request_id=call.request_id)

    def set_account(self, player: str, currency: str, *, balance: int | None = None,
                    blocked: bool | None = None, transaction_id: str) -> Account:
        """An operator's change: set a balance (recorded as an ``adjustment``) or block flag."""
        with self._tx() as db:
            account = self._ensure(db, player, currency)
            if balance is not None and balance != account.balance:
                self._record(db, transaction_id, "adjustment", account,
                             balance - account.balance, balance - account.balance, None)
            if blocked is not None:
                db.execute("UPDATE accounts SET blocked = ? WHERE player = ? AND currency = ?",
                           (int(blocked), player, currency))
            row = db.execute("SELECT * FROM accounts WHERE player = ? AND currency = ?",
                             (player, currency)).fetchone()
            return _account(row)
