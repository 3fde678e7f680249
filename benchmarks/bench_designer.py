"""Timings of the variant designer, measured from a client over the API.

Starts ``feltlab serve`` on an empty SQLite database (this user's Numba and derived-data
caches, as a second start finds them; ``--first-start`` empties both first), signs up,
and times, from the client:

* the first ``POST /api/v1/designer/par`` sent as soon as ``/healthz`` answers (target:
  under 3 s once the caches are built), and how long the server took to warm;
* pay-table edits of every rule set (each a pay never asked before: target under 100 ms);
* edits that change the optimal strategy (raise sizes, the 9 Card Flush All 9 thresholds,
  the Hold'em Stud pays and street bets up to 10 antes: target under 1 s); High Card
  Flush qualifiers no built-in rule set uses are timed apart (each is counted when first
  asked for, from counts every qualifier shares, kept in memory and on disk).

    .venv/bin/python benchmarks/bench_designer.py [--first-start] [--repeat N]

Every design is distinct, so no answer comes from a memo of an identical request. The
machine's load is printed first: on a shared machine the figures are noisy.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx

import feltlab.core.cache as derived
from feltlab.core import registry
from feltlab.core.cards import RANKS

Edit = Callable[[dict[str, Any]], None]


def to_toml(data: dict[str, Any]) -> str:
    def value(item: Any) -> str:
        if isinstance(item, bool):
            return "true" if item else "false"
        if isinstance(item, list):
            return "[" + ", ".join(value(each) for each in item) + "]"
        if isinstance(item, dict):
            return "{ " + ", ".join(f"{json.dumps(k)} = {value(v)}" for k, v in item.items()) + " }"
        return json.dumps(item)

    lines = [f"{k} = {value(v)}" for k, v in data.items() if not isinstance(v, dict)]
    for name, table in data.items():
        if isinstance(table, dict):
            lines += ["", f"[{name}]", *(f"{json.dumps(k)} = {value(v)}"
                                         for k, v in table.items())]
    return "\n".join(lines) + "\n"


def design(rules_id: str, edit: Edit) -> str:
    data = tomllib.loads(registry.builtin_text(rules_id))
    edit(data)
    return to_toml(data)


def setting(*path: str, to: Any) -> Edit:
    def edit(data: dict[str, Any]) -> None:
        target = data
        for part in path[:-1]:
            target = target[part]
        if to is None:
            target.pop(path[-1], None)
        else:
            target[path[-1]] = to
    return edit


FLUSH_FAMILY = ("high-card-flush", "high-card-flush-toledo", "nh-flush-poker")


def pay_edits(rules_id: str, count: int) -> list[str]:
    """``count`` distinct pays of a bonus line (the strategy stays the same)."""
    line = {"nine-card-flush": ("bonus9_pays", "9"), "nh-holdem-stud": ("bonus3_pays",
                                                                         "straight_flush")}
    field, key = line.get(rules_id, ("straight_flush_pays", "7"))
    start = tomllib.loads(registry.builtin_text(rules_id))[field][key]
    return [design(rules_id, setting(field, key, to=start + 1 + step)) for step in range(count)]


def strategy_edits(rules_id: str) -> list[tuple[str, str]]:
    """(what, design) pairs that change the optimal strategy, each one distinct."""
    if rules_id in FLUSH_FAMILY:
        base = tomllib.loads(registry.builtin_text(rules_id))["raise_multiples"]
        return [(f"raise_multiples.{length} = {most}",
                 design(rules_id, setting("raise_multiples", str(length), to=most)))
                for length, most in ((7, base["7"] + 1), (6, base["6"] + 1), (5, base["5"] + 1),
                                     (3, 0), (4, base["4"] + 1))]
    if rules_id == "nine-card-flush":
        return [("all9_win_at = 5", design(rules_id, setting("all9_win_at", to=5))),
                ("all9_win_at = 6", design(rules_id, setting("all9_win_at", to=6))),
                ("all9_push_at = 2", design(rules_id, setting("all9_push_at", to=2))),
                ("no all9_push_at", design(rules_id, setting("all9_push_at", to=None)))]
    return [("pays.flush = 7", design(rules_id, setting("pays", "flush", to=7))),
            ("pays.straight = 5", design(rules_id, setting("pays", "straight", to=5))),
            ("pays.two_pair = 3", design(rules_id, setting("pays", "two_pair", to=3))),
            *((f"max_street_multiple = {most}",
               design(rules_id, setting("max_street_multiple", to=most)))
              for most in (2, 4, 7, 10))]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def serving(env: dict[str, str]) -> Iterator[tuple[str, float]]:
    """``feltlab serve`` on a new database; yields its address and when it was started."""
    folder = tempfile.mkdtemp(prefix="bench-designer-")
    port = free_port()
    log = Path(folder) / "server.log"
    started = time.perf_counter()
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "feltlab", "serve", "--port", str(port), "--database",
             f"sqlite:///{folder}/bench.sqlite3"], env=env, stdout=out,
            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        yield f"http://127.0.0.1:{port}", started
    finally:
        process.terminate()
        process.wait(timeout=30)


def wait_up(client: httpx.Client, started: float) -> float:
    while True:
        with contextlib.suppress(httpx.TransportError):
            if client.get("/healthz").status_code == 200:
                return time.perf_counter() - started
        time.sleep(0.05)


def timed_par(client: httpx.Client, text: str) -> float:
    start = time.perf_counter()
    answer = client.post("/api/v1/designer/par", json={"rules": text})
    seconds = time.perf_counter() - start
    if answer.status_code != 200:
        raise RuntimeError(f"{answer.status_code}: {answer.text[:300]}")
    return seconds


def describe(times: list[float]) -> str:
    return (f"median {1000 * statistics.median(times):.0f} ms, "
            f"max {1000 * max(times):.0f} ms over {len(times)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first-start", action="store_true",
                        help="empty Numba's and the derived-data caches first")
    parser.add_argument("--repeat", type=int, default=10, help="pay-table edits per rule set")
    options = parser.parse_args()
    env = dict(os.environ)
    if options.first_start:
        empty = tempfile.mkdtemp(prefix="bench-designer-cold-")
        env |= {"NUMBA_CACHE_DIR": f"{empty}/numba", "XDG_CACHE_HOME": f"{empty}/cache"}
    env |= {"FELTLAB_ARGON2_MEMORY_KIB": "1024", "FELTLAB_ARGON2_TIME_COST": "1"}
    forget_qualifiers()
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}; "
          f"{'first start (empty caches)' if options.first_start else 'caches as they are'}")
    with serving(env) as (base, started), httpx.Client(base_url=base, timeout=300) as client:
        up = wait_up(client, started)
        body = {"username": f"bench{int(time.time())}", "password": "correct horse"}
        client.post("/api/v1/accounts", json=body).raise_for_status()
        token = client.post("/api/v1/login", json=body).json()["token"]
        client.cookies.clear()
        client.headers["Authorization"] = f"Bearer {token}"
        first = timed_par(client, design("high-card-flush", setting("flush_pays", "5", to=11)))
        print(f"server answering /healthz after {up:.2f} s; first designer request "
              f"(sent then) answered in {first:.2f} s (target < 3 s)")
        while not (status := client.get("/api/v1/designer/status").json())["warm"]:
            time.sleep(0.2)
        print(f"server warm after {time.perf_counter() - started:.2f} s from start "
              f"(warming took {status['seconds']:.2f} s)")
        for rules_id in registry.builtin_ids():
            timed_par(client, design(rules_id, lambda data: None))
            pays = [timed_par(client, text) for text in pay_edits(rules_id, options.repeat)]
            changes = [(what, timed_par(client, text)) for what, text in strategy_edits(rules_id)]
            print(f"{rules_id}: pay-table edits {describe(pays)} (target < 100 ms); "
                  f"strategy-changing edits {describe([s for _, s in changes])} "
                  f"(target < 1 s): " + ", ".join(f"{what} {1000 * s:.0f} ms"
                                                   for what, s in changes))
        for length, high in QUALIFIERS:
            qualifier = design("high-card-flush", qualifier_edit(length, high))
            seconds = timed_par(client, qualifier)
            again = timed_par(client, design("high-card-flush-toledo",
                                             qualifier_edit(length, high)))
            print(f"high-card-flush qualifier {length}-card {high} high: {1000 * seconds:.0f} ms "
                  f"(its first count in this server); the same qualifier for another rule "
                  f"set: {1000 * again:.0f} ms")


QUALIFIERS = ((3, "7"), (3, "J"), (2, "K"), (4, "5"))
"""Qualifiers no built-in rule set uses: each is counted when it is first asked for."""


def forget_qualifiers() -> None:
    """Drop the benchmark's qualifiers' cells from the derived-data cache (this user's, the
    server's too), so that each run times their first count; what every qualifier shares
    stays, as a second start finds it."""
    for length, high in QUALIFIERS:
        threshold = (length << 13) | (1 << RANKS.index(high))
        derived.entry_path("flush-cells", f"qualifier {threshold}").unlink(missing_ok=True)


def qualifier_edit(length: int, high: str) -> Edit:
    def edit(data: dict[str, Any]) -> None:
        data["qualifier"] = {"min_length": length, "min_high_card": high}
    return edit

if __name__ == "__main__":
    main()
