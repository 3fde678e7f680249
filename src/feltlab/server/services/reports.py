"""The pit's reports: handle, win, hold, theoretical and expected win with their bands,
grouped by player, table, day or rule set, summed in SQL over the figures written at
settlement (:mod:`feltlab.server.services.figures`).

Every figure of a row is a sum over its settled seats; ``hold`` is win / handle (``None``
for no handle), ``decision_cost`` is expected win minus theoretical win, and ``band`` is
the 95% range of the win around the expected win, expected win +/- 1.96 sigma with sigma^2
the sum of the seats' exact variances.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, Final, Protocol

from sqlalchemy import Connection, Select, func, insert, select, union_all, update

from feltlab.core.csvsafe import Cell, csv_text
from feltlab.server.clock import now
from feltlab.server.errors import Refused
from feltlab.server.figure_models import ReportDays, SeatFigure, SeatFigureDay
from feltlab.server.models import User, table_of
from feltlab.server.services.context import Services
from feltlab.server.services.statements import transaction_lock

GROUPINGS: Final = ("players", "tables", "days", "rules")
CURRENCIES: Final = ("cash", "practice")
Z95: Final = 1.96
_F, _USERS = table_of(SeatFigure), table_of(User)
_DAYS, _STATE = table_of(SeatFigureDay), table_of(ReportDays)
KEY_COLUMNS: Final[dict[str, tuple[str, ...]]] = {
    "players": ("username", "user_id"), "tables": ("table_id", "rules"), "days": ("day",),
    "rules": ("rules",)}
FIGURE_COLUMNS: Final = ("rounds", "seats", "handle", "win", "hold", "theo_win",
                         "expected_win", "decision_cost", "band_low", "band_high",
                         "outside_band")


@dataclass(frozen=True)
class Span:
    """Inclusive UTC days (``None``: unbounded) and the currency a report covers."""

    start: date | None
    end: date | None
    currency: str = "cash"

    def __post_init__(self) -> None:
        if self.currency not in CURRENCIES:
            raise Refused(f"currency must be one of {', '.join(CURRENCIES)}")
        if self.start and self.end and self.start > self.end:
            raise Refused(f"from ({self.start}) is after to ({self.end})")

    @property
    def anchor(self) -> date:
        """The day month- and year-to-date end on: ``to``, else today (UTC)."""
        return self.end or now().date()


def _sums() -> list[Any]:
    return [func.coalesce(func.sum(_F.c.first_seat), 0).label("rounds"),
            func.count().label("seats"),
            func.coalesce(func.sum(_F.c.handle), 0).label("handle"),
            func.coalesce(func.sum(_F.c.win), 0).label("win"),
            func.coalesce(func.sum(_F.c.theo_win), 0.0).label("theo_win"),
            func.coalesce(func.sum(_F.c.expected_win), 0.0).label("expected_win"),
            func.coalesce(func.sum(_F.c.variance), 0.0).label("variance")]


class SummedRow(Protocol):
    """A row of summed seats, as the reports' queries read it."""

    rounds: int
    seats: int
    handle: int
    win: int
    theo_win: float
    expected_win: float
    variance: float


class GroupedRow(Protocol):
    """A row of a report's grouping: the columns its key is made of."""

    user_id: int
    table_id: int
    rules_id: str
    day: str


@dataclass(frozen=True)
class Sums:
    """The sums of a group of settled seats, as SQL gives them; they add up."""

    rounds: int = 0
    seats: int = 0
    handle: int = 0
    win: int = 0
    theo_win: float = 0.0
    expected_win: float = 0.0
    variance: float = 0.0

    @classmethod
    def of(cls, row: SummedRow) -> Sums:
        return cls(int(row.rounds), int(row.seats), int(row.handle), int(row.win),
                   float(row.theo_win), float(row.expected_win), float(row.variance))

    @classmethod
    def total(cls, parts: list[Sums]) -> Sums:
        return cls(sum(part.rounds for part in parts), sum(part.seats for part in parts),
                   sum(part.handle for part in parts), sum(part.win for part in parts),
                   math.fsum(part.theo_win for part in parts),
                   math.fsum(part.expected_win for part in parts),
                   math.fsum(part.variance for part in parts))


def _within(query: Select[Any], currency: str, start: date | None, end: date | None
            ) -> Select[Any]:
    query = query.where(_F.c.currency == currency)
    if start is not None:
        query = query.where(_F.c.day >= start.isoformat())
    if end is not None:
        query = query.where(_F.c.day <= end.isoformat())
    return query


def figures_of(sums: Sums, rounds: int | None = None) -> dict[str, Any]:
    """Sums as the report shows them: hold, decision cost, band and whether the win falls
    outside it (``rounds``: the count to show, when not the rounds summed)."""
    sigma = math.sqrt(max(sums.variance, 0.0))
    expected = sums.expected_win
    low, high = expected - Z95 * sigma, expected + Z95 * sigma
    return {"rounds": sums.rounds if rounds is None else rounds, "seats": sums.seats,
            "handle": sums.handle, "win": sums.win,
            "hold": sums.win / sums.handle if sums.handle else None,
            "theo_win": sums.theo_win, "expected_win": expected,
            "decision_cost": expected - sums.theo_win, "band": [low, high],
            "outside_band": bool(sums.win < low or sums.win > high)}


