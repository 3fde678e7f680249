"""The server's start-up warm-up builds everything a money request and the pit's figures
recorder reach: after it, playing rounds of every built-in rule set, asking the trainer
and writing every settled seat's figures loads no compiled function (from Numba's disk
cache) and compiles none. Structure, not timing: ``warm_probe.py`` counts the overloads
Numba adds, in a fresh process. And ``feltlab warm`` fills an empty cache folder;
``/healthz`` says whether the warm-up is over."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from feltlab.server import warmup
from server.test_rounds import BETS

TESTS = Path(__file__).resolve().parents[1]
SRC = TESTS.parent / "src"


def _probe(env: dict[str, str], *options: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, str(TESTS / "server" / "warm_probe.py"), *options],
                          env=env, capture_output=True, text=True, timeout=1800, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def _env(**changes: str) -> dict[str, str]:
    path = os.pathsep.join([str(SRC), str(TESTS), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path, **changes}


def _nothing_loaded_after_the_warm_up(env: dict[str, str]) -> None:
    warm = _probe(env)
    assert warm["rounds"] == 6 * len(BETS)  # six rounds of each rule set
    assert warm["compiled"] == [], "compiled on a request's path after the warm-up"
    assert warm["added"] == [], "loaded on a request's path after the warm-up"
    assert warm["probe_sees"], "the probe does not see a function compiled"


def test_nothing_compiles_or_loads_on_the_money_path_after_the_warm_up() -> None:
    _nothing_loaded_after_the_warm_up(_env())


@pytest.mark.slow
def test_on_an_empty_cache_too(tmp_path: Path) -> None:
    """A new install: empty Numba and derived-data caches (the warm-up compiles)."""
    _nothing_loaded_after_the_warm_up(_env(
        XDG_CACHE_HOME=str(tmp_path / "cache"), NUMBA_CACHE_DIR=str(tmp_path / "numba")))


def test_feltlab_warm_fills_an_empty_cache(tmp_path: Path) -> None:
    env = _env(HOME=str(tmp_path), XDG_CACHE_HOME=str(tmp_path / "cache"))
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("FELTLAB_NO_CACHE", None)
    done = subprocess.run([sys.executable, "-m", "feltlab", "warm", "nine-card-flush"],
                          env=env, capture_output=True, text=True, timeout=1800, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "warm: 1 rule set in" in done.stdout
    kernels = [path for path in (tmp_path / "cache" / "feltlab" / "numba").rglob("*")
               if path.suffix in (".nbi", ".nbc")]
    assert any(path.suffix == ".nbc" for path in kernels)


def test_feltlab_warm_refuses_an_unknown_rule_set() -> None:
    done = subprocess.run([sys.executable, "-m", "feltlab", "warm", "no-such-game"],
                          env=_env(), capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 2 and "not a built-in rule set" in done.stderr


def test_healthz_says_whether_the_warm_up_is_over(client: TestClient,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    assert client.get("/healthz").json()["ready"] is True  # no warm-up in tests: ready
    monkeypatch.setattr(warmup, "_state", warmup._State(started=True))
    answer = client.get("/healthz")
    assert answer.status_code == 200 and answer.json()["ready"] is False
    monkeypatch.setattr(warmup, "_state", warmup._State(started=True, done=True, seconds=1))
    assert client.get("/healthz").json()["ready"] is True
