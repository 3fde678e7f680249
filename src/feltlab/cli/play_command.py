"""``feltlab play`` (``register(app)`` adds it): the session itself is
:mod:`feltlab.cli.play`, imported when the command runs (``feltlab --help`` imports this
module for the list of commands only)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from feltlab.cli.published import find_published
from feltlab.cli.terminal import fail


def play_command(
    ruleset: Annotated[str, typer.Argument(help="A rule-set id or TOML file.")],
    seed: Annotated[int | None, typer.Option(
        help="Deal reproducible hands from this seed (one generator per session).")] = None,
    bankroll: Annotated[int, typer.Option(min=1, help="Starting bankroll.")] = 1000,
    seats: Annotated[int, typer.Option(
        min=1, help="Play this many hands a round, at seats 1, 2, ...")] = 1,
) -> None:
    """Play at a table in the terminal: wagers, decisions and settlement by the engine."""
    from rich.console import Console

    from feltlab.cli.play import PlaySession, deck_source
    from feltlab.core.rules import RulesError, load_rules

    find_published(None)
    try:
        rules = load_rules(ruleset)
    except RulesError as error:
        fail(str(error))
    if seats > rules.seats:
        fail(f"--seats: {rules.id} has seats 1-{rules.seats}")
    PlaySession(rules, Console(), sys.stdin, deck_source(seed), bankroll, seats).run()


def register(app: typer.Typer) -> None:
    """Add the ``play`` command to ``app``."""
    app.command("play")(play_command)
