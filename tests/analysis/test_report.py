"""The PAR-sheet reports: terminal text, HTML (parsed, and rendered in headless Chromium),
CSV. Built on a ParSheet whose Flush-bonus counts are the real 7-card counts, computed
here independently from the suit splits, and whose main game is fake but exact."""

from __future__ import annotations

import csv
import os
import re
import shutil
import subprocess
from collections import Counter
from dataclasses import replace
from fractions import Fraction
from functools import cache
from html.parser import HTMLParser
from itertools import product
from math import comb, prod
from pathlib import Path

import pytest
from rich.console import Console

from feltlab.analysis.report_csv import write_csv
from feltlab.analysis.report_html import render_html
from feltlab.analysis.report_text import (
    capped_table,
    decimal,
    par_sheet_renderable,
    percent,
    probability_text,
)
from feltlab.core.model import OutcomeLine, ParSheet, StrategyCard, WagerAnalysis
from feltlab.core.rules import load_rules

SEVEN_CARD_HANDS = comb(52, 7)


@cache
def longest_suit_counts() -> Counter[int]:
    """Number of 7-card hands by the length of their longest suit, from the suit splits."""
    counts: Counter[int] = Counter()
    for split in product(range(8), repeat=4):
        if sum(split) == 7:
            counts[max(split)] += prod(comb(13, size) for size in split)
    return counts


def flush_bonus_wager(pays: dict[int, int] | None = None) -> WagerAnalysis:
    table = pays if pays is not None else load_rules("high-card-flush").flush_pays
    counts = longest_suit_counts()
    lines = [OutcomeLine(f"{length}-card flush", table[length], counts[length], key=length)
             for length in sorted(table, reverse=True)]
    losing = sum(count for length, count in counts.items() if length not in table)
    lines.append(OutcomeLine("lose", -1, losing))
    return WagerAnalysis("flush", "Flush bonus", tuple(lines), SEVEN_CARD_HANDS)


def fake_main_game() -> WagerAnalysis:
    """A fake Ante with raises: exact counts adding up to a million deals."""
    lines = (OutcomeLine("fold", -1, 380_000, 1),
             OutcomeLine("raise 1x, dealer does not qualify", 1, 120_000, 2),
             OutcomeLine("raise 1x, win", 2, 230_000, 2),
             OutcomeLine("raise 1x, push", 0, 10_000, 2),
             OutcomeLine("raise 1x, lose", -2, 200_000, 2),
             OutcomeLine("raise 3x, win", 4, 40_000, 4),
             OutcomeLine("raise 3x, lose", -4, 20_000, 4))
    return WagerAnalysis("ante", "Ante and Raise", lines, 1_000_000,
                         rates={"raise_rate": Fraction(62, 100),
                                "dealer_qualifies": Fraction(7, 10)},
                         decisions=True)


def fake_sheet() -> ParSheet:
    card = StrategyCard(("Raise any 4-card flush", "Raise 3x with 6 or more suited cards"),
                        Fraction(3, 100), Fraction(29, 1000))
    strategy_map = (("2-card flush", "fold", Fraction(1, 10)),
                    ("3-card flush", "fold", Fraction(28, 100)),
                    ("3-card flush", "raise 1x", Fraction(12, 100)),
                    ("4-card flush", "raise 1x", Fraction(40, 100)),
                    ("6-card flush", "raise 3x", Fraction(6, 100)))
    return ParSheet("high-card-flush", "High Card Flush", (fake_main_game(), flush_bonus_wager()),
                    card, strategy_map, notes=("Fake figures for the report tests.",))


# The data itself -------------------------------------------------------------------------

def test_longest_suit_counts_match_closed_forms() -> None:
    counts = longest_suit_counts()
    assert sum(counts.values()) == SEVEN_CARD_HANDS
    assert counts[7] == 4 * comb(13, 7)
    assert counts[6] == 4 * comb(13, 6) * 39
    # a 5-card suit with the other two cards from other suits (they cannot form 5 more)
    assert counts[5] == 4 * comb(13, 5) * comb(39, 2)


