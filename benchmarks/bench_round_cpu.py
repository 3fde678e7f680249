"""CPU and SQL statements of the table server's money requests, in process, through the
ASGI test client, on SQLite in a temporary folder or a throwaway PostgreSQL.

Shared mode: 4 players at a High Card Flush table bet, then each reads the round and
takes its biggest raise in turn (8 money requests and 4 reads a round). Private mode: one
player at a practice table bets, then raises or folds (every other round), the
sequential client the floor is measured with (``../shared/bench/server_floor.py``).
Prints CPU and statements a round, and statements per bet and per decision (every
statement the server runs for the request, on any connection, BEGIN aside; a NOTIFY
sent as a statement of its own to tell other PostgreSQL workers' watchers is counted
apart (at a shared table, the one carrying the table's new state, sent inside the money
transaction), and so are the statements of the worker's writer of the
pit's figures, which writes settled rounds in batches in a thread of its own).

    python benchmarks/bench_round_cpu.py [--mode shared|private|both]
        [--database sqlite|postgresql|both] [--rounds 40]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "src"), str(HERE.parent / "tests")]

from fastapi.testclient import TestClient  # noqa: E402
from sqlalchemy import Engine, event  # noqa: E402

from feltlab.app import create_app  # noqa: E402
from server.conftest import practice_table, settings_for, sign_up  # noqa: E402
from server.pg import ThrowawayPostgres  # noqa: E402
from server.test_shared import make_admin  # noqa: E402


class Statements:
    """Statements run on the server's engines, NOTIFY apart."""

    def __init__(self, engines: list[Engine]) -> None:
        self.run = self.notify = self.figures = self.watching = 0
        for engine in engines:
            event.listen(engine, "before_cursor_execute", self.count)

    def count(self, connection: Any, cursor: Any, statement: str, *_: object) -> None:
        thread = threading.current_thread().name
        if thread == "feltlab-figures":
            self.figures += 1  # the pit's figures, written in batches off the money path
        elif thread == "feltlab-live":
            self.watching += 1  # the once-a-second look for changes nobody announced
        elif statement.startswith("SELECT pg_notify"):
            self.notify += 1  # a NOTIFY of its own (a shared table's new state)
        elif not statement.startswith("BEGIN"):  # transaction control, as COMMIT is
            self.run += 1

    def since(self, mark: tuple[int, int]) -> tuple[int, int]:
        return self.run - mark[0], self.notify - mark[1]

    def mark(self) -> tuple[int, int]:
        return self.run, self.notify


class Table:
    def __init__(self, client: TestClient) -> None:
        self.client, self.requests = client, 0
        self.per_kind: dict[str, list[tuple[int, int]]] = {"bet": [], "decision": []}
        self.statements: Statements | None = None

    def post(self, kind: str, path: str, body: dict[str, Any], headers: dict[str, str]
             ) -> Any:
        self.requests += 1
        mark = self.statements.mark() if self.statements else (0, 0)
        answer = self.client.post(path, json=body, headers={
            **headers, "Idempotency-Key": f"request-{self.requests}"})
        if self.statements:
            self.per_kind[kind].append(self.statements.since(mark))
        assert answer.status_code in (200, 201), answer.text
        return answer.json()


class SharedTable(Table):
    def __init__(self, client: TestClient, seats: int = 4) -> None:
        super().__init__(client)
        admin = make_admin(client)
        self.table = client.post("/api/v1/admin/tables", json={
            "rules": "high-card-flush", "betting_seconds": 30, "decision_seconds": 30},
            headers=admin).json()["id"]
        self.players = [sign_up(client) for _ in range(seats)]
        for seat, headers in enumerate(self.players, start=1):
            client.post(f"/api/v1/tables/{self.table}/seats", json={"seat": seat},
                        headers=headers)

    def play_round(self) -> None:
        for headers in self.players:
            view = self.post("bet", f"/api/v1/tables/{self.table}/rounds",
                             {"wagers": {"ante": 1}}, headers)
        while view["phase"] != "complete":
            headers = self.players[view["to_act"] - 1]
            mine = self.client.get(f"/api/v1/rounds/{view['id']}", headers=headers).json()
            view = self.post("decision", f"/api/v1/rounds/{view['id']}/actions",
                             mine["options"][-1], headers)


class PrivateTable(Table):
    def __init__(self, client: TestClient) -> None:
        super().__init__(client)
        self.player = sign_up(client)
        self.table = practice_table(client, self.player, "high-card-flush")
        self.rounds = 0

    def play_round(self) -> None:
        self.rounds += 1
        view = self.post("bet", f"/api/v1/tables/{self.table}/rounds",
                         {"wagers": {"ante": 1}}, self.player)
        while view["phase"] != "complete":
            choice = view["options"][-1] if self.rounds % 2 else {"action": "fold"}
            view = self.post("decision", f"/api/v1/rounds/{view['id']}/actions", choice,
                             self.player)
        if self.rounds % 50 == 0:
            self.client.post("/api/v1/me/practice/reset", headers={
                **self.player, "Idempotency-Key": f"reset-{self.rounds}"})


def measure(url: str, make: Callable[[TestClient], Table], rounds: int) -> str:
    app = create_app(settings_for(url), timers=False)
    found = app.state.services
    with TestClient(app) as client:
        table = make(client)
        for _ in range(3):  # warm caches
            table.play_round()
        table.statements = Statements([engine for engine in (found.engine, found.reader_engine)
                                       if engine is not None])
        started = time.process_time()
        for _ in range(rounds):
            table.play_round()
        found.recorder.flush()  # the figures of the last rounds, counted with them
        cpu = (time.process_time() - started) / rounds
        counted = table.statements
    found.engine.dispose()
    per = {kind: (statistics.mean(run for run, _ in values),
                  max(run for run, _ in values), statistics.mean(sent for _, sent in values))
           for kind, values in table.per_kind.items()}
    return (f"{cpu * 1000:.1f} ms of CPU and {counted.run / rounds:.0f} SQL statements a "
            f"round (test client included); statements per bet {per['bet'][0]:.1f} (at most "
            f"{per['bet'][1]}), per decision {per['decision'][0]:.1f} (at most "
            f"{per['decision'][1]}); NOTIFY statements of their own per bet "
            f"{per['bet'][2]:.1f}, per decision {per['decision'][2]:.1f}; the pit's figures "
            f"{counted.figures / rounds:.2f} statements a round, written in batches off the "
            f"money path; {counted.watching / rounds:.2f} a round looking for changes nobody "
            f"announced, once a second")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--mode", choices=["shared", "private", "both"], default="both")
    parser.add_argument("--database", choices=["sqlite", "postgresql", "both"],
                        default="both")
    args = parser.parse_args()
    modes = ["private", "shared"] if args.mode == "both" else [args.mode]
    kinds = ["sqlite", "postgresql"] if args.database == "both" else [args.database]
    postgres = ThrowawayPostgres() if "postgresql" in kinds else None
    try:
        for kind in kinds:
            for mode in modes:
                if postgres is not None and kind == "postgresql":
                    url = postgres.new_database()
                else:
                    url = f"sqlite:///{tempfile.mkdtemp(prefix='feltlab-bench-')}/b.sqlite3"
                make: Callable[[TestClient], Table] = (
                    PrivateTable if mode == "private" else SharedTable)
                label = ("private rounds of 1 seat" if mode == "private"
                         else "shared rounds of 4 seats")
                print(f"{kind}: {args.rounds} {label} in process: "
                      f"{measure(url, make, args.rounds)}", flush=True)
    finally:
        if postgres is not None:
            postgres.stop()


if __name__ == "__main__":
    main()
