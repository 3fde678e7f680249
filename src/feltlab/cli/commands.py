"""Every ``feltlab`` command: the module that adds it and the summary the list of
commands shows, in that list's order.

The list (``feltlab --help``) is drawn from here, so that showing it imports and builds
no command; ``tests/cli/test_front_page.py`` holds each summary to its command's help.
"""

from __future__ import annotations

from typing import Final, NamedTuple


class Listed(NamedTuple):
    module: str
    """The module whose ``register(app)`` adds the command."""
    summary: str
    """The first paragraph of the command's help, on one line."""


COMMANDS: Final = {
    "rules": Listed("feltlab.cli.rules",
                    "List the rule sets, or print one as a rules card with its pay tables."),
    "payout": Listed("feltlab.cli.payout",
                     "Settle hands: JSON object or array on standard input, or one hand given "
                     "as options."),
    "play": Listed("feltlab.cli.play_command",
                   "Play at a table in the terminal: wagers, decisions and settlement by the "
                   "engine."),
    "analyze": Listed("feltlab.cli.analyze",
                      "The exact PAR sheet of a rule set: return tables, house edges, rates, "
                      "strategy."),
    "advise": Listed("feltlab.cli.analyze",
                     "The exact EV of every option open to one hand, and the best, over all "
                     "unseen cards."),
    "solve-paytable": Listed("feltlab.cli.analyze",
                             "The whole-number pays (or the scale) that put a wager's house "
                             "edge nearest a target."),
    "simulate": Listed("feltlab.cli.simulate",
                       "Deal whole rounds at a table and estimate each wager's house edge."),
    "session": Listed("feltlab.cli.simulate",
                      "Sessions from a bankroll: results, ruin, doubling, drawdowns, the "
                      "casino's win an hour."),
    "protect": Listed("feltlab.cli.protect",
                      "Players' edge for each amount of information: colluding seats, dealer "
                      "cards or next cards seen."),
    "serve": Listed("feltlab.cli.server",
                    "Run the table server (API v1 under /api/v1, OpenAPI at /openapi.json)."),
    "verify": Listed("feltlab.cli.server",
                     "Check a round: seed against commitment, the deck, every card, the "
                     "settlement."),
    "report": Listed("feltlab.cli.report",
                     "The pit's report: handle, win, hold, theoretical and expected win with "
                     "the 95% band, by player, table, day or rule set, with day, month- and "
                     "year-to-date totals."),
    "warm": Listed("feltlab.cli.warm",
                   "Build every cache ahead: the compiled kernels (Numba's disk cache, for "
                   "this CPU) and the derived data of every built-in rule set, for the server "
                   "and the commands."),
    "db": Listed("feltlab.cli.server", "The server's database."),
    "admin": Listed("feltlab.cli.server", "Administer the server's accounts."),
    "audit": Listed("feltlab.cli.server", "The hash-chained audit log."),
    "ledger": Listed("feltlab.cli.ledger", "The server's double-entry ledger."),
    "operator": Listed("feltlab.cli.operator",
                       "The operators whose casinos embed the tables and pay through their "
                       "own wallets."),
}
"""The commands by name, in the order of the list of commands (Typer lists a module's
commands in the order the modules add them, groups of commands such as ``db`` last)."""
