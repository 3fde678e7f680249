"""``feltlab advise`` as a whole process, and the variant designer's pay-table edits (issue 35).

1. ``feltlab advise RULES HAND`` for every built-in rule set, caches warm (one run each
   first), against the yardstick: a Python process that imports Typer, Rich and pydantic.
   Advice and yardstick runs alternate, so that both see the same load; printed are the
   medians and the median of the pairwise ratios (target: at most 4).
2. Every pay-table line of every wager of every built-in rule set raised by one, each
   edit timed through the designer's service (:func:`feltlab.server.services.designer.
   par_sheet`) in this process, warmed first as the server's warm-up warms it. Target:
   under 100 ms for an edit that leaves the optimal strategy unchanged (every side bet's,
   and a main pay that moves no decision); an edit of the main game's pays that moves the
   strategy has 1 s. Printed per edit: whether the optimal decisions moved (the strategy
   map's shares differ). Before them, one side-bet edit of three rule sets as a fresh
   process's first design (a new worker, a designer process of its own).
3. With ``--trainer``: ``feltlab serve`` started (caches as they are), and the trainer's
   first advice of each rule set sent as soon as ``/healthz`` answers, while the start-up
   warm-up runs.

    .venv/bin/python benchmarks/bench_advise_and_edits.py [--runs 7] [--skip-edits] [--trainer]

The machine's load average is printed first: on a shared machine the figures are noisy.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import tomllib
from collections.abc import Sequence

from bench_designer import to_toml  # the benchmarks' folder is the script's own

FELTLAB = [sys.executable, "-m", "feltlab"]
YARDSTICK = [sys.executable, "-c", "import typer, rich, pydantic"]
HANDS = {
    "high-card-flush": ["Ah Kh Qh Jh 9h 2s 3d"],
    "high-card-flush-toledo": ["Th 8h 6h Js Ad Qd Jc"],
    "nh-flush-poker": ["Ah Kh Qh Js 9h 2s 3d"],
    "nine-card-flush": ["Ah Kd 2c", "--colour", "black"],
    "nh-holdem-stud": ["Ah Kh", "--community", "Qh", "--bets", "3"],
}
TARGET_RATIO = 4.0
EDIT_TARGET_MS = 100.0


def seconds(command: Sequence[str]) -> float:
    start = time.perf_counter()
    subprocess.run(list(command), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True)
    return time.perf_counter() - start


def advise_figures(runs: int) -> None:
    print(f"feltlab advise, whole process, caches warm; median of {runs} runs alternating "
          "with the yardstick (python -c 'import typer, rich, pydantic'):")
    for rules_id, hand in HANDS.items():
        command = [*FELTLAB, "advise", rules_id, *hand]
        seconds(command)  # fills the caches if they are empty
        pairs = [(seconds(command), seconds(YARDSTICK)) for _ in range(runs)]
        advise = statistics.median(pair[0] for pair in pairs)
        yardstick = statistics.median(pair[1] for pair in pairs)
        ratio = statistics.median(pair[0] / pair[1] for pair in pairs)
        verdict = "met" if ratio <= TARGET_RATIO else "NOT met"
        print(f"  {rules_id:24s} {advise:5.2f} s; yardstick {yardstick:5.2f} s; ratio "
              f"{ratio:4.1f} (target <= {TARGET_RATIO:g}: {verdict})")


def edit_figures() -> None:
    from feltlab.core.registry import builtin_ids, builtin_text
    from feltlab.core.rules import load_rules, parse_rules
    from feltlab.server.auth import Caller
    from feltlab.server.services import designer

    caller = Caller(user_id=1, username="bench", role="player", token_id=1)
    start = time.perf_counter()
    designer.warm_designer()
    print(f"designer pay-table edits through the service, this process warmed in "
          f"{time.perf_counter() - start:.1f} s (target < {EDIT_TARGET_MS:g} ms when the "
          "strategy stays):")
    for rules_id in builtin_ids():
        rules = load_rules(rules_id)
        base = designer.par_sheet(caller, builtin_text(rules_id))["strategy_map"]
        for wager, field in rules.pay_table_fields().items():
            data = tomllib.loads(builtin_text(rules_id))
            times, moved = [], []
            for line, pay in data[field].items():
                if not isinstance(pay, int):
                    continue
                edited = tomllib.loads(builtin_text(rules_id))
                edited[field][line] = pay + 1
                text = to_toml(edited)
                parse_rules(text, "bench")
                began = time.perf_counter()
                sheet = designer.par_sheet(caller, text)
                times.append(1000 * (time.perf_counter() - began))
                if sheet["strategy_map"] != base:
                    moved.append(f"{line} ({times[-1]:.0f} ms)")
            side = "main game" if wager == rules.main_wager else "side bet"
            print(f"  {rules_id:24s} {wager:15s} ({side}): {len(times)} edits, median "
                  f"{statistics.median(times):4.0f} ms, max {max(times):4.0f} ms"
                  + (f"; strategy moved by {', '.join(moved)}" if moved else ""))


FRESH_EDIT = """
import sys, time
from feltlab.server.auth import Caller
from feltlab.server.services import designer
text = sys.stdin.read()
caller = Caller(user_id=1, username="bench", role="player", token_id=1)
began = time.perf_counter()
designer.par_sheet(caller, text)
print(time.perf_counter() - began)
"""
FRESH_EDITS = {"nh-holdem-stud": ("bonus3_pays", "pair"),
               "nine-card-flush": ("player6_pays", "4"),
               "high-card-flush": ("flush_pays", "5")}


def fresh_edit_figures() -> None:
    """A side bet's edit as a process's first design (a new worker, a designer process of
    its own): the issue's two slow edits, and one of High Card Flush."""
    from feltlab.core.registry import builtin_text

    print("a side-bet edit as a fresh process's first design (imports not counted):")
    for rules_id, (field, line) in FRESH_EDITS.items():
        data = tomllib.loads(builtin_text(rules_id))
        data[field][line] += 1
        done = subprocess.run([sys.executable, "-c", FRESH_EDIT], input=to_toml(data),
                              capture_output=True, text=True, check=True)
        print(f"  {rules_id:24s} {field}.{line} -> {data[field][line]}: "
              f"{1000 * float(done.stdout.split()[-1]):6.0f} ms")


