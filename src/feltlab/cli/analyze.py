"""The exact-math commands: ``feltlab analyze``, ``feltlab advise`` and
``feltlab solve-paytable``; :func:`register` adds them to the ``feltlab`` app.

The analysis, the rule-set models and the report builders are imported by the commands
that run: ``feltlab --help`` imports this module for the list of commands only.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from feltlab.cli.published import Database, find_published
from feltlab.cli.terminal import fail, output_console
from feltlab.core.cards import CARD_FORMAT, ensure_distinct, format_cards, parse_cards
from feltlab.core.paths import check_output_file, check_output_folder

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from feltlab.analysis.paytable import Solution
    from feltlab.core.model import Advice, ParSheet
    from feltlab.core.rules import Rules

ProgressCallback = Callable[[int, int], None]


def _stdout() -> Console:
    return output_console()


def load_or_fail(rules_text: str, database: str | None = None) -> Rules:
    """The rule set a command names (built in, a file, or published in ``database`` or
    FELTLAB_DATABASE_URL's); a refusal in one line if it cannot be loaded."""
    from feltlab.core.rules import RulesError, load_rules

    find_published(database)
    try:
        return load_rules(rules_text)
    except RulesError as error:
        fail(str(error))


@contextmanager
def progress_bar(description: str, enabled: bool = True) -> Iterator[ProgressCallback]:
    """A step of :mod:`feltlab.core.status`: shown on standard error (a Rich progress bar on a
    terminal) once it has run for a second, fed by a ``progress(done, total)`` callback.
    ``enabled=False`` keeps it silent."""
    from feltlab.core.status import step

    if not enabled:
        yield lambda done, total: None
        return

    with step(description) as advance:
        yield advance


def run_analysis(rules: Rules, show_progress: bool = True) -> ParSheet:
    from feltlab.analysis import analyze

    try:
        with progress_bar(f"Analysing {rules.id}", show_progress) as progress:
            return analyze(rules, progress)
    except ModuleNotFoundError as error:
        fail(f"the exact analysis of {rules.id} is not available: {error}")


def _capped_json(sheet: ParSheet, bets: Mapping[str, int], capped: Mapping[str, Fraction],
                 cap: int | None) -> dict[str, Any]:
    from feltlab.analysis.report_text import capped_rows

    rows = capped_rows(sheet, bets, capped)
    return {"bets": dict(bets), "max_aggregate_payout": cap,
            "house_edge": {name: float(with_cap) for name, _, with_cap in rows},
            "house_edge_exact": {name: str(with_cap) for name, _, with_cap in rows},
            "uncapped_house_edge": {name: None if edge is None else float(edge)
                                    for name, edge, _ in rows}}


def analyze_command(
    rules: Annotated[str, typer.Argument(help="A rule-set id or TOML file.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the PAR sheet as JSON.")] = False,
    html: Annotated[Path | None, typer.Option(help="Write a self-contained HTML report.")] = None,
    csv: Annotated[Path | None, typer.Option(help="Write CSV files into this folder.")] = None,
    bets: Annotated[str | None, typer.Option(
        help="Bets for the aggregate-cap view, e.g. ante=10,flush=10,straight_flush=10.")] = None,
    strategy: Annotated[Path | None, typer.Option(
        help="Play the main game by this strategy file (TOML) instead of the optimal one.")
    ] = None,
    database: Database = None,
) -> None:
    """The exact PAR sheet of a rule set: return tables, house edges, rates, strategy."""
    from feltlab.analysis import (
        capped_returns,
        evaluate_strategy,
        load_strategy_file,
        with_strategy,
    )
    from feltlab.analysis.report_text import capped_table, par_sheet_renderable
    from feltlab.core.settle import check_wagers, parse_wagers

    loaded = load_or_fail(rules, database)
    try:
        if html is not None:
            check_output_file(html, "--html")
        if csv is not None:
            check_output_folder(csv, "--csv")
    except ValueError as error:
        fail(str(error))
    stakes: dict[str, int] | None = None
    if bets is not None:
        try:
            stakes = check_wagers(loaded, parse_wagers(bets, "--bets"))
        except ValueError as error:
            fail(str(error))
    played = None
    if strategy is not None:
        try:
            played = load_strategy_file(loaded, strategy)
        except ValueError as error:
            fail(str(error))
    sheet = run_analysis(loaded, show_progress=not as_json)
    if played is not None:
        sheet = with_strategy(sheet, evaluate_strategy(loaded, played), str(strategy))
    capped: dict[str, Fraction] | None = None
    if stakes is not None:
        try:
            capped = capped_returns(loaded, stakes)
        except ValueError as error:
            fail(str(error))
    _write_files(sheet, html, csv, capped, stakes, loaded.max_aggregate_payout)
    if as_json:
        data = sheet.to_json()
        if capped is not None and stakes is not None:
            data["aggregate_cap"] = _capped_json(sheet, stakes, capped,
                                                 loaded.max_aggregate_payout)
        typer.echo(json.dumps(data, indent=2))
        return
    console = _stdout()
    console.print(par_sheet_renderable(sheet))
    if capped is not None and stakes is not None:
        console.print(capped_table(sheet, stakes, capped, loaded.max_aggregate_payout))


def _write_files(sheet: ParSheet, html: Path | None, csv: Path | None,
                 capped: Mapping[str, Fraction] | None, bets: Mapping[str, int] | None,
                 cap: int | None) -> None:
    try:
        if html is not None:
            from feltlab.analysis.report_html import render_html

            html.write_text(render_html(sheet, capped, bets, cap), encoding="utf-8")
            typer.echo(f"wrote {html}", err=True)
        if csv is not None:
            from feltlab.analysis.report_csv import write_csv

            written = write_csv(sheet, csv)
            typer.echo(f"wrote {len(written)} CSV files into {csv}", err=True)
    except OSError as error:
        fail(f"cannot write the report: {error}")


# advise -----------------------------------------------------------------------------------

def advice_table(advice: Advice, rules: Rules) -> Table:
    """Each option's EV in units of the rule set's main wager (its name heads the column)."""
    from rich.table import Table

    from feltlab.analysis.report_text import decimal
    from feltlab.core.family import wager_title

    table = Table(title=f"{advice.hand}", title_justify="left")
    table.add_column("Option")
    table.add_column(f"EV per {wager_title(rules.main_wager)}", justify="right")
    table.add_column("Exact", justify="right")
    table.add_column("")
    for option in advice.options:
        best = option.option == advice.best
        table.add_row(option.option, decimal(option.ev, 6), str(option.ev),
                      "best" if best else "", style="bold green" if best else None)
    return table


def advise_command(
    rules: Annotated[str, typer.Argument(help="A rule-set id or TOML file.")],
    cards: Annotated[str, typer.Argument(
        help=f"The player's cards (9 Card Flush: the 3 community cards): {CARD_FORMAT}.")
    ] = "",
    community: Annotated[str | None, typer.Option(
        help="Community cards turned so far, same card format.")] = None,
    colour: Annotated[str | None, typer.Option(help="red or black (9 Card Flush).")] = None,
    bets: Annotated[str | None, typer.Option(
        help="Hold'em Stud: street bets made so far, in antes, e.g. 1,3.")] = None,
    dead: Annotated[str | None, typer.Option(
        help="Cards known to be out of the deck (other seats' hands).")] = None,
    dealer: Annotated[str | None, typer.Option(
        help="Cards seen before the decision: the dealer's (flush games), the next community "
             "cards in turning order (Hold'em Stud), the player's own (9 Card Flush).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the advice as JSON.")] = False,
) -> None:
    """The exact EV of every option open to one hand, and the best, over all unseen cards."""
    from feltlab.analysis import advice_inputs, advise

    loaded = load_or_fail(rules)
    try:
        hand = advice_inputs(loaded, cards, community, colour, bets)
        player, shared, chosen, multiples = hand.player, hand.community, hand.colour, hand.bets
        out, seen = parse_cards(dead or ""), parse_cards(dealer or "")
        ensure_distinct([*player, *shared, *out, *seen])
        known = {name: cards for name, cards in (("dead", out), ("seen", seen)) if cards}
        advice = advise(loaded, player, shared, chosen, multiples, **known)
    except ModuleNotFoundError as error:
        fail(f"the advisor for {loaded.id} is not available: {error}")
    except ValueError as error:
        fail(str(error))
    if as_json:
        typer.echo(json.dumps({**loaded.identity(), **advice.to_json()}, indent=2))
        return
    console = _stdout()
    console.print(advice_table(advice, loaded))
    if shared and player:  # the community cards of a hand whose own cards are dealt
        console.print(f"Community cards turned: {format_cards(shared)}")
    if multiples:
        console.print("Street bets made: " + ", ".join(f"{bet}x" for bet in multiples))
    if chosen is not None:
        console.print(f"Colour: {chosen}")
    if out:
        console.print(f"Dead cards: {format_cards(out)}")
    if seen:
        console.print(f"Seen before the decision: {format_cards(seen)}")
    console.print(f"Best: [bold]{advice.best}[/bold]")


# solve-paytable ---------------------------------------------------------------------------

def solve_command(
    rules: Annotated[str, typer.Argument(help="A rule-set id or TOML file.")],
    wager: Annotated[str, typer.Option(help="The wager whose pay table to solve.")],
    target: Annotated[str, typer.Option(help="Target house edge: 0.05, 5% or 1/20.")],
    line: Annotated[str | None, typer.Option(
        help="The pay-table line left open, e.g. 5 or full_house.")] = None,
    scale: Annotated[bool, typer.Option(
        "--scale", help="Solve a factor on the whole table instead of one line.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """The whole-number pays (or the scale) that put a wager's house edge nearest a target."""
    from feltlab.analysis.paytable import parse_target, solve

    loaded = load_or_fail(rules)
    try:
        goal = parse_target(target)
        with progress_bar(f"Solving {wager} of {loaded.id}", not as_json):
            solution = solve(loaded, wager, goal, line=line, scale=scale,
                             analyzer=lambda candidate: run_analysis(candidate, False))
    except ModuleNotFoundError as error:
        fail(f"the exact analysis of {loaded.id} is not available: {error}")
    except ValueError as error:
        fail(str(error))
    if as_json:
        typer.echo(json.dumps(_solution_json(solution), indent=2))
        return
    _print_solution(solution)


def _solution_json(solution: Solution) -> dict[str, Any]:
    return {**solution.rules.identity(), "wager": solution.wager, "method": solution.method,
            "line": solution.line, "target": float(solution.target),
            "house_edge": float(solution.house_edge),
            "house_edge_exact": str(solution.house_edge),
            "scale": None if solution.scale is None else float(solution.scale),
            "exact": None if solution.exact is None else str(solution.exact),
            "analyses": solution.analyses,
            "table": {str(key): value for key, value in solution.table.items()},
            "original": {str(key): value for key, value in solution.original.items()}}


def _print_solution(solution: Solution) -> None:
    from rich.table import Table

    from feltlab.analysis.report_text import decimal, percent

    table = Table(title=f"{solution.rules.id}: {solution.wager}", title_justify="left")
    for header in ("Line", "Was", "Now"):
        table.add_column(header, justify="left" if header == "Line" else "right")
    for key, value in solution.table.items():
        old = solution.original[key]
        table.add_row(str(key).replace("_", " "), _pays(old), _pays(value),
                      style="bold" if value != old else None)
    console = _stdout()
    console.print(table)
    if solution.scale is not None:
        console.print(f"Scale giving this table: {decimal(solution.scale, 6)}")
        if solution.exact is not None:
            console.print(f"Exact scale for the target (before rounding the pays): "
                          f"{decimal(solution.exact, 6)}")
    elif solution.exact is not None:
        console.print(f"Exact pay for the target: {decimal(solution.exact, 6)}")
    console.print(f"Target house edge: {percent(solution.target)}")
    console.print(f"House edge: {percent(solution.house_edge)} (exactly {solution.house_edge})")
    console.print(f"Method: {solution.method}, {solution.analyses} analysis run(s)")


def _pays(value: int | str) -> str:
    from feltlab.analysis.report_text import pays_text

    return "push" if value == "push" else pays_text(int(value))


def register(app: typer.Typer) -> None:
    """Add ``analyze``, ``advise`` and ``solve-paytable`` to ``app``."""
    app.command("analyze")(analyze_command)
    app.command("advise")(advise_command)
    app.command("solve-paytable")(solve_command)
