"""``feltlab payout``: settle hands given as JSON or as options (``register(app)`` adds
it)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from feltlab.cli.published import find_published
from feltlab.cli.terminal import fail
from feltlab.core.cards import CARD_FORMAT


def payout_command(
    rules: Annotated[str | None, typer.Option(help="Rule-set id or file (single hand).")] = None,
    wagers: Annotated[str | None, typer.Option(help="Wagers: ante=5,flush=5 or JSON.")] = None,
    player: Annotated[str | None, typer.Option(help=f"Player's cards: {CARD_FORMAT}.")] = None,
    dealer: Annotated[str | None, typer.Option(
        help="Dealer's 7 cards (flush games), same card format.")] = None,
    raise_: Annotated[int | None, typer.Option("--raise", help="Raise amount; 0 = fold.")] = None,
    colour: Annotated[str | None, typer.Option(help="red or black (9 Card Flush).")] = None,
    community: Annotated[str | None, typer.Option(
        help="The 3 community cards, same card format.")] = None,
    play: Annotated[bool | None, typer.Option("--play/--fold", help="9 Card Flush.")] = None,
    streets: Annotated[str | None, typer.Option(help="Street bets made: 5,5,10.")] = None,
) -> None:
    """Settle hands: JSON object or array on standard input, or one hand given as options.

    Prints the settlement as JSON: per wager the net result, the total after the
    aggregate payout cap, the hands as evaluated, and the rule set's fingerprint. An
    array is read item by item (any length, constant memory). Invalid input exits with
    status 2, one line on standard error and nothing on standard output.
    """
    from feltlab.cli.quick import settled_hand
    from feltlab.core.payout import settle_stream
    from feltlab.core.rules import RulesError

    find_published(None)

    try:
        if rules is not None:
            typer.echo(settled_hand(rules, wagers, {
                "player": player, "dealer": dealer, "raise": raise_, "colour": colour,
                "community": community, "play": play, "streets": streets}))
            return
        given = [name for name, value in (("--wagers", wagers), ("--player", player),
                                          ("--dealer", dealer), ("--raise", raise_),
                                          ("--colour", colour), ("--community", community),
                                          ("--play/--fold", play), ("--streets", streets))
                 if value is not None]
        if given:
            fail(f"{given[0]} needs --rules (or give the whole hand as JSON on standard input)")
        if sys.stdin.isatty():
            fail("give the hand as JSON on standard input, or use --rules and the options")
        settle_stream(sys.stdin, sys.stdout)
    except (ValueError, RulesError) as error:
        fail(str(error))


def register(app: typer.Typer) -> None:
    app.command("payout")(payout_command)
