"""``feltlab ledger check``: the ledger's books checked in one snapshot of the database
(:mod:`feltlab.server.services.ledger_check`); exit 1 naming each problem."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from feltlab.cli.server import Database, _database, _engine


def register(app: typer.Typer) -> None:
    """Add ``ledger check`` to ``app``."""
    ledger_app = typer.Typer(help="The server's double-entry ledger.", no_args_is_help=True)
    app.add_typer(ledger_app, name="ledger")

    @ledger_app.command("check")
    def ledger_check_command(
        database: Database = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")
                           ] = False,
    ) -> None:
        """Check that every wallet's balance is the sum of its entries, each currency's
        entries sum to zero, every transaction balances, and every round's money is in
        the ledger; exit 1 naming each problem. The result is kept for /metrics."""
        from rich.table import Table

        from feltlab.cli.terminal import output_console
        from feltlab.server.services.ledger_check import check_ledger, record

        engine = _engine(_database(database))
        report = check_ledger(engine)
        record(engine, report)
        engine.dispose()
        if as_json:
            typer.echo(json.dumps(report.as_json(), indent=2))
        elif report.sound:
            typer.echo(f"ledger sound: {report.wallets} wallets, {report.transactions} "
                       f"transactions, {report.seats} round seats checked in "
                       f"{report.seconds:.2f} s")
        else:
            table = Table(title=f"ledger OUT OF LINE: {report.count} problems")
            for heading in ("kind", "what", "problem"):
                table.add_column(heading)
            for problem in report.problems:
                table.add_row(problem.kind, problem.subject, problem.detail)
            console = output_console()
            console.print(table)
            if report.more:
                console.print(f"... and {report.more} more (each kind shows its first 50)")
        if not report.sound:
            raise typer.Exit(1)
