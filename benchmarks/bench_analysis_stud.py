"""Time the exact analyses of Hold'em Stud and 9 Card Flush, and advice per hand.

    .venv/bin/python benchmarks/bench_analysis_stud.py

"cold": a fresh process with an empty NUMBA_CACHE_DIR (every kernel compiles);
"warm": a fresh process reusing that cache (the real computation). Advice is timed in
this process once the solution is in memory.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

import numpy as np

ANALYSE = """
import time
from feltlab.core.rules import load_rules
from feltlab.games.{folder} import analysis as {module}
start = time.perf_counter()
{module}.analyze(load_rules("{rules}"))
print(time.perf_counter() - start)
"""


def _timed_run(module: str, rules: str, cache_dir: str) -> float:
    environment = {**os.environ, "NUMBA_CACHE_DIR": cache_dir}
    folder = {"holdem": "holdem_stud", "nine": "nine_card_flush"}[module]
    script = ANALYSE.format(module=module, folder=folder, rules=rules)
    done = subprocess.run([sys.executable, "-c", script],
                          env=environment, capture_output=True, text=True, check=True)
    return float(done.stdout.strip().splitlines()[-1])


def bench_analyses() -> None:
    for module, rules in (("holdem", "nh-holdem-stud"), ("nine", "nine-card-flush")):
        with tempfile.TemporaryDirectory() as cache_dir:
            cold = _timed_run(module, rules, cache_dir)
            warm = _timed_run(module, rules, cache_dir)
        print(f"{module}.analyze({rules}): cold {cold:.2f} s, warm {warm:.2f} s")


def bench_advice() -> None:
    from feltlab.core.cards import Card
    from feltlab.core.rules import load_rules
    from feltlab.games.holdem_stud import analysis as holdem
    from feltlab.games.nine_card_flush import decisions as nine

    stud, flush = load_rules("nh-holdem-stud"), load_rules("nine-card-flush")
    holdem.advise(stud, [Card(0), Card(1)], (), ())  # solve once
    generator = np.random.default_rng(1)
    hands = 200
    for level in range(3):
        deals = [[Card(int(i)) for i in generator.permutation(52)[:2 + level]]
                 for _ in range(hands)]
        start = time.perf_counter()
        for cards in deals:
            holdem.advise(stud, cards[:2], cards[2:], [1] * level)
        each = (time.perf_counter() - start) / hands
        print(f"holdem.advise with {level} community cards: {each * 1e6:.0f} us per hand")
    deals = [[Card(int(i)) for i in generator.permutation(52)[:3]] for _ in range(hands)]
    start = time.perf_counter()
    for cards in deals:
        nine.advise(flush, cards, "red")
    each = (time.perf_counter() - start) / hands
    print(f"nine.advise: {each * 1e6:.0f} us per hand")


if __name__ == "__main__":
    bench_analyses()
    bench_advice()