def test_flush_bonus_figures_by_hand() -> None:
    wager = flush_bonus_wager({7: 300, 6: 100, 5: 10, 4: 1})
    counts = longest_suit_counts()
    won = 300 * counts[7] + 100 * counts[6] + 10 * counts[5] + counts[4]
    lost = counts[2] + counts[3]
    assert wager.house_edge == Fraction(lost - won, SEVEN_CARD_HANDS)
    assert wager.hit_frequency == Fraction(counts[4] + counts[5] + counts[6] + counts[7],
                                           SEVEN_CARD_HANDS)


# Formatting ------------------------------------------------------------------------------

def test_number_formats_are_exactly_rounded() -> None:
    assert decimal(Fraction(1, 8), 2) == "0.12"  # half-even
    assert decimal(Fraction(3, 8), 2) == "0.38"
    assert decimal(Fraction(-1, 10**9), 3) == "0.000"
    assert percent(Fraction(1, 3), 2) == "33.33%"
    assert probability_text(Fraction(6864, SEVEN_CARD_HANDS)) == "0.0000513064"


# Terminal --------------------------------------------------------------------------------

def render_text(renderable: object, width: int = 140) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def test_terminal_report_shows_every_figure() -> None:
    sheet = fake_sheet()
    text = render_text(par_sheet_renderable(sheet))
    flush = sheet.wager("flush")
    counts = longest_suit_counts()
    assert f"{counts[4]:,}" in text and f"{SEVEN_CARD_HANDS:,}" in text
    assert "300 to 1" in text and "lose" in text
    assert percent(flush.house_edge) in text
    ante = sheet.wager("ante")
    # the fake Ante nets -380k + 120k + 460k - 400k + 160k - 80k = -120k on a million
    # deals, with 380k x 1 + 560k x 2 + 60k x 4 = 1.74M wagered
    assert ante.house_edge == Fraction(12, 100)
    assert ante.average_total_wager == Fraction(174, 100)
    assert percent(ante.element_of_risk) == "6.8966%"  # 0.12 / 1.74
    for label in ("Element of risk", "Average total wager", "Raise rate", "Dealer qualifies",
                  "Strategy card", "Raise any 4-card flush", "cost", "Notes"):
        assert label in text
    assert "1.7400 units" in text
    assert "62.0000%" in text and "0.1000%" in text  # raise rate; cost of the card


def test_capped_table_puts_both_edges_side_by_side() -> None:
    sheet = fake_sheet()
    capped = {"ante": Fraction(1, 100), "flush": Fraction(5, 100), "total": Fraction(2, 100)}
    text = render_text(capped_table(sheet, {"ante": 10, "flush": 10}, capped, 2000))
    flush = sheet.wager("flush")
    assert "cap 2,000 a hand" in text
    assert percent(flush.house_edge) in text and "5.0000%" in text
    # total without the cap: the bet-weighted mean of the two edges
    assert percent((sheet.wager("ante").house_edge + flush.house_edge) / 2) in text


# HTML ------------------------------------------------------------------------------------

