"""The figures the README shows are the program's: every house edge in its table is
recomputed here by the exact analysis."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from feltlab.analysis import analyze
from feltlab.core.model import ParSheet
from feltlab.core.rules import load_rules

README = Path(__file__).resolve().parent.parent / "README.md"
MAIN_WAGER = {"nine-card-flush": "all9"}
SIDE_TITLES = {"Flush": "flush", "Straight Flush": "straight_flush", "9 Card Bonus": "bonus9",
               "Player 6": "player6", "First 3": "first3", "3 Card Bonus": "bonus3"}


def readme_rows() -> dict[str, list[str]]:
    rows = {}
    for line in README.read_text("utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) == 4 and cells[1].endswith("%") and re.fullmatch(r"[a-z0-9-]+", cells[0]):
            rows[cells[0]] = cells[1:]
    return rows


def percent(value: Fraction) -> str:
    return f"{float(value) * 100:.4f}%"


def test_the_table_lists_every_built_in_rule_set() -> None:
    assert sorted(readme_rows()) == sorted(
        ["high-card-flush", "high-card-flush-toledo", "nh-flush-poker", "nine-card-flush",
         "nh-holdem-stud"])


@pytest.mark.parametrize("rules_id", sorted(readme_rows()))
def test_readme_house_edges_are_the_analysis(rules_id: str) -> None:
    edge, risk, sides = readme_rows()[rules_id]
    sheet: ParSheet = analyze(load_rules(rules_id))
    main = sheet.wager(MAIN_WAGER.get(rules_id, "ante"))
    assert edge == percent(main.house_edge)
    assert risk == percent(main.element_of_risk)
    for side in sides.split(", "):
        title, figure = side.rsplit(" ", 1)
        assert figure == percent(sheet.wager(SIDE_TITLES[title]).house_edge), side


def test_the_readme_says_how_an_admin_is_made(tmp_path: Path) -> None:
    """The tour names ``feltlab admin create`` with its real options, and the command as
    written makes an admin (a fresh process, on an empty database)."""
    text = README.read_text("utf-8")
    usage = re.search(r"feltlab admin create NAME((?: \[--[a-z-]+(?: [A-Z]+)?\])+)", text)
    assert usage is not None, "the README does not say how to create an admin"
    written = re.findall(r"--[a-z-]+", usage.group(1))
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "feltlab", "admin", "create"]
    shown = subprocess.run([*command, "--help"], env=env, capture_output=True, text=True,
                           timeout=120, check=True).stdout
    assert sorted(written) == sorted(set(re.findall(r"--(?!help)[a-z-]+", shown))), shown
    database = f"sqlite:///{tmp_path / 'readme.sqlite3'}"
    made = subprocess.run([*command, "boss", "--database", database, "--password-stdin"],
                          env=env, input="correct horse battery\n", capture_output=True,
                          text=True, timeout=120, check=False)
    assert made.returncode == 0, made.stderr
    assert made.stdout.strip() == "admin boss created"
