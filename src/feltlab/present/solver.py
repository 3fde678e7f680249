"""The pages' pay-table solver: the bonus wagers it takes and its answers as JSON.

The page solves the wagers without decisions, whose return one analysis gives (every
pay-table wager but the main one); a main game's pay table is searched by ``feltlab
solve-paytable``.

>>> from feltlab.core.rules import load_rules
>>> [item["wager"] for item in solvable_wagers(load_rules("nh-holdem-stud"))]
['bonus3']
"""

from __future__ import annotations

from typing import Any

from feltlab.analysis.paytable import Analyzer, SolverError, parse_target, pay_table, solve
from feltlab.analysis.sheets import sheet_for
from feltlab.core.rules import Rules
from feltlab.core.text import pays_text


def solvable_wagers(rules: Rules) -> list[dict[str, Any]]:
    """Wagers whose pay table the page's solver takes, with their lines."""
    return [{"wager": wager, "lines": [str(key) for key in pay_table(rules, wager)]}
            for wager in rules.pay_table_fields()
            if wager in rules.limits and wager != rules.main_wager]


def solve_json(rules: Rules, wager: str, target_text: str, line: str | None,
               analyzer: Analyzer = sheet_for) -> dict[str, Any]:
    """Solve one line (or, without a line, the scale) of a bonus wager's pay table
    (``analyzer``: the PAR sheets it reads; by default the process's kept ones)."""
    solvable = [item["wager"] for item in solvable_wagers(rules)]
    if wager not in solvable:
        raise SolverError(f"the page's solver takes the bonus wagers of {rules.id} "
                          f"({', '.join(solvable)}); for a main game run feltlab "
                          "solve-paytable")
    target = parse_target(target_text)
    solution = solve(rules, wager, target, line=line or None, scale=not line,
                     analyzer=analyzer)
    return {"rules": rules.id, "wager": wager, "method": solution.method,
            "line": None if solution.line is None else str(solution.line),
            "target": float(target), "house_edge": float(solution.house_edge),
            "house_edge_exact": str(solution.house_edge),
            "scale": None if solution.scale is None else float(solution.scale),
            "exact": None if solution.exact is None else float(solution.exact),
            "rows": [{"line": str(key), "was": pays_text(solution.original[key]),
                      "now": pays_text(value), "pays": value,
                      "changed": value != solution.original[key]}
                     for key, value in solution.table.items()]}
