"""An operator's view of the wallet outbox: every wallet call feltlab made for it (the
signed ``GET /api/v1/operator/transactions``, for reconciling with its own wallet's
ledger), and its gross gaming revenue by UTC day and currency (``feltlab operator
report``).

Amounts are the currency's minor units, summed as exact integers. A bet counts once the
wallet acknowledged it (state ``acknowledged``); a bet the wallet took and then gave back
is ``rolled_back`` and counts apart, as a rollback; a win counts once acknowledged. Calls
still pending, and bets the wallet refused, count nowhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Final

from sqlalchemy import Connection, Engine, select

from feltlab.core.csvsafe import csv_text
from feltlab.server.clock import aware
from feltlab.server.errors import Refused
from feltlab.server.models import table_of
from feltlab.server.operator_models import WalletTransaction
from feltlab.server.services.database import session_factory, transaction
from feltlab.server.services.operators import get_operator
from feltlab.server.services.outbox import ACKNOWLEDGED, PENDING, REFUSED, ROLLED_BACK

_CALLS: Final = table_of(WalletTransaction)
STATES: Final = (PENDING, ACKNOWLEDGED, REFUSED, ROLLED_BACK)
DEFAULT_LIMIT: Final = 1_000
MAX_LIMIT: Final = 10_000
REPORT_COLUMNS: Final = ("day", "currency", "bets", "wins", "rollbacks",
                         "rolled_back_amount", "ggr")
"""The report's columns: ``bets`` (acknowledged bets), ``wins`` (acknowledged wins),
``rollbacks`` (how many bets were rolled back) and ``rolled_back_amount`` (their sum),
``ggr`` = bets − wins."""

def utc(moment: datetime) -> datetime:
    """``moment`` in UTC; a time without a zone is taken to be UTC already."""
    return aware(moment).astimezone(UTC)


@dataclass(frozen=True)
class Page:
    """One page of an operator's transactions, newest first, and the cursor to the next
    (``None`` on the last page)."""

    transactions: list[dict[str, Any]]
    next_before: int | None

    def as_json(self) -> dict[str, Any]:
        return {"transactions": self.transactions, "next_before": self.next_before}


def operator_transactions(connection: Connection, operator_id: str, *,
                          start: datetime | None = None, end: datetime | None = None,
                          state: str | None = None, limit: int = DEFAULT_LIMIT,
                          before: int | None = None) -> Page:
    """The wallet calls feltlab made for ``operator_id``, newest (highest row id) first:
    at most ``limit``, only rows below ``before`` (a row id) when given, in ``state`` when
    given, created from ``start`` (inclusive) to ``end`` (exclusive) when given."""
    if not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"limit must be from 1 to {MAX_LIMIT}, got {limit}")
    if state is not None and state not in STATES:
        raise ValueError(f"state must be one of {', '.join(STATES)}, got {state!r}")
    calls = _CALLS.c
    query = select(calls.id, calls.transaction_id, calls.kind, calls.player, calls.currency,
                   calls.amount, calls.round_id, calls.state, calls.attempts,
                   calls.last_error, calls.created_at, calls.updated_at
                   ).where(calls.operator_id == operator_id)
    if state is not None:
        query = query.where(calls.state == state)
    if start is not None:
        query = query.where(calls.created_at >= utc(start))
    if end is not None:
        query = query.where(calls.created_at < utc(end))
    if before is not None:
        query = query.where(calls.id < before)
    rows = list(connection.execute(query.order_by(calls.id.desc()).limit(limit + 1))
                .mappings())
    more = len(rows) > limit
    rows = rows[:limit]
    answer = [{"transaction_id": row["transaction_id"], "kind": row["kind"],
               "player": row["player"], "currency": row["currency"],
               "amount": int(row["amount"]),
               "round_id": None if row["round_id"] is None else str(row["round_id"]),
               "state": row["state"], "attempts": int(row["attempts"]),
               "last_error": row["last_error"],
               "created_at": utc(row["created_at"]).isoformat(),
               "updated_at": utc(row["updated_at"]).isoformat()} for row in rows]
    return Page(answer, int(rows[-1]["id"]) if more and rows else None)


# --- the report ----------------------------------------------------------------------------

@dataclass
class DayFigures:
    """One UTC day's figures in one currency, in minor units."""

    day: date
    currency: str
    bets: int = 0
    wins: int = 0
    rollbacks: int = 0
    rolled_back_amount: int = 0

    @property
    def ggr(self) -> int:
        return self.bets - self.wins

    def add(self, kind: str, state: str, amount: int) -> None:
        if kind == "bet" and state == ACKNOWLEDGED:
            self.bets += amount
        elif kind == "win" and state == ACKNOWLEDGED:
            self.wins += amount
        elif kind == "bet" and state == ROLLED_BACK:
            self.rollbacks += 1
            self.rolled_back_amount += amount

    def as_json(self) -> dict[str, Any]:
        return {"day": self.day.isoformat(), "currency": self.currency, "bets": self.bets,
                "wins": self.wins, "rollbacks": self.rollbacks,
                "rolled_back_amount": self.rolled_back_amount, "ggr": self.ggr}


def operator_report(engine: Engine, operator_id: str, first: date, last: date
                    ) -> list[DayFigures]:
    """``operator_id``'s figures for each UTC day from ``first`` to ``last`` (inclusive)
    and currency that has a wallet call, by day then currency; :class:`NotFound` for an
    operator that does not exist (a disabled one is reported)."""
    if first > last:
        raise Refused(f"the first day ({first}) is after the last ({last})")
    get_operator(engine, operator_id)
    calls = _CALLS.c
    start = datetime.combine(first, time(), UTC)
    end = datetime.combine(last + timedelta(days=1), time(), UTC)
    query = (select(calls.created_at, calls.currency, calls.kind, calls.state, calls.amount)
             .where(calls.operator_id == operator_id, calls.created_at >= start,
                    calls.created_at < end))
    found: dict[tuple[date, str], DayFigures] = {}
    with transaction(session_factory(engine)) as session:
        rows = list(session.connection().execute(query))
    for row in rows:
        day = utc(row.created_at).date()
        figures = found.setdefault((day, row.currency), DayFigures(day, row.currency))
        figures.add(row.kind, row.state, int(row.amount))
    return [found[key] for key in sorted(found)]


def report_totals(days: Iterable[DayFigures]) -> dict[str, dict[str, int]]:
    """The days' figures summed by currency."""
    totals: dict[str, dict[str, int]] = {}
    for figures in days:
        total = totals.setdefault(figures.currency, dict.fromkeys(REPORT_COLUMNS[2:], 0))
        for column, value in figures.as_json().items():
            if column in total:
                total[column] += value
    return dict(sorted(totals.items()))


def report_csv(days: Sequence[DayFigures]) -> str:
    """The report as CSV (:func:`~feltlab.core.csvsafe.csv_text`): a header row, then one
    line a day and currency; the figures are whole numbers, written as numbers (a
    negative GGR stays a number)."""
    return csv_text([REPORT_COLUMNS, *([figures.as_json()[column] for column in REPORT_COLUMNS]
                                       for figures in days)])
