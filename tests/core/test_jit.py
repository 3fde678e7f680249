"""Kernels loaded from Numba's cache without its registries give the same results."""

from __future__ import annotations

import json
import subprocess
import sys

from feltlab.core.rules import load_rules
from feltlab.simulate.runner import prepare, simulate

FRESH_PROCESS = """
import json, sys
from feltlab.core.rules import load_rules
from feltlab.simulate.runner import load_kernels, prepare, simulate
setup = prepare(load_rules("high-card-flush"))
load_kernels(setup, 5)
registries_loaded = "numba.np.linalg" in sys.modules
result = simulate(setup, 300_000, seed=5)
print(json.dumps({"registries_loaded": registries_loaded,
                  "wagers": [w.to_json() for w in result.wagers]}))
"""


def test_a_fresh_process_loads_the_simulator_without_registries_and_agrees() -> None:
    setup = prepare(load_rules("high-card-flush"))
    simulate(setup, 1, seed=5)  # compiles the kernels if this code has not run yet
    here = simulate(setup, 300_000, seed=5)
    run = subprocess.run([sys.executable, "-c", FRESH_PROCESS], capture_output=True,
                         text=True, check=True, timeout=600)
    fresh = json.loads(run.stdout)
    assert not fresh["registries_loaded"]
    assert fresh["wagers"] == json.loads(json.dumps([w.to_json() for w in here.wagers]))
