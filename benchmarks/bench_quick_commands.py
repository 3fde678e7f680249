"""The quick commands beside a yardstick: how long ``feltlab --help``, ``--version``,
``rules``, ``rules ID``, ``payout`` and ``verify`` take as whole processes, against a
Python process importing typer, rich and pydantic (issue 35: within 1.5 times of it).

Every command and the yardstick run in turn, round after round, so that a busy machine
slows them alike; the median of ``--runs`` rounds is printed, wall time and the process's
own CPU time (user + system, ``wait4``), each with its ratio to the yardstick's. A second
yardstick imports what the commands use of those packages (Rich's console, pydantic's
``BaseModel``), and a third is the least a Typer command can be: one argument, printed
in a Rich table (Typer 0.29 checks each argument with pydantic). A fourth runs no command
line at all: it loads a built-in rule set, which ``rules``, ``payout`` and ``verify``
all do (the game families found by entry point, the rule-set models, no pydantic).
``verify`` checks a round played once at a practice table on SQLite in a temporary folder.

The commands run the sources beside this script, compiled to bytecode first as
installing the package does (with ``PYTHONDONTWRITEBYTECODE`` set, Python would otherwise
compile feltlab's modules afresh in every process, while the yardstick's packages have
theirs).

    python benchmarks/bench_quick_commands.py [--runs 21]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCES = HERE.parent / "src"
sys.path[:0] = [str(SOURCES), str(HERE.parent / "tests")]

YARDSTICK = "import typer, rich, pydantic"
IN_USE = "import typer, rich.console, pydantic; from pydantic import BaseModel"
FLOOR = """import typer
from rich.console import Console
from rich.table import Table
def main(name: str) -> None:
    table = Table(name)
    table.add_row(name)
    Console().print(table)
typer.run(main)
"""
RULE_SET = "from feltlab.core.rules import load_rules; load_rules('high-card-flush')"
HAND = {"rules": "high-card-flush", "wagers": {"ante": 5}, "player": "Ah Kh Qh 9s 7d 5c 2c",
        "dealer": "Ad Kd Qd Js 8h 6c 3c", "raise": 5}
PAYOUT = ["payout", "--rules", "high-card-flush", "--wagers", "ante=5", "--player",
          "Ah Kh Qh 9s 7d 5c 2c", "--dealer", "Ad Kd Qd Js 8h 6c 3c", "--raise", "5"]


def played_round(folder: Path) -> Path:
    """A complete practice round of High Card Flush as ``GET /api/v1/rounds/ID`` answers,
    written to a file in ``folder``."""
    from fastapi.testclient import TestClient

    from feltlab.app import create_app
    from server.conftest import play_round, practice_table, settings_for, sign_up

    app = create_app(settings_for(f"sqlite:///{folder / 'server.sqlite3'}"), timers=False)
    with TestClient(app) as client:
        headers = sign_up(client)
        table = practice_table(client, headers, "high-card-flush")
        view = play_round(client, headers, table, {"wagers": {"ante": 5}})
    app.state.services.engine.dispose()
    path = folder / "round.json"
    path.write_text(json.dumps(view), "utf-8")
    return path


def run_once(command: Sequence[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``command`` (which must succeed); a last word
    ``<PATH`` is its standard input."""
    words, source = list(command), os.devnull
    if words[-1].startswith("<"):
        source = words.pop()[1:]
    start = time.perf_counter()
    with open(source, "rb") as stdin:
        process = subprocess.Popen(words, stdout=subprocess.DEVNULL, env=env,
                                   stderr=subprocess.DEVNULL, stdin=stdin)
        _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{' '.join(command)} failed")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=21)
    runs = parser.parse_args().runs
    feltlab = [sys.executable, "-m", "feltlab"]
    compileall.compile_dir(SOURCES / "feltlab", quiet=1)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(SOURCES), os.environ.get("PYTHONPATH")]))}
    with tempfile.TemporaryDirectory() as folder:
        round_file = played_round(Path(folder))
        hand_file = Path(folder) / "hand.json"
        hand_file.write_text(json.dumps(HAND), "utf-8")
        commands = {
            "yardstick: " + YARDSTICK: [sys.executable, "-c", YARDSTICK],
            "in use: " + IN_USE: [sys.executable, "-c", IN_USE],
            "a one-argument Typer command (Rich table)": [sys.executable, "-c", FLOOR, "x"],
            "no command line: a built-in rule set loaded": [sys.executable, "-c", RULE_SET],
            "feltlab --help": [*feltlab, "--help"],
            "feltlab --version": [*feltlab, "--version"],
            "feltlab rules": [*feltlab, "rules"],
            "feltlab rules high-card-flush": [*feltlab, "rules", "high-card-flush"],
            "feltlab payout --rules high-card-flush ...": [*feltlab, *PAYOUT],
            "feltlab payout < HAND.json": [*feltlab, "payout", f"<{hand_file}"],
            "feltlab verify ROUND.json": [*feltlab, "verify", str(round_file)],
        }
        for command in commands.values():  # warm-up: the files in the page cache
            run_once(command, env)
        walls: dict[str, list[float]] = {name: [] for name in commands}
        cpus: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(runs):
            for name, command in commands.items():
                wall, cpu = run_once(command, env)
                walls[name].append(wall)
                cpus[name].append(cpu)
    yard_wall, yard_cpu = (statistics.median(found[next(iter(commands))])
                           for found in (walls, cpus))
    print(f"median of {runs} rounds, {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print(f"{'command':48} {'wall s':>7} {'ratio':>6} {'cpu s':>7} {'ratio':>6}")
    for name in commands:
        wall, cpu = statistics.median(walls[name]), statistics.median(cpus[name])
        print(f"{name[:48]:48} {wall:7.3f} {wall / yard_wall:6.2f} {cpu:7.3f} "
              f"{cpu / yard_cpu:6.2f}")


if __name__ == "__main__":
    main()
