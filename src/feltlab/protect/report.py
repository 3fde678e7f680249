"""The protection report in the PAR sheet's forms: a Rich renderable for the terminal, and
one self-contained HTML page with charts (edge against colluders, per leak)."""

from __future__ import annotations

from html import escape

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from feltlab.analysis import charts
from feltlab.analysis.report_html import STYLE
from feltlab.core.protection import CaseResult, ProtectReport

LEAK_OF = {"colluders": "colluders", "dealer_seen": "dealer cards seen",
           "next_seen": "next cards seen"}


def edge_text(result: CaseResult) -> str:
    return f"{100 * result.edge:+.4f}%"


def error_text(result: CaseResult) -> str:
    return "exact" if result.exact else f"±{100 * result.std_error:.4f}%"


def signal_error(std_error: float) -> str:
    return "(exact)" if std_error == 0 else f"±{100 * std_error:.3f}"


def leak_of(result: CaseResult) -> str:
    case = result.case
    if case.dealer_seen and case.next_seen == 0 and case.colluders == 1:
        return "dealer_seen"
    if case.next_seen and case.dealer_seen == 0 and case.colluders == 1:
        return "next_seen"
    return "colluders"


def cases_table(report: ProtectReport) -> Table:
    table = Table(title=f"{report.rules_name} ({report.rules_label}): players' edge by "
                        "information", title_justify="left")
    for header in ("Colluders", "Dealer seen", "Next seen", "Player edge", "Std. error",
                   "States", "Time"):
        table.add_column(header, justify="right")
    for result in report.cases:
        case = result.case
        table.add_row(str(case.colluders), str(case.dealer_seen), str(case.next_seen),
                      edge_text(result), error_text(result), f"{result.states:,}",
                      f"{result.seconds:.1f} s", style="green" if result.edge > 0 else None)
    return table


def signals_table(report: ProtectReport) -> Table | None:
    if not report.signals:
        return None
    table = Table(title="Practical strategies a team could signal", title_justify="left")
    for header in ("Leak", "Signal", "Rule", "Player edge", "Full information"):
        table.add_column(header, justify="right" if "edge" in header.lower()
                         or header == "Full information" else "left")
    for signal in report.signals:
        table.add_row(signal.leak, signal.name, signal.rule,
                      f"{100 * signal.player_edge:+.3f}% {signal_error(signal.std_error)}",
                      f"{100 * signal.full_information_edge:+.3f}%")
    return table


def countermeasures_table(report: ProtectReport) -> Table | None:
    if not report.countermeasures:
        return None
    table = Table(title="Countermeasures", title_justify="left")
    for header in ("Leak", "Change", "Before", "After", "Note"):
        table.add_column(header, justify="right" if header in ("Before", "After") else "left")
    for item in report.countermeasures:
        error = "" if item.exact else f" ±{100 * item.std_error:.3f}"
        table.add_row(item.leak, item.change, f"{100 * item.before:+.3f}%",
                      f"{100 * item.after:+.3f}%{error}", item.note)
    return table


def report_renderable(report: ProtectReport) -> RenderableType:
    parts: list[RenderableType] = [
        Text(f"House edge (exact, the analysis): {100 * float(report.house_edge):.4f}%"),
        cases_table(report)]
    for table in (signals_table(report), countermeasures_table(report)):
        if table is not None:
            parts.append(table)
    parts += [Text(f"{leak.title}: " + ("can matter" if leak.applies else "cannot matter")
                   + f": {leak.why}.") for leak in report.leaks]
    parts += [Text(note) for note in report.notes]
    for method, cases in _methods(report).items():
        parts.append(Text(f"Cases {', '.join(cases)} (colluders/dealer/next): {method}",
                          style="dim"))
    parts.append(Text(f"{report.seconds:.1f} s in all, seed {report.seed}"))
    return Group(*parts)


# HTML ----------------------------------------------------------------------------------

def leak_chart(report: ProtectReport, leak: str) -> str | None:
    """Player edge (%) against the amount of one leak, with 95% intervals."""
    rows = [result for result in report.cases
            if leak_of(result) == leak or result.case.is_baseline]
    amounts = [getattr(result.case, leak) for result in rows]
    if len(set(amounts)) < 2:
        return None
    figure, axes = charts._figure(6)
    order = sorted(range(len(rows)), key=lambda i: amounts[i])
    xs = [amounts[i] for i in order]
    ys = [100 * rows[i].edge for i in order]
    errors = [196 * rows[i].std_error for i in order]
    axes.errorbar(xs, ys, yerr=errors, marker="o", color=charts.DECISION_COLOURS[0],
                  capsize=3)
    axes.axhline(0, color=charts.PUSH_COLOUR, linewidth=1)
    axes.set_xlabel(LEAK_OF[leak])
    axes.set_ylabel("players' edge, % of the main wager")
    axes.set_xticks(xs)
    axes.grid(alpha=0.3)
    return charts.to_svg(figure)


def _row(cells: list[str]) -> str:
    return "<tr>" + "".join(cells) + "</tr>"


def _cases_html(report: ProtectReport) -> str:
    head = _row([f"<th>{name}</th>" for name in ("Colluders", "Dealer seen", "Next seen",
                                                   "Player edge", "Std. error", "States",
                                                   "Method")])
    rows = [_row([f'<td class="num">{result.case.colluders}</td>',
                  f'<td class="num">{result.case.dealer_seen}</td>',
                  f'<td class="num">{result.case.next_seen}</td>',
                  f'<td class="num {"win" if result.edge > 0 else "loss"}">'
                  f"{edge_text(result)}</td>",
                  f'<td class="num">{error_text(result)}</td>',
                  f'<td class="num">{result.states:,}</td>',
                  f"<td>{'exact' if result.exact else 'Monte Carlo'}</td>"])
            for result in report.cases]
    methods = "".join(f"<li>Cases {escape(', '.join(cases))}: {escape(method)}.</li>"
                      for method, cases in _methods(report).items())
    return (f"<table>{head}{''.join(rows)}</table><p>Cases as colluders/dealer seen/next "
            f'seen.</p><ul class="notes">{methods}</ul>')


