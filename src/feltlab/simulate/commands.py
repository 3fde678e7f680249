"""The ``simulate`` and ``session`` commands (``register(app)`` adds them to the CLI)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich import box
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from feltlab.rules import RulesError, load_rules
from feltlab.settle import WagerError, parse_wagers
from feltlab.simulate import DEFAULT_HANDS_PER_HOUR, TOTAL_UNIT

if TYPE_CHECKING:  # the simulator loads Numba: import it only when a command runs
    from feltlab.simulate.runner import SimulationResult
    from feltlab.simulate.session import SessionResult

PROGRESS_FROM = 5_000_000
"""Runs of at least this many rounds show a progress bar."""

Rules = Annotated[str, typer.Argument(help="A rule-set id or TOML file.")]
Bets = Annotated[str | None, typer.Option(help="Bets per hand: ante=1,flush=1 (0 = not bet).")]
Strategy = Annotated[str, typer.Option(
    help="optimal, simple (the strategy card) or a strategy TOML file of the analysis.")]
Seed = Annotated[int, typer.Option(help="Seed: the same seed gives the same result.")]
Mistakes = Annotated[float, typer.Option(
    help="Probability of a random legal mistake at each decision.")]


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


@contextmanager
def _progress(total: int, label: str, show: bool) -> Iterator[Callable[[int, int], None]]:
    if not show:
        yield lambda done, total: None
        return
    bar = Progress(TextColumn(label), BarColumn(), TextColumn("{task.completed:,}/{task.total:,}"),
                   TimeRemainingColumn(), console=Console(stderr=True), transient=True)
    with bar:
        task = bar.add_task(label, total=total)
        yield lambda done, _total: bar.update(task, completed=done)


def _percent(value: float, decimals: int = 3) -> str:
    return f"{100 * value:.{decimals}f}"


def _simulate_table(result: SimulationResult) -> Table:
    """Percentages without the sign, the interval as ``low..high``: fits 80 columns."""
    setup = result.setup
    table = Table(title=f"{setup.rules.name}: {result.rounds:,} rounds, {setup.seats} seat(s), "
                        f"strategy {setup.strategy.name}, seed {result.seed}",
                  caption="house edges in %, per unit of each wager;\ntotal: "
                          f"{TOTAL_UNIT}:\n" + " + ".join(setup.bets)
                          + f" = {sum(setup.bets.values())} units",
                  box=box.SIMPLE_HEAD, pad_edge=False, min_width=78)
    for column in ("wager", "edge %", "s.e.", "95% interval", "hit %", "exact %", "z"):
        table.add_column(column, justify="left" if column == "wager" else "right")
    for wager in result.wagers:
        low, high = wager.interval95
        table.add_row(wager.name, _percent(float(wager.house_edge)), _percent(wager.std_error),
                      f"{_percent(low, 2)}..{_percent(high, 2)}",
                      _percent(float(wager.rate(wager.wins)), 2),
                      "" if wager.exact is None else _percent(float(wager.exact)),
                      "" if wager.z_score is None else f"{wager.z_score:+.2f}")
    return table


def simulate_command(
    rules: Rules,
    hands: Annotated[int, typer.Option(help="Rounds to deal.")] = 1_000_000,
    seats: Annotated[int, typer.Option(help="Seats playing at the table.")] = 1,
    strategy: Strategy = "optimal",
    seed: Seed = 0,
    workers: Annotated[int | None, typer.Option(help="Threads (default: all cores).")] = None,
    bets: Bets = None,
    mistakes: Mistakes = 0.0,
    cluster: Annotated[str | None, typer.Option(
        help="Ray cluster address (auto, local, ray://host:port); default: this machine."
    )] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Deal whole rounds at a table and estimate each wager's house edge."""
    try:
        from feltlab.simulate.runner import prepare, simulate

        stakes = None if bets is None else parse_wagers(bets, "--bets")
        setup = prepare(load_rules(rules), seats=seats, bets=stakes, strategy=strategy,
                        mistakes=mistakes)
        with _progress(hands, "simulating", hands >= PROGRESS_FROM) as progress:
            result = simulate(setup, hands, seed, workers, progress, cluster)
    except (ValueError, RulesError, WagerError, RuntimeError) as error:
        raise _fail(str(error)) from None
    if as_json:
        typer.echo(json.dumps(result.to_json(), indent=2))
        return
    console = Console()
    if result.interrupted:
        console.print(f"[yellow]interrupted: {result.rounds:,} rounds done[/yellow]")
    console.print(_simulate_table(result))
    console.print(f"{result.seconds:.2f} s, {result.rounds / max(result.seconds, 1e-9):,.0f} "
                  "rounds a second")
    console.print(", ".join(f"{k}={v:,}" for k, v in result.counters.items()))


def _session_table(result: SessionResult) -> Table:
    data = result.to_json()
    table = Table(title=f"{result.setup.rules.name}: {result.sessions:,} sessions of "
                        f"{result.hands:,} hands, bankroll {result.bankroll:,}")
    table.add_column("figure")
    table.add_column("value", justify="right")
    for name in ("ruin_probability", "double_probability", "mean_result",
                 "theoretical_win_per_hour", "observed_loss_per_hour"):
        value = data[name]
        table.add_row(name.replace("_", " "), "n/a" if value is None else f"{value:,.4f}")
    for group in ("result_percentiles", "max_drawdown_percentiles"):
        for key, value in data[group].items():
            table.add_row(f"{group.replace('_', ' ')} {key}", f"{value:,.0f}")
    return table


def session_command(
    rules: Rules,
    bankroll: Annotated[int, typer.Option(help="Starting bankroll, in units.")],
    hands: Annotated[int, typer.Option(help="Hands per session.")] = 300,
    sessions: Annotated[int, typer.Option(help="Number of sessions.")] = 10_000,
    bets: Bets = None,
    strategy: Strategy = "optimal",
    seed: Seed = 0,
    mistakes: Mistakes = 0.0,
    hands_per_hour: Annotated[int, typer.Option(help="Hands dealt an hour.")] =
        DEFAULT_HANDS_PER_HOUR,
    workers: Annotated[int | None, typer.Option(help="Threads (default: all cores).")] = None,
    plot: Annotated[Path | None, typer.Option(help="Write the plots (.png or .svg).")] = None,
    html_file: Annotated[Path | None, typer.Option("--html", help="Write an HTML report.")] =
        None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Sessions from a bankroll: results, ruin, doubling, drawdowns, win per hour."""
    try:
        from feltlab.simulate.runner import prepare
        from feltlab.simulate.session import html_report, run_sessions, save_plot

        stakes = None if bets is None else parse_wagers(bets, "--bets")
        setup = prepare(load_rules(rules), bets=stakes, strategy=strategy, mistakes=mistakes)
        with _progress(sessions, "sessions", hands * sessions >= PROGRESS_FROM) as progress:
            result = run_sessions(setup, bankroll, hands, sessions, seed, hands_per_hour,
                                  workers=workers, progress=progress)
        if plot is not None:
            save_plot(result, plot)
        if html_file is not None:
            html_file.write_text(html_report(result), "utf-8")
    except (ValueError, RulesError, WagerError, OSError) as error:
        raise _fail(str(error)) from None
    if as_json:
        typer.echo(json.dumps(result.to_json(), indent=2))
        return
    Console().print(_session_table(result))


def register(app: typer.Typer) -> None:
    """Add ``simulate`` and ``session`` to the ``feltlab`` app."""
    app.command("simulate")(simulate_command)
    app.command("session")(session_command)
