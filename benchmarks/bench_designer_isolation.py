"""Whether the designer can starve the server: latency of the other routes while designs
run (issue 35, item 2).

Starts ``feltlab serve`` (one worker, SQLite; the designer's limit at its default, one
design at a time in the deployment) with the designer's time budget raised
(``FELTLAB_DESIGNER_BUDGET_SECONDS``, default here 600 s) so that the issue's design runs
to its end: ``POST /api/v1/designer/protection`` for ``nh-holdem-stud`` with 6 colluders
and 20,000 deals (about a minute of computing). Once the server is warm (``/healthz``
ready, ``/api/v1/designer/status`` warm) a measuring client times ``GET /api/v1/me`` and
money requests (bets and decisions at a High Card Flush practice table), one request every
``--gap`` seconds, first with the server idle, then while the protection design runs and
45 other accounts loop ``POST /api/v1/designer/par`` (each waiting out the Retry-After of
a 429, as the designer page does). Prints the medians and 90th percentiles idle and busy,
what the 45 accounts were answered, and how long the protection design took; one still
running ``--wait`` seconds after it was sent is given up by its client (the server stops
it), as at its lowest priority it computes slowly on a machine busy with other work.

    .venv/bin/python benchmarks/bench_designer_isolation.py [--accounts 45] [--deals 20000]
        [--samples 60] [--gap 0.2] [--budget 600] [--wait 300]

Run on a shared machine, the figures are noisy: the load average is printed first.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "src"), str(HERE.parent / "tests")]

from bench_money_floor import environment, wait_ready  # noqa: E402

from server.designs import design  # noqa: E402
from server.live_server import LiveServer  # noqa: E402

PASSWORD = "isolation-pass1"


def signed_in(base: str, name: str) -> httpx.Client:
    client = httpx.Client(base_url=base, timeout=900)
    client.post("/api/v1/accounts", json={"username": name, "password": PASSWORD})
    token = client.post("/api/v1/login", json={"username": name, "password": PASSWORD})
    token.raise_for_status()
    client.cookies.clear()
    client.headers["Authorization"] = f"Bearer {token.json()['token']}"
    return client


def timed(call: Callable[[], httpx.Response]) -> tuple[float, httpx.Response]:
    start = time.perf_counter()
    answer = call()
    return (time.perf_counter() - start) * 1000, answer


class Measurer:
    """One player's client: ``GET /api/v1/me`` and a money request in turn, timed."""

    def __init__(self, client: httpx.Client) -> None:
        self.client = client
        self.table = client.post("/api/v1/tables", json={"rules": "high-card-flush"}
                                 ).json()["id"]
        self.round: dict[str, object] | None = None
        self.rounds = 0

    def me(self) -> float:
        millis, answer = timed(lambda: self.client.get("/api/v1/me"))
        assert answer.status_code == 200, answer.text
        return millis

    def money(self) -> float:
        """A bet, or the decision of the round it opened (a raise or a fold)."""
        key = {"Idempotency-Key": uuid.uuid4().hex}
        if self.round is None or self.round["phase"] == "complete":
            self.rounds += 1
            if self.rounds % 100 == 0:
                self.client.post("/api/v1/me/practice/reset", headers=key)
                key = {"Idempotency-Key": uuid.uuid4().hex}
            millis, answer = timed(lambda: self.client.post(
                f"/api/v1/tables/{self.table}/rounds", json={"wagers": {"ante": 1}},
                headers=key))
        else:
            options = self.round["options"]
            assert isinstance(options, list)
            choice = options[-1] if self.rounds % 2 else {"action": "fold"}
            millis, answer = timed(lambda: self.client.post(
                f"/api/v1/rounds/{self.round['id']}/actions",  # type: ignore[index]
                json=choice, headers=key))
        assert answer.status_code in (200, 201), answer.text
        self.round = answer.json()
        return millis

    def sample(self, count: int, gap: float, until: Callable[[], bool] = lambda: False
               ) -> tuple[list[float], list[float]]:
        me: list[float] = []
        money: list[float] = []
        while len(me) < count and not until():
            me.append(self.me())
            time.sleep(gap)
            money.append(self.money())
            time.sleep(gap)
        return me, money


def describe(millis: list[float]) -> str:
    if not millis:  # the design ended (or was refused) before the first sample
        return "no sample"
    ordered = sorted(millis)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return f"median {statistics.median(ordered):.1f} ms, p90 {p90:.1f} ms ({len(ordered)})"


def pay_edit(step: int) -> str:
    """A High Card Flush design with a Straight Flush pay never asked before."""
    def edit(data: dict[str, object]) -> None:
        pays = data["straight_flush_pays"]
        assert isinstance(pays, dict)
        pays["7"] = int(pays["7"]) + 1 + step
    return design("high-card-flush", edit)