def trainer_figures() -> None:
    import httpx
    from bench_designer import serving, wait_up

    env = dict(os.environ) | {"FELTLAB_ARGON2_MEMORY_KIB": "1024",
                              "FELTLAB_ARGON2_TIME_COST": "1"}
    with serving(env) as (base, started), httpx.Client(base_url=base, timeout=300) as client:
        up = wait_up(client, started)
        body = {"username": f"bench{int(time.time())}", "password": "correct horse"}
        client.post("/api/v1/accounts", json=body).raise_for_status()
        token = client.post("/api/v1/login", json=body).json()["token"]
        client.cookies.clear()
        client.headers["Authorization"] = f"Bearer {token}"
        print(f"the trainer's first advice after feltlab serve starts (/healthz answering "
              f"after {up:.1f} s, the warm-up running):")
        for rules_id, hand in HANDS.items():
            request = {"rules": rules_id, "player": "" if rules_id == "nine-card-flush"
                       else hand[0], "community": hand[0] if rules_id == "nine-card-flush"
                       else (hand[2] if len(hand) > 2 else ""),
                       "colour": "black" if rules_id == "nine-card-flush" else None,
                       "bets": [3] if rules_id == "nh-holdem-stud" else []}
            began = time.perf_counter()
            answer = client.post("/api/v1/advice", json=request)
            answer.raise_for_status()
            print(f"  {rules_id:24s} {1000 * (time.perf_counter() - began):6.0f} ms "
                  f"({time.perf_counter() - started:.1f} s after the start)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--skip-edits", action="store_true")
    parser.add_argument("--skip-advise", action="store_true")
    parser.add_argument("--trainer", action="store_true")
    options = parser.parse_args()
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.1f} at the start (a shared machine: noisy figures)")
    if not options.skip_advise:
        advise_figures(options.runs)
    if not options.skip_edits:
        fresh_edit_figures()
        edit_figures()
    if options.trainer:
        trainer_figures()
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
