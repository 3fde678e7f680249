"""``feltlab operator``: the casinos that embed feltlab's tables and pay through their
own wallets (:mod:`feltlab.server.services.operators`).

A secret is only ever read from standard input (never an argument, which the shell's
history and ``ps`` would show) and never printed.
"""

from __future__ import annotations

import getpass
import json
import sys
from datetime import date
from typing import TYPE_CHECKING, Annotated

import typer

from feltlab.cli.server import Database, _database, _engine
from feltlab.cli.terminal import fail

if TYPE_CHECKING:
    from feltlab.server.services.operator_ledger import DayFigures
    from feltlab.server.services.operators import OperatorView

OperatorId = Annotated[str, typer.Argument(metavar="ID", help="The operator's id.")]


def parse_currencies(text: str) -> dict[str, int]:
    """``EUR,USD:100`` as ``{"EUR": 1, "USD": 100}``: each code with the minor units one
    chip is worth (1 unless given); the codes themselves are checked by the registry.

    >>> parse_currencies("EUR, JPY:100")
    {'EUR': 1, 'JPY': 100}
    """
    found: dict[str, int] = {}
    for item in text.split(","):
        code, colon, units = item.strip().partition(":")
        if not code:
            fail(f"--currencies: expected CODE[:N],... like EUR,USD:100, got {text!r}")
        if code in found:
            fail(f"--currencies: {code} given twice")
        try:
            found[code] = int(units) if colon else 1
        except ValueError:
            fail(f"--currencies: {code}: the minor units one chip is worth must be a whole "
                 f"number, got {units!r}")
    return found


def read_secret(prompt: str) -> str:
    """One line from standard input (asked for without echo on a terminal), checked
    before the database is opened; exit 2 if it is not a usable secret."""
    from feltlab.server.services.operators import InvalidField, check_secret

    if sys.stdin is None:
        fail("give the operator's secret on standard input")
    if sys.stdin.isatty():
        secret = getpass.getpass(prompt)
    else:
        text = sys.stdin.read()
        secret = text[:-1] if text.endswith("\n") else text
        secret = secret[:-1] if secret.endswith("\r") else secret
    if not secret:
        fail("give the operator's secret on standard input (one line, at least 32 "
             "characters)")
    if "\n" in secret:
        fail("secret: must be one line")
    try:
        return check_secret(secret)
    except InvalidField as error:
        fail(error.detail)


def _actor() -> str:
    """Who the audit log names for a change made here: the command line's user."""
    try:
        return f"cli:{getpass.getuser()}"
    except (KeyError, OSError):
        return "cli"


def _print(views: list[OperatorView], as_json: bool) -> None:
    from rich.table import Table

    from feltlab.cli.terminal import output_console

    if as_json:
        typer.echo(json.dumps([view.as_json() for view in views], indent=2))
        return
    table = Table(title=f"{len(views)} operator{'s' if len(views) != 1 else ''}")
    for heading in ("id", "wallet", "currencies", "timeout", "frame origins", "state"):
        table.add_column(heading)
    for view in views:
        currencies = ", ".join(code if units == 1 else f"{code}:{units}"
                               for code, units in view.currencies.items())
        state = "disabled" if view.disabled else "enabled"
        table.add_row(view.id, view.wallet_url, currencies, f"{view.timeout_seconds:g} s",
                      " ".join(view.frame_origins) or "-",
                      state + (" (rotating)" if view.rotating else ""))
    output_console().print(table)


def parse_day(text: str, option: str) -> date:
    """A ``YYYY-MM-DD`` day, or exit 2 naming the option.

    >>> parse_day("2026-03-01", "--from")
    datetime.date(2026, 3, 1)
    """
    try:
        return date.fromisoformat(text)
    except ValueError:
        fail(f"{option}: expected a day as YYYY-MM-DD, got {text!r}")


def _print_report(operator_id: str, first: date, last: date, days: list[DayFigures],
                  output: str) -> None:
    from rich.table import Table

    from feltlab.cli.terminal import output_console
    from feltlab.server.services.operator_ledger import (
        REPORT_COLUMNS,
        report_csv,
        report_totals,
    )

    if output == "json":
        typer.echo(json.dumps({"operator": operator_id, "from": first.isoformat(),
                               "to": last.isoformat(),
                               "days": [figures.as_json() for figures in days],
                               "totals": report_totals(days)}, indent=2))
        return
    if output == "csv":
        typer.echo(report_csv(days), nl=False)
        return
    table = Table(title=f"operator {operator_id}: {first} to {last} (UTC days, minor units)")
    for heading in REPORT_COLUMNS:
        table.add_column(heading.replace("_", " "),
                         justify="left" if heading in ("day", "currency") else "right")
    for figures in days:
        row = figures.as_json()
        table.add_row(*(str(row[column]) for column in REPORT_COLUMNS))
    for currency, total in report_totals(days).items():
        table.add_row("total", currency, *(str(total[column]) for column in REPORT_COLUMNS[2:]),
                      style="bold")
    output_console().print(table)


