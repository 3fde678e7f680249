"""Memory and time of a large `feltlab payout` batch, as a user runs it.

A batch of N random deals (every built-in rule set in turn, one item in ten naming a
rule-set file on disk) is written to a file and piped to `python -m feltlab payout`; the
whole process is timed and its peak resident memory read from the kernel. The batch is
streamed item by item and each rule file is read once, so memory stays flat in N.

    python benchmarks/bench_payout_batch.py [--items 300000] [--items 30000 ...]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from feltlab.core import registry
from feltlab.core.cards import format_cards, full_deck
from feltlab.core.payout import settle_request
from feltlab.core.rules import builtin_ids, load_rules
from feltlab.core.settle import WagerError

LIMIT_MB = 200


def random_item(rules_name: str, rng: random.Random) -> dict[str, object]:
    rules = load_rules(rules_name)
    deck = list(full_deck())
    rng.shuffle(deck)
    item: dict[str, object] = {"rules": rules_name}
    if rules.game == "holdem-stud":
        item |= {"wagers": {"ante": 5}, "player": format_cards(deck[:2]),
                 "community": format_cards(deck[2:5]), "streets": [5, 5, 5]}
    elif rules.game == "nine-card-flush":
        item |= {"wagers": {"all9": 5}, "player": format_cards(deck[:6]),
                 "community": format_cards(deck[6:9]), "colour": "red", "play": True}
    else:
        item |= {"wagers": {"ante": 5}, "player": format_cards(deck[:7]),
                 "dealer": format_cards(deck[7:14]), "raise": 5}
        try:
            settle_request(item)
        except WagerError:  # a hand the rules say must fold
            item["raise"] = 0
    return item


def write_batch(path: Path, items: int, rule_file: Path) -> None:
    rng = random.Random(items)
    names = list(builtin_ids())
    templates = [random_item(name, rng) for name in names for _ in range(20)]
    with path.open("w", encoding="utf-8") as out:
        out.write("[")
        for index in range(items):
            item = dict(templates[rng.randrange(len(templates))])
            if index % 10 == 0 and item["rules"] == "nh-flush-poker":
                item["rules"] = str(rule_file)
            out.write(("," if index else "") + json.dumps(item))
        out.write("]")


def run(items: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        batch, rule_file = Path(folder) / "batch.json", Path(folder) / "house.toml"
        rule_file.write_text(registry.builtin_text("nh-flush-poker"), "utf-8")
        write_batch(batch, items, rule_file)
        size = batch.stat().st_size
        start = time.perf_counter()
        with batch.open("rb") as stdin:
            process = subprocess.run([sys.executable, "-m", "feltlab", "payout"], stdin=stdin,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     check=False, env=os.environ | {"PYTHONHASHSEED": "0"})
        seconds = time.perf_counter() - start
    if process.returncode != 0:
        sys.exit(f"payout failed: {process.stderr.decode().strip()}")
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    verdict = "under" if peak_mb < LIMIT_MB else "OVER"
    print(f"{items:>9,} items ({size / 2**20:6.1f} MiB of JSON): {seconds:6.1f} s whole "
          f"process, {items / seconds:8,.0f} items/s, peak RSS {peak_mb:6.1f} MB "
          f"({verdict} {LIMIT_MB} MB)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, action="append")
    sizes = parser.parse_args().items or [300_000]
    print(f"cores {os.cpu_count()}")
    for items in sorted(sizes):
        run(items)  # peak RSS of children is a running maximum: smallest first


if __name__ == "__main__":
    main()
