"""``feltlab --help`` (and ``feltlab`` alone) prints the page Typer would draw, byte for
byte, whichever commands were built: its list of commands comes from
``feltlab.cli.commands.COMMANDS``, held here to the commands themselves."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys

import pytest
import typer
from typer.testing import CliRunner

from feltlab.cli import app, build_app
from feltlab.cli.commands import COMMANDS

TYPERS_PAGE = """
import sys
from typer.core import TyperGroup
from feltlab.cli import OneLineErrors, app
OneLineErrors.format_help = TyperGroup.format_help  # Typer's own renderer
app(sys.argv[1:], prog_name="feltlab")
"""
CASES = [({}, ["--help"]), ({"FORCE_COLOR": "1", "COLUMNS": "100"}, ["--help"]),
         ({"TERMINAL_WIDTH": "60"}, [])]


def run(python_args: list[str], env: dict[str, str]) -> tuple[int, str]:
    """Exit status and standard output of a fresh Python process (the timeout only stops
    a hung one)."""
    done = subprocess.run([sys.executable, *python_args], env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    return done.returncode, done.stdout


@pytest.mark.parametrize(("settings", "args"), CASES,
                         ids=["plain", "colour at 100 columns", "no arguments at 60"])
def test_the_page_is_the_one_typer_draws(settings: dict[str, str], args: list[str]) -> None:
    env = {key: value for key, value in os.environ.items()
           if key not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "TERMINAL_WIDTH")}
    env.update(settings)
    ours = run(["-m", "feltlab", *args], env)
    assert ours == run(["-c", TYPERS_PAGE, *args], env)
    assert ours[0] == (0 if args else 2)
    assert ("\x1b[" in ours[1]) == ("FORCE_COLOR" in settings)


def test_the_list_is_every_command_in_order_with_its_summary() -> None:
    built = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    assert list(COMMANDS) == list(built)
    for name, command in built.items():
        summary = inspect.cleandoc(command.help or "").split("\n\n")[0]
        assert COMMANDS[name].summary == " ".join(summary.split()), name


def test_the_page_needs_no_command_built() -> None:
    page = CliRunner().invoke(build_app(()), ["--help"])
    assert (page.exit_code, page.stdout) == (0, CliRunner().invoke(app, ["--help"]).stdout)
    assert "operator" in page.stdout
