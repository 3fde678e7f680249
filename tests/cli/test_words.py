"""The commands' words, read in fresh processes as a user runs them: the advisor's EV
column is per unit of the rule set's main wager, named as the rules card names it; the
simulator's heading counts its seats in good English and its footer says the bets are
the table minimums when no --bets chose them."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def _feltlab(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "feltlab", *args], capture_output=True,
                          text=True, timeout=300, check=False,
                          env={**os.environ, "COLUMNS": "80"})
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize(("rules_id", "cards", "column"), [
    ("nine-card-flush", "Ah Kh Qh", "EV per All 9"),
    ("high-card-flush", "Th 8h 6h Js Ad Qd Jc", "EV per Ante")])
def test_the_advisor_names_its_unit(rules_id: str, cards: str, column: str) -> None:
    extra = ["--colour", "red"] if rules_id == "nine-card-flush" else []
    heading = next(line for line in _feltlab("advise", rules_id, cards, *extra).splitlines()
                   if "Option" in line)
    assert column in heading and "per ante" not in heading, heading


def test_the_simulators_heading_and_footer_say_what_was_dealt() -> None:
    one = " ".join(_feltlab("simulate", "nh-holdem-stud", "--hands", "2000").split())
    assert "2,000 rounds, 1 seat, strategy optimal" in one and "seat(s)" not in one
    assert "2 on Ante + 2 on 3 Card Bonus = 4 units, the minimum bets" in one, one
    two = " ".join(_feltlab("simulate", "nh-holdem-stud", "--hands", "2000", "--seats", "2",
                            "--bets", "ante=5,bonus3=2").split())
    assert "rounds, 2 seats, strategy" in two
    assert "5 on Ante + 2 on 3 Card Bonus = 7 units" in two and "minimum" not in two
