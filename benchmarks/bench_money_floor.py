"""Server CPU per private-table money request, feltlab beside the stack's floor.

The floor is ``server_floor.py`` (see ``../shared/bench/README.md``: FastAPI + SQLAlchemy,
a token looked up, a key inserted, a guarded debit, two ledger rows, one commit), run as
its docstring says and as ``feltlab serve`` runs: without uvicorn's access log, at log
level warning. Each is served alone by uvicorn (``feltlab serve`` with one worker) on a
fresh database of the same kind, and driven by the same sequential client: the floor
with bets, feltlab with bets and decisions at a High Card Flush practice table (a raise
every other round, a fold the others).

feltlab is measured in two modes each repeat: ``fresh``, the first server process on an
empty cache (a new HOME and XDG_CACHE_HOME: a new install or container; Numba's disk
cache and the derived data empty), and ``restarted``, a second process on the cache the
first filled. Each is measured once its start-up warm-up is over (``/healthz`` answers
``"ready": true``) and its processes are idle. Runs alternate (floor, fresh, restarted),
and the medians are printed: the server processes' CPU seconds (Linux /proc) divided by
the money requests served and, on PostgreSQL, the database backends' CPU beside it; and
each feltlab run's ratio to the floor run just before it, with their median (on a
machine whose speed drifts, a triple shares it).

    python benchmarks/bench_money_floor.py [--database sqlite|postgresql|both]
        [--requests 600] [--repeats 5] [--floor ../shared/bench/server_floor.py]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "src"), str(HERE.parent / "tests")]

from server.helpers import assert_books_balance  # noqa: E402
from server.live_server import LiveServer  # noqa: E402
from server.pg import ThrowawayPostgres, free_port  # noqa: E402

DEFAULT_FLOOR = HERE.parent.parent / "shared" / "bench" / "server_floor.py"


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of ``pids`` (and, for a group leader, its group)."""
    groups = {os.getpgid(pid) for pid in pids if Path(f"/proc/{pid}").exists()}
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(entry.name) in pids or int(fields[2]) in groups:
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def wait_until_idle(pids: list[int], seconds: float = 240) -> None:
    """Wait until the server's processes are idle (start-up work such as the designer's
    warm-up done), so that only the requests' CPU is measured: idle is under a tenth of
    a core over two seconds (the timers and the wallet outbox's worker poll, about 8%
    of a core, while nothing happens)."""
    deadline = time.monotonic() + seconds
    before = cpu_seconds(pids)
    while time.monotonic() < deadline:
        time.sleep(2)
        now = cpu_seconds(pids)
        if now - before < 0.2:
            return
        before = now


def backend_cpu(url: str, pids: list[int]) -> float:
    del url
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def backends(url: str) -> list[int]:
    """The PostgreSQL backends serving ``url``'s database now (not this query's own)."""
    import psycopg

    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://")) as connection:
        rows = connection.execute("SELECT pid FROM pg_stat_activity WHERE datname = "
                                  "current_database() AND pid <> pg_backend_pid()").fetchall()
    return [int(pid) for (pid,) in rows]


