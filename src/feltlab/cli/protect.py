"""``feltlab protect``: the game-protection report (``register(app)`` adds it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from feltlab.cli.analyze import load_or_fail, progress_bar
from feltlab.cli.terminal import fail, output_console
from feltlab.core.paths import check_output_file
from feltlab.simulate.limits import threads_for


def protect_command(
    rules: Annotated[str, typer.Argument(help="A rule-set id or TOML file.")],
    colluders: Annotated[int | None, typer.Option(
        help="Seats sharing their cards (1 = a lone player).")] = None,
    dealer_seen: Annotated[int | None, typer.Option(
        "--dealer-seen", help="Dealer's cards seen before the decision (flush games).")] = None,
    next_seen: Annotated[int | None, typer.Option(
        "--next-seen", help="Next cards seen: community cards ahead of every decision "
                            "(Hold'em Stud), the player's own (9 Card Flush).")] = None,
    deals: Annotated[int | None, typer.Option(
        help="Monte Carlo deals per sampled case (default by game).")] = None,
    seed: Annotated[int, typer.Option(help="Seed: the same seed gives the same result.")] = 0,
    workers: Annotated[int | None, typer.Option(help="Threads (default: all cores).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    html: Annotated[Path | None, typer.Option(help="Write a self-contained HTML report.")
                    ] = None,
) -> None:
    """Players' edge for each amount of information: colluding seats, dealer cards or next
    cards seen.

    Each informed seat plays its best strategy; exact where the information states can be
    enumerated, otherwise Monte Carlo with exact decisions. With none of --colluders,
    --dealer-seen, --next-seen: every amount of each leak, with practical signalling
    strategies and countermeasures."""
    from feltlab.protect import Case, check_case, protect

    loaded = load_or_fail(rules)
    given = (colluders, dealer_seen, next_seen)
    cases = None
    try:
        if html is not None:
            check_output_file(html, "--html")
        if deals is not None and deals < 1:
            raise ValueError(f"--deals must be at least 1, got {deals}")
        if workers is not None and workers < 1:
            raise ValueError(f"--workers must be at least 1, got {workers}")
        threads = threads_for(workers)
        if seed < 0:
            raise ValueError(f"--seed must be 0 or more, got {seed}")
        if any(value is not None for value in given):
            case = Case(1 if colluders is None else colluders,
                        dealer_seen or 0, next_seen or 0)
            check_case(loaded, case)
            cases = [case]
        # The report's charts load matplotlib (a second or more): only once the flags hold.
        from feltlab.protect.report import render_html, report_renderable

        _set_threads(threads)
        with progress_bar(f"Protecting {loaded.id}", not as_json) as progress:
            report = protect(loaded, cases, deals, seed,
                             lambda case, done, total: progress(done, total),
                             extras=cases is None)
        if html is not None:
            html.write_text(render_html(report), encoding="utf-8")
            typer.echo(f"wrote {html}", err=True)
    except ValueError as error:
        fail(str(error))
    except OSError as error:
        fail(f"cannot write the report: {error}")
    if as_json:
        typer.echo(json.dumps(report.to_json(), indent=2))
        return
    output_console().print(report_renderable(report))


def _set_threads(threads: int) -> None:
    import numba as nb

    nb.set_num_threads(threads)


def register(app: typer.Typer) -> None:
    app.command("protect")(protect_command)
