"""Every command's help and usage errors are conventional: flags without ``<bool>``,
arguments in capitals (in the usage line and in errors), help text that flows, a missing
argument pointing to the command's help, and a report destination checked before any
computing."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
import typer

import feltlab.analysis
from conftest import assert_refused, run_cli
from feltlab.cli import app

COMMANDS = typer.main.get_command(app).commands  # type: ignore[attr-defined]
BOX = re.compile(r"^\s*[│╭╰┃┏┗]")


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_shows_flags_bare_and_arguments_in_capitals(name: str) -> None:
    text = run_cli([name, "--help"]).stdout
    assert "<bool>" not in text and not re.search(r"\{[a-z_]+\}", text)
    usage = re.search(r"Usage: feltlab (\S+) \[OPTIONS\]((?: \S+)*)", text)
    assert usage is not None and usage[1] == name
    for argument in usage[2].split():
        assert argument.strip("[].") == argument.strip("[].").upper(), argument


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_paragraphs_flow(name: str) -> None:
    """No sentence is broken early: a line of prose followed by more of the same
    paragraph fills most of the 80 columns."""
    lines = run_cli([name, "--help"]).stdout.splitlines()
    for line, following in itertools.pairwise(lines):
        if BOX.match(line) or BOX.match(following) or not following.strip():
            continue
        if line.strip() and not line.strip().startswith(("Usage:", "-", "•")):
            assert len(line.rstrip()) > 50, f"{name}: {line!r} then {following!r}"


@pytest.mark.parametrize("name", sorted(
    name for name, command in COMMANDS.items()
    if any(param.required and param.param_type_name == "argument" for param in command.params)))
def test_a_missing_argument_names_it_and_points_to_help(name: str) -> None:
    argument = next(param for param in COMMANDS[name].params
                    if param.required and param.param_type_name == "argument")
    shown = (argument.metavar or str(argument.name)).upper()
    assert_refused(run_cli([name]), f"Missing argument '{shown}'",
                   f"see 'feltlab {name} --help'")


def test_analyze_refuses_a_missing_folder_before_computing(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the analysis ran before the destination was checked")

    monkeypatch.setattr(feltlab.analysis, "analyze", never)
    (tmp_path / "a-file").write_text("", "utf-8")
    for option, target in (("--html", tmp_path / "missing" / "sheet.html"),
                           ("--csv", tmp_path / "a-file" / "csv")):
        outcome = run_cli(["analyze", "high-card-flush", option, str(target)])
        assert outcome.exit_code == 2 and outcome.stdout == ""
        assert outcome.stderr.startswith(f"error: {option}: cannot write"), outcome.stderr


def test_each_command_runs_from_its_own_module_alone() -> None:
    """``feltlab NAME`` builds only NAME's module (``feltlab.cli.commands.COMMANDS``): the
    map names every command of the whole app, and each module alone gives its command the
    same options."""
    from feltlab.cli import build_app, command_named
    from feltlab.cli.commands import COMMANDS as LISTED

    assert set(COMMANDS) == set(LISTED)
    for name in LISTED:
        alone = typer.main.get_command(build_app([name])).commands  # type: ignore[attr-defined]
        assert name in alone and set(alone) <= set(COMMANDS)
        assert [p.name for p in alone[name].params] == [p.name for p in COMMANDS[name].params]
    top = typer.main.get_command(app).params
    assert all(option.is_flag for option in top if isinstance(option, typer.core.TyperOption))
    assert command_named(["--no-cache", "--debug", "session", "x"]) == "session"


def test_the_list_of_commands_gives_each_a_flowing_summary() -> None:
    """``feltlab --help`` lists every command with its summary as flowing text: no row
    breaks a sentence early (Typer keeps a docstring's line breaks there)."""
    text = run_cli(["--help"]).stdout
    rows = [line for line in text[text.index("Commands"):].splitlines() if line.startswith("│")]
    assert sorted(row[2:].split(" ", 1)[0] for row in rows if row[2] != " ") == sorted(COMMANDS)
    for row, following in itertools.pairwise(rows):
        if following[2] == " ":  # the summary carries on: this row must be full
            assert len(row.rstrip("│ ")) > 60, row
