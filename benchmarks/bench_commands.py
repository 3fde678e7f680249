"""Whole-command speed: what a user waits for, beside the compiled kernel's own rate.

Each command runs as a separate process (as a user runs it), after one warm-up run so
that compiled kernels and derived data are in their caches (the "second and later runs"
case); the median of ``--runs`` runs is printed with the kernel's own rate from the
command's ``--json`` timings, the peak memory of the process and this machine's core
count. ``analyze`` is timed from scratch (``--no-cache``: every deal counted again, only
Numba's compiled code reused), beside the reference solver when ``--reference`` names it,
run alternately with it.

    python benchmarks/bench_commands.py [--runs 5] [--reference path/to/solver.py]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

FELTLAB = [sys.executable, "-m", "feltlab"]
SIMULATE = ["simulate", "high-card-flush", "--hands", "20000000"]
SESSION = ["session", "high-card-flush", "--bankroll", "200", "--hands", "300",
           "--sessions", "100000"]
ANALYZE = ["--no-cache", "analyze", "high-card-flush"]
TARGET = 10_000_000


@dataclass(frozen=True)
class Run:
    seconds: float
    peak_mib: float
    stdout: str


def run_process(command: Sequence[str]) -> Run:
    """Run ``command``; its wall time and its own peak resident memory (``wait4``)."""
    start = time.perf_counter()
    process = subprocess.Popen(list(command), stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    assert process.stdout is not None
    out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise SystemExit(f"{' '.join(command)} failed with status {process.returncode}")
    return Run(seconds, usage.ru_maxrss / 1024, out)


def machine() -> str:
    return f"{os.cpu_count()} cores ({sys.platform}, Python {sys.version.split()[0]})"


def kernel_figures(args: list[str], key: str, count: int, runs: int) -> None:
    """Whole-process median wall time and rate; kernel rate from the JSON timings."""
    run_process([*FELTLAB, *args, "--json"])  # warm-up: compile, derive, cache
    done = [run_process([*FELTLAB, *args, "--json"]) for _ in range(runs)]
    wall = statistics.median(run.seconds for run in done)
    kernel = statistics.median(json.loads(run.stdout)["timings"][key] for run in done)
    peak = max(run.peak_mib for run in done)
    rate = count / wall
    verdict = "met" if rate >= TARGET else f"NOT met ({rate / TARGET:.0%})"
    print(f"feltlab {' '.join(args)}")
    print(f"  whole process {wall:6.2f} s  -> {rate:14,.0f} a second (target "
          f"{TARGET:,}: {verdict})")
    print(f"  kernel only   {kernel:6.2f} s  -> {count / kernel:14,.0f} a second;"
          f" peak memory {peak:.0f} MiB")


def analyze_figures(runs: int, reference: str | None) -> None:
    run_process([*FELTLAB, *ANALYZE])
    ours, theirs = [], []
    for _ in range(runs):
        ours.append(run_process([*FELTLAB, *ANALYZE]).seconds)
        if reference:
            theirs.append(run_process([sys.executable, reference]).seconds)
    mine = statistics.median(ours)
    print(f"feltlab {' '.join(ANALYZE)} (from scratch): whole process {mine:.2f} s")
    if theirs:
        ratios = statistics.median(a / b for a, b in zip(ours, theirs, strict=True))
        print(f"  reference solver {statistics.median(theirs):.2f} s; ratio "
              f"(pairwise median) {ratios:.2f} (target at most 0.50)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--reference", help="the reference solver script, run alternately")
    options = parser.parse_args()
    print(f"{time.strftime('%Y-%m-%d')}, {machine()}, median of {options.runs} runs after "
          "a warm-up")
    kernel_figures(SIMULATE, "simulating", 20_000_000, options.runs)
    kernel_figures(SESSION, "playing sessions", 30_000_000, options.runs)
    analyze_figures(options.runs, options.reference)


if __name__ == "__main__":
    main()