# Each grouping's key columns. The seats are first summed by day, rule set, table and
# player (the covering index's order, so the sums stream from it); those sums are kept for
# the days that are over (``seat_figure_days``) and grouped again by the report's keys.
_KEYS_OF: Final[dict[str, tuple[str, ...]]] = {
    "players": ("user_id",), "tables": ("table_id", "rules_id"), "days": ("day",),
    "rules": ("rules_id",)}
PARTS: Final = ("day", "rules_id", "table_id", "user_id")
SUMMED: Final = ("rounds", "seats", "handle", "win", "theo_win", "expected_win", "variance")
SETTLED_LATE: Final = timedelta(days=1)
"""How long after its end a day is summed: a seat settled by another worker in the last
moment of a day may be written a moment after it."""
_SUMS_LOCK: Final = 7000022


def _through(connection: Connection, currency: str) -> str | None:
    found: str | None = connection.execute(select(_STATE.c.summed_through).where(
        _STATE.c.currency == currency)).scalar()
    return found


def sum_ended_days(connection: Connection, currency: str, today: date) -> None:
    """Sum the seats of every day that is over (and a day more: :data:`SETTLED_LATE`)
    into ``seat_figure_days``, once; in the caller's write transaction."""
    last = (today - timedelta(days=1) - SETTLED_LATE).isoformat()
    through = _through(connection, currency)
    if through is not None and through >= last:
        return
    if transaction_lock(connection, _SUMS_LOCK):  # another may have summed them meanwhile
        through = _through(connection, currency)
        if through is not None and through >= last:
            return
    parts = [_F.c[name] for name in PARTS]
    query = select(_F.c.currency, *parts, *_sums()).where(
        _F.c.currency == currency, _F.c.day <= last)
    if through is not None:
        query = query.where(_F.c.day > through)
    connection.execute(insert(_DAYS).from_select(
        ["currency", *PARTS, *SUMMED], query.group_by(_F.c.currency, *parts)))
    if through is None:
        connection.execute(insert(_STATE).values(currency=currency, summed_through=last))
    else:
        connection.execute(update(_STATE).where(_STATE.c.currency == currency)
                           .values(summed_through=last))


def _parts(connection: Connection, span: Span) -> Any:
    """The span's seats summed by day, rule set, table and player: the kept sums of the
    days that are over, and the seats of the days after them."""
    through = _through(connection, span.currency)
    parts = [_F.c[name] for name in PARTS]
    live = _within(select(*parts, *_sums()), span.currency, span.start, span.end)
    if through is None:
        return live.group_by(*parts).subquery()
    live = live.where(_F.c.day > through).group_by(*parts)
    kept = select(*(_DAYS.c[name] for name in PARTS), *(_DAYS.c[name] for name in SUMMED)
                  ).where(_DAYS.c.currency == span.currency, _DAYS.c.day <= through)
    if span.start is not None:
        kept = kept.where(_DAYS.c.day >= span.start.isoformat())
    if span.end is not None:
        kept = kept.where(_DAYS.c.day <= span.end.isoformat())
    return union_all(kept, live).subquery()


def _grouped(connection: Connection, keys: tuple[str, ...], span: Span) -> list[Any]:
    parts = _parts(connection, span)
    columns = [parts.c[name] for name in keys]
    return list(connection.execute(select(*columns, *(
        func.sum(parts.c[name]).label(name) for name in SUMMED)).group_by(*columns)))


def _key_of(grouping: str, row: GroupedRow, names: dict[int, str]) -> dict[str, Any]:
    if grouping == "players":
        return {"username": names.get(int(row.user_id), ""), "user_id": int(row.user_id)}
    if grouping == "tables":
        return {"table_id": int(row.table_id), "rules": row.rules_id}
    if grouping == "days":
        return {"day": row.day}
    return {"rules": row.rules_id}


def _sort_key(grouping: str) -> Any:
    keys = KEY_COLUMNS[grouping]
    return lambda row: tuple(row[key] for key in keys)


