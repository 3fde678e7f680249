"""The ledger's check: read-only, in one snapshot of the database, it names every wallet,
currency, transaction and round whose money is out of line.

- every wallet's balance is the sum of its entries, and no player's is below zero;
- each currency's entries sum to zero;
- every transaction has two entries or more, in one currency, summing to zero;
- every round's money is in the ledger: the entries of a seat's wallet in the round's
  transactions sum to its net result once settled (its stakes back plus the result,
  less the stakes), and to minus its stakes before.

``feltlab ledger check`` runs it (exit 1 when anything is out of line); the server runs
it in the background every ``ledger_check_minutes``. Each run is kept in
``ledger_checks``, so that ``/metrics`` shows the last one without scanning anything.
Only feltlab's own currencies are in the ledger (:data:`LEDGER_CURRENCIES`).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import Connection, Engine, and_, case, func, insert, literal, select

from feltlab.server.clock import aware, now
from feltlab.server.models import (
    LedgerCheck,
    LedgerEntry,
    LedgerTransaction,
    Round,
    RoundSeat,
    Wallet,
    table_of,
)
from feltlab.server.services.database import write_connection
from feltlab.server.services.ledger import CURRENCIES
from feltlab.server.services.statements import read_snapshot

LEDGER_CURRENCIES = CURRENCIES
"""The currencies whose money the ledger holds (an operator's is in its own wallet)."""

_WALLETS, _ENTRIES = table_of(Wallet), table_of(LedgerEntry)
_TRANSACTIONS, _ROUNDS, _SEATS = table_of(LedgerTransaction), table_of(Round), table_of(RoundSeat)
_CHECKS = table_of(LedgerCheck)
log = logging.getLogger("feltlab.server")
SHOWN = 50
"""Problems of one kind named at most (the count says how many there were)."""


@dataclass(frozen=True)
class Problem:
    """One thing out of line: its ``kind`` (wallet, currency, transaction, round), what
    it is (``subject``), and how it is wrong."""

    kind: str
    subject: str
    detail: str


@dataclass(frozen=True)
class LedgerReport:
    """What one check found."""

    checked_at: datetime
    seconds: float
    wallets: int
    transactions: int
    seats: int
    problems: tuple[Problem, ...] = field(default=())
    more: int = 0
    """Problems found beyond those named (over :data:`SHOWN` of one kind)."""

    @property
    def sound(self) -> bool:
        return not self.problems

    @property
    def count(self) -> int:
        return len(self.problems) + self.more

    def as_json(self) -> dict[str, object]:
        return {"sound": self.sound, "checked_at": self.checked_at.isoformat(),
                "seconds": round(self.seconds, 3), "wallets": self.wallets,
                "transactions": self.transactions, "seats": self.seats,
                "problems": [asdict(problem) for problem in self.problems],
                "more_problems": self.more}


def check_ledger(engine: Engine) -> LedgerReport:
    """Check the ledger on ``engine`` (see the module's text)."""
    started, moment = time.perf_counter(), now()
    problems: list[Problem] = []
    more = 0
    with read_snapshot(engine) as connection:  # every count as of one moment
        for found in (_wallets(connection), _currencies(connection),
                      _transactions(connection), _rounds(connection)):
            problems += found[:SHOWN]
            more += max(0, len(found) - SHOWN)
        wallets = connection.execute(select(func.count()).select_from(_WALLETS)).scalar_one()
        transactions = connection.execute(
            select(func.count()).select_from(_TRANSACTIONS)).scalar_one()
        seats = connection.execute(select(func.count()).select_from(_SEATS)).scalar_one()
    return LedgerReport(moment, time.perf_counter() - started, wallets, transactions, seats,
                        tuple(problems), more)


def _wallets(connection: Connection) -> list[Problem]:
    sums = (select(_ENTRIES.c.wallet_id, func.sum(_ENTRIES.c.amount).label("total"))
            .group_by(_ENTRIES.c.wallet_id).subquery())
    entered = func.coalesce(sums.c.total, 0)
    rows = connection.execute(
        select(_WALLETS.c.name, _WALLETS.c.house, _WALLETS.c.balance, entered)
        .outerjoin(sums, sums.c.wallet_id == _WALLETS.c.id)
        .where((_WALLETS.c.balance != entered)
               | and_(~_WALLETS.c.house, _WALLETS.c.balance < 0))
        .order_by(_WALLETS.c.name)).all()
    found = []
    for name, house, balance, entered_sum in rows:
        total = int(entered_sum)
        if balance != total:
            found.append(Problem("wallet", name, f"balance {balance} but its entries sum "
                                                 f"to {total}"))
        if not house and balance < 0:
            found.append(Problem("wallet", name, f"a player's balance of {balance} is "
                                                 "below zero"))
    return found


def _currencies(connection: Connection) -> list[Problem]:
    total = func.sum(_ENTRIES.c.amount)
    rows = connection.execute(
        select(_WALLETS.c.currency, total)
        .join(_WALLETS, _WALLETS.c.id == _ENTRIES.c.wallet_id)
        .group_by(_WALLETS.c.currency).having(total != 0)
        .order_by(_WALLETS.c.currency)).all()
    return [Problem("currency", currency, f"its entries sum to {int(value)}, not 0")
            for currency, value in rows]


def _transactions(connection: Connection) -> list[Problem]:
    total = func.coalesce(func.sum(_ENTRIES.c.amount), 0)
    entries = func.count(_ENTRIES.c.id)
    currencies = func.count(func.distinct(_WALLETS.c.currency))
    rows = connection.execute(
        select(_TRANSACTIONS.c.id, _TRANSACTIONS.c.kind, entries, total, currencies)
        .outerjoin(_ENTRIES, _ENTRIES.c.transaction_id == _TRANSACTIONS.c.id)
        .outerjoin(_WALLETS, _WALLETS.c.id == _ENTRIES.c.wallet_id)
        .group_by(_TRANSACTIONS.c.id, _TRANSACTIONS.c.kind)
        .having((total != 0) | (entries < 2) | (currencies > 1))
        .order_by(_TRANSACTIONS.c.id)).all()
    found = []
    for transaction_id, kind, count, summed, spread in rows:
        value = int(summed)
        subject = f"transaction {transaction_id} ({kind})"
        if count < 2:
            found.append(Problem("transaction", subject, f"{count} entries: a movement "
                                                         "needs two or more"))
        if value != 0:
            found.append(Problem("transaction", subject, f"its entries sum to {value}"))
        if spread > 1:
            found.append(Problem("transaction", subject, "its entries are in "
                                                         f"{spread} currencies"))
    return found


def _rounds(connection: Connection) -> list[Problem]:
    """Each seat of a round in a ledger currency against its wallet's entries in the
    round's transactions."""
    moved = (select(func.coalesce(func.sum(_ENTRIES.c.amount), 0))
             .join(_TRANSACTIONS, _TRANSACTIONS.c.id == _ENTRIES.c.transaction_id)
             .where(_TRANSACTIONS.c.round_id == _SEATS.c.round_id,
                    _ENTRIES.c.wallet_id == _WALLETS.c.id)
             .correlate(_SEATS, _WALLETS).scalar_subquery())
    settled = _ROUNDS.c.phase == literal("complete")
    expected = case((settled, _SEATS.c.total), else_=-_SEATS.c.staked)
    rows = connection.execute(
        select(_SEATS.c.round_id, _SEATS.c.seat, _ROUNDS.c.phase, _SEATS.c.staked,
               _SEATS.c.total, _WALLETS.c.id, moved.label("moved"))
        .join(_ROUNDS, _ROUNDS.c.id == _SEATS.c.round_id)
        .outerjoin(_WALLETS, and_(_WALLETS.c.user_id == _SEATS.c.user_id,
                                  _WALLETS.c.currency == _ROUNDS.c.currency))
        .where(_ROUNDS.c.currency.in_(LEDGER_CURRENCIES),
               (_WALLETS.c.id.is_(None)) | (expected.is_(None)) | (moved != expected))
        .order_by(_SEATS.c.round_id, _SEATS.c.seat)).all()
    found = []
    for round_id, seat, phase, staked, total, wallet_id, summed in rows:
        value = int(summed or 0)
        subject = f"round {round_id} seat {seat}"
        if wallet_id is None:
            found.append(Problem("round", subject, "the player has no wallet in the "
                                                   "round's currency"))
        elif phase == "complete" and total is None:
            found.append(Problem("round", subject, "settled, but the seat has no result"))
        elif phase == "complete":
            found.append(Problem("round", subject, f"settled at {total:+d} (staked "
                                                   f"{staked}), but the ledger moved "
                                                   f"{value:+d}"))
        else:
            found.append(Problem("round", subject, f"open with {staked} staked, but the "
                                                   f"ledger moved {value:+d}"))
    return found


# --- the kept results -----------------------------------------------------------------------

def record(engine: Engine, report: LedgerReport) -> None:
    """Keep ``report`` as the latest check (what ``/metrics`` shows)."""
    with write_connection(engine) as connection:
        connection.execute(insert(_CHECKS).values(
            checked_at=report.checked_at, seconds=report.seconds, problems=report.count,
            report=json.dumps(report.as_json())))


@dataclass(frozen=True)
class LastCheck:
    """The latest check kept: when, and how many problems it found."""

    checked_at: datetime
    problems: int


_LAST = (select(_CHECKS.c.checked_at, _CHECKS.c.problems)
         .order_by(_CHECKS.c.id.desc()).limit(1))


def last_check(connection: Connection) -> LastCheck | None:
    """The latest check kept (one row read), or None before the first."""
    row = connection.execute(_LAST).first()
    return None if row is None else LastCheck(aware(row.checked_at), int(row.problems))


class LedgerWatch:
    """The server's background check: every ``minutes``, if no check was kept in the last
    ``minutes`` (by any worker or host, or by the command), one is run and kept. It reads
    in a snapshot beside the money path (on SQLite, beside its one writer)."""

    def __init__(self, engine: Engine, reader: Engine | None, minutes: float) -> None:
        self.engine, self.reader, self.minutes = engine, reader, minutes
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self.minutes > 0:
            self._thread = threading.Thread(target=self._run, name="ledger-check",
                                            daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def due(self) -> bool:
        """Whether the last check kept is older than ``minutes`` (or there is none)."""
        with (self.reader or self.engine).connect() as connection:
            kept = last_check(connection)
        return kept is None or now() - kept.checked_at >= timedelta(minutes=self.minutes)

    def run_once(self) -> LedgerReport | None:
        """Check and keep the result, if due; the report, or None when not due."""
        if not self.due():
            return None
        report = check_ledger(self.reader or self.engine)
        record(self.engine, report)
        if not report.sound:
            log.error("the ledger is out of line: %s problems (run feltlab ledger check)",
                      report.count)
        return report

    def _run(self) -> None:
        while not self._stop.wait(min(60.0, self.minutes * 60)):
            try:
                self.run_once()
            except Exception:  # a check that failed is tried again next time
                log.exception("the background ledger check failed")
