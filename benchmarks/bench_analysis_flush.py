"""Timings of the High Card Flush exact analysis.

Prints the wall time of the whole ``feltlab analyze high-card-flush`` command (all wagers,
optimal strategy, strategy card) cold and warm, the time of
``analyze(load_rules("high-card-flush"))`` cold (a fresh process with
an empty Numba cache, so compilation is included) and warm (compiled, enumeration not
cached), and the time of one ``advise()`` call. The derived-data cache is off
(``FELTLAB_NO_CACHE=1``) throughout: every figure counts every deal.

    .venv/bin/python benchmarks/bench_analysis_flush.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

COLD_SCRIPT = """
import time
start = time.perf_counter()
from feltlab.analysis import analyze
from feltlab.core.rules import load_rules
analyze(load_rules("high-card-flush"))
print(time.perf_counter() - start)
"""


def cold_seconds() -> float:
    """analyze() in a fresh interpreter whose Numba cache directory is empty."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "FELTLAB_NO_CACHE": "1"}
        done = subprocess.run([sys.executable, "-c", COLD_SCRIPT], env=env, check=True,
                              capture_output=True, text=True)
    return float(done.stdout.strip().splitlines()[-1])


def command_seconds(cache: str) -> float:
    """Wall time of the whole ``feltlab analyze high-card-flush`` command."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache, "FELTLAB_NO_CACHE": "1"}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "feltlab", "analyze", "high-card-flush"], env=env,
                   check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    os.environ["FELTLAB_NO_CACHE"] = "1"
    from feltlab.core.cards import parse_cards
    from feltlab.core.rules import load_rules
    from feltlab.games.high_card_flush import analysis as flush

    rules = load_rules("high-card-flush")
    print(f"{os.cpu_count()} cores; load average before: {os.getloadavg()[0]:.2f}")
    print(f"analyze cold (fresh process, empty Numba cache): {cold_seconds():.2f} s")
    with tempfile.TemporaryDirectory() as cache:
        print(f"`feltlab analyze high-card-flush` cold (empty Numba cache): "
              f"{command_seconds(cache):.2f} s (target: under 20 s)")
        print(f"`feltlab analyze high-card-flush` warm (Numba cache filled): "
              f"{command_seconds(cache):.2f} s (target: under 10 s)")
    flush.analyze(rules)  # compile / load the cache in this process
    flush.clear_cache()
    start = time.perf_counter()
    flush.analyze(rules)
    print(f"analyze warm (compiled, enumeration redone): {time.perf_counter() - start:.2f} s")
    cards = parse_cards("Th 8h 6h Js Ad Qd Jc")
    flush.advise(rules, cards)
    rounds = 2000
    start = time.perf_counter()
    for _ in range(rounds):
        flush.advise(rules, cards)
    print(f"advise: {(time.perf_counter() - start) / rounds * 1e3:.3f} ms per hand")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
