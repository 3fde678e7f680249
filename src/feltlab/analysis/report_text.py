"""The PAR sheet in the terminal (Rich), and the exact-number formatting every report shares.

Figures are formatted from the exact fractions, never through a float, so a printed
digit is always the correctly rounded one.

>>> decimal(Fraction(1, 3), 4), percent(Fraction(-1, 40)), signed(Fraction(4))
('0.3333', '-2.5000%', '+4')
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from feltlab.core.model import ParSheet, StrategyCard, WagerAnalysis


def decimal(value: Fraction | int, places: int = 6) -> str:
    """``value`` rounded half-even to ``places`` decimals, computed exactly.

    >>> decimal(Fraction(2, 3), 2), decimal(Fraction(-1, 8), 2), decimal(7, 0)
    ('0.67', '-0.12', '7')
    """
    return f"{rounded(value, places):f}"


def rounded(value: Fraction | int, places: int = 6) -> Decimal:
    """:func:`decimal`'s number, as a :class:`~decimal.Decimal` (a zero is never -0).

    >>> rounded(Fraction(-1, 1000), 2)
    Decimal('0.00')
    """
    fraction = Fraction(value)
    with localcontext() as context:
        context.prec = 60
        exact = Decimal(fraction.numerator) / Decimal(fraction.denominator)
        quantum = Decimal(1).scaleb(-places)
        near = exact.quantize(quantum, rounding=ROUND_HALF_EVEN)
    return near.copy_abs() if near.is_zero() else near


def percent(value: Fraction | int, places: int = 4) -> str:
    """A fraction as a percentage: ``percent(Fraction(1, 3))`` is ``'33.3333%'``."""
    return decimal(Fraction(value) * 100, places) + "%"


def probability_text(value: Fraction) -> str:
    """A probability with ten decimals, and at least six significant digits when tiny.

    >>> probability_text(Fraction(1, 4)), probability_text(Fraction(1, 133784560))
    ('0.2500000000', '0.00000000747470')
    """
    leading_zeros = 0
    while 0 < value < Fraction(1, 10 ** (leading_zeros + 1)):
        leading_zeros += 1
    return decimal(value, max(10, leading_zeros + 6))


def signed(value: Fraction | int, places: int = 4) -> str:
    """A net result with its sign: whole numbers stay whole, others are decimals."""
    fraction = Fraction(value)
    text = str(fraction.numerator) if fraction.denominator == 1 else decimal(fraction, places)
    return text if fraction <= 0 else "+" + text


def pays_text(net: Fraction | int) -> str:
    """A row's result the way a pay table says it (per unit of the wager).

    >>> pays_text(12), pays_text(0), pays_text(-1), pays_text(Fraction(5, 2))
    ('12 to 1', 'push', 'lose', '+2.5000')
    """
    fraction = Fraction(net)
    if fraction == 0:
        return "push"
    if fraction == -1:
        return "lose"
    if fraction > 0 and fraction.denominator == 1:
        return f"{fraction.numerator:,} to 1"
    return signed(fraction)


def wager_summary(wager: WagerAnalysis) -> list[tuple[str, str]]:
    """The headline figures of a wager as (label, text) pairs, the same in every report."""
    edge = percent(wager.house_edge)
    spread = percent(Fraction(wager.std_error))
    rows = [("House edge (estimate)", f"{edge} ± {spread}") if wager.sampled
            else ("House edge", edge),
            ("Hit frequency", percent(wager.hit_frequency)),
            ("Standard deviation", f"{wager.std_dev:.4f}"),
            ("Element of risk", percent(wager.element_of_risk))]
    if wager.decisions:
        rows.append(("Average total wager", decimal(wager.average_total_wager, 4) + " units"))
    rows += [(rate_label(name), percent(value)) for name, value in wager.rates.items()]
    rows.append(("Deals", f"{wager.total:,}"))
    return rows


def rate_label(name: str) -> str:
    """``raise_rate`` -> ``Raise rate``."""
    return name.replace("_", " ").capitalize()


def _return_table(wager: WagerAnalysis) -> Table:
    table = Table(title=f"{wager.title}: return table", title_justify="left")
    table.add_column("Outcome", ratio=1)
    for header in ("Net" if wager.decisions else "Pays", "Count", "Probability", "Return"):
        table.add_column(header, justify="right", no_wrap=True)
    for line in wager.lines:
        net = pays_text(line.net) if not wager.decisions else signed(line.net)
        table.add_row(line.label, net, f"{line.count:,}",
                      probability_text(wager.probability(line)),
                      decimal(wager.contribution(line), 8))
    table.add_section()
    table.add_row("Total", "", f"{wager.total:,}", decimal(Fraction(1), 10),
                  decimal(wager.expected_return, 8))
    return table


def _summary_table(wager: WagerAnalysis) -> Table:
    table = Table(show_header=False, box=None, padding=(0, 2))
    table.add_column(style="bold")
    table.add_column(justify="right")
    for label, text in wager_summary(wager):
        table.add_row(label, text)
    return table


def wager_renderable(wager: WagerAnalysis) -> RenderableType:
    heading = Text(f"{wager.title} ({wager.name})", style="bold underline")
    return Group(heading, _return_table(wager), _summary_table(wager), Text(""))


def strategy_renderable(card: StrategyCard) -> RenderableType:
    lines = [Text("Strategy card", style="bold underline")]
    lines += [Text(f"  • {line}") for line in card.lines]
    lines.append(Text(f"House edge playing the card: {percent(card.house_edge)}; "
                      f"optimal: {percent(card.optimal_house_edge)}; "
                      f"cost: {percent(card.cost)}"))
    return Group(*lines, Text(""))


SHARE_LABEL = "Share of all deals"


def strategy_map_table(sheet: ParSheet) -> Table:
    table = Table(title="Optimal strategy by hand", title_justify="left")
    table.add_column("Hands")
    table.add_column("Decision")
    table.add_column(SHARE_LABEL, justify="right", no_wrap=True)
    for group, decision, share in sheet.strategy_map:
        table.add_row(group, decision, percent(share))
    return table


def par_sheet_renderable(sheet: ParSheet) -> RenderableType:
    """The whole PAR sheet as one Rich renderable."""
    parts: list[RenderableType] = [
        Text(f"PAR sheet: {sheet.rules_name} ({sheet.rules_label})", style="bold"), Text("")]
    parts += [wager_renderable(wager) for wager in sheet.wagers]
    if sheet.strategy_card is not None:
        parts.append(strategy_renderable(sheet.strategy_card))
    if sheet.strategy_map:
        parts.append(strategy_map_table(sheet))
    if sheet.notes:
        parts.append(Text("Notes", style="bold underline"))
        parts += [Text(f"  • {note}") for note in sheet.notes]
    return Group(*parts)


def uncapped_total_edge(sheet: ParSheet, bets: Mapping[str, int]) -> Fraction | None:
    """House edge of the whole hand without the cap: expected loss over the sum of the
    bets placed, or ``None`` if a bet has no wager in the sheet.

    >>> from feltlab.core.model import OutcomeLine
    >>> a = WagerAnalysis("a", "A", (OutcomeLine("lose", -1, 1), OutcomeLine("win", 1, 1)), 2)
    >>> b = WagerAnalysis("b", "B", (OutcomeLine("lose", -1, 3), OutcomeLine("win", 1, 1)), 4)
    >>> uncapped_total_edge(ParSheet("x", "X", (a, b)), {"a": 3, "b": 1})
    Fraction(1, 8)
    """
    names = {wager.name for wager in sheet.wagers}
    if not bets or any(name not in names for name in bets):
        return None
    loss = sum((sheet.wager(name).house_edge * amount for name, amount in bets.items()),
               Fraction(0))
    return loss / sum(bets.values())


def capped_table(sheet: ParSheet, bets: Mapping[str, int],
                 capped: Mapping[str, Fraction], cap: int | None) -> Table:
    """Each wager's house edge with and without the aggregate payout cap."""
    bet_text = ", ".join(f"{name}={amount:,}" for name, amount in bets.items())
    cap_text = "no cap" if cap is None else f"cap {cap:,} a hand"
    table = Table(title=f"Aggregate payout cap ({cap_text}) at bets {bet_text}",
                  title_justify="left")
    for header in ("Wager", "House edge", "With the cap", "Difference"):
        table.add_column(header, justify="left" if header == "Wager" else "right")
    for name, edge, with_cap in capped_rows(sheet, bets, capped):
        table.add_row(name, "-" if edge is None else percent(edge), percent(with_cap),
                      "-" if edge is None else percent(with_cap - edge))
    return table


def capped_rows(sheet: ParSheet, bets: Mapping[str, int], capped: Mapping[str, Fraction],
                ) -> list[tuple[str, Fraction | None, Fraction]]:
    """(wager, uncapped edge or None, capped edge) in the order of ``capped``."""
    names = {wager.name for wager in sheet.wagers}
    rows: list[tuple[str, Fraction | None, Fraction]] = []
    for name, with_cap in capped.items():
        if name == "total":
            edge = uncapped_total_edge(sheet, bets)
        else:
            edge = sheet.wager(name).house_edge if name in names else None
        rows.append((name, edge, Fraction(with_cap)))
    return rows