def register(app: typer.Typer) -> None:
    """Add ``operator add|list|report|disable|enable|rotate|demo`` to ``app``."""
    from feltlab.cli import operator_demo

    operator_app = typer.Typer(help="The operators whose casinos embed the tables and pay "
                                    "through their own wallets.", no_args_is_help=True)
    app.add_typer(operator_app, name="operator")

    @operator_app.command("add")
    def operator_add_command(
        operator_id: OperatorId,
        wallet_url: Annotated[str, typer.Option(
            "--wallet-url", help="The operator's wallet base URL (http or https, no "
                                 "trailing slash).")],
        currencies: Annotated[str, typer.Option(
            "--currencies", help="Currencies as ISO 4217 codes, each with the minor units "
                                 "one chip is worth: EUR,USD:100 (default 1).")],
        timeout: Annotated[float, typer.Option(
            "--timeout", help="Seconds the wallet may take to answer (0.05 to 60).")] = 3.0,
        frame_origin: Annotated[list[str] | None, typer.Option(
            "--frame-origin", help="An origin allowed to frame the tables, like "
                                   "https://casino.example (repeat for more).")] = None,
        database: Database = None,
    ) -> None:
        """Register an operator; its shared secret (one line, at least 32 characters) is
        read from standard input."""
        from feltlab.server.errors import DomainError
        from feltlab.server.services.operators import add_operator

        wanted = parse_currencies(currencies)
        secret = read_secret("Operator's secret: ")
        engine = _engine(_database(database))
        try:
            view = add_operator(engine, _actor(), operator_id, wallet_url, wanted, secret,
                                timeout_seconds=timeout, frame_origins=frame_origin or ())
        except DomainError as error:
            fail(error.detail)
        finally:
            engine.dispose()
        typer.echo(f"operator {view.id} added")

    @operator_app.command("list")
    def operator_list_command(
        database: Database = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print the operators as JSON.")
                           ] = False,
    ) -> None:
        """List the operators (never their secrets)."""
        from feltlab.server.services.operators import list_operators

        engine = _engine(_database(database))
        try:
            views = list_operators(engine)
        finally:
            engine.dispose()
        _print(views, as_json)

    def change(operator_id: str, database: str | None, action: str) -> None:
        from feltlab.server.errors import DomainError
        from feltlab.server.services.operators import (
            disable_operator,
            enable_operator,
            rotate_secret,
        )

        secret = read_secret("New secret: ") if action == "rotate" else ""
        engine = _engine(_database(database))
        try:
            if action == "rotate":
                rotate_secret(engine, _actor(), operator_id, secret)
            elif action == "disable":
                disable_operator(engine, _actor(), operator_id)
            else:
                enable_operator(engine, _actor(), operator_id)
        except DomainError as error:
            fail(error.detail)
        finally:
            engine.dispose()
        done = {"rotate": "secret rotated (the previous one is still accepted)",
                "disable": "disabled", "enable": "enabled"}[action]
        typer.echo(f"operator {operator_id} {done}")

    @operator_app.command("report")
    def operator_report_command(
        operator_id: OperatorId,
        start: Annotated[str, typer.Option(
            "--from", help="The first UTC day, YYYY-MM-DD (inclusive).")],
        end: Annotated[str, typer.Option(
            "--to", help="The last UTC day, YYYY-MM-DD (inclusive).")],
        as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")
                           ] = False,
        as_csv: Annotated[bool, typer.Option("--csv", help="Print the report as CSV.")
                          ] = False,
        database: Database = None,
    ) -> None:
        """The operator's gross gaming revenue by UTC day and currency, in minor units:
        acknowledged bets, acknowledged wins, rolled-back bets (count and amount), and
        GGR = bets - wins."""
        from feltlab.server.errors import DomainError
        from feltlab.server.services.operator_ledger import operator_report

        if as_json and as_csv:
            fail("give --json or --csv, not both")
        first, last = parse_day(start, "--from"), parse_day(end, "--to")
        if first > last:
            fail(f"--from ({first}) is after --to ({last})")
        engine = _engine(_database(database))
        try:
            days = operator_report(engine, operator_id, first, last)
        except DomainError as error:
            fail(error.detail)
        finally:
            engine.dispose()
        _print_report(operator_id, first, last, days,
                      "json" if as_json else "csv" if as_csv else "table")

    @operator_app.command("disable")
    def operator_disable_command(operator_id: OperatorId, database: Database = None) -> None:
        """Disable an operator: nothing is signed for it or accepted from it until it is
        enabled again."""
        change(operator_id, database, "disable")

    @operator_app.command("enable")
    def operator_enable_command(operator_id: OperatorId, database: Database = None) -> None:
        """Enable a disabled operator again."""
        change(operator_id, database, "enable")

    @operator_app.command("rotate")
    def operator_rotate_command(operator_id: OperatorId, database: Database = None) -> None:
        """Replace an operator's secret with a new one read from standard input; the old
        one is still accepted until the next rotation."""
        change(operator_id, database, "rotate")

    operator_demo.register(operator_app)
