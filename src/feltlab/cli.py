"""The ``feltlab`` command line."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.table import Table
from typer._click.exceptions import ClickException, NoArgsIsHelpError  # click, vendored
from typer.core import TyperGroup
from typer.exceptions import Abort

from feltlab.rules import RulesError, builtin_ids, load_rules
from feltlab.rulescard import rules_card
from feltlab.settle import parse_wagers


class OneLineErrors(TyperGroup):
    """Report a bad option or argument in one ``error:`` line with exit status 2 (the
    rule every feltlab command keeps), instead of a multi-line usage box."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        standalone_mode = kwargs.get("standalone_mode", True)
        kwargs["standalone_mode"] = False
        try:
            result = super().main(*args, **kwargs)
        except NoArgsIsHelpError as error:
            typer.echo(error.ctx.get_help() if error.ctx else "")
            result = 2
        except ClickException as error:
            typer.echo(f"error: {error.format_message()}", err=True)
            result = 2
        except Abort:
            typer.echo("Aborted.", err=True)
            result = 1
        if not standalone_mode:
            return result
        sys.exit(result if isinstance(result, int) else 0)


app = typer.Typer(
    cls=OneLineErrors,
    help="feltlab: rules engine, payouts and play for flush-family casino table games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console()


def fail(message: str) -> NoReturn:
    """One line on standard error, exit status 2, nothing on standard output."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


@app.command("rules")
def rules_command(
    rules: Annotated[str | None, typer.Argument(help="A rule-set id or TOML file.")] = None,
) -> None:
    """List the rule sets, or print one as a rules card with its pay tables."""
    if rules is None:
        table = Table(title="Rule sets")
        table.add_column("id")
        table.add_column("name")
        table.add_column("seats", justify="right")
        for rules_id in builtin_ids():
            loaded = load_rules(rules_id)
            table.add_row(rules_id, loaded.name, str(loaded.seats))
        console.print(table)
        return
    try:
        console.print(rules_card(load_rules(rules)))
    except RulesError as error:
        fail(str(error))


def _parse_streets(text: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise ValueError(f"--streets: {text!r} is not a list of whole amounts such as 5,5,10"
                         ) from None


@app.command("payout")
def payout_command(
    rules: Annotated[str | None, typer.Option(help="Rule-set id or file (single hand).")] = None,
    wagers: Annotated[str | None, typer.Option(help="Wagers: ante=5,flush=5 or JSON.")] = None,
    player: Annotated[str | None, typer.Option(help="Player's cards.")] = None,
    dealer: Annotated[str | None, typer.Option(help="Dealer's 7 cards (flush games).")] = None,
    raise_: Annotated[int | None, typer.Option("--raise", help="Raise amount; 0 = fold.")] = None,
    colour: Annotated[str | None, typer.Option(help="red or black (9 Card Flush).")] = None,
    community: Annotated[str | None, typer.Option(help="The 3 community cards.")] = None,
    play: Annotated[bool | None, typer.Option("--play/--fold", help="9 Card Flush.")] = None,
    streets: Annotated[str | None, typer.Option(help="Street bets made: 5,5,10.")] = None,
) -> None:
    """Settle hands: JSON object or array on standard input, or one hand given as options.

    Prints the settlement as JSON: per wager the net result, the total after the
    aggregate payout cap, and the hands as evaluated. Invalid input exits with status 2
    and one line on standard error.
    """
    from feltlab.payout import settle_document

    try:
        if rules is not None:
            document: Any = {"rules": rules, "wagers": parse_wagers(wagers or "")}
            options = {"player": player, "dealer": dealer, "raise": raise_, "colour": colour,
                       "community": community, "play": play,
                       "streets": None if streets is None else _parse_streets(streets)}
            document.update({key: value for key, value in options.items() if value is not None})
        else:
            if sys.stdin.isatty():
                fail("give the hand as JSON on standard input, or use --rules and the options")
            text = sys.stdin.read()
            if not text.strip():
                fail("standard input is empty: expected a JSON object or array")
            try:
                document = json.loads(text)
            except json.JSONDecodeError as error:
                fail(f"standard input is not valid JSON: {error}")
        result = settle_document(document)
    except (ValueError, RulesError) as error:
        fail(str(error))
    typer.echo(json.dumps(result, indent=2))


def main() -> None:
    app()


# Commands that live in their own modules register themselves on the app.
from feltlab import play  # noqa: E402
from feltlab.analysis import commands as analysis_commands  # noqa: E402
from feltlab.simulate import commands as simulate_commands  # noqa: E402

play.register(app)
analysis_commands.register(app)
simulate_commands.register(app)


if __name__ == "__main__":
    main()
