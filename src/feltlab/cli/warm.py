"""The ``warm`` command: build every cache ahead of time (``register(app)`` adds it).

Numba compiles each kernel the first time a process calls it and keeps the machine code
in its disk cache; derived data (decision tables, dealer distributions) are kept in the
user's cache folder (:mod:`feltlab.core.cache`). ``feltlab warm`` builds both for every
built-in rule set: what the table server's warm-up builds (:mod:`feltlab.server.warmup`:
rounds, the pit's figures, the advisor, the trainers, the designer) and the kernels of
``simulate``, ``session`` and ``protect``, each run on a few deals. Numba's machine code
fits the CPU it was compiled on, so run it where the commands and the server will run (at
a container's start, or while building an image for that CPU).
"""

from __future__ import annotations

import time
from typing import Annotated

import typer

from feltlab.cli.terminal import fail

WARM_ROUNDS = 2_000
"""Rounds of ``simulate``, hands and sessions of ``session`` and deals of ``protect``:
enough to call every kernel once."""


def _warm_commands(rules_id: str) -> None:
    """Run ``simulate``, ``session`` and ``protect`` briefly on one rule set."""
    from feltlab.core.rules import load_rules
    from feltlab.protect import protect
    from feltlab.simulate.runner import prepare, simulate
    from feltlab.simulate.session import run_sessions

    rules = load_rules(rules_id)
    setup = prepare(rules)
    simulate(setup, WARM_ROUNDS, 0)
    run_sessions(setup, None, 20, 20, 0)
    protect(rules, deals=WARM_ROUNDS, seed=0)


def warm_command(
    rules: Annotated[list[str] | None, typer.Argument(
        metavar="[RULES]...", help="Built-in rule sets to warm (default: every one).")] = None,
) -> None:
    """Build every cache ahead: the compiled kernels (Numba's disk cache, for this CPU)
    and the derived data of every built-in rule set, for the server and the commands."""
    from feltlab.core.cache import enabled
    from feltlab.core.rules import builtin_ids
    from feltlab.server.warmup import warm_everything

    known = builtin_ids()
    chosen = list(rules or known)
    unknown = [name for name in chosen if name not in known]
    if unknown:
        fail(f"{unknown[0]!r} is not a built-in rule set; they are {', '.join(known)}")
    if not enabled():
        typer.echo("note: FELTLAB_NO_CACHE is set: derived data are built but not kept",
                   err=True)
    start = time.perf_counter()

    def step(name: str) -> None:
        typer.echo(f"warming {name}...", err=True)

    seconds = warm_everything(chosen, step)
    for rules_id in chosen:
        step(f"simulate, session and protect for {rules_id}")
        try:
            _warm_commands(rules_id)
        except (ValueError, RuntimeError) as error:
            fail(f"warming the commands of {rules_id} failed: {error}")
    total = time.perf_counter() - start
    typer.echo(f"warm: {len(chosen)} rule set{'s' if len(chosen) != 1 else ''} in "
               f"{total:.1f} s (the server's warm-up {seconds:.1f} s)")


def register(app: typer.Typer) -> None:
    app.command("warm")(warm_command)
