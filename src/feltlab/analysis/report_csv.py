"""The PAR sheet as CSV files: one per wager (its return table), a summary, and the
optimal strategy by hand (``strategy.csv``, each row named by the hands it holds).

Every figure is written twice: as a decimal, for spreadsheets, and as an exact fraction
(``numerator/denominator``), for checking.
"""

from __future__ import annotations

import csv
from fractions import Fraction
from pathlib import Path

from feltlab.analysis.report_text import decimal
from feltlab.core.model import ParSheet, WagerAnalysis

LINE_COLUMNS = ("label", "key", "net", "count", "probability", "probability_exact",
                "contribution", "contribution_exact", "wagered")
SUMMARY_COLUMNS = ("wager", "title", "total_deals", "house_edge", "house_edge_exact",
                   "hit_frequency", "hit_frequency_exact", "std_dev", "element_of_risk",
                   "element_of_risk_exact", "average_total_wager", "average_total_wager_exact")
SUMMARY_FILE = "summary.csv"
STRATEGY_FILE = "strategy.csv"
STRATEGY_COLUMNS = ("hands", "decision", "share", "share_exact")


def wager_file_name(wager: WagerAnalysis) -> str:
    return f"{wager.name}.csv"


def _fraction(value: Fraction | int) -> str:
    return str(Fraction(value))


def line_rows(wager: WagerAnalysis) -> list[dict[str, str]]:
    rows = []
    for line in wager.lines:
        probability, contribution = wager.probability(line), wager.contribution(line)
        rows.append({"label": line.label, "key": "" if line.key is None else str(line.key),
                     "net": _fraction(line.net), "count": str(line.count),
                     "probability": decimal(probability, 15),
                     "probability_exact": _fraction(probability),
                     "contribution": decimal(contribution, 15),
                     "contribution_exact": _fraction(contribution),
                     "wagered": _fraction(line.wagered)})
    return rows


def summary_row(wager: WagerAnalysis) -> dict[str, str]:
    row = {"wager": wager.name, "title": wager.title, "total_deals": str(wager.total),
           "house_edge": decimal(wager.house_edge, 15),
           "house_edge_exact": _fraction(wager.house_edge),
           "hit_frequency": decimal(wager.hit_frequency, 15),
           "hit_frequency_exact": _fraction(wager.hit_frequency),
           "std_dev": repr(wager.std_dev),
           "element_of_risk": decimal(wager.element_of_risk, 15),
           "element_of_risk_exact": _fraction(wager.element_of_risk),
           "average_total_wager": "", "average_total_wager_exact": ""}
    if wager.decisions:
        row.update({"average_total_wager": decimal(wager.average_total_wager, 15),
                    "average_total_wager_exact": _fraction(wager.average_total_wager)})
    return row


def strategy_rows(sheet: ParSheet) -> list[dict[str, str]]:
    return [{"hands": group, "decision": decision, "share": decimal(share, 15),
             "share_exact": _fraction(share)} for group, decision, share in sheet.strategy_map]


def _write(path: Path, columns: tuple[str, ...], rows: list[dict[str, str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)


def write_csv(sheet: ParSheet, folder: Path) -> list[Path]:
    """Write ``summary.csv``, one ``<wager>.csv`` per wager and, when the sheet has a
    strategy map, ``strategy.csv`` into ``folder`` (created if needed); return the paths
    written, summary first."""
    folder.mkdir(parents=True, exist_ok=True)
    summary = folder / SUMMARY_FILE
    _write(summary, SUMMARY_COLUMNS, [summary_row(wager) for wager in sheet.wagers])
    written = [summary]
    for wager in sheet.wagers:
        path = folder / wager_file_name(wager)
        _write(path, LINE_COLUMNS, line_rows(wager))
        written.append(path)
    if sheet.strategy_map:
        path = folder / STRATEGY_FILE
        _write(path, STRATEGY_COLUMNS, strategy_rows(sheet))
        written.append(path)
    return written
