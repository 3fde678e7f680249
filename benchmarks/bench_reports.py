"""Benchmark of the pit's reports: the four groupings over 1,000,000 settled seats.

Builds a fresh database at the current schema (SQLite in a temporary folder, or a
throwaway PostgreSQL started from the machine's binaries), adds PLAYERS accounts and
TABLES tables, and seeds SEATS rows of ``seat_figures`` (the figures the server writes at
settlement) spread over a year, 95% cash. The rounds and round seats the rows point to are
not written (the reports read ``seat_figures`` and ``users`` only), so the seeding runs
with the foreign-key checks off. Seats come in sessions (a player at one table for 20-200
hands, 30 sessions at a time), or shuffled with ``--shuffled``. Then times
``feltlab.server.services.reports.report``
(the function behind both ``GET /api/v1/admin/reports/...`` and ``feltlab report``: the
grouped rows, the totals, and the day's, month's and year's totals) for every grouping over
the whole year and over its last month, and the alerts, after the one-off summing of the
days that are over (``seat_figure_days``; timed apart: the first report of a day does it
for the day before yesterday alone). A benchmark, not a test.

    python benchmarks/bench_reports.py --database sqlite
    python benchmarks/bench_reports.py --database postgresql --seats 1000000
    python benchmarks/bench_reports.py --database sqlite --shuffled
"""

from __future__ import annotations

import argparse
import io
import random
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "src"), str(HERE.parent / "tests")]

from sqlalchemy import Engine, text  # noqa: E402

from feltlab.server.migrate import upgrade  # noqa: E402
from feltlab.server.services import reports  # noqa: E402
from feltlab.server.services.database import make_engine, normalise_url  # noqa: E402
from server.pg import ThrowawayPostgres  # noqa: E402

RULES = ("high-card-flush", "high-card-flush-toledo", "nh-flush-poker", "nine-card-flush")
EDGES = (0.027, 0.026, 0.028, 0.022)
END = datetime.now(UTC)
"""The seats end now: a year of play up to the moment the benchmark runs."""
COLUMNS = ("round_seat_id", "round_id", "table_id", "user_id", "rules_id", "currency",
           "settled_at", "day", "handle", "win", "theo_win", "expected_win", "variance",
           "main_stake", "first_seat", "costs")


def rows(seats: int, players: int, tables: int, shuffled: bool, seed: int = 22
         ) -> Iterator[tuple[object, ...]]:
    """The seeded seats, in settlement order. As a pit plays: a player sits at one table
    for a session of 20-200 hands (several sessions at a time across the pit); with
    ``shuffled``, every seat's player and table are drawn afresh (the worst case for the
    reports: no two seats of a day share a player and table)."""
    rng = random.Random(seed)
    start = END - timedelta(days=365)
    step = 365 * 86400 / seats
    sessions: list[list[int]] = []  # [player, table, hands left]
    for index in range(seats):
        if shuffled:
            player, table = rng.randrange(players), rng.randrange(tables)
        else:
            while len(sessions) < 30:
                sessions.append([rng.randrange(players), rng.randrange(tables),
                                 rng.randint(20, 200)])
            session = sessions[rng.randrange(len(sessions))]
            player, table = session[0], session[1]
            session[2] -= 1
            if session[2] == 0:
                sessions.remove(session)
        kind = table % len(RULES)
        ante = rng.choice((5, 10, 25, 100))
        handle = ante * rng.choice((1, 2, 2, 3))
        win = rng.choice((ante, -ante, handle, -handle, 0))
        theo = ante * EDGES[kind]
        at = start + timedelta(seconds=index * step)
        yield (index + 1, index + 1, table + 1, player + 1, RULES[kind],
               "cash" if rng.random() < 0.95 else "practice", at, at.strftime("%Y-%m-%d"),
               handle, win, theo, theo + rng.random() * 0.1 * ante, 2.7 * ante * ante, ante, 1,
               "[]")


def seed(url: str, seats: int, players: int, tables: int, shuffled: bool) -> float:
    engine = make_engine(url)
    upgrade(engine)
    started = time.perf_counter()
    created = END - timedelta(days=366)
    with engine.begin() as connection:
        connection.execute(text(
            "INSERT INTO users (id, username, password_hash, role, created_at, locked) "
            "VALUES (:id, :name, 'x', 'player', :at, false)"),
            [{"id": n, "name": f"player{n:05d}", "at": created} for n in range(1, players + 1)])
        connection.execute(text(
            "INSERT INTO tables (id, rules_id, fingerprint, currency, shared, status, name, "
            "betting_seconds, decision_seconds, created_at) VALUES (:id, :rules, 'f', 'cash', "
            "true, 'open', '', 20, 20, :at)"),
            [{"id": n, "rules": RULES[(n - 1) % len(RULES)], "at": created}
             for n in range(1, tables + 1)])
    if engine.dialect.name == "postgresql":
        _copy_postgresql(engine, rows(seats, players, tables, shuffled))
    else:
        _insert_sqlite(url, rows(seats, players, tables, shuffled))
    with engine.begin() as connection:
        connection.execute(text("ANALYZE"))
    engine.dispose()
    return time.perf_counter() - started


