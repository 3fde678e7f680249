"""The PAR sheet as one self-contained HTML page: inline CSS, charts as inline SVG.

The page loads nothing from anywhere: it can be mailed, archived or printed as is. A
print stylesheet starts each wager on a new page and keeps every background white.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from html import escape

from feltlab.analysis import charts
from feltlab.analysis.report_text import (
    SHARE_LABEL,
    capped_rows,
    decimal,
    pays_text,
    percent,
    probability_text,
    signed,
    wager_summary,
)
from feltlab.core.model import ParSheet, StrategyCard, WagerAnalysis

MINUS = "\u2212"

STYLE = """
:root { color-scheme: light; }
body { font-family: "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; color: #1a1a1a;
       background: #fafafa; margin: 0 auto; max-width: 60rem; padding: 1.5rem; line-height: 1.4; }
h1 { font-size: 1.7rem; margin-bottom: 0.2rem; }
h2 { font-size: 1.3rem; border-bottom: 2px solid #1565c0; padding-bottom: 0.2rem;
     margin-top: 0.8rem; }
h3 { font-size: 1.05rem; margin-bottom: 0.4rem; }
.subtitle { color: #555; margin-top: 0; }
section.wager, section.block { background: #fff; border: 1px solid #ddd; border-radius: 6px;
     padding: 0.5rem 1.2rem 1rem; margin-bottom: 1.5rem; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 0.92rem; }
th, td { padding: 0.25rem 0.7rem; border-bottom: 1px solid #e0e0e0; }
th { text-align: left; background: #eef3fb; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.total td { font-weight: bold; border-top: 2px solid #999; }
table.summary th { background: none; font-weight: 600; }
.win { color: #2e7d32; } .loss { color: #c62828; }
figure { margin: 0.5rem 0 1rem; }
figure svg { max-width: 100%; height: auto; overflow: visible; }
ul.notes li { margin-bottom: 0.3rem; }
@media print {
  body { background: #fff; max-width: none; padding: 0; font-size: 10pt; }
  section.wager, section.block { border: none; padding: 0; background: #fff; }
  section.wager { page-break-before: always; break-before: page; }
  th { background: #fff; border-bottom: 2px solid #000; }
  table, figure { page-break-inside: avoid; break-inside: avoid; }
  h2, h3 { page-break-after: avoid; break-after: avoid; }
  .keep { page-break-inside: avoid; break-inside: avoid; }
}
"""


def shown_number(text: str) -> str:
    """A figure as a page shows it: its minus sign U+2212, not the hyphen-minus the
    terminal and the CSV files write.

    >>> shown_number("-0.0266"), shown_number("+4"), shown_number("-")
    ('\u22120.0266', '+4', '-')
    """
    return MINUS + text[1:] if text[:1] == "-" and text[1:2].isdigit() else text


def _cell(text: str, numeric: bool = False, css: str = "") -> str:
    classes = " ".join(part for part in ("num" if numeric else "", css) if part)
    attribute = f' class="{classes}"' if classes else ""
    return f"<td{attribute}>{escape(shown_number(text) if numeric else text)}</td>"


def _header(*names: str, numeric_from: int = 1) -> str:
    cells = "".join(f'<th{" class=num" if index >= numeric_from else ""}>{escape(name)}</th>'
                    for index, name in enumerate(names))
    return f"<thead><tr>{cells}</tr></thead>"


def _net_class(net: Fraction | int) -> str:
    return "win" if net > 0 else "loss" if net < 0 else ""


def return_table(wager: WagerAnalysis) -> str:
    rows = []
    for line in wager.lines:
        net = signed(line.net) if wager.decisions else pays_text(line.net)
        rows.append("<tr>" + _cell(line.label) + _cell(net, True, _net_class(line.net))
                    + _cell(f"{line.count:,}", True)
                    + _cell(probability_text(wager.probability(line)), True)
                    + _cell(decimal(wager.contribution(line), 8), True) + "</tr>")
    rows.append('<tr class="total">' + _cell("Total") + _cell("") + _cell(f"{wager.total:,}", True)
                + _cell(decimal(Fraction(1), 10), True)
                + _cell(decimal(wager.expected_return, 8), True) + "</tr>")
    head = _header("Outcome", "Net" if wager.decisions else "Pays", "Count", "Probability",
                   "Return")
    return f'<table class="returns">{head}<tbody>{"".join(rows)}</tbody></table>'


def summary_table(wager: WagerAnalysis) -> str:
    rows = "".join(f"<tr><th>{escape(label)}</th>{_cell(text, True)}</tr>"
                   for label, text in wager_summary(wager))
    return f'<table class="summary"><tbody>{rows}</tbody></table>'


def wager_section(wager: WagerAnalysis) -> str:
    return (f'<section class="wager" id="wager-{escape(wager.name)}">'
            f"<h2>{escape(wager.title)}</h2>"
            f'<div class="keep"><h3>Return table</h3>{return_table(wager)}</div>'
            f'<div class="keep"><h3>Figures</h3>{summary_table(wager)}</div>'
            f'<figure class="outcomes">{charts.outcome_chart(wager)}</figure>'
            f'<figure class="contributions">{charts.contribution_chart(wager)}</figure>'
            "</section>")


def strategy_section(sheet: ParSheet) -> str:
    parts = ['<section class="block strategy"><h2>Strategy</h2>']
    card: StrategyCard | None = sheet.strategy_card
    if card is not None:
        items = "".join(f"<li>{escape(line)}</li>" for line in card.lines)
        figures = (("House edge playing the card", card.house_edge),
                   ("Optimal house edge", card.optimal_house_edge),
                   ("Cost of the card", card.cost))
        rows = "".join(f"<tr><th>{label}</th>{_cell(percent(value), True)}</tr>"
                       for label, value in figures)
        parts.append(f'<div class="keep"><h3>Strategy card</h3><ul>{items}</ul>'
                     f'<table class="summary"><tbody>{rows}</tbody></table></div>')
    if sheet.strategy_map:
        rows = "".join("<tr>" + _cell(group) + _cell(decision) + _cell(percent(share), True)
                       + "</tr>" for group, decision, share in sheet.strategy_map)
        head = _header("Hands", "Decision", SHARE_LABEL, numeric_from=2)
        parts.append('<div class="keep"><h3>Optimal strategy by hand</h3>'
                     f'<table class="strategy-map">{head}<tbody>{rows}</tbody></table></div>')
        chart = charts.strategy_chart(sheet)
        if chart is not None:
            parts.append(f'<figure class="strategy">{chart}</figure>')
    parts.append("</section>")
    return "".join(parts)


def overview_table(sheet: ParSheet) -> str:
    rows = []
    for wager in sheet.wagers:
        risk = percent(wager.element_of_risk)
        rows.append("<tr>" + _cell(wager.title) + _cell(percent(wager.house_edge), True)
                    + _cell(risk, True) + _cell(percent(wager.hit_frequency), True)
                    + _cell(f"{wager.std_dev:.4f}", True) + "</tr>")
    head = _header("Wager", "House edge", "Element of risk", "Hit frequency", "Std. dev.")
    return f'<table class="overview">{head}<tbody>{"".join(rows)}</tbody></table>'


def capped_section(sheet: ParSheet, bets: Mapping[str, int], capped: Mapping[str, Fraction],
                   cap: int | None) -> str:
    rows = "".join("<tr>" + _cell(name) + _cell("-" if edge is None else percent(edge), True)
                   + _cell(percent(with_cap), True) + "</tr>"
                   for name, edge, with_cap in capped_rows(sheet, bets, capped))
    bet_text = ", ".join(f"{name} {amount:,}" for name, amount in bets.items())
    cap_text = "no cap" if cap is None else f"maximum aggregate payout {cap:,} a hand"
    return ('<section class="block capped"><h2>Aggregate payout cap</h2>'
            f"<p>Bets: {escape(bet_text)}; {escape(cap_text)}.</p>"
            f'<table class="capped">{_header("Wager", "House edge", "With the cap")}'
            f"<tbody>{rows}</tbody></table></section>")


def render_html(sheet: ParSheet, capped: Mapping[str, Fraction] | None = None,
                bets: Mapping[str, int] | None = None, cap: int | None = None) -> str:
    """The PAR sheet as a complete HTML document (a string)."""
    title = f"PAR sheet: {sheet.rules_name}"
    body = [f"<h1>{escape(title)}</h1>",
            f'<p class="subtitle">Rule set <code>{escape(sheet.rules_label)}</code>. Exact '
            "figures from a full enumeration of the deals; house edge is the expected loss "
            "per unit of the wager (positive favours the house).</p>",
            f'<section class="block"><h2>Overview</h2>{overview_table(sheet)}</section>']
    if capped is not None and bets is not None:
        body.append(capped_section(sheet, bets, capped, cap))
    if sheet.strategy_card is not None or sheet.strategy_map:
        body.append(strategy_section(sheet))
    body += [wager_section(wager) for wager in sheet.wagers]
    if sheet.notes:
        notes = "".join(f"<li>{escape(note)}</li>" for note in sheet.notes)
        body.append(f'<section class="block notes"><h2>Notes</h2><ul class="notes">{notes}'
                    "</ul></section>")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)}</title>"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<style>{STYLE}</style></head><body>{''.join(body)}</body></html>\n")
