"""The ``simulate`` and ``session`` commands (``register(app)`` adds them to the CLI).

The simulator, the rule-set models and the status lines are imported by the command that
runs: ``feltlab --help`` imports this module for the list of commands only.
"""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Final

import typer
from rich import box
from rich.table import Table

from feltlab import STARTED
from feltlab.cli.published import find_published
from feltlab.cli.terminal import one_line, output_console
from feltlab.core.family import wager_title
from feltlab.core.paths import check_output_file
from feltlab.simulate import DEFAULT_HANDS_PER_HOUR, TOTAL_UNIT
from feltlab.simulate.limits import (
    BANKROLL_HANDS,
    check_range,
    check_session,
    check_simulate,
    check_strategy_name,
    check_table,
)

if TYPE_CHECKING:  # the simulator loads Numba: import it only when a command runs
    from feltlab.simulate.chunks import SimulationResult
    from feltlab.simulate.session import SessionResult

Rules = Annotated[str, typer.Argument(help="A rule-set id or TOML file.")]
Bets = Annotated[str | None, typer.Option(
    help="Bets per hand: ante=1,flush=1 (0 = not bet; default: every wager at its minimum).")]
Strategy = Annotated[str, typer.Option(
    help="optimal, simple (the strategy card), default (the first decision at its smallest "
         "amount: a game without exact math) or a strategy TOML file of the analysis.")]
Seed = Annotated[int, typer.Option(help="Seed, 0 to 2**63-1: the same seed gives the same "
                                        "result.")]
Mistakes = Annotated[float, typer.Option(
    help="Probability of a random legal mistake at each decision.")]
Workers = Annotated[int | None, typer.Option(
    help="Threads, 1 to the number of cores (default: all cores).")]

COUNTER_LABELS: Final = {
    "fold": "fold", "raise_1x": "raise 1x", "raise_2x": "raise 2x", "raise_3x": "raise 3x",
    "play": "play", "fold_street1": "fold at the 1st bet", "fold_street2":
    "fold at the 2nd bet", "fold_street3": "fold at the 3rd bet", "showdown": "showdown",
}
"""Counters that are decisions, shown as a share of the seat-hands played."""


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {one_line(message)}", err=True)
    return typer.Exit(2)


def _percent(value: float, decimals: int = 3) -> str:
    return f"{100 * value:.{decimals}f}"


def _bets_text(bets: dict[str, int]) -> str:
    """
    >>> _bets_text({"ante": 1, "bonus3": 2})
    'Ante 1, 3 Card Bonus 2'
    """
    return ", ".join(f"{wager_title(name)} {amount:,}" for name, amount in bets.items())


def counted(count: int, noun: str) -> str:
    """
    >>> counted(1, "seat"), counted(2, "seat"), counted(1_000, "unit")
    ('1 seat', '2 seats', '1,000 units')
    """
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def total_unit_text(bets: dict[str, int], minimums: bool) -> str:
    """What the ``total`` line is per: the bets of each hand, and whether they are the
    table minimums (no --bets).

    >>> print(total_unit_text({"ante": 1, "bonus3": 3}, True))
    total: per unit of all the initial wagers:
    1 on Ante + 3 on 3 Card Bonus = 4 units,
    the minimum bets (choose others with --bets)
    """
    stakes = " + ".join(f"{amount:,} on {wager_title(name)}" for name, amount in bets.items())
    return (f"total: {TOTAL_UNIT}:\n{stakes} = {counted(sum(bets.values()), 'unit')}"
            + (",\nthe minimum bets (choose others with --bets)" if minimums else ""))


def _simulate_table(result: SimulationResult, minimums: bool) -> Table:
    """Percentages without the sign, the interval as ``low..high``: fits 80 columns;
    ``minimums``: the bets are the table minimums (no --bets)."""
    setup = result.setup
    table = Table(title=f"{setup.rules.name} ({setup.rules.label}): {result.rounds:,} rounds, "
                        f"{counted(setup.seats, 'seat')}, strategy {setup.strategy.name}, "
                        f"seed {result.seed}",
                  caption="house edges in %, per unit of each wager;\n"
                          + total_unit_text(dict(setup.bets), minimums),
                  box=box.SIMPLE_HEAD, pad_edge=False, min_width=78)
    for column in ("wager", "edge %", "s.e.", "95% interval", "hit %", "exact %", "z"):
        table.add_column(column, justify="left" if column == "wager" else "right")
    for wager in result.wagers:
        low, high = wager.interval95
        table.add_row(wager_title(wager.name), _percent(float(wager.house_edge)),
                      _percent(wager.std_error), f"{_percent(low, 2)}..{_percent(high, 2)}",
                      _percent(float(wager.rate(wager.wins)), 2),
                      "" if wager.exact is None else _percent(float(wager.exact)),
                      "" if wager.z_score is None else f"{wager.z_score:+.2f}")
    return table