class Outline(HTMLParser):
    """Tables, figures, cells and every resource reference of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: Counter[str] = Counter()
        self.cells: list[str] = []
        self.references: list[str] = []
        self.svg_ids: list[str] = []
        self._in_cell = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] += 1
        self._in_cell = tag in ("td", "th")
        if self._in_cell:
            self.cells.append("")
        for name, value in attrs:
            if name in ("src", "href", "xlink:href") and value and not value.startswith("#"):
                self.references.append(value)
            if name == "id" and value and self.tags["svg"]:
                self.svg_ids.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th"):
            self._in_cell = False

    def handle_data(self, data: str) -> None:
        if self._in_cell:
            self.cells[-1] += data


def test_html_report_has_the_tables_figures_and_numbers() -> None:
    sheet = fake_sheet()
    page = render_html(sheet)
    outline = Outline()
    outline.feed(page)
    # overview, per wager a return table and a figures table, strategy card, strategy map
    assert outline.tags["table"] == 1 + 2 * len(sheet.wagers) + 2
    assert outline.tags["figure"] == 2 * len(sheet.wagers) + 1
    assert outline.tags["svg"] == outline.tags["figure"]
    assert outline.references == []  # nothing loaded from anywhere
    assert "<link" not in page and "<script" not in page and "<img" not in page
    assert len(outline.svg_ids) == len(set(outline.svg_ids))  # charts do not clash
    flush = sheet.wager("flush")
    counts = longest_suit_counts()
    for text in (f"{counts[7]:,}", f"{SEVEN_CARD_HANDS:,}", percent(flush.house_edge),
                 probability_text(Fraction(counts[7], SEVEN_CARD_HANDS)), "300 to 1",
                 "Element of risk", "1.7400 units", "62.0000%"):
        assert text in outline.cells, text
    assert "@media print" in page and "break-before: page" in page


def test_html_report_with_the_cap_section() -> None:
    sheet = fake_sheet()
    page = render_html(sheet, {"ante": Fraction(1, 50), "total": Fraction(1, 40)},
                       {"ante": 5}, 25000)
    outline = Outline()
    outline.feed(page)
    assert "maximum aggregate payout 25,000 a hand" in page
    assert "2.5000%" in outline.cells and "2.0000%" in outline.cells


CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium"
                                         if Path("/usr/bin/chromium").exists() else None)


def chromium(tmp_path: Path, *arguments: str) -> None:
    command = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu",
               "--disable-background-networking", "--disable-component-update",
               "--disable-sync", "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}",
               *arguments]
    subprocess.run(command, check=True, capture_output=True, timeout=120)


@pytest.mark.skipif(CHROMIUM is None and not os.environ.get("FELTLAB_REQUIRE_CHROMIUM"),
                    reason="chromium is not installed (CI installs it and requires it)")
def test_html_report_renders_in_chromium(tmp_path: Path) -> None:
    assert CHROMIUM is not None, "FELTLAB_REQUIRE_CHROMIUM is set but chromium is missing"
    page = tmp_path / "report.html"
    page.write_text(render_html(fake_sheet()), encoding="utf-8")
    screenshot, pdf = tmp_path / "report.png", tmp_path / "report.pdf"
    chromium(tmp_path, f"--screenshot={screenshot}", "--window-size=1200,2000",
             page.as_uri())
    chromium(tmp_path, "--no-pdf-header-footer", f"--print-to-pdf={pdf}", page.as_uri())
    png = screenshot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 50_000
    document = pdf.read_bytes()
    assert document.startswith(b"%PDF")
    # the print stylesheet starts each wager on a new page: more pages than wagers
    pages = len(re.findall(rb"/Type\s*/Page[^s]", document))
    assert pages >= 1 + len(fake_sheet().wagers)


# CSV -------------------------------------------------------------------------------------

def test_csv_files_carry_exact_counts_and_fractions(tmp_path: Path) -> None:
    sheet = fake_sheet()
    written = write_csv(sheet, tmp_path / "out")
    assert [path.name for path in written] == ["summary.csv", "ante.csv", "flush.csv",
                                               "strategy.csv"]
    with (tmp_path / "out" / "flush.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    counts = longest_suit_counts()
    assert [int(row["count"]) for row in rows] == [counts[7], counts[6], counts[5], counts[4],
                                                   counts[2] + counts[3]]
    assert rows[0]["key"] == "7" and rows[0]["net"] == "300"
    assert sum(Fraction(row["contribution_exact"]) for row in rows) == -sheet.wager(
        "flush").house_edge
    with (tmp_path / "out" / "summary.csv").open(newline="") as handle:
        summary = {row["wager"]: row for row in csv.DictReader(handle)}
    assert Fraction(summary["flush"]["house_edge_exact"]) == sheet.wager("flush").house_edge
    assert Fraction(summary["flush"]["element_of_risk_exact"]) == sheet.wager("flush").house_edge
    assert summary["flush"]["average_total_wager"] == ""
    assert Fraction(summary["ante"]["average_total_wager_exact"]) == Fraction(174, 100)


def test_csv_text_cannot_start_a_formula_and_negative_figures_stay_numbers(tmp_path: Path
                                                                          ) -> None:
    """A title, label or hand group that starts as a formula is written behind a single
    quote; the losing line's net (-1), its contribution and the edge stay numbers."""
    sheet = fake_sheet()
    flush = sheet.wager("flush")
    hostile = replace(flush, title="=HYPERLINK(\"http://x\")", lines=tuple(
        replace(line, label="-2-3") if line.net == -1 else line for line in flush.lines))
    sheet = replace(sheet, wagers=(sheet.wagers[0], hostile),
                    strategy_map=(("+1 flush", "fold", Fraction(1)),))
    write_csv(sheet, tmp_path)
    with (tmp_path / "summary.csv").open(newline="") as handle:
        summary = {row["wager"]: row for row in csv.DictReader(handle)}
    assert summary["flush"]["title"] == "'=HYPERLINK(\"http://x\")"
    assert Fraction(summary["flush"]["house_edge_exact"]) == flush.house_edge
    with (tmp_path / "flush.csv").open(newline="") as handle:
        losing = [row for row in csv.DictReader(handle) if row["net"] == "-1"]
    assert [row["label"] for row in losing] == ["'-2-3"]
    assert losing[0]["contribution"].startswith("-0.") and losing[0]["contribution_exact"][0] == "-"
    with (tmp_path / "strategy.csv").open(newline="") as handle:
        assert [row["hands"] for row in csv.DictReader(handle)] == ["'+1 flush"]