@contextmanager
def floor_server(floor: Path, url: str, log: Path) -> Iterator[tuple[str, int]]:
    port = free_port()
    database = url.replace("postgresql://", "postgresql+psycopg://", 1)
    with log.open("ab") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", f"{floor.stem}:app", "--port", str(port),
             "--no-access-log", "--log-level", "warning"],
            cwd=floor.parent, env={**os.environ, "DB": database}, stdout=out,
            stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                httpx.get(base + "/docs", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        yield base, process.pid
    finally:
        process.kill()
        process.wait()


def drive_floor(base: str, requests: int, pid: int, url: str | None) -> tuple[float, float]:
    with httpx.Client(base_url=base, timeout=60) as client:
        token = client.post("/setup/1").json()["token"]
        headers = {"Authorization": f"Bearer {token}"}
        for index in range(20):  # warm up
            client.post("/bet", json={"amount": 1},
                        headers={**headers, "Idempotency-Key": f"warm-{index}"})
        wait_until_idle([pid])
        pg = backends(url) if url else []
        server, database = cpu_seconds([pid]), backend_cpu("", pg)
        for index in range(requests):
            answer = client.post("/bet", json={"amount": 1},
                                 headers={**headers, "Idempotency-Key": f"bet-{index}"})
            assert answer.status_code == 200, answer.text
        return ((cpu_seconds([pid]) - server) / requests,
                (backend_cpu("", pg) - database) / requests)


def drive_feltlab(base: str, requests: int, pid: int, url: str | None
                  ) -> tuple[float, float]:
    with httpx.Client(base_url=base, timeout=60) as client:
        client.post("/api/v1/accounts", json={"username": "floor1", "password": "floor-pass1"})
        token = client.post("/api/v1/login", json={"username": "floor1",
                                                   "password": "floor-pass1"}).json()["token"]
        client.cookies.clear()
        headers = {"Authorization": f"Bearer {token}"}
        return drive_rounds(client, headers, requests, pid, url, reset_practice=True)


def drive_rounds(client: httpx.Client, headers: dict[str, str], requests: int, pid: int,
                 url: str | None, *, reset_practice: bool = False,
                 drained: Callable[[], None] = lambda: None) -> tuple[float, float]:
    """Play High Card Flush rounds at a table of the caller's (a raise every other round,
    a fold the others): 10 to warm up, then until ``requests`` money requests are
    served; answers the server's CPU and (on PostgreSQL, ``url``) the database backends'
    per request. ``reset_practice``: the practice balance reset every 100 rounds;
    ``drained`` waits for what the requests left the server to do (an operator's wins)
    before each reading."""
    table = client.post("/api/v1/tables", json={"rules": "high-card-flush"},
                        headers=headers).json()["id"]
    counter = {"sent": 0, "rounds": 0}

    def money(path: str, body: dict[str, object]) -> dict[str, object]:
        counter["sent"] += 1
        answer = client.post(path, json=body, headers={
            **headers, "Idempotency-Key": uuid.uuid4().hex})
        assert answer.status_code in (200, 201), answer.text
        view: dict[str, object] = answer.json()
        return view

    def play_round() -> None:
        counter["rounds"] += 1
        if reset_practice and counter["rounds"] % 100 == 0:
            client.post("/api/v1/me/practice/reset", headers={
                **headers, "Idempotency-Key": f"reset-{counter['rounds']}"})
        view = money(f"/api/v1/tables/{table}/rounds", {"wagers": {"ante": 1}})
        while view["phase"] != "complete":
            options = view["options"]
            assert isinstance(options, list)
            choice = options[-1] if counter["rounds"] % 2 else {"action": "fold"}
            view = money(f"/api/v1/rounds/{view['id']}/actions", choice)

    for _ in range(10):
        play_round()
    drained()
    wait_until_idle([pid])
    pg = backends(url) if url else []
    server, database = cpu_seconds([pid]), backend_cpu("", pg)
    counter["sent"] = 0
    while counter["sent"] < requests:
        play_round()
    served = counter["sent"]
    drained()
    return ((cpu_seconds([pid]) - server) / served,
            (backend_cpu("", pg) - database) / served)


def fresh_database(postgres: ThrowawayPostgres | None, kind: str, folder: Path, name: str
                   ) -> str:
    if postgres is not None and kind == "postgresql":
        return postgres.new_database()
    return f"sqlite:///{folder / f'{name}.sqlite3'}"


@contextmanager
def environment(changes: dict[str, str | None]) -> Iterator[None]:
    """``os.environ`` with ``changes`` (None: unset) within the block."""
    saved = {name: os.environ.get(name) for name in changes}
    try:
        for name, value in changes.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def wait_ready(base: str, seconds: float = 1800) -> float:
    """Wait until ``/healthz`` says the start-up warm-up is over; answers how long."""
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        answer = httpx.get(base + "/healthz", timeout=5)
        if answer.status_code == 200 and answer.json().get("ready", True):
            return time.monotonic() - start
        time.sleep(0.2)
    raise TimeoutError(f"the server was not ready in {seconds} s")


def run_feltlab(url: str, log: Path, home: Path, requests: int, postgres_url: str | None
                ) -> tuple[float, float, float]:
    """A ``feltlab serve`` process with ``home`` as its HOME and cache: (server CPU,
    database CPU) per request once it is ready, and the seconds it took to be ready."""
    # Numba's folder named outright (feltlab names it by a hash of its sources otherwise):
    # a source edited between the two processes (a working tree in use) must not make
    # the restarted one start on an empty folder; Numba checks each file's stamp itself
    cache = {"HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"),
             "NUMBA_CACHE_DIR": str(home / ".cache" / "numba")}
    live = LiveServer(url, log, workers=1)
    with environment(cache):
        live.start()
    try:
        assert live.process is not None
        ready = wait_ready(live.base)
        server, database = drive_feltlab(live.base, requests, live.process.pid, postgres_url)
    finally:
        live.stop()
    assert_books_balance(url)  # the books and feltlab ledger check's, after every run
    return server, database, ready


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=["sqlite", "postgresql", "both"],
                        default="both")
    parser.add_argument("--requests", type=int, default=600)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--floor", type=Path, default=DEFAULT_FLOOR)
    args = parser.parse_args()
    kinds = ["sqlite", "postgresql"] if args.database == "both" else [args.database]
    folder = Path(tempfile.mkdtemp(prefix="feltlab-floor-"))
    postgres = ThrowawayPostgres() if "postgresql" in kinds else None
    os.environ["FELTLAB_TOKEN_IDLE_MINUTES"] = "120"
    modes = ("fresh", "restarted")
    try:
        for kind in kinds:
            floor_ms: list[float] = []
            floor_db: list[float] = []
            ours_ms: dict[str, list[float]] = {mode: [] for mode in modes}
            ours_db: dict[str, list[float]] = {mode: [] for mode in modes}
            ready: dict[str, list[float]] = {mode: [] for mode in modes}
            for repeat in range(args.repeats):
                url = fresh_database(postgres, kind, folder, f"floor-{repeat}")
                with floor_server(args.floor, url, folder / "floor.log") as (base, pid):
                    server, database = drive_floor(base, args.requests, pid,
                                                   url if kind == "postgresql" else None)
                floor_ms.append(server * 1000)
                floor_db.append(database * 1000)
                home = folder / f"home-{kind}-{repeat}"  # empty: a new install
                home.mkdir()
                for mode in modes:  # the second process starts on the cache the first filled
                    url = fresh_database(postgres, kind, folder, f"feltlab-{mode}-{repeat}")
                    pg_url = url if kind == "postgresql" else None
                    server, database, seconds = run_feltlab(
                        url, folder / "feltlab.log", home, args.requests, pg_url)
                    ours_ms[mode].append(server * 1000)
                    ours_db[mode].append(database * 1000)
                    ready[mode].append(seconds)
                print(f"{kind} repeat {repeat + 1}: floor {floor_ms[-1]:.2f} ms, "
                      + ", ".join(f"{mode} {ours_ms[mode][-1]:.2f} ms (ready in "
                                  f"{ready[mode][-1]:.0f} s)" for mode in modes),
                      flush=True)
            floor = statistics.median(floor_ms)
            line = (f"{kind}: server CPU per money request, medians of {args.repeats} "
                    f"alternating runs of {args.requests} requests: floor {floor:.2f} ms "
                    f"(runs {', '.join(f'{value:.2f}' for value in floor_ms)})")
            for mode in modes:
                ours = statistics.median(ours_ms[mode])
                paired = [mine / theirs for mine, theirs
                          in zip(ours_ms[mode], floor_ms, strict=True)]
                line += (f"; feltlab {mode} {ours:.2f} ms = {ours / floor:.2f}x the floor "
                         f"(run by run, each beside the floor run just before it: "
                         f"{', '.join(f'{value:.2f}x' for value in paired)}, median "
                         f"{statistics.median(paired):.2f}x; ready after start-up in "
                         f"{statistics.median(ready[mode]):.0f} s)")
            if kind == "postgresql":
                line += (f"; database backends per request: floor "
                         f"{statistics.median(floor_db):.2f} ms, " + ", ".join(
                             f"feltlab {mode} {statistics.median(ours_db[mode]):.2f} ms"
                             for mode in modes))
            print(line, flush=True)
    finally:
        if postgres is not None:
            postgres.stop()


if __name__ == "__main__":
    main()