def counters_text(counters: dict[str, int], rounds: int, seats: int) -> str:
    """The counters as readable shares.

    >>> counters_text({"dealer_qualified": 3, "capped": 0, "fold": 1, "raise_1x": 3,
    ...                "raise_2x": 0}, 4, 1)
    'fold 25.0%, raise 1x 75.0%; dealer qualifies 75.0% of rounds; no hand capped'
    """
    hands = max(rounds * seats, 1)
    decisions = [f"{COUNTER_LABELS[name]} {100 * count / hands:.1f}%"
                 for name, count in counters.items()
                 if name in COUNTER_LABELS and (count or name == "fold")]
    parts = [", ".join(decisions)]
    if "dealer_qualified" in counters:
        parts.append(f"dealer qualifies {100 * counters['dealer_qualified'] / max(rounds, 1):.1f}%"
                     " of rounds")
    if "street_bets_in_antes" in counters:
        parts.append(f"street bets {counters['street_bets_in_antes'] / hands:.2f} antes a hand")
    capped = counters.get("capped", 0)
    parts.append(f"{capped:,} hands capped ({100 * capped / hands:.3f}%)" if capped
                 else "no hand capped")
    return "; ".join(parts)


def timings_text(work: str, seconds: float, rate: str,
                 covers: str = "the compiled kernel only") -> str:
    """How long the work took, and the preparation before it, saying what each covers."""
    from feltlab.core.status import describe, one_time, timings

    preparation = [(label, spent) for label, spent in timings() if label != work]
    lines = [f"{work}: {seconds:.2f} s, {rate} ({covers})"]
    if preparation:
        once = [(label, spent) for label, spent in preparation if one_time(label)]
        every = [(label, spent) for label, spent in preparation if not one_time(label)]
        if once:
            lines.append(f"one-time preparation, kept for later runs: "
                         f"{sum(spent for _, spent in once):.2f} s ({describe(once)})")
        if every:
            lines.append(f"preparation: {sum(spent for _, spent in every):.2f} s "
                         f"({describe(every)})")
    lines.append(f"whole command so far: {time.perf_counter() - STARTED:.2f} s "
                 "(Python start-up and everything above)")
    return "\n".join(lines)


def timings_json(work: str, seconds: float) -> dict[str, Any]:
    from feltlab.core.status import timings

    return {work: seconds,
            "preparation": {label: spent for label, spent in timings() if label != work},
            "since_start": time.perf_counter() - STARTED}