def test_a_long_strategy_map_is_merged_for_the_chart() -> None:
    from feltlab.analysis.charts import merged_strategy_map, strategy_chart

    groups = [(f"3rd street: hand {i}", "fold" if i % 3 else "raise", Fraction(1, 300))
              for i in range(100)]
    groups.append(("4th street: anything", "raise", Fraction(2, 3)))
    merged, was_merged = merged_strategy_map(groups)
    assert was_merged
    assert sorted(merged) == [("3rd street", "fold", Fraction(66, 100)),
                              ("3rd street", "raise", Fraction(34, 100)),
                              ("4th street", "raise", Fraction(1))]
    sheet = ParSheet("x", "X", (flush_bonus_wager(),), strategy_map=tuple(groups))
    chart = strategy_chart(sheet)
    assert chart is not None and "hand groups merged" in chart


def test_every_wager_shows_its_element_of_risk() -> None:
    """A bonus wager's element of risk is its house edge (one unit wagered, nothing
    added by a decision): every report shows it beside the main game's."""
    sheet = fake_sheet()
    flush = sheet.wager("flush")
    assert flush.element_of_risk == flush.house_edge
    text = render_text(par_sheet_renderable(sheet))
    assert text.count("Element of risk") == len(sheet.wagers)
    overview = re.search(r'<table class="overview">.*?</table>', render_html(sheet), re.S)
    assert overview is not None
    assert overview.group(0).count(percent(flush.house_edge)) == 2  # edge and element of risk
    assert sheet.to_json()["wagers"][1]["element_of_risk"] == float(flush.house_edge)


def test_html_report_shows_one_minus_sign() -> None:
    """Every negative figure of the HTML report (tables and chart titles) has the minus
    sign U+2212, as the site's pages do; the terminal and CSV keep the hyphen-minus."""
    page = render_html(fake_sheet())
    outline = Outline()
    outline.feed(page)
    numbers = [cell for cell in outline.cells if re.fullmatch(r"[-+\u2212]?[\d,.]+%?", cell)]
    assert [cell for cell in numbers if cell.startswith("\u2212")], numbers
    assert not [cell for cell in numbers if cell.startswith("-")], numbers
    assert not re.search(r"(?<![\w#-])-\d", re.sub(r"<svg.*?</svg>", "", page, flags=re.S))
    assert "(total \u2212" in page or "(total +" in page
    assert not re.search(r"\(total -\d", page)
    assert re.search(r" -\d", render_text(par_sheet_renderable(fake_sheet())))
