"""``feltlab report players|tables|days|rules``: the pit's reports from the server's
database, the same numbers as ``GET /api/v1/admin/reports/...`` (one service computes
both), as a table, JSON or CSV."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from feltlab.cli.server import Database, _database, _engine, _fail

GROUPING_HELP = "players, tables, days or rules (by rule set)"
GROUPING_NAMES = {"players": "player", "tables": "table", "days": "day", "rules": "rule set"}
KEY_TITLES = {"username": "player", "user_id": "user id", "table_id": "table",
              "rules": "rule set", "day": "day"}
SPANS = ("totals", "day", "month_to_date", "year_to_date")


def _money(value: float | int | None) -> str:
    return "" if value is None else f"{value:,.2f}"


def _hold(value: float | None) -> str:
    return "" if value is None else f"{value:.2%}"


def _print_table(answer: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    from feltlab.server.services.reports import KEY_COLUMNS

    keys = KEY_COLUMNS[answer["grouping"]]
    span = f"{answer['from'] or 'the start'} to {answer['to'] or 'now'}"
    table = Table(title=f"by {GROUPING_NAMES[answer['grouping']]} ({answer['currency']}), "
                        f"{span}")
    for key in keys:
        table.add_column(KEY_TITLES[key])
    # several players in one round of a shared table: its seats counted beside it
    seats = any(row["seats"] != row["rounds"]
                for row in [*answer["rows"], *(answer[label] for label in SPANS)])
    for column in ("rounds", *(("seats",) if seats else ()), "handle", "win", "hold",
                   "theo win", "expected win", "decision cost", "95% band", "win in band"):
        table.add_column(column, justify="right")

    def cells(row: dict[str, Any]) -> list[str]:
        low, high = row["band"]
        return [str(row["rounds"]), *((str(row["seats"]),) if seats else ()),
                _money(row["handle"]), _money(row["win"]),
                _hold(row["hold"]), _money(row["theo_win"]), _money(row["expected_win"]),
                _money(row["decision_cost"]), f"{_money(low)} .. {_money(high)}",
                "OUTSIDE" if row["outside_band"] else "inside"]

    for row in answer["rows"]:
        table.add_row(*(str(row[key]) for key in keys), *cells(row))
    for label in SPANS:
        table.add_row(label.replace("_", " "), *([""] * (len(keys) - 1)),
                      *cells(answer[label]), style="bold" if label == "totals" else None)
    Console(width=max(Console().width, 150)).print(table)


def register(app: typer.Typer) -> None:
    """Add ``report`` to ``app``."""

    @app.command("report")
    def report_command(
        grouping: Annotated[str, typer.Argument(help=GROUPING_HELP)],
        database: Database = None,
        start: Annotated[str | None, typer.Option(
            "--from", help="First UTC day (YYYY-MM-DD, inclusive); default the start.")] = None,
        end: Annotated[str | None, typer.Option(
            "--to", help="Last UTC day (YYYY-MM-DD, inclusive); default everything.")] = None,
        currency: Annotated[str, typer.Option(help="cash or practice.")] = "cash",
        as_json: Annotated[bool, typer.Option("--json", help="The API's JSON.")] = False,
        as_csv: Annotated[bool, typer.Option("--csv", help="The API's CSV.")] = False,
    ) -> None:
        """The pit's report: handle, win, hold, theoretical and expected win with the 95%
        band, by player, table, day or rule set, with day, month- and year-to-date totals."""
        from feltlab.server.clock import now
        from feltlab.server.errors import DomainError
        from feltlab.server.services import reports

        if as_json and as_csv:
            raise _fail("--json and --csv: choose one")
        if grouping not in reports.GROUPINGS:
            raise _fail(f"a report groups by one of {', '.join(reports.GROUPINGS)}")
        try:  # every flag checked before the database is opened (or created)
            span = reports.Span(reports.parse_day(start, "--from"),
                                reports.parse_day(end, "--to"), currency)
        except DomainError as error:
            raise _fail(error.detail) from None
        engine = _engine(_database(database))
        try:
            with engine.begin() as connection:
                reports.sum_ended_days(connection, span.currency, now().date())
            with engine.connect() as connection:
                answer = reports.report(connection, grouping, span)
        except DomainError as error:
            raise _fail(error.detail) from None
        finally:
            engine.dispose()
        if as_json:
            typer.echo(json.dumps(answer, indent=2))
        elif as_csv:
            typer.echo(reports.to_csv(answer), nl=False)
        else:
            _print_table(answer)
