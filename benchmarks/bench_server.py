"""Load benchmark of the table server: N players on T shared tables over loopback.

Starts ``feltlab serve --workers W`` on a fresh database (SQLite in a temporary folder,
or a throwaway PostgreSQL started from the machine's binaries), opens T shared tables of
High Card Flush, seats N/T players at each, and has every player play rounds (bet, wait
for their turn, raise or fold) until each table has played R rounds or the time limit
passes. Prints rounds per second and p50/p99 latency of the money-moving requests, then
checks the ledger reconciles exactly (entries sum to zero, every balance is 1,000 plus
the totals of its rounds). A benchmark, not a test: bounded in count and time.

    python benchmarks/bench_server.py --database sqlite --players 200 --tables 50
    python benchmarks/bench_server.py --database postgresql --workers 2
    python benchmarks/bench_server.py --database postgresql --hosts 2 --workers 1

With ``--hosts 2``, two ``feltlab serve`` processes (think two hosts) share the database,
and the players of each table are spread over both (each player's requests and live
updates go to its own host), so live updates cross between them through the database
(NOTIFY on PostgreSQL). A refusal is a money request answered with an error, other than
a bet placed after its table's betting closed (counted apart).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "src"), str(HERE.parent / "tests"), str(HERE)]

from bench_money_floor import DEFAULT_FLOOR, drive_floor, floor_server  # noqa: E402

from server.helpers import books  # noqa: E402
from server.live_server import LiveServer  # noqa: E402
from server.pg import ThrowawayPostgres  # noqa: E402
from server.recovery import reconcile  # noqa: E402


class Load:
    def __init__(self, base: str, rounds_per_table: int, deadline: float) -> None:
        self.base, self.rounds_per_table, self.deadline = base, rounds_per_table, deadline
        self.latencies: list[float] = []
        self.completed: set[int] = set()
        self.refusals = 0
        self.closed = 0  # bets placed after betting closed: expected, not refusals
        self.reconnects = 0
        self.messages = 0
        self.polls = 0  # reads of a round the player's socket moved past
        self.message_bytes = 0
        self.elapsed = self.client_cpu = self.server_cpu = self.database_cpu = 0.0

    async def timed(self, client: httpx.AsyncClient, method: str, path: str,
                    polling: bool = False, **kwargs: Any) -> httpx.Response:
        for _ in range(5):  # a kept-alive connection the server just closed: retry (keyed)
            started = time.perf_counter()
            try:
                answer = await client.request(method, path, **kwargs)
            except httpx.TransportError:
                self.reconnects += 1
                continue
            if polling:
                self.polls += 1
            else:
                self.latencies.append(time.perf_counter() - started)
            return answer
        raise RuntimeError(f"{method} {path} failed five times")

    async def player(self, client: httpx.AsyncClient, headers: dict[str, str], table: int,
                     index: int) -> None:
        """Bet, then follow the table over its WebSocket and decide when it is our turn."""
        url = self.base.replace("http://", "ws://") + f"/api/v1/tables/{table}/live"
        played = tries = 0
        while played < self.rounds_per_table and time.monotonic() < self.deadline:
            try:
                played, tries = await self.follow(client, headers, table, index, url, played,
                                                  tries)
            except websockets.ConnectionClosed:
                self.reconnects += 1

    async def follow(self, client: httpx.AsyncClient, headers: dict[str, str], table: int,
                     index: int, url: str, played: int, tries: int) -> tuple[int, int]:
        async with websockets.connect(url, additional_headers=headers, max_size=2**22,
                                      ping_interval=None, open_timeout=60,
                                      compression=None) as live:
            while played < self.rounds_per_table and time.monotonic() < self.deadline:
                tries += 1
                bet = await self.timed(client, "POST", f"/api/v1/tables/{table}/rounds",
                                       json={"wagers": {"ante": 1}}, headers={
                                           **headers, "Idempotency-Key": f"{index}-{tries}"})
                if bet.status_code != 201:  # betting closed: wait for the round to end
                    if bet.status_code == 409 and "betting is closed" in bet.text:
                        self.closed += 1
                    else:
                        self.refusals += 1
                    await self.next_message(live)
                    continue
                await self.finish(client, headers, bet.json(), live)
                played += 1
        return played, tries

    async def next_message(self, live: Any) -> dict[str, Any] | None:
        try:
            text = await asyncio.wait_for(live.recv(), 10)
        except TimeoutError:
            return None
        self.messages += 1
        self.message_bytes += len(text)
        message: dict[str, Any] = json.loads(text)
        return message

    async def finish(self, client: httpx.AsyncClient, headers: dict[str, str],
                     view: dict[str, Any], live: Any) -> None:
        round_id = view["id"]
        while view["phase"] != "complete" and time.monotonic() < self.deadline + 60:
            if view["options"]:
                key = f"{round_id}-{headers['Authorization'][-12:]}-{len(view['decisions'])}"
                answer = await self.timed(client, "POST", f"/api/v1/rounds/{round_id}/actions",
                                          json=view["options"][-1], headers={
                                              **headers, "Idempotency-Key": key})
                if answer.status_code == 200:
                    view = answer.json()
                    continue
                self.refusals += 1
            message = await self.next_message(live)
            current = message and message.get("round")
            if current and current["id"] == round_id:
                view = current
            elif current and current["id"] < round_id:
                continue  # an earlier round's news, sent before our bet: not ours
            else:  # our round moved on (or a quiet spell): read it
                view = (await self.timed(client, "GET", f"/api/v1/rounds/{round_id}",
                                         headers=headers, polling=True)).json()
        if view["phase"] == "complete":
            self.completed.add(round_id)


async def setup(base: str, players: int, tables: int) -> list[tuple[dict[str, str], int]]:
    async with httpx.AsyncClient(base_url=base, timeout=120) as client:
        admin = await sign_in(client, "bench-admin", admin=True)
        table_ids = []
        for number in range(tables):
            answer = await client.post("/api/v1/admin/tables", headers=admin, json={
                "rules": "high-card-flush", "name": f"bench {number}",
                "betting_seconds": 2, "decision_seconds": 5})
            table_ids.append(answer.json()["id"])
        seats: list[tuple[dict[str, str], int]] = []
        for index in range(players):
            headers = await sign_in(client, f"bench{index}")
            table = table_ids[index % tables]
            seat = index // tables + 1
            answer = await client.post(f"/api/v1/tables/{table}/seats", json={"seat": seat},
                                       headers=headers)
            answer.raise_for_status()
            seats.append((headers, table))
        return seats


ADMIN_DATABASE: dict[str, str] = {}


async def sign_in(client: httpx.AsyncClient, name: str, admin: bool = False
                  ) -> dict[str, str]:
    if admin:
        from feltlab.server.auth import AuthSettings, password_hasher
        from feltlab.server.services.accounts import create_admin
        from feltlab.server.services.database import make_engine

        engine = make_engine(ADMIN_DATABASE["url"])
        create_admin(engine, password_hasher(AuthSettings(argon2_memory_kib=1024)), name,
                     "bench-password")
        engine.dispose()
    else:
        await client.post("/api/v1/accounts", json={"username": name,
                                                    "password": "bench-password"})
    token = await client.post("/api/v1/login", json={"username": name,
                                                     "password": "bench-password"})
    token.raise_for_status()
    return {"Authorization": f"Bearer {token.json()['token']}"}


async def run(servers: list[LiveServer], players: int, tables: int, rounds: int,
              seconds: float, postgres: ThrowawayPostgres | None = None) -> Load:
    seats = await setup(servers[0].base, players, tables)
    await settled(servers)
    server_cpu = sum(server_cpu_seconds(server) for server in servers)
    database_cpu = database_cpu_seconds(postgres)
    # one small client a player: a player sends one request at a time, and a shared pool
    # of hundreds of connections costs the client far more CPU than the requests; player
    # i plays on host i % hosts (a table's seats are i, i + tables, ...: both hosts)
    hosts = [servers[(index // tables + index) % len(servers)].base
             for index in range(len(seats))]
    clients = [httpx.AsyncClient(base_url=base, timeout=120, limits=httpx.Limits(
        max_connections=1, max_keepalive_connections=1)) for base in hosts]
    loads = {base: Load(base, rounds, time.monotonic() + seconds) for base in set(hosts)}
    load = Load(servers[0].base, rounds, time.monotonic() + seconds)
    started, cpu_started = time.perf_counter(), time.process_time()
    await asyncio.gather(*(loads[base].player(client, headers, table, index)
                           for index, (base, client, (headers, table)) in enumerate(
                               zip(hosts, clients, seats, strict=True))))
    load.elapsed = time.perf_counter() - started
    load.client_cpu = time.process_time() - cpu_started
    load.server_cpu = sum(server_cpu_seconds(server) for server in servers) - server_cpu
    load.database_cpu = database_cpu_seconds(postgres) - database_cpu
    for part in loads.values():
        load.latencies += part.latencies
        load.completed |= part.completed
        load.refusals += part.refusals
        load.closed += part.closed
        load.reconnects += part.reconnects
        load.messages += part.messages
        load.polls += part.polls
        load.message_bytes += part.message_bytes
    for client in clients:
        await client.aclose()
    return load


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=6, help="rounds per player at most")
    parser.add_argument("--seconds", type=float, default=120, help="time limit of the run")
    parser.add_argument("--workers", type=int, default=2, help="worker processes a host")
    parser.add_argument("--hosts", type=int, default=1,
                        help="feltlab serve processes on the one database")
    parser.add_argument("--floor", type=Path, default=DEFAULT_FLOOR,
                        help="the stack's floor, run before and after the load on a fresh "
                             "database of the same kind (no access log, as feltlab runs)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="feltlab-bench-"))
    postgres = ThrowawayPostgres() if args.database == "postgresql" else None
    url = postgres.new_database() if postgres else f"sqlite:///{folder / 'bench.sqlite3'}"
    ADMIN_DATABASE["url"] = url
    servers = [LiveServer(url, folder / f"server{host}.log", workers=args.workers)
               for host in range(args.hosts)]
    try:
        os.environ["FELTLAB_TOKEN_IDLE_MINUTES"] = "120"
        floors = [floor_per_request(args.floor, postgres, folder, "before")]  # machine quiet
        for server in servers:
            server.start()
        load_before = os.getloadavg()[0]
        load = asyncio.run(run(servers, args.players, args.tables, args.rounds, args.seconds,
                               postgres))
        load_after = os.getloadavg()[0]
        for server in servers:
            server.stop()
        floors.append(floor_per_request(args.floor, postgres, folder, "after"))
        report(args, load, url, (load_before, load_after), floors)
    finally:
        for server in servers:
            server.stop()
        if postgres:
            postgres.stop()


async def settled(servers: list[LiveServer], most: float = 240) -> None:
    """Wait until the servers are idle (under 5% of a core for two seconds running), so
    that the CPU counted while playing is the rounds', not each worker's one-time warming
    at its start (the designer's kernels and analyses, in a background thread)."""
    started, quiet = time.monotonic(), 0
    while time.monotonic() - started < most and quiet < 2:
        before = sum(server_cpu_seconds(server) for server in servers)
        await asyncio.sleep(1)
        used = sum(server_cpu_seconds(server) for server in servers) - before
        quiet = quiet + 1 if used < 0.05 else 0
    print(f"servers idle after {time.monotonic() - started:.0f} s of waiting", flush=True)


def server_cpu_seconds(server: LiveServer) -> float:
    """CPU seconds (user + system) of the server's processes so far (Linux /proc)."""
    assert server.process is not None
    group, total = os.getpgid(server.process.pid), 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group:  # fields after the name: state, ppid, pgrp, ...
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def database_cpu_seconds(postgres: ThrowawayPostgres | None) -> float:
    """CPU seconds of the throwaway PostgreSQL's processes so far (its postmaster's
    children: the backends serving the server, and its own workers); 0 on SQLite."""
    if postgres is None:
        return 0.0
    postmaster = (postgres.data / "postmaster.pid").read_text().split()[0]
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == postmaster or entry.name == postmaster:
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def timer_folds(url: str) -> int:
    """Seats folded by their decision timer: the benchmark's players never fold."""
    from sqlalchemy import create_engine, text

    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.connect() as connection:
        count = connection.execute(text(
            "SELECT COUNT(*) FROM round_events WHERE action LIKE '%\"Fold\"%'")).scalar_one()
    engine.dispose()
    return int(count)


def floor_per_request(floor: Path, postgres: ThrowawayPostgres | None, folder: Path,
                      name: str, requests: int = 600) -> float:
    """The floor's server CPU seconds per money request, on a fresh database of the
    benchmark's kind (``../shared/bench/server_floor.py``, as feltlab runs: no access
    log)."""
    url = (postgres.new_database() if postgres
           else f"sqlite:///{folder / f'floor-{name}.sqlite3'}")
    with floor_server(floor, url, folder / "floor.log") as (base, pid):
        server, _ = drive_floor(base, requests, pid, url if postgres else None)
    return server


def report(args: argparse.Namespace, load: Load, url: str,
           load_average: tuple[float, float], floors: list[float]) -> None:
    elapsed = load.elapsed
    ordered = sorted(load.latencies)
    p50 = statistics.median(ordered) * 1000
    p99 = ordered[int(len(ordered) * 0.99) - 1] * 1000
    hosts = f" on each of {args.hosts} hosts" if args.hosts > 1 else ""
    print(f"{args.database}, {args.workers} workers{hosts}, {args.players} players on "
          f"{args.tables} tables: {len(load.completed)} rounds in {elapsed:.1f} s = "
          f"{len(load.completed) / elapsed:.1f} rounds/s; money requests "
          f"{len(ordered)}: p50 {p50:.1f} ms, p99 {p99:.1f} ms; "
          f"refused {load.refusals}, bets after betting closed {load.closed}, "
          f"reconnects {load.reconnects}")
    print(f"seats folded by the decision timer: {timer_folds(url)}; WebSocket messages "
          f"{load.messages}, {load.message_bytes / max(load.messages, 1):.0f} bytes each; "
          f"reads of a round its socket moved past {load.polls}")
    per_round = load.server_cpu * 1000 / max(len(load.completed), 1)
    database = ""
    if args.database == "postgresql":
        database = (f", PostgreSQL {load.database_cpu:.1f} s "
                    f"({load.database_cpu * 1000 / max(len(load.completed), 1):.1f} ms a "
                    f"round, {load.database_cpu * 1000 / max(len(ordered), 1):.2f} ms a "
                    f"money request)")
    print(f"CPU while playing: server {load.server_cpu:.1f} s ({per_round:.1f} ms a "
          f"round){database}, benchmark client "
          f"{load.client_cpu:.1f} s (in {elapsed:.1f} s on {os.cpu_count()} cores); "
          f"load average {load_average[0]:.2f} before, {load_average[1]:.2f} after")
    per_request = load.server_cpu / max(len(ordered), 1)
    floor = statistics.mean(floors)
    print(f"server CPU per money request {per_request * 1000:.2f} ms = "
          f"{per_request / floor:.2f}x the floor ({floor * 1000:.2f} ms: "
          f"{', '.join(f'{value * 1000:.2f}' for value in floors)} ms before and after the "
          "load)")
    open_rounds = reconcile(url)
    print(f"ledger: {books(url)}; open rounds {open_rounds}; reconciled exactly")


if __name__ == "__main__":
    main()
