"""CPU and SQL statements of one shared round, in process: 4 players at a High Card Flush
table bet, then each reads the round and takes its biggest raise in turn (8 money
requests and 4 reads through the ASGI test client, on SQLite in a temporary folder).

    python benchmarks/bench_round_cpu.py [--rounds 40]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "src"), str(HERE.parent / "tests")]

from fastapi.testclient import TestClient  # noqa: E402
from sqlalchemy import event  # noqa: E402

from feltlab.app import create_app  # noqa: E402
from server.conftest import FAST_HASHING, sign_up  # noqa: E402
from server.test_shared import make_admin  # noqa: E402


class SharedTable:
    def __init__(self, client: TestClient, seats: int = 4) -> None:
        self.client, self.requests = client, 0
        admin = make_admin(client)
        self.table = client.post("/api/v1/admin/tables", json={
            "rules": "high-card-flush", "betting_seconds": 30, "decision_seconds": 30},
            headers=admin).json()["id"]
        self.players = [sign_up(client) for _ in range(seats)]
        for seat, headers in enumerate(self.players, start=1):
            client.post(f"/api/v1/tables/{self.table}/seats", json={"seat": seat},
                        headers=headers)

    def post(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
        self.requests += 1
        answer = self.client.post(path, json=body, headers={
            **headers, "Idempotency-Key": f"request-{self.requests}"})
        assert answer.status_code in (200, 201), answer.text
        return answer.json()

    def play_round(self) -> None:
        for headers in self.players:
            view = self.post(f"/api/v1/tables/{self.table}/rounds", {"wagers": {"ante": 1}},
                             headers)
        while view["phase"] != "complete":
            headers = self.players[view["to_act"] - 1]
            mine = self.client.get(f"/api/v1/rounds/{view['id']}", headers=headers).json()
            view = self.post(f"/api/v1/rounds/{view['id']}/actions", mine["options"][-1],
                             headers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    url = f"sqlite:///{tempfile.mkdtemp(prefix='feltlab-bench-')}/bench.sqlite3"
    app = create_app(url, FAST_HASHING, timers=False)
    statements = [0]

    def count(*_: object) -> None:
        statements[0] += 1

    with TestClient(app) as client:
        table = SharedTable(client)
        for _ in range(3):  # warm caches
            table.play_round()
        event.listen(app.state.services.engine, "before_cursor_execute", count)
        started = time.process_time()
        for _ in range(args.rounds):
            table.play_round()
        cpu = (time.process_time() - started) / args.rounds
    print(f"{args.rounds} shared rounds of 4 seats in process: {cpu * 1000:.1f} ms of CPU "
          f"and {statements[0] / args.rounds:.0f} SQL statements on the writer a round "
          "(test client included)")


if __name__ == "__main__":
    main()