def simulate_command(
    rules: Rules,
    hands: Annotated[int, typer.Option(help="Rounds to deal, 1 to 10**12.")] = 1_000_000,
    seats: Annotated[int, typer.Option(help="Seats playing at the table.")] = 1,
    strategy: Strategy = "optimal",
    seed: Seed = 0,
    workers: Workers = None,
    bets: Bets = None,
    mistakes: Mistakes = 0.0,
    cluster: Annotated[str | None, typer.Option(
        help="Ray cluster address (auto, local, ray://host:port); default: this machine."
    )] = None,
    engine: Annotated[bool, typer.Option(
        "--engine", help="Play the rounds through the rules engine, not the compiled kernel "
                         "(the only path for a game without one; thousands of rounds a "
                         "second).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Deal whole rounds at a table and estimate each wager's house edge."""
    from feltlab.core.rules import RulesError, load_rules
    from feltlab.core.settle import WagerError, parse_wagers
    from feltlab.core.status import reset

    reset()
    try:
        check_simulate(hands, seed, workers, mistakes, cluster)
        stakes = None if bets is None else parse_wagers(bets, "--bets")
        find_published(None)
        loaded = load_rules(rules)
        check_table(loaded, seats, stakes)
        check_strategy_name(strategy)
        from feltlab.simulate.runner import prepare, simulate  # Numba: once the flags hold

        setup = prepare(loaded, seats=seats, bets=stakes, strategy=strategy,
                        mistakes=mistakes, engine=engine)
        result = simulate(setup, hands, seed, workers, None, cluster)
    except (ValueError, RulesError, WagerError, RuntimeError) as error:
        raise _fail(str(error)) from None
    rate = f"{result.rounds / max(result.seconds, 1e-9):,.0f} rounds a second"
    if as_json:
        data = result.to_json()
        data["timings"] = timings_json("simulating", result.seconds)
        typer.echo(json.dumps(data, indent=2))
        return
    console = output_console()
    if result.interrupted:
        console.print(f"[yellow]interrupted: {result.rounds:,} rounds done[/yellow]")
    console.print(_simulate_table(result, minimums=bets is None))
    console.print(counters_text(result.counters, result.rounds, setup.seats))
    console.print(timings_text("simulating", result.seconds, rate,
                               "the compiled kernel only" if setup.policy is None
                               else "rounds played through the rules engine"))


def _session_table(result: SessionResult) -> Table:
    data = result.to_json()
    default = (f" (the default: {BANKROLL_HANDS} hands at the most one hand can cost, "
               f"{result.setup.most_at_risk:,})" if result.bankroll_is_default else "")
    table = Table(title=f"{result.setup.rules.name} ({result.setup.rules.label}): "
                        f"{result.sessions:,} sessions of up to {result.hands:,} hands",
                  caption="results in units: + the player wins, - the player loses",
                  box=box.SIMPLE_HEAD, pad_edge=False, min_width=60)
    table.add_column("figure")
    table.add_column("value")
    table.add_row("bankroll", f"{result.bankroll:,}{default}")
    table.add_row("bets each hand", _bets_text(result.setup.bets)
                  + (" (each wager's table minimum; change with --bets)"
                     if result.bets_are_default else ""))
    table.add_row("strategy", result.setup.strategy.name)
    table.add_row("chance of ruin (cannot cover the next hand)",
                  f"{100 * data['ruin_probability']:.2f}%")
    table.add_row("chance of doubling the bankroll", f"{100 * data['double_probability']:.2f}%")
    table.add_row("average result of a session", f"{data['mean_result']:+,.2f}")
    theoretical = data["theoretical_win_per_hour"]
    table.add_row(f"casino's win an hour ({result.hands_per_hour} hands), exact",
                  "n/a" if theoretical is None else f"{theoretical:,.2f}")
    table.add_row("casino's win an hour in these sessions",
                  f"{data['observed_win_per_hour']:,.2f}")
    points = ", ".join(key[1:] for key in data["result_percentiles"])
    table.add_row(f"session results, percentiles {points}",
                  " ".join(f"{value:+,.0f}" for value in data["result_percentiles"].values()))
    table.add_row(f"largest drawdowns, percentiles {points}",
                  " ".join(f"{value:,.0f}" for value in
                           data["max_drawdown_percentiles"].values()))
    return table


def session_command(
    rules: Rules,
    bankroll: Annotated[int | None, typer.Option(
        help=f"Starting bankroll in units, 1 to 10**12 (default: {BANKROLL_HANDS} times the "
             "most one hand can cost).")] = None,
    hands: Annotated[int, typer.Option(help="Hands per session, 1 to 10**6.")] = 300,
    sessions: Annotated[int, typer.Option(help="Number of sessions, 1 to 10**9.")] = 10_000,
    bets: Bets = None,
    strategy: Strategy = "optimal",
    seed: Seed = 0,
    mistakes: Mistakes = 0.0,
    hands_per_hour: Annotated[int, typer.Option(help="Hands dealt an hour.")] =
        DEFAULT_HANDS_PER_HOUR,
    workers: Workers = None,
    plot: Annotated[Path | None, typer.Option(help="Write the plots (.png or .svg).")] = None,
    html_file: Annotated[Path | None, typer.Option("--html", help="Write an HTML report.")] =
        None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Sessions from a bankroll: results, ruin, doubling, drawdowns, the casino's win an
    hour."""
    from feltlab.core.rules import RulesError, load_rules
    from feltlab.core.settle import WagerError, parse_wagers
    from feltlab.core.status import reset

    reset()
    try:
        check_session(bankroll, hands, sessions, seed, workers, mistakes)
        check_range("--hands-per-hour", hands_per_hour, 1, 10**6)
        if plot is not None:
            check_output_file(plot, "--plot")
        if html_file is not None:
            check_output_file(html_file, "--html")
        stakes = None if bets is None else parse_wagers(bets, "--bets")
        find_published(None)
        loaded = load_rules(rules)
        check_table(loaded, 1, stakes)
        check_strategy_name(strategy)
        from feltlab.simulate.runner import prepare  # Numba: once the flags hold
        from feltlab.simulate.session import html_report, run_sessions, save_plot

        setup = prepare(loaded, bets=stakes, strategy=strategy, mistakes=mistakes)
        result = run_sessions(setup, bankroll, hands, sessions, seed, hands_per_hour,
                              workers=workers)
        result = replace(result, bets_are_default=bets is None)
        if plot is not None:
            save_plot(result, plot)
        if html_file is not None:
            html_file.write_text(html_report(result), "utf-8")
    except (ValueError, RulesError, WagerError, OSError) as error:
        raise _fail(str(error)) from None
    played = result.stats.played
    rate = f"{played / max(result.seconds, 1e-9):,.0f} hands a second"
    if as_json:
        data = result.to_json()
        data["timings"] = timings_json("playing sessions", result.seconds)
        typer.echo(json.dumps(data, indent=2))
        return
    console = output_console()
    if result.interrupted:
        console.print(f"[yellow]interrupted: {result.sessions:,} sessions done[/yellow]")
    console.print(_session_table(result))
    console.print(timings_text("playing sessions", result.seconds, rate,
                               "the compiled kernel only" if result.setup.policy is None
                               else "hands played through the rules engine"))


def register(app: typer.Typer) -> None:
    """Add ``simulate`` and ``session`` to the ``feltlab`` app."""
    app.command("simulate")(simulate_command)
    app.command("session")(session_command)
