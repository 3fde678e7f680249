"""The quick commands (``--help``, ``--version``, ``rules``, ``rules ID``, ``payout``) do
their work without importing Numba or the modules of the commands they do not run, and
the help's list of commands without Typer's help renderer (with Rich's Markdown).

Numba takes a quarter of a second to import and NumPy a tenth; a command that never
computes with them must not pay for them. How long each command takes beside a bare
Python process importing typer, rich and pydantic is measured by
``benchmarks/bench_quick_commands.py``, not here (``verify`` is checked in
``tests/server/test_verify.py``, where a round is played).
"""

from __future__ import annotations

import json
import os
from importlib.metadata import version
from pathlib import Path

import pytest

from cli.test_bad_flags import run_fresh
from feltlab.cli.commands import COMMANDS

PAYOUT = ["payout", "--rules", "high-card-flush", "--wagers", "ante=5", "--player",
          "Ah Kh Qh 9s 7d 5c 2c", "--dealer", "Ad Kd Qd Js 8h 6c 3c", "--raise", "5"]
QUICK = [["--help"], ["--version"], ["rules"], ["rules", "high-card-flush"],
         ["rules", "nh-holdem-stud", "--markdown"], PAYOUT]
HELP_RENDERER = {"typer.rich_utils", "rich.markdown"}


@pytest.fixture
def environment(tmp_path: Path) -> dict[str, str]:
    """No database named (a rule set is looked up there only when one is)."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("FELTLAB_DATABASE_URL", None)
    return env


@pytest.mark.parametrize("args", QUICK, ids=" ".join)
def test_a_quick_command_imports_no_numba(args: list[str], environment: dict[str, str]
                                          ) -> None:
    done, imported = run_fresh(args, environment)
    assert done.returncode == 0, done.stderr
    assert "numba" not in imported
    running = COMMANDS[args[0]].module if args[0] in COMMANDS else None
    others = {"feltlab.cli.play", *(listed.module for listed in COMMANDS.values())} - {running}
    assert not imported & (others | HELP_RENDERER), imported & (others | HELP_RENDERER)


def test_payout_from_standard_input_imports_no_numba(environment: dict[str, str]) -> None:
    hand = {"rules": "nh-holdem-stud", "wagers": {"ante": 5}, "player": "Jh Js",
            "community": "2c 7d 9s", "streets": [5, 5, 10]}
    done, imported = run_fresh(["payout"], environment, json.dumps(hand))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["rules"] == "nh-holdem-stud"
    assert "numba" not in imported


def test_version_prints_the_installed_version(environment: dict[str, str]) -> None:
    done, imported = run_fresh(["--version"], environment)
    assert (done.returncode, done.stdout) == (0, f"feltlab {version('feltlab')}\n")
    assert "feltlab.core.rules" not in imported  # nor pydantic's models, nor any rule set
    assert "--version" in run_fresh(["--help"], environment)[0].stdout


def test_a_database_named_is_opened_only_for_an_id_not_built_in(
        environment: dict[str, str]) -> None:
    """With FELTLAB_DATABASE_URL naming a database that cannot be reached, a built-in rule
    set is printed without trying it (nor importing SQLAlchemy); any other id is looked for
    there, and the refusal names the database."""
    unreachable = {**environment, "FELTLAB_DATABASE_URL": "postgresql://nobody@127.0.0.1:1/x"}
    done, imported = run_fresh(["rules", "high-card-flush"], unreachable)
    assert done.returncode == 0, done.stderr
    assert "sqlalchemy" not in imported
    done, _ = run_fresh(["rules", "house-special"], unreachable)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: cannot open the database postgresql"), done.stderr
    assert len(done.stderr.splitlines()) == 1
