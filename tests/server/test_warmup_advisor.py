"""The server's start-up warm-up warms the advisor first: once its advisor step has run,
the trainer's advice of every built-in rule set, at every street, solves nothing, reads
nothing from the derived-data cache and loads or compiles no Numba code. Structure, not
timing: counted in a fresh process (this one's caches may be warm already), on the
advice asked in its main thread while the rest of the warm-up goes on in its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from feltlab.core.rules import load_rules
from feltlab.games.holdem_stud import advisor
from feltlab.games.holdem_stud.rules import HoldemStudRules

TESTS = Path(__file__).resolve().parents[1]
SRC = TESTS.parent / "src"

PROBE = """
import dataclasses, json, os, sys, tempfile, threading, time
from numba.core import dispatcher
from fastapi.testclient import TestClient
import feltlab.core.cache as derived
from feltlab.games.holdem_stud import solver
from feltlab.present import trainer
from feltlab.server import warmup
from feltlab.server.app import create_app
from server.conftest import settings_for

main = threading.current_thread()
seen = {"solves": [], "cache_reads": [], "numba": []}

def counted(kind, function):
    def wrapper(*args, **kwargs):
        if threading.current_thread() is main:
            seen[kind].append(repr(args[:1])[:80])
        return function(*args, **kwargs)
    return wrapper

solver.solution_for = counted("solves", solver.solution_for)
derived.load = counted("cache_reads", derived.load)
dispatcher.Dispatcher.add_overload = counted("numba", dispatcher.Dispatcher.add_overload)

url = f"sqlite:///{tempfile.mkdtemp()}/probe.sqlite3"
app = create_app(dataclasses.replace(settings_for(url), warm=True), timers=False)
with TestClient(app):
    deadline = time.monotonic() + 600
    while not warmup.step_done("advisor"):
        assert time.monotonic() < deadline, "the advisor step did not end"
        time.sleep(0.05)
    hands = [("high-card-flush", "Ah Kh Qh Jh 9h 2s 3d", "", None, []),
             ("high-card-flush-toledo", "Th 8h 6h Js Ad Qd Jc", "", None, []),
             ("nh-flush-poker", "2c 5d 9h Jh Qh Ks As", "", None, []),
             ("nine-card-flush", "", "Ah Kd 2c", "black", []),
             ("nh-holdem-stud", "7c 2d", "", None, []),
             ("nh-holdem-stud", "Ah Kh", "Qh", None, [3]),
             ("nh-holdem-stud", "Ah Kh", "Qh 2c", None, [1, 2])]
    answers = [trainer.advice_for(*hand, 1, None)["best"] for hand in hands]
    print(json.dumps({**seen, "answers": answers}), flush=True)
    os._exit(0)  # the rest of the warm-up is not waited for
"""


def test_after_the_advisor_step_advice_solves_reads_and_compiles_nothing() -> None:
    rules = load_rules("nh-holdem-stud")
    assert isinstance(rules, HoldemStudRules)
    advisor.advisor_table(rules)  # the derived-data cache holds it, as on a second start
    path = os.pathsep.join([str(SRC), str(TESTS), os.environ.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", PROBE], env={**os.environ, "PYTHONPATH": path},
                          capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(found["answers"]) == 7
    assert found["solves"] == [], "the advice solved a strategy"
    assert found["cache_reads"] == [], "the advice read the derived-data cache"
    assert found["numba"] == [], "the advice loaded or compiled Numba code"
