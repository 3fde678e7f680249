"""Server CPU per operator money request, feltlab beside the stack's floor.

The same measure as ``bench_money_floor.py`` (which see: the floor is
``../shared/bench/server_floor.py`` run as ``feltlab serve`` runs, each server alone under
uvicorn on a fresh database, driven by one sequential client, medians of alternating
runs, fresh and restarted feltlab processes), for an operator's player: a real-money
session launched signed, its High Card Flush table's bets and decisions (a raise every
other round, a fold the others), every stake debited by the operator's wallet between
feltlab's two transactions and every round's win sent by the outbox's worker. The wallet
is the reference wallet (``examples/operator_wallet``) in its own process, answering at
once; its CPU is not counted, feltlab's worker's calls to it are.

    python benchmarks/bench_operator_money.py [--database sqlite|postgresql|both]
        [--requests 400] [--repeats 3] [--floor ../shared/bench/server_floor.py]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx
import orjson
from sqlalchemy import Engine

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "src"), str(HERE.parent / "tests"),
                str(HERE.parent)]

from bench_money_floor import (  # noqa: E402
    DEFAULT_FLOOR,
    drive_rounds,
    environment,
    floor_server,
    fresh_database,
    wait_ready,
)
from bench_money_floor import drive_floor as floor_run  # noqa: E402

from feltlab.server.migrate import upgrade  # noqa: E402
from feltlab.server.services.database import make_engine, normalise_url  # noqa: E402
from feltlab.server.signatures import HEADER, sign  # noqa: E402
from server.live_server import LiveServer  # noqa: E402
from server.operators_helpers import register, wallet_calls  # noqa: E402
from server.pg import ThrowawayPostgres  # noqa: E402
from server.wallet_process import SECRET, WalletProcess  # noqa: E402


def drive_operator(base: str, requests: int, pid: int, url: str) -> tuple[float, float]:
    """(server CPU, database CPU) per money request of an operator's player, the
    outbox's wins included (sent before each reading)."""
    engine = make_engine(normalise_url(url))
    try:
        with httpx.Client(base_url=base, timeout=60) as client:
            body = orjson.dumps({"operator": "casino",
                                 "player": f"bench-{uuid.uuid4().hex[:8]}", "currency": "EUR",
                                 "rules": "high-card-flush", "mode": "real"})
            launched = client.post("/api/v1/operator/sessions", content=body, headers={
                "content-type": "application/json", HEADER: sign(SECRET, body)})
            assert launched.status_code == 201, launched.text
            headers = {"Authorization": f"Bearer {launched.json()['session']}"}
            return drive_rounds(client, headers, requests, pid,
                                url if url.startswith("postgresql") else None,
                                drained=lambda: settled(engine))
    finally:
        engine.dispose()


def settled(engine: Engine, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while any(call.state == "pending" for call in wallet_calls(engine)):
        assert time.monotonic() < deadline, "the outbox did not drain"
        time.sleep(0.05)


def run_feltlab(url: str, log: Path, home: Path, requests: int, wallet: WalletProcess
                ) -> tuple[float, float]:
    engine = make_engine(normalise_url(url))
    upgrade(engine)
    register(engine, wallet.url, timeout=3.0)
    engine.dispose()
    cache = {"HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"),
             "NUMBA_CACHE_DIR": str(home / ".cache" / "numba")}
    live = LiveServer(url, log, workers=1)
    with environment(cache):
        live.start()
    try:
        assert live.process is not None
        wait_ready(live.base)
        return drive_operator(live.base, requests, live.process.pid, url)
    finally:
        live.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=["sqlite", "postgresql", "both"],
                        default="both")
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--floor", type=Path, default=DEFAULT_FLOOR)
    args = parser.parse_args()
    kinds = ["sqlite", "postgresql"] if args.database == "both" else [args.database]
    folder = Path(tempfile.mkdtemp(prefix="feltlab-operator-"))
    postgres = ThrowawayPostgres() if "postgresql" in kinds else None
    os.environ["FELTLAB_TOKEN_IDLE_MINUTES"] = "120"
    (folder / "wallet").mkdir()
    wallet = WalletProcess(folder / "wallet")
    modes = ("fresh", "restarted")
    try:
        for kind in kinds:
            floor_ms: list[float] = []
            ours: dict[str, list[float]] = {mode: [] for mode in modes}
            database_ms: dict[str, list[float]] = {mode: [] for mode in modes}
            for repeat in range(args.repeats):
                url = fresh_database(postgres, kind, folder, f"floor-{repeat}")
                with floor_server(args.floor, url, folder / "floor.log") as (base, pid):
                    server, _ = floor_run(base, args.requests, pid,
                                          url if kind == "postgresql" else None)
                floor_ms.append(server * 1000)
                home = folder / f"home-{kind}-{repeat}"
                home.mkdir()
                for mode in modes:
                    url = fresh_database(postgres, kind, folder, f"feltlab-{mode}-{repeat}")
                    server, database = run_feltlab(url, folder / "feltlab.log", home,
                                                   args.requests, wallet)
                    ours[mode].append(server * 1000)
                    database_ms[mode].append(database * 1000)
                print(f"{kind} repeat {repeat + 1}: floor {floor_ms[-1]:.2f} ms, "
                      + ", ".join(f"{mode} {ours[mode][-1]:.2f} ms" for mode in modes),
                      flush=True)
            floor = statistics.median(floor_ms)
            line = (f"{kind}: server CPU per operator money request, medians of "
                    f"{args.repeats} alternating runs of {args.requests} requests: floor "
                    f"{floor:.2f} ms")
            for mode in modes:
                paired = [mine / theirs for mine, theirs
                          in zip(ours[mode], floor_ms, strict=True)]
                line += (f"; feltlab {mode} {statistics.median(ours[mode]):.2f} ms = "
                         f"{statistics.median(ours[mode]) / floor:.2f}x (run by run "
                         f"{', '.join(f'{value:.2f}x' for value in paired)})")
            if kind == "postgresql":
                line += "; database backends per request: " + ", ".join(
                    f"{mode} {statistics.median(database_ms[mode]):.2f} ms" for mode in modes)
            print(line, flush=True)
    finally:
        wallet.stop()
        if postgres is not None:
            postgres.stop()


if __name__ == "__main__":
    main()
