"""Peak memory of ``simulate`` and ``session`` as the count grows: it stays flat.

Each run is a separate process (its own peak resident memory, from ``wait4``); the
counts grow tenfold a row. Statistics are streamed, so the peak should not grow with
the count (a few MiB of noise aside).

    python benchmarks/bench_memory.py [--largest-sessions 1000000] [--largest-rounds 100000000]
"""

from __future__ import annotations

import argparse

from bench_commands import FELTLAB, machine, run_process


def series(label: str, args: list[str], flag: str, counts: list[int]) -> None:
    run_process([*FELTLAB, *args, flag, str(counts[0]), "--json"])  # warm-up
    print(f"{label}:")
    for count in counts:
        run = run_process([*FELTLAB, *args, flag, str(count), "--json"])
        print(f"  {flag} {count:>13,}: peak {run.peak_mib:7.1f} MiB, {run.seconds:7.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--largest-sessions", type=int, default=1_000_000)
    parser.add_argument("--largest-rounds", type=int, default=100_000_000)
    options = parser.parse_args()
    print(machine())
    sessions = [10**k for k in range(3, 10) if 10**k <= options.largest_sessions]
    rounds = [10**k for k in range(5, 13) if 10**k <= options.largest_rounds]
    series("feltlab session high-card-flush --hands 20", ["session", "high-card-flush",
           "--hands", "20"], "--sessions", sessions)
    series("feltlab simulate high-card-flush", ["simulate", "high-card-flush"], "--hands",
           rounds)


if __name__ == "__main__":
    main()
