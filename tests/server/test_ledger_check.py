"""``feltlab ledger check`` names every wallet, currency, transaction and round out of
line: each is broken in a copy of a database where rounds were played, and seen named."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, create_engine, text

from feltlab.server.services.ledger_check import check_ledger, last_check
from server.conftest import FAST_HASHING, practice_table, sign_up
from server.pg import ThrowawayPostgres

BREAKS: dict[str, tuple[str, list[str]]] = {
    "a wallet's balance": (
        "UPDATE wallets SET balance = balance + 7 WHERE name = :wallet",
        ["wallet: {wallet}"]),
    "an entry's amount": (
        "UPDATE ledger_entries SET amount = amount + 7, balance_after = balance_after + 7 "
        "WHERE id = :entry",
        ["wallet: {wallet}", "currency: practice", "transaction: transaction {transaction}",
         "round: round {round} seat 1"]),
    "a transaction of one entry": (
        "DELETE FROM ledger_entries WHERE id = :house_entry",
        ["transaction: transaction {transaction}", "currency: practice", "wallet: {house}"]),
    "a round's money moved off the round": (
        "UPDATE ledger_transactions SET round_id = NULL WHERE round_id = :round",
        ["round: round {round} seat 1"]),
    "a seat's result": (
        "UPDATE round_seats SET total = total + 7 WHERE round_id = :round",
        ["round: round {round} seat 1"]),
    "an entry in another currency": (
        "UPDATE ledger_entries SET wallet_id = :cash_wallet WHERE id = :entry",
        ["transaction: transaction {transaction}", "currency: practice", "currency: cash",
         "wallet: {wallet}", "wallet: {cash}", "round: round {round} seat 1"]),
}


def _engine(url: str) -> Engine:
    return create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))


def _played(url: str) -> dict[str, Any]:
    """Rounds settled at a practice table on ``url``; the ids the breaks name."""
    from feltlab.server.app import create_app
    from server.conftest import settings_for

    app = create_app(settings_for(url, FAST_HASHING), timers=False)
    with TestClient(app) as client:
        headers = sign_up(client)
        table = practice_table(client, headers, "high-card-flush")
        for _ in range(3):
            answer = client.post(f"/api/v1/tables/{table}/rounds", headers=headers,
                                 json={"wagers": {"ante": 5}})
            assert answer.status_code == 201, answer.text
            view = answer.json()
            if view["phase"] != "complete":
                assert client.post(f"/api/v1/rounds/{view['id']}/actions", headers=headers,
                                   json={"action": "fold"}).status_code == 200
    app.state.services.engine.dispose()
    engine = _engine(url)
    with engine.connect() as connection:
        round_id, transaction_id = connection.execute(text(
            "SELECT round_id, id FROM ledger_transactions WHERE kind = 'stake' "
            "ORDER BY id LIMIT 1")).one()
        entry, wallet = connection.execute(text(
            "SELECT e.id, w.name FROM ledger_entries e JOIN wallets w ON w.id = e.wallet_id "
            "WHERE e.transaction_id = :t AND NOT w.house"), {"t": transaction_id}).one()
        house_entry, house = connection.execute(text(
            "SELECT e.id, w.name FROM ledger_entries e JOIN wallets w ON w.id = e.wallet_id "
            "WHERE e.transaction_id = :t AND w.house"), {"t": transaction_id}).one()
        cash_wallet, cash = connection.execute(text(
            "SELECT id, name FROM wallets WHERE name = :name"),
            {"name": wallet.replace(":practice", ":cash")}).one()
    engine.dispose()
    return {"round": round_id, "transaction": transaction_id, "entry": entry,
            "wallet": wallet, "house_entry": house_entry, "house": house,
            "cash_wallet": cash_wallet, "cash": cash}


class Copies:
    """A database with rounds played, and copies of it to break."""

    def __init__(self, kind: str, folder: Path, server: ThrowawayPostgres | None) -> None:
        self.kind, self.folder, self.server = kind, folder, server
        self.original = (f"sqlite:///{folder / 'original.sqlite3'}" if kind == "sqlite"
                         else self._new_postgres())
        self.ids = _played(self.original)
        self.made = 0

    def _new_postgres(self) -> str:
        assert self.server is not None
        url: str = self.server.new_database()
        return url

    def copy(self) -> str:
        self.made += 1
        if self.kind == "sqlite":
            target = self.folder / f"copy{self.made}.sqlite3"
            shutil.copy(self.folder / "original.sqlite3", target)
            return f"sqlite:///{target}"
        import psycopg

        assert self.server is not None
        name = f"{self.original.rsplit('/', 1)[1]}_copy{self.made}"
        with psycopg.connect(f"host=127.0.0.1 port={self.server.port} user=postgres "
                             "dbname=postgres", autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}" TEMPLATE '
                               f'"{self.original.rsplit("/", 1)[1]}"')
        return self.server.url(name)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def copies(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[Copies]:
    server = request.getfixturevalue("postgres") if request.param == "postgresql" else None
    if request.param == "postgresql" and server is None:
        pytest.skip("PostgreSQL binaries (pg_ctl, initdb) are not installed")
    yield Copies(request.param, tmp_path_factory.mktemp("ledger"), server)


def test_the_played_database_is_sound(copies: Copies) -> None:
    engine = _engine(copies.copy())
    report = check_ledger(engine)
    engine.dispose()
    assert report.sound, report.problems
    assert report.seats == 3 and report.transactions >= 4 and report.wallets >= 512


@pytest.mark.parametrize("broken", sorted(BREAKS))
def test_each_break_is_named(copies: Copies, broken: str) -> None:
    statement, expected = BREAKS[broken]
    url = copies.copy()
    engine = _engine(url)
    with engine.begin() as connection:
        connection.execute(text(statement), {
            name: value for name, value in copies.ids.items() if f":{name}" in statement})
    report = check_ledger(engine)
    engine.dispose()
    named = {f"{problem.kind}: {problem.subject.split(' (')[0]}"
             for problem in report.problems}
    assert named == {line.format(**copies.ids) for line in expected}, report.problems


def test_the_command_exits_1_naming_problems_and_keeps_each_run(copies: Copies) -> None:
    """In a fresh process, as a user runs it: sound answers 0, broken 1 with the
    problems in its JSON; each run is kept for /metrics."""
    url = copies.copy()
    command = [sys.executable, "-m", "feltlab", "ledger", "check", "--database", url]
    sound = subprocess.run(command, capture_output=True, text=True, timeout=120,
                           env={**os.environ, "COLUMNS": "200"})
    assert sound.returncode == 0, sound.stderr
    assert sound.stdout.startswith("ledger sound: ")
    engine = _engine(url)
    with engine.begin() as connection:
        connection.execute(text(BREAKS["a wallet's balance"][0]),
                           {"wallet": copies.ids["wallet"]})
    broken = subprocess.run([*command, "--json"], capture_output=True, text=True,
                            timeout=120)
    assert broken.returncode == 1, broken.stderr
    report = json.loads(broken.stdout)
    assert report["sound"] is False
    assert report["problems"] == [{"kind": "wallet", "subject": copies.ids["wallet"],
                                   "detail": report["problems"][0]["detail"]}]
    with engine.connect() as connection:
        kept = last_check(connection)
    assert kept is not None and kept.problems == 1
    engine.dispose()


def test_metrics_show_the_last_check_which_the_server_runs_when_due(copies: Copies) -> None:
    """/metrics reads the last kept check (no scan); the background check runs only when
    none was kept for its interval, and a broken ledger shows its problems."""
    from feltlab.server.app import create_app
    from feltlab.server.services.ledger_check import LedgerWatch
    from server.conftest import settings_for

    url = copies.copy()
    app = create_app(settings_for(url), timers=False)
    found = app.state.services
    with TestClient(app) as client:
        before = client.get("/metrics").text
        assert "\nfeltlab_ledger_check_problems " not in before
        watch = LedgerWatch(found.engine, found.reader_engine, minutes=5)
        report = watch.run_once()
        assert report is not None and report.sound
        assert watch.run_once() is None  # kept a moment ago: not due
        shown = client.get("/metrics").text
        assert "\nfeltlab_ledger_check_problems 0\n" in shown
        stamp = float(shown.split("\nfeltlab_ledger_check_timestamp_seconds ")[1].split()[0])
        assert abs(stamp - report.checked_at.timestamp()) < 1
        with found.engine.begin() as connection:
            connection.execute(text(BREAKS["a wallet's balance"][0]),
                               {"wallet": copies.ids["wallet"]})
        broken = LedgerWatch(found.engine, found.reader_engine, minutes=1e-9).run_once()
        assert broken is not None and broken.count == 1
        assert "\nfeltlab_ledger_check_problems 1\n" in client.get("/metrics").text
    found.engine.dispose()