def _methods(report: ProtectReport) -> dict[str, list[str]]:
    methods: dict[str, list[str]] = {}
    for result in report.cases:
        case = result.case
        methods.setdefault(result.method, []).append(
            f"{case.colluders}/{case.dealer_seen}/{case.next_seen}")
    return methods


def _extra_html(report: ProtectReport) -> str:
    parts = []
    if report.signals:
        rows = "".join(_row([f"<td>{escape(s.leak)}</td>", f"<td>{escape(s.name)}</td>",
                             f"<td>{escape(s.rule)}</td>",
                             f'<td class="num">{100 * s.player_edge:+.3f}% '
                             f"{signal_error(s.std_error)}</td>",
                             f'<td class="num">{100 * s.full_information_edge:+.3f}%</td>'])
                       for s in report.signals)
        parts.append('<section class="block"><h2>Practical strategies</h2><table>'
                     "<tr><th>Leak</th><th>Signal</th><th>Rule</th><th>Player edge</th>"
                     f"<th>Full information</th></tr>{rows}</table></section>")
    if report.countermeasures:
        rows = "".join(_row([f"<td>{escape(c.leak)}</td>", f"<td>{escape(c.change)}</td>",
                             f'<td class="num">{100 * c.before:+.3f}%</td>',
                             f'<td class="num">{100 * c.after:+.3f}%'
                             + ("" if c.exact else f" ±{100 * c.std_error:.3f}") + "</td>",
                             f"<td>{escape(c.note)}</td>"]) for c in report.countermeasures)
        parts.append('<section class="block"><h2>Countermeasures</h2><table><tr><th>Leak'
                     "</th><th>Change</th><th>Before</th><th>After</th><th>Note</th></tr>"
                     f"{rows}</table></section>")
    return "".join(parts)


def render_html(report: ProtectReport) -> str:
    title = f"Game protection: {report.rules_name}"
    body = [f"<h1>{escape(title)}</h1>",
            f'<p class="subtitle">Rule set <code>{escape(report.rules_label)}</code>, '
            f"fingerprint <code>{escape(report.fingerprint[:16])}</code>. Players' edge: "
            "expected net per unit of the main wager, positive when the players win; house "
            f"edge {100 * float(report.house_edge):.4f}% (exact).</p>",
            f'<section class="block"><h2>Edge by information</h2>{_cases_html(report)}'
            "</section>"]
    for leak in report.leaks:
        chart = leak_chart(report, leak.name) if leak.applies else None
        verdict = "can matter" if leak.applies else "cannot matter"
        body.append(f'<section class="block keep"><h2>{escape(leak.title)}</h2><p>'
                    f"{verdict}: {escape(leak.why)}.</p>"
                    + (f"<figure>{chart}</figure>" if chart else "") + "</section>")
    body.append(_extra_html(report))
    notes = "".join(f"<li>{escape(note)}</li>" for note in report.notes)
    body.append(f'<section class="block notes"><h2>Notes</h2><ul class="notes">{notes}'
                f"<li>Seed {report.seed}; {report.seconds:.1f} s in all.</li></ul></section>")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)}</title>"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<style>{STYLE}</style></head><body>{''.join(body)}</body></html>\n")


# Markdown (the docs page) --------------------------------------------------------------

def render_markdown(report: ProtectReport) -> str:
    """The report as a Markdown section, for docs/protection.md."""
    lines = [f"## {report.rules_name} (`{report.rules_label}`)", "",
             f"House edge (exact): {100 * float(report.house_edge):.4f}%. Seed {report.seed}, "
             f"{report.deals:,} Monte Carlo deals per sampled case; "
             f"{report.seconds:.0f} s in all.", "",
             "| colluders | dealer seen | next seen | player edge | std. error | states | "
             "time |", "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for result in report.cases:
        case = result.case
        lines.append(f"| {case.colluders} | {case.dealer_seen} | {case.next_seen} | "
                     f"{edge_text(result)} | {error_text(result)} | {result.states:,} | "
                     f"{result.seconds:.1f} s |")
    lines.append("")
    for leak in report.leaks:
        verdict = "can matter" if leak.applies else "cannot matter"
        lines.append(f"- **{leak.title}** {verdict}: {leak.why}.")
    if report.signals:
        lines += ["", "Practical strategies (colluders: a full table):", "",
                  "| leak | signal | rule | player edge | full information |",
                  "| --- | --- | --- | ---: | ---: |"]
        lines += [f"| {s.leak} | {s.name} | {s.rule} | {100 * s.player_edge:+.3f}% "
                  f"{signal_error(s.std_error)} | {100 * s.full_information_edge:+.3f}% |"
                  for s in report.signals]
    if report.countermeasures:
        lines += ["", "Countermeasures:", "", "| leak | change | before | after | note |",
                  "| --- | --- | ---: | ---: | --- |"]
        for item in report.countermeasures:
            error = "" if item.exact else f" ±{100 * item.std_error:.3f}"
            lines.append(f"| {item.leak} | {item.change} | {100 * item.before:+.3f}% | "
                         f"{100 * item.after:+.3f}%{error} | {item.note} |")
    methods = _methods(report)
    lines += ["", "Methods (cases as colluders/dealer seen/next seen):", ""]
    lines += [f"- {', '.join(cases)}: {method}." for method, cases in methods.items()]
    return "\n".join(lines) + "\n"
