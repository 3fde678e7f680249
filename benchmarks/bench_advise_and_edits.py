"""``feltlab advise`` as a whole process, and the variant designer's pay-table edits (issue 35).

1. ``feltlab advise RULES HAND`` for every built-in rule set, caches warm (one run each
   first), against the yardstick: a Python process that imports Typer, Rich and pydantic.
   Advice and yardstick runs alternate, so that both see the same load; printed are the
   medians and the median of the pairwise ratios (target: at most 4).
2. Every pay-table line of every wager of every built-in rule set raised by one (or by
   each of ``--raises``), each edit timed through the designer's service
   (:meth:`feltlab.server.services.designer.ParSheet.compute`, what a process of the
   designer's pool runs) in this process, warmed first as the server's warm-up warms it,
   each as an edit never made before (the derived-data cache is not read meanwhile).
   Target: under 100 ms for an edit that leaves the optimal strategy unchanged (every
   side bet's, and a main pay that moves no decision); an edit of the main game's pays
   that moves the strategy has 1 s. Printed per wager: the edits that keep the strategy
   (median and max, wall and CPU), and those that move it (the strategy map's shares
   differ). Before them, one side-bet edit of three rule sets as a fresh process's first
   design (a new worker, a designer process of its own).
3. With ``--trainer``: ``feltlab serve`` started (caches as they are), and the trainer's
   first advice of each rule set sent as soon as ``/healthz`` answers, while the start-up
   warm-up runs.

    .venv/bin/python benchmarks/bench_advise_and_edits.py [--runs 7] [--skip-advise]
        [--skip-edits] [--raises 1,2,3] [--trainer]

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


def edit_figures(raises: Sequence[int]) -> None:
    from feltlab.core import cache
    from feltlab.core.registry import builtin_ids, builtin_text
    from feltlab.core.rules import load_rules, parse_rules
    from feltlab.server.services import designer

    start = time.perf_counter()
    designer.warm_designer()
    print(f"designer pay-table edits through the service, this process warmed in "
          f"{time.perf_counter() - start:.1f} s (target < {EDIT_TARGET_MS:g} ms when the "
          "strategy stays); wall ms, CPU ms in brackets:")
    # Each edit as one never made before: the derived-data cache is not read while the
    # edits are timed (what an earlier run kept there would answer an edit from disk).
    cache.load = lambda kind, key, notice=None: None
    for rules_id in builtin_ids():
        rules = load_rules(rules_id)
        base = designer.ParSheet(builtin_text(rules_id)).compute()["strategy_map"]
        for wager, field in rules.pay_table_fields().items():
            data = tomllib.loads(builtin_text(rules_id))
            kept: list[tuple[float, float]] = []
            moved: list[str] = []
            for line, pay in data[field].items():
                if not isinstance(pay, int):
                    continue
                for raise_by in raises:
                    edited = tomllib.loads(builtin_text(rules_id))
                    edited[field][line] = pay + raise_by
                    text = to_toml(edited)
                    try:
                        parse_rules(text, "bench")
                    except ValueError:
                        continue  # a better hand paid less: not a design
                    began, cpu = time.perf_counter(), time.process_time()
                    sheet = designer.ParSheet(text).compute()
                    spent = (1000 * (time.perf_counter() - began),
                             1000 * (time.process_time() - cpu))
                    if sheet["strategy_map"] != base:
                        moved.append(f"{line} +{raise_by} ({spent[0]:.0f} ms)")
                    else:
                        kept.append(spent)
            side = "main game" if wager == rules.main_wager else "side bet"
            figures = (f"{len(kept)} edits keeping the strategy, median "
                       f"{statistics.median(t[0] for t in kept):4.0f} "
                       f"({statistics.median(t[1] for t in kept):3.0f}) ms, max "
                       f"{max(t[0] for t in kept):4.0f} ({max(t[1] for t in kept):3.0f}) ms"
                       if kept else "no edit keeps the strategy")
            print(f"  {rules_id:24s} {wager:15s} ({side}): {figures}"
                  + (f"; {len(moved)} moved it: {', '.join(moved)}" if moved else ""))


FRESH_EDIT = """
import sys, time
from feltlab.server.services import designer
text = sys.stdin.read()
began = time.perf_counter()
designer.ParSheet(text).compute()
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
    parser.add_argument("--raises", type=lambda text: [int(part) for part in text.split(",")],
                        default=[1], help="what each pay-table line is raised by, e.g. 1,2,3")
    options = parser.parse_args()
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.1f} at the start (a shared machine: noisy figures)")
    if not options.skip_advise:
        advise_figures(options.runs)
    if not options.skip_edits:
        fresh_edit_figures()
        edit_figures(options.raises)
    if options.trainer:
        trainer_figures()
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
