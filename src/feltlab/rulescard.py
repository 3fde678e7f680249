"""A rule set printed as a rules card: how the game goes, its limits and its pay tables."""

from __future__ import annotations

from collections.abc import Mapping

from rich.console import Group
from rich.table import Table
from rich.text import Text

from feltlab.rules import FlushRules, HoldemStudRules, NineCardRules, PayTable, Rules

WAGER_TITLES = {
    "ante": "Ante", "flush": "Flush bonus", "straight_flush": "Straight Flush bonus",
    "all9": "All 9", "bonus9": "9 Card Bonus", "player6": "Player 6", "first3": "First 3",
    "bonus3": "3 Card Bonus", "raise": "Raise", "play": "Play",
    "street3": "3rd street", "street4": "4th street", "street5": "5th street",
}


def wager_title(name: str) -> str:
    return WAGER_TITLES.get(name, name)


def _pay_table(title: str, table: PayTable, unit: str) -> Table:
    grid = Table(title=title, title_justify="left", show_edge=True)
    grid.add_column(unit.capitalize(), justify="right")
    grid.add_column("Pays", justify="right")
    for count in sorted(table, reverse=True):
        grid.add_row(str(count), f"{table[count]:,} to 1")
    return grid


def _named_table(title: str, table: Mapping[str, int | str]) -> Table:
    grid = Table(title=title, title_justify="left")
    grid.add_column("Hand")
    grid.add_column("Pays", justify="right")
    for name, pays in table.items():
        grid.add_row(name.replace("_", " ").capitalize(),
                     "push" if pays == "push" else f"{int(pays):,} to 1")
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


def _flush_lines(rules: FlushRules) -> list[str]:
    q = rules.qualifier
    raises = []
    for length in range(2, 8):
        most = rules.max_raise_multiple(length)
        raises.append(f"{length}: " + ("fold only" if most == 0 else
                                        "1x" if most == 1 else f"1x-{most}x"))
    fold_rule = ", ".join(wager_title(name) + (" settled" if kept else " lost")
                          for name, kept in rules.settled_on_fold.items())
    lines = [
        "Player and dealer get 7 cards; the hand is its longest suit (more cards win, then "
        "the highest card, the next, ...).",
        "Fold (lose the Ante) or raise. Raise by flush length: " + "; ".join(raises) + ".",
        f"Dealer qualifies with a {q.min_length}-card flush {q.min_high_card} high or better, "
        "or any longer flush. Not qualified: Ante pays 1 to 1, Raise pushes.",
        "Qualified: the better hand wins Ante and Raise 1 to 1; a tie pushes.",
        f"On a fold: {fold_rule}.",
    ]
    if rules.raise_in_whole_antes:
        lines.append("Raises are whole multiples of the Ante.")
    if rules.equal_bonuses:
        lines.append("When both bonuses are bet they must be equal.")
    return lines


def rules_card(rules: Rules) -> Group:
    """The whole card for a rule set, as Rich renderables."""
    parts: list[Table | Text] = [Text(rules.name, style="bold"), Text(f"id: {rules.label}"),
                                 Text(f"fingerprint {rules.fingerprint}")]
    if isinstance(rules, FlushRules):
        lines = _flush_lines(rules)
        tables = [_pay_table("Flush bonus", rules.flush_pays, "flush cards"),
                  _pay_table("Straight Flush bonus", rules.straight_flush_pays,
                             "straight flush cards")]
    elif isinstance(rules, NineCardRules):
        push = f"; {rules.all9_push_at} push both" if rules.all9_push_at else ""
        lines = [
            "Pick red or black. 3 community cards face up; fold (lose All 9) or bet Play "
            "equal to All 9; then 6 cards each. Flush cards = most cards of one suit of "
            "your colour.",
            f"All 9 and Play: {rules.all9_win_at}+ flush cards in the 9 pay 1 to 1{push}; "
            "fewer lose.",
        ]
        tables = [_pay_table("9 Card Bonus (9 cards)", rules.bonus9_pays, "flush cards"),
                  _pay_table("Player 6 (your 6 cards)", rules.player6_pays, "flush cards"),
                  _pay_table("First 3 (community cards)", rules.first3_pays, "flush cards")]
    else:
        assert isinstance(rules, HoldemStudRules)
        lines = [
            "2 cards each and 3 community cards face down. Before each community card is "
            f"turned: fold, or bet 1x-{rules.max_street_multiple}x the Ante.",
            "Your 2 cards and the 3 community cards are paid on the pay table, every wager "
            "at the same odds. The 3 Card Bonus pays on the community cards.",
        ]
        tables = [_named_table("Pay table", rules.pays),
                  _named_table("3 Card Bonus", rules.bonus3_pays)]
    parts.extend(Text("• " + line) for line in lines)
    if rules.max_aggregate_payout:
        parts.append(Text(f"• Maximum aggregate payout per hand: {rules.max_aggregate_payout:,}."))
    parts.append(Text(f"• Seats: {rules.seats}."))
    if rules.notes:
        parts.append(Text("Note: " + rules.notes, style="italic"))
    parts.append(_limits(rules))
    parts.extend(tables)
    return Group(*parts)

