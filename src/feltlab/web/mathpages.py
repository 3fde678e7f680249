"""The math pages: each rule set's PAR sheet (the analysis's own HTML report), its
strategy card and charts, and the pay-table solver.

An exact analysis takes 5-25 seconds, so each sheet is computed once per rule-set
fingerprint in a worker thread (one at a time: the machine's cores are the players'
too), kept in memory, and its HTML kept in the user's cache folder.
"""

from __future__ import annotations

import contextlib
import threading
from fractions import Fraction
from html import escape
from pathlib import Path
from typing import Any

from feltlab.analysis import analyze
from feltlab.analysis.model import ParSheet
from feltlab.analysis.paytable import SolverError, parse_target, pay_table, solve
from feltlab.cache import write_atomically
from feltlab.paths import user_cache_dir
from feltlab.rules import Rules, load_rules

_sheets: dict[str, ParSheet] = {}
_compute_lock = threading.Lock()


def cache_folder() -> Path:
    return user_cache_dir() / "web"


def sheet_for(rules: Rules) -> ParSheet:
    """The rule set's PAR sheet, computed once per fingerprint."""
    found = _sheets.get(rules.fingerprint)
    if found is not None:
        return found
    with _compute_lock:
        found = _sheets.get(rules.fingerprint)
        if found is None:
            found = _sheets[rules.fingerprint] = analyze(rules)
    return found


def ready(rules_id: str) -> bool:
    rules = load_rules(rules_id)
    return rules.fingerprint in _sheets or _html_path(rules).is_file()


def _html_path(rules: Rules) -> Path:
    return cache_folder() / f"par-{rules.id}-{rules.fingerprint[:16]}.html"


BACK_LINKS = ('<nav aria-label="Back" style="font-size:0.95rem;margin:0 0 1rem">'
              '<a href="/math/{id}">&larr; Strategy card and charts</a> &middot; '
              '<a href="/math">All the math</a> &middot; <a href="/">Lobby</a></nav>')


def par_sheet_html(rules_id: str) -> str:
    """The PAR sheet report (self-contained HTML) with links back to the site."""
    report = _par_report(rules_id)
    links = BACK_LINKS.replace("{id}", rules_id)
    head, body, rest = report.partition("<body>")
    return head + body + links + rest if body else links + report


def _par_report(rules_id: str) -> str:
    """The PAR sheet report as the analysis renders it, from the cache when there."""
    rules = load_rules(rules_id)
    path = _html_path(rules)
    if path.is_file():
        return path.read_text("utf-8")
    from feltlab.analysis.report_html import render_html  # loads matplotlib: only when used

    text = render_html(sheet_for(rules))
    with contextlib.suppress(OSError):  # a read-only cache folder costs the next visitor
        write_atomically(path, text.encode("utf-8"))
    return text


def strategy_fragment(rules_id: str) -> str:
    """The overview and strategy (card, map, chart) as an HTML fragment for the page."""
    from feltlab.analysis.report_html import overview_table, strategy_section

    sheet = sheet_for(load_rules(rules_id))
    parts = ['<section class="block"><h2>Overview</h2>', overview_table(sheet), "</section>"]
    if sheet.strategy_card is not None or sheet.strategy_map:
        parts.append(strategy_section(sheet))
    parts.append('<section class="block"><h2>Notes</h2><ul>'
                 + "".join(f"<li>{escape(note)}</li>" for note in sheet.notes) + "</ul></section>")
    return "".join(parts)


def solvable_wagers(rules_id: str) -> list[dict[str, Any]]:
    """Wagers whose pay table the page's solver takes (those without decisions: one
    analysis answers them), with their lines."""
    from feltlab.analysis.paytable import PAY_TABLE_FIELDS

    rules = load_rules(rules_id)
    answer = []
    for wager in PAY_TABLE_FIELDS[type(rules)]:
        if wager not in rules.limits or (rules.game == "holdem-stud" and wager == "ante"):
            continue
        answer.append({"wager": wager, "lines": [str(key) for key in pay_table(rules, wager)]})
    return answer


def solve_json(rules_id: str, wager: str, target_text: str, line: str | None
               ) -> dict[str, Any]:
    """Solve one line (or, without a line, the scale) of a bonus wager's pay table."""
    rules = load_rules(rules_id)
    if wager not in {item["wager"] for item in solvable_wagers(rules_id)}:
        raise SolverError(f"the page's solver takes the bonus wagers of {rules.id} "
                          f"({', '.join(item['wager'] for item in solvable_wagers(rules_id))})"
                          "; for a main game run feltlab solve-paytable")
    target = parse_target(target_text)
    solution = solve(rules, wager, target, line=line or None, scale=not line,
                     analyzer=sheet_for)
    return {"rules": rules.id, "wager": wager, "method": solution.method,
            "line": None if solution.line is None else str(solution.line),
            "target": float(target), "house_edge": float(solution.house_edge),
            "house_edge_exact": str(solution.house_edge),
            "scale": None if solution.scale is None else float(solution.scale),
            "exact": None if solution.exact is None else float(solution.exact),
            "rows": [{"line": str(key), "was": _pays(solution.original[key]),
                      "now": _pays(value), "changed": value != solution.original[key]}
                     for key, value in solution.table.items()]}


def _pays(value: int | str) -> str:
    return "push" if value == "push" else f"{int(value):,} to 1"


def percent(value: Fraction) -> str:
    return f"{float(value):.4%}"