def report(connection: Connection, grouping: str, span: Span) -> dict[str, Any]:
    """One grouping's rows and totals over ``span``, with the day's, month's and year's
    totals up to the span's last day. Two scans: the grouped rows (the totals are their
    sums) and the year to date by day (the day's and the month's are its parts; a report
    by day that holds the whole year to date reads it from its own rows)."""
    if grouping not in GROUPINGS:
        raise Refused(f"a report groups by one of {', '.join(GROUPINGS)}")
    grouped = [(row, Sums.of(row)) for row in _grouped(connection, _KEYS_OF[grouping], span)]
    names: dict[int, str] = {}
    if grouping == "players" and grouped:
        ids = [int(row.user_id) for row, _ in grouped]
        names = {int(user_id): str(name) for user_id, name in connection.execute(
            select(_USERS.c.id, _USERS.c.username).where(_USERS.c.id.in_(ids)))}
    rows = sorted(({**_key_of(grouping, row, names),
                    **figures_of(sums, sums.seats if grouping == "players" else None)}
                   for row, sums in grouped), key=_sort_key(grouping))
    anchor = span.anchor
    year = anchor.replace(month=1, day=1)
    if grouping == "days" and (span.start is None or span.start <= year) \
            and span.end is not None:
        by_day = {row.day: sums for row, sums in grouped if row.day >= year.isoformat()}
    else:
        by_day = {row.day: Sums.of(row) for row in
                  _grouped(connection, ("day",), Span(year, anchor, span.currency))}
    month = anchor.replace(day=1).isoformat()
    return {"grouping": grouping, "currency": span.currency,
            "from": span.start.isoformat() if span.start else None,
            "to": span.end.isoformat() if span.end else None,
            "rows": rows, "totals": figures_of(Sums.total([sums for _, sums in grouped])),
            "day": figures_of(by_day.get(anchor.isoformat(), Sums())),
            "month_to_date": figures_of(Sums.total(
                [sums for day, sums in by_day.items() if day >= month])),
            "year_to_date": figures_of(Sums.total(list(by_day.values())))}


def to_csv(answer: dict[str, Any]) -> str:
    """A report as CSV (:func:`~feltlab.core.csvsafe.csv_text`): a header row, one line a
    row, and the totals last (its key columns say ``total``). Floats are written exactly
    (``repr``)."""
    keys = KEY_COLUMNS[answer["grouping"]]
    return csv_text([[*keys, *FIGURE_COLUMNS],
                     *([*(row[key] for key in keys), *figure_cells(row)]
                       for row in answer["rows"]),
                     ["total", *([""] * (len(keys) - 1)), *figure_cells(answer["totals"])]])


def figure_cells(row: dict[str, Any]) -> list[Cell]:
    """A row's figures as CSV cells: numbers stay numbers (a negative win is no text)."""
    values = {**row, "band_low": row["band"][0], "band_high": row["band"][1]}
    return [values[column] for column in FIGURE_COLUMNS]


def alerts(connection: Connection, span: Span) -> dict[str, list[dict[str, Any]]]:
    """Table-days and players whose win falls outside its band over ``span``."""
    flagged_days = []
    for row in sorted(_grouped(connection, ("day", "table_id", "rules_id"), span),
                      key=lambda row: (row.day, row.table_id)):
        figures = figures_of(Sums.of(row))
        if figures["outside_band"]:
            flagged_days.append({"table_id": int(row.table_id), "rules": row.rules_id,
                                 "day": row.day, **figures})
    players = [row for row in report(connection, "players", span)["rows"]
               if row["outside_band"]]
    return {"table_days": flagged_days, "players": players}


def alert_counts(connection: Connection) -> dict[tuple[str, str], int]:
    """How many table-days and players are outside their bands, over everything settled,
    by (kind, currency): what ``/metrics`` shows."""
    counts: dict[tuple[str, str], int] = {}
    for currency in CURRENCIES:
        found = alerts(connection, Span(None, None, currency))
        counts[("table_day", currency)] = len(found["table_days"])
        counts[("player", currency)] = len(found["players"])
    return counts


def parse_day(text: str | None, name: str) -> date | None:
    """A ``YYYY-MM-DD`` day, or a refusal naming the parameter."""
    if text is None or text == "":
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise Refused(f"{name} must be a day as YYYY-MM-DD, not {text[:20]!r}") from None


def sum_ended(found: Services, currency: str) -> None:
    """Write the figures of every round settled so far (the recorders write them a
    moment after settlement), then sum the days that are over, once, before a report
    reads them."""
    found.recorder.flush()
    with found.read() as session:
        if not _needs_summing(session.connection(), currency):
            return
    with found.transaction() as session:
        sum_ended_days(session.connection(), currency, now().date())


def _needs_summing(connection: Connection, currency: str) -> bool:
    last = (now().date() - timedelta(days=1) - SETTLED_LATE).isoformat()
    through = _through(connection, currency)
    return through is None or through < last


def read_report(found: Services, grouping: str, span: Span) -> dict[str, Any]:
    sum_ended(found, span.currency)
    with found.read() as session:
        return report(session.connection(), grouping, span)


def read_alerts(found: Services, span: Span) -> dict[str, list[dict[str, Any]]]:
    sum_ended(found, span.currency)
    with found.read() as session:
        return alerts(session.connection(), span)


def read_alert_counts(found: Services) -> dict[tuple[str, str], int]:
    for currency in CURRENCIES:
        sum_ended(found, currency)
    with found.read() as session:
        return alert_counts(session.connection())
