"""The one CSV writer (feltlab.core.csvsafe): a text cell that a spreadsheet would run as
a formula is written behind a single quote; a number, negative too, is written as a
number whatever its type."""

from __future__ import annotations

import csv
import io
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

from feltlab.core.csvsafe import csv_text, spreadsheet_safe, write_csv_file


def test_text_that_starts_a_formula_is_quoted() -> None:
    assert [spreadsheet_safe(cell) for cell in ("=1+1", "+1", "-1", "-2-3", "@SUM(A1)",
                                                "\tx", "\rx", "EUR", "a-b", "")] == [
        "'=1+1", "'+1", "'-1", "'-2-3", "'@SUM(A1)", "'\tx", "'\rx", "EUR", "a-b", ""]


def test_numbers_stay_numbers_and_text_does_not() -> None:
    rows = [["name", "int", "fraction", "float", "decimal", "flag", "none"],
            ["-2-3", -5, Fraction(-1, 3), -0.25, Decimal("-0.125"), False, None]]
    assert list(csv.reader(io.StringIO(csv_text(rows))))[1] == [
        "'-2-3", "-5", "-1/3", "-0.25", "-0.125", "false", ""]


def test_a_file_is_written_with_the_same_rule(tmp_path: Path) -> None:
    path = tmp_path / "out.csv"
    write_csv_file(path, [["label", "net"], ["=cmd|' /C calc'!A0", -1]])
    assert path.read_bytes() == b"label,net\r\n'=cmd|' /C calc'!A0,-1\r\n"
