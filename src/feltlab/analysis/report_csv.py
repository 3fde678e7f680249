"""The PAR sheet as CSV files: one per wager (its return table), a summary, and the
optimal strategy by hand (``strategy.csv``, each row named by the hands it holds).

Every figure is written twice: as a decimal, for spreadsheets, and as an exact fraction
(``numerator/denominator``), for checking; figures as numbers, names and labels as text a
spreadsheet will not run (:mod:`feltlab.core.csvsafe`).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from feltlab.analysis.report_text import rounded
from feltlab.core.csvsafe import Cell, write_csv_file
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


def line_rows(wager: WagerAnalysis) -> list[dict[str, Cell]]:
    rows: list[dict[str, Cell]] = []
    for line in wager.lines:
        probability, contribution = wager.probability(line), wager.contribution(line)
        rows.append({"label": line.label, "key": line.key,
                     "net": Fraction(line.net), "count": line.count,
                     "probability": rounded(probability, 15),
                     "probability_exact": Fraction(probability),
                     "contribution": rounded(contribution, 15),
                     "contribution_exact": Fraction(contribution),
                     "wagered": Fraction(line.wagered)})
    return rows


def summary_row(wager: WagerAnalysis) -> dict[str, Cell]:
    row: dict[str, Cell] = {
        "wager": wager.name, "title": wager.title, "total_deals": wager.total,
        "house_edge": rounded(wager.house_edge, 15),
        "house_edge_exact": Fraction(wager.house_edge),
        "hit_frequency": rounded(wager.hit_frequency, 15),
        "hit_frequency_exact": Fraction(wager.hit_frequency),
        "std_dev": wager.std_dev,
        "element_of_risk": rounded(wager.element_of_risk, 15),
        "element_of_risk_exact": Fraction(wager.element_of_risk),
        "average_total_wager": None, "average_total_wager_exact": None}
    if wager.decisions:
        row.update({"average_total_wager": rounded(wager.average_total_wager, 15),
                    "average_total_wager_exact": Fraction(wager.average_total_wager)})
    return row


def strategy_rows(sheet: ParSheet) -> list[dict[str, Cell]]:
    return [{"hands": group, "decision": decision, "share": rounded(share, 15),
             "share_exact": Fraction(share)} for group, decision, share in sheet.strategy_map]


def _write(path: Path, columns: tuple[str, ...], rows: list[dict[str, Cell]]) -> None:
    write_csv_file(path, [columns, *([row[column] for column in columns] for row in rows)])


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
