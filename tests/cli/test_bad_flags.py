"""Every command refuses a bad flag before any work: on a cold cache, in a fresh process,
with one line naming the flag, without importing Numba, and without touching a strategy,
a compiled kernel or a cache file.

A bad flag is a value out of its range, an unknown rule set or option, or a file that
cannot be read or written. The proof that no work started is structural: the process's
cache folders (feltlab's and Numba's, both empty at the start) hold no file afterwards,
and Numba (a quarter of a second to import, the most of a refusal's time before) was
never imported. How long a refusal takes is measured by
``benchmarks/bench_quick_commands.py``, not here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HCF = ["high-card-flush"]
STUD = ["nh-holdem-stud"]
NINE = ["nine-card-flush"]
SEVEN = "Ah Kd 9c 7s 5h 3d 2c"

CASES: list[tuple[list[str], str]] = [
    (["simulate", *HCF, "--mistakes", "1.5"], "--mistakes"),
    (["simulate", *HCF, "--mistakes", "nan"], "--mistakes"),
    (["simulate", *HCF, "--hands", "0"], "--hands"),
    (["simulate", *HCF, "--seats", "0"], "--seats"),
    (["simulate", *HCF, "--strategy", "nonsense"], "--strategy"),
    (["simulate", *HCF, "--bets", "ante=-1"], "ante"),
    (["simulate", *HCF, "--bets", "nosuch=1"], "nosuch"),
    (["simulate", "no-such-game"], "no-such-game"),
    (["simulate", *STUD, "--bets", "bonus3=999"], "bonus3"),
    (["session", *HCF, "--mistakes", "-0.5"], "--mistakes"),
    (["session", *HCF, "--sessions", "0"], "--sessions"),
    (["session", *HCF, "--hands-per-hour", "0"], "--hands-per-hour"),
    (["session", *HCF, "--plot", "/no/such/folder/plot.png"], "--plot"),
    (["session", *HCF, "--html", "/no/such/folder/r.html"], "--html"),
    (["analyze", "no-such-game"], "no-such-game"),
    (["analyze", *HCF, "--bets", "ante=abc"], "--bets"),
    (["analyze", *HCF, "--html", "/no/such/folder/r.html"], "--html"),
    (["analyze", *HCF, "--strategy", "/no/such/strategy.toml"], "strategy"),
    (["advise", *HCF, "Ah Kh"], "7 cards"),
    (["advise", *NINE, "Ah Kh Qh", "--colour", "purple"], "purple"),
    (["advise", *STUD, "Ah Kh", "--bets", "9"], "--bets"),
    (["solve-paytable", *HCF, "--wager", "flush", "--line", "99", "--target", "2%"], "'99'"),
    (["solve-paytable", *HCF, "--wager", "flush", "--line", "7", "--target", "200%"],
     "200%"),
    (["solve-paytable", *HCF, "--wager", "nosuch", "--line", "7", "--target", "2%"],
     "nosuch"),
    (["protect", *HCF, "--colluders", "99"], "--colluders"),
    (["protect", *HCF, "--workers", "999"], "--workers"),
    (["protect", *STUD, "--next-seen", "9"], "--next-seen"),
    (["protect", *HCF, "--html", "/no/such/folder/r.html"], "--html"),
    (["play", *HCF, "--seats", "99"], "--seats"),
    (["rules", "no-such-game"], "no-such-game"),
    (["payout", "--rules", "high-card-flush", "--wagers", "ante=5", "--player", "Ah",
      "--dealer", SEVEN], "7 cards"),
    (["serve", "--port", "99999"], "--port"),
    (["serve", "--workers", "0"], "--workers"),
    (["serve", "--database", "nonsense://x"], "database"),
    (["verify", "/no/such/round.json"], "/no/such/round.json"),
    (["simulate", *HCF, "--no-such-flag"], "--no-such-flag"),
    (["report", "nosuch"], "players, tables, days, rules"),
    (["report", "players", "--from", "2026-13-01"], "--from"),
    (["report", "days", "--currency", "gold"], "currency"),
    (["report", "rules", "--from", "2026-05-01", "--to", "2026-04-01"], "2026-04-01"),
    (["db", "backfill", "--database", "nonsense://x"], "database"),
]


def run_fresh(args: list[str], env: dict[str, str] | None = None, stdin: str = ""
              ) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """Run ``feltlab ARGS`` in a fresh process, ``stdin`` on its standard input; its
    outcome (import lines taken out of its standard error) and the modules it imported
    (``python -X importtime``). The timeout only stops a hung process."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "feltlab", *args],
                          env=env, text=True, capture_output=True, timeout=120,
                          input=stdin, check=False)
    lines = done.stderr.splitlines(keepends=True)
    imported = {line.rsplit("|", 1)[1].strip() for line in lines
                if line.startswith("import time:")}
    done.stderr = "".join(line for line in lines if not line.startswith("import time:"))
    return done, imported


def _run_cold(args: list[str], home: Path) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """Run ``feltlab ARGS`` in a fresh process with empty caches."""
    env = {**os.environ, "XDG_CACHE_HOME": str(home / "cache"),
           "NUMBA_CACHE_DIR": str(home / "numba"), "XDG_DATA_HOME": str(home / "data"),
           "MPLCONFIGDIR": str(home / "mpl")}
    env.pop("FELTLAB_DATABASE_URL", None)
    return run_fresh(args, env)


@pytest.mark.parametrize(("args", "names"), CASES, ids=[" ".join(a) for a, _ in CASES])
def test_a_bad_flag_is_refused_before_any_work(args: list[str], names: str,
                                              tmp_path: Path) -> None:
    done, imported = _run_cold(args, tmp_path)
    assert done.returncode == 2, (done.returncode, done.stdout[-400:], done.stderr[-400:])
    assert names in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    touched = [str(path.relative_to(tmp_path)) for path in tmp_path.rglob("*")
               if path.is_file()]
    assert touched == [], f"a refused command wrote {touched}"
    assert "numba" not in imported, f"refusing {args} imported Numba"