def _insert_sqlite(url: str, seeded: Iterator[tuple[object, ...]]) -> None:
    import sqlite3

    path = url.removeprefix("sqlite:///")
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA foreign_keys=OFF")
    connection.execute("PRAGMA synchronous=OFF")
    placeholders = ", ".join("?" for _ in COLUMNS)
    batch: list[tuple[object, ...]] = []
    for row in seeded:
        batch.append((*row[:6], row[6].isoformat(sep=" "), *row[7:]))
        if len(batch) == 50_000:
            connection.executemany(f"INSERT INTO seat_figures ({', '.join(COLUMNS)}) "
                                   f"VALUES ({placeholders})", batch)
            batch.clear()
    if batch:
        connection.executemany(f"INSERT INTO seat_figures ({', '.join(COLUMNS)}) "
                               f"VALUES ({placeholders})", batch)
    connection.commit()
    connection.close()


def _copy_postgresql(engine: Engine, seeded: Iterator[tuple[object, ...]]) -> None:
    raw = engine.raw_connection()
    try:
        cursor = raw.cursor()
        cursor.execute("SET session_replication_role = replica")  # no foreign-key checks
        with cursor.copy(f"COPY seat_figures ({', '.join(COLUMNS)}) FROM STDIN") as copy:
            buffer = io.StringIO()
            for count, row in enumerate(seeded, 1):
                buffer.write("\t".join(str(value) for value in row) + "\n")
                if count % 50_000 == 0:
                    copy.write(buffer.getvalue())
                    buffer = io.StringIO()
            copy.write(buffer.getvalue())
        cursor.execute("SET session_replication_role = origin")
        raw.commit()
    finally:
        raw.close()


def measure(url: str) -> list[tuple[str, float, int]]:
    engine = make_engine(url)
    today = END.date()
    spans = {"year": reports.Span(None, today),
             "month": reports.Span(today - timedelta(days=30), today)}
    found = []
    started = time.perf_counter()
    with engine.begin() as connection:  # once: the days that are over, summed
        reports.sum_ended_days(connection, "cash", today)
        reports.sum_ended_days(connection, "practice", today)
    found.append(("summing ended days", time.perf_counter() - started, 0))
    with engine.connect() as connection:
        for span_name, span in spans.items():
            for grouping in reports.GROUPINGS:
                started = time.perf_counter()
                answer = reports.report(connection, grouping, span)
                found.append((f"{grouping} ({span_name})", time.perf_counter() - started,
                              len(answer["rows"])))
            started = time.perf_counter()
            flagged = reports.alerts(connection, span)
            found.append((f"alerts ({span_name})", time.perf_counter() - started,
                          len(flagged["table_days"]) + len(flagged["players"])))
        total = reports.report(connection, "days", spans["year"])["totals"]
        assert total["seats"] > 0
    engine.dispose()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--seats", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--shuffled", action="store_true",
                        help="every seat's player and table drawn afresh (the worst case)")
    options = parser.parse_args()
    server = None
    folder = Path(tempfile.mkdtemp(prefix="feltlab-bench-reports-"))
    if options.database == "postgresql":
        server = ThrowawayPostgres()
        url = normalise_url(server.new_database())
    else:
        url = normalise_url(f"sqlite:///{folder / 'reports.sqlite3'}")
    try:
        seconds = seed(url, options.seats, options.players, options.tables, options.shuffled)
        shape = "shuffled" if options.shuffled else "in sessions"
        print(f"{options.database}: seeded {options.seats:,} settled seats ({shape}) "
              f"in {seconds:.1f} s")
        worst = 0.0
        for name, elapsed, count in measure(url):
            if not name.startswith("summing"):
                worst = max(worst, elapsed)
            print(f"  {name:<22} {elapsed * 1000:8.0f} ms  ({count} rows)")
        print(f"  slowest: {worst:.2f} s ({'under' if worst < 2 else 'OVER'} the 2 s target)")
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    main()
