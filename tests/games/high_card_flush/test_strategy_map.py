"""The PAR sheet's strategy table names every row by the hands it holds, in every report
format: where a hand group has several optimal decisions it is split at the strategy
card's hand (3-card flushes high card T: T-8-6 or better, below T-8-6) and each split's
rows say which hands they hold."""

from __future__ import annotations

import csv
import io
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from rich.console import Console

from feltlab.analysis.report_csv import STRATEGY_FILE, write_csv
from feltlab.analysis.report_html import render_html
from feltlab.analysis.report_text import par_sheet_renderable
from feltlab.core.evaluators import flush_value_of
from feltlab.core.model import ParSheet, name_splits
from feltlab.core.rules import load_rules
from feltlab.games.high_card_flush import analysis as flush
from feltlab.games.high_card_flush import counting as fk
from feltlab.games.high_card_flush.cells import qualifier_cells
from feltlab.games.high_card_flush.decisions import optimal_decision_table
from feltlab.games.high_card_flush.rules import FlushRules

T_GROUP = "3-card flush, high card T"
BETTER, BELOW = f"{T_GROUP}: T-8-6 or better", f"{T_GROUP}: below T-8-6"


def owner_rules() -> FlushRules:
    rules = load_rules("high-card-flush")
    assert isinstance(rules, FlushRules)
    return rules


@pytest.fixture(scope="module")
def sheet() -> ParSheet:
    return flush.analyze(owner_rules())


def test_no_two_rows_share_a_name(sheet: ParSheet) -> None:
    counts = Counter(row[0] for row in sheet.strategy_map)
    assert [label for label, count in counts.items() if count > 1] == []
    assert sum(row[2] for row in sheet.strategy_map) == 1


def test_the_t_high_group_is_split_at_the_strategy_cards_hand(sheet: ParSheet) -> None:
    rows = {row[0]: row for row in sheet.strategy_map if row[0].startswith(T_GROUP)}
    assert sorted(rows) == sorted([
        f"{BELOW}, most hands", f"{BELOW}, when the other 4 cards favour raise 1x",
        f"{BETTER}, most hands", f"{BETTER}, when the other 4 cards favour fold"])
    assert rows[f"{BELOW}, most hands"][1] == "fold"
    assert rows[f"{BETTER}, most hands"][1] == "raise 1x"
    assert sheet.strategy_card is not None
    assert "Raise a 3-card flush of T-8-6 or better (1x)." in sheet.strategy_card.lines


def test_each_split_holds_exactly_its_hands(sheet: ParSheet) -> None:
    """The shares, from the strategy map, against hand counts taken straight from the
    enumeration's cells by flush value and the optimal decision table."""
    rules = owner_rules()
    cells = qualifier_cells(rules)
    hands = cells[..., fk.HANDS].sum(axis=(1, 2))  # by value
    threshold = flush_value_of(3, (8, 6, 4))
    lowest_t, lowest_j = flush_value_of(3, (8, 1, 0)), flush_value_of(3, (9, 1, 0))
    values = [int(value) for value in fk.VALUES]
    below = sum(int(hands[i]) for i, v in enumerate(values) if lowest_t <= v < threshold)
    better = sum(int(hands[i]) for i, v in enumerate(values) if threshold <= v < lowest_j)
    shares = {part: sum((row[2] for row in sheet.strategy_map if row[0].startswith(part)),
                        Fraction(0)) for part in (BELOW, BETTER)}
    assert shares == {BELOW: Fraction(below, fk.PLAYER_HANDS),
                      BETTER: Fraction(better, fk.PLAYER_HANDS)}
    table = optimal_decision_table(rules)
    t_values = [v for v in values if lowest_t <= v < lowest_j]
    assert set(table.exceptions) >= set(t_values)  # why a T-high hand's name cannot decide


def test_every_report_format_names_the_splits(sheet: ParSheet, tmp_path: Path) -> None:
    expected = [row[0] for row in sheet.strategy_map]
    console = Console(file=io.StringIO(), width=200)
    console.print(par_sheet_renderable(sheet))
    text = console.file.getvalue()
    html = render_html(sheet)
    write_csv(sheet, tmp_path)
    with (tmp_path / STRATEGY_FILE).open(newline="", encoding="utf-8") as handle:
        table = list(csv.DictReader(handle))
    assert [row["hands"] for row in table] == expected
    assert [Fraction(row["share_exact"]) for row in table] == [r[2] for r in sheet.strategy_map]
    assert [row["hands"] for row in sheet.to_json()["strategy_map"]] == expected
    for label in expected:
        assert label in text and label in html


def test_name_splits_says_the_rest_when_no_decision_holds_most() -> None:
    rows = name_splits([("g", "fold", Fraction(2, 5)), ("g", "1x", Fraction(3, 10)),
                        ("g", "3x", Fraction(3, 10))], lambda group: "other cards")
    assert [row[0] for row in rows] == ["g, the rest", "g, when the other cards favour 1x",
                                        "g, when the other cards favour 3x"]


def test_the_chart_shows_each_split_as_one_bar_of_its_decisions(sheet: ParSheet) -> None:
    from feltlab.analysis.charts import whole_groups

    bars = whole_groups(sheet.strategy_map)
    of_part = {decision: share for group, decision, share in bars if group == BELOW}
    assert set(of_part) == {"fold", "raise 1x"}
    assert sum(share for _, _, share in bars) == 1
    # 2-card, 3-card by high card 4 to A with T cut in two, 4- to 7-card: 1 + 12 + 4 bars
    assert len({group for group, _, _ in bars}) == 17


@pytest.mark.parametrize("rules_id", ["high-card-flush-toledo", "nh-flush-poker"])
def test_every_flush_rule_set_names_its_rows_apart(rules_id: str) -> None:
    rules = load_rules(rules_id)
    assert isinstance(rules, FlushRules)
    rows = flush.analyze(rules).strategy_map
    labels = [row[0] for row in rows]
    assert len(labels) == len(set(labels)) and f"{BETTER}, most hands" in labels