def hammer(client: httpx.Client, number: int, stop: threading.Event,
           answers: Counter[int]) -> None:
    """Loop ``POST /api/v1/designer/par`` until ``stop``, waiting out a 429's Retry-After."""
    step = 0
    while not stop.is_set():
        step += 1
        answer = client.post("/api/v1/designer/par",
                             json={"rules": pay_edit(number * 10_000 + step)})
        answers[answer.status_code] += 1
        if answer.status_code == 429:
            stop.wait(float(answer.headers.get("Retry-After", "1")))


def hammering(base: str, accounts: int, go: Any, stop: Any, told: Any) -> None:
    """The designers' process (apart from the measuring client, so that their threads do
    not slow its timings): ``accounts`` accounts, signed in, loop designs from ``go`` until
    ``stop``; their answers' counts by status are put on ``told``."""
    clients = [signed_in(base, f"designer{number}") for number in range(accounts)]
    told.put({})
    go.wait()
    stopping, answers = threading.Event(), Counter[int]()
    threads = [threading.Thread(target=hammer, args=(client, number, stopping, answers))
               for number, client in enumerate(clients)]
    for thread in threads:
        thread.start()
    stop.wait()
    stopping.set()
    for thread in threads:
        thread.join()
    told.put(dict(answers))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--accounts", type=int, default=45)
    parser.add_argument("--deals", type=int, default=20_000)
    parser.add_argument("--colluders", type=int, default=6)
    parser.add_argument("--samples", type=int, default=60)
    parser.add_argument("--gap", type=float, default=0.2)
    parser.add_argument("--budget", type=float, default=600.0)
    parser.add_argument("--wait", type=float, default=300.0)
    options = parser.parse_args()
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}", flush=True)
    folder = Path(tempfile.mkdtemp(prefix="bench-designer-isolation-"))
    live = LiveServer(f"sqlite:///{folder / 'server.sqlite3'}", folder / "server.log")
    with environment({"FELTLAB_DESIGNER_BUDGET_SECONDS": str(options.budget),
                      "FELTLAB_TOKEN_IDLE_MINUTES": "120"}):
        live.start()
    clients: list[httpx.Client] = []
    try:
        ready = wait_ready(live.base)
        player = signed_in(live.base, "measurer")
        clients.append(player)
        while not player.get("/api/v1/designer/status").json()["warm"]:
            time.sleep(0.5)
        print(f"ready in {ready:.0f} s; designer warm", flush=True)
        measurer = Measurer(player)
        measurer.sample(10, options.gap)  # a few rounds first: the table's caches
        idle_me, idle_money = measurer.sample(options.samples, options.gap)
        print(f"idle: GET /api/v1/me {describe(idle_me)}; money {describe(idle_money)}",
              flush=True)

        processes = multiprocessing.get_context("spawn")
        go, stop, told = processes.Event(), processes.Event(), processes.Queue()
        designers = processes.Process(target=hammering,
                                      args=(live.base, options.accounts, go, stop, told))
        designers.start()
        told.get(timeout=600)  # every account signed in
        protector = signed_in(live.base, "protector")
        clients.append(protector)
        result: dict[str, object] = {}

        def protect() -> None:
            body = {"rules": design("nh-holdem-stud", lambda data: None),
                    "colluders": options.colluders, "deals": options.deals}
            start = time.perf_counter()
            try:
                result["answer"] = protector.post(
                    "/api/v1/designer/protection", json=body,
                    timeout=httpx.Timeout(30, read=options.wait))
            except httpx.ReadTimeout:  # the connection is closed: the server stops it
                result["answer"] = None
            result["millis"] = (time.perf_counter() - start) * 1000

        protecting = threading.Thread(target=protect)
        protecting.start()
        time.sleep(1.0)  # the protection design holds the deployment's slot first
        go.set()
        busy_me, busy_money = measurer.sample(options.samples, options.gap,
                                              until=lambda: not protecting.is_alive())
        print(f"busy: GET /api/v1/me {describe(busy_me)}; money {describe(busy_money)}",
              flush=True)
        stop.set()
        answers = told.get(timeout=120)
        designers.join(30)
        protecting.join()
        answer, seconds = result["answer"], float(result["millis"]) / 1000  # type: ignore[arg-type]
        said = ("still running: its client left" if not isinstance(answer, httpx.Response)
                else f"{answer.status_code}" + ("" if answer.status_code == 200
                                               else f" {answer.text[:300]}"))
        print(f"protection design ({options.colluders} colluders, {options.deals} deals): "
              f"{said} after {seconds:.1f} s; {options.accounts} accounts' /designer/par "
              f"answers by status: {dict(sorted(answers.items()))}", flush=True)
    finally:
        for client in clients:
            client.close()
        live.stop()


if __name__ == "__main__":
    main()
