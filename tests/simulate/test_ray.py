"""The Ray path: opt-in (``pytest -m ray``), skipped when Ray is not installed.

Install the extra (``pip install -e '.[cluster]'``) and run ``pytest -m ray
tests/simulate/test_ray.py``; the test starts a local Ray and checks that the cluster
run gives exactly the local run's sums for the same seed.
"""

from __future__ import annotations

import pytest

from feltlab.core.rules import load_rules
from feltlab.simulate.runner import prepare, simulate

pytestmark = pytest.mark.ray


def test_ray_run_equals_local_run(request: pytest.FixtureRequest) -> None:
    if "ray" not in (request.config.option.markexpr or "").replace("not ray", ""):
        pytest.skip("opt-in: run with -m ray")
    ray = pytest.importorskip("ray")
    setup = prepare(load_rules("high-card-flush"), strategy="simple", with_exact=False)
    rounds = 40 * 65536 + 123
    local = simulate(setup, rounds, seed=12)
    try:
        remote = simulate(setup, rounds, seed=12, cluster="local")
    finally:
        ray.shutdown()
    assert remote.rounds == local.rounds == rounds
    assert [(w.net_sum, w.net_square_sum, w.wins, w.pushes, w.losses) for w in remote.wagers] \
        == [(w.net_sum, w.net_square_sum, w.wins, w.pushes, w.losses) for w in local.wagers]
    assert remote.counters == local.counters
