"""``feltlab rules``: the rule sets, one of them as a rules card, or the rules document
(``register(app)`` adds it)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from feltlab.cli.published import Database, find_published
from feltlab.cli.terminal import fail, output_console


def rules_command(
    rules: Annotated[str | None, typer.Argument(help="A rule-set id or TOML file.")] = None,
    markdown: Annotated[bool, typer.Option(
        "--markdown", help="Print the rules document (docs/rules.md) as Markdown: every "
        "built-in rule set, or the one given.")] = False,
    database: Database = None,
) -> None:
    """List the rule sets, or print one as a rules card with its pay tables."""
    from feltlab.core.rules import RulesError, load_rules

    find_published(database)
    try:
        chosen = None if rules is None else load_rules(rules)
    except RulesError as error:
        fail(str(error))
    if markdown:
        from feltlab.present.rulesdoc import rules_document

        sys.stdout.write(rules_document(None if chosen is None else [chosen]))
    elif chosen is None:
        from feltlab.cli.rulescard import rule_sets_table

        output_console().print(rule_sets_table())
    else:
        from feltlab.cli.rulescard import rules_card

        output_console().print(rules_card(chosen))


def register(app: typer.Typer) -> None:
    app.command("rules")(rules_command)
