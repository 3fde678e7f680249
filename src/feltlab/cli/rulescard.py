"""A rule set printed as a rules card: how the game goes, its limits and its pay tables
(the lines and tables come from the game family's words), and the list of rule sets."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text

from feltlab.core.family import family_of, wager_title
from feltlab.core.rules import Rules, builtin_ids, load_rules
from feltlab.core.words import TableView
from feltlab.present.catalogue import card_lines


def _pay_table(view: TableView) -> Table:
    grid = Table(title=view.title, title_justify="left", show_edge=True)
    grid.add_column(view.unit.capitalize(), justify="left" if view.unit == "hand" else "right")
    grid.add_column("Pays", justify="right")
    for line, pays in view.rows:
        grid.add_row(line, pays)
    return grid


def _limits(rules: Rules) -> Table:
    grid = Table(title="Wagers", title_justify="left")
    grid.add_column("Wager")
    grid.add_column("Min", justify="right")
    grid.add_column("Max", justify="right")
    grid.add_column("")
    for name, limit in rules.limits.items():
        grid.add_row(wager_title(name), str(limit.min), f"{limit.max:,}",
                     "required" if name in rules.required_wagers else "optional")
    return grid


def rules_card(rules: Rules) -> Group:
    """The whole card for a rule set, as Rich renderables."""
    parts: list[Table | Text] = [Text(rules.name, style="bold"), Text(f"id: {rules.label}"),
                                 Text(f"fingerprint {rules.fingerprint}")]
    parts.extend(Text("• " + line) for line in card_lines(rules))
    if rules.notes:
        parts.append(Text("Note: " + rules.notes, style="italic"))
    parts.append(_limits(rules))
    parts.extend(_pay_table(view) for view in family_of(rules).words.card_tables(rules))
    return Group(*parts)


def rule_sets_table() -> Table:
    """The built-in rule sets as a table: id, name, seats and fingerprint."""
    table = Table(title="Rule sets")
    table.add_column("id")
    table.add_column("name")
    table.add_column("seats", justify="right")
    table.add_column("fingerprint (sha256)")
    for rules_id in builtin_ids():
        loaded = load_rules(rules_id)
        table.add_row(rules_id, loaded.name, str(loaded.seats), loaded.fingerprint[:16])
    return table
