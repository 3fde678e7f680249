"""Hold'em Stud's advisor reads its table (each row's sums over the next card, the last
street's final sums) from the derived-data cache: its option values are the solver's,
and with the cache filled a fresh process advises without solving or importing Numba."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from feltlab.analysis import advise
from feltlab.core.cards import Card, parse_cards
from feltlab.core.rules import load_rules
from feltlab.games.holdem_stud import advisor, solver
from feltlab.games.holdem_stud.rules import HoldemStudRules


def _variant(most: int) -> HoldemStudRules:
    rules = load_rules("nh-holdem-stud")
    assert isinstance(rules, HoldemStudRules)
    return rules.model_copy(update={"max_street_multiple": most})


@pytest.mark.parametrize("most", [3, 4])
def test_the_option_values_are_the_solvers(most: int) -> None:
    rules = _variant(most)
    solution = solver.solution_for(rules)
    table, shape = advisor.advisor_table(rules), solution.shape
    rng = np.random.default_rng(most)
    for level in range(shape.streets):
        sets = solver.all_sets(2 + level)
        for row in rng.choice(len(sets), 200, replace=False):
            cards = [int(card) for card in sets[row]]
            assert advisor.decision_row([Card(card) for card in cards]) == row
            for column in range(shape.width(level)):
                at_risk = shape.low(level) + column
                sums = table.option_sums(int(row), level, at_risk)
                options = [-shape.scale(level) * at_risk, *sums[1:]]
                best = max(range(shape.most, -1, -1), key=lambda bet: options[bet])
                assert solution.values[level][row, column] == options[best]
                assert solution.choices[level][row, column] == best


FRESH_PROCESS = """
import json, sys
from feltlab.analysis import advise
from feltlab.core.cards import parse_cards
from feltlab.core.rules import load_rules
from feltlab.games.holdem_stud import advisor
rules = load_rules("nh-holdem-stud")
answers = [advise(rules, parse_cards("Ah Kh")).to_json(),
           advise(rules, parse_cards("Ah Kh"), parse_cards("Qh"), bets=[3]).to_json(),
           advise(rules, parse_cards("7c 2d"), parse_cards("Qh 3s"), bets=[1, 1]).to_json()]
print(json.dumps({"numba": "numba" in sys.modules, "answers": answers}))
"""


def test_a_fresh_process_reads_the_table_and_never_solves(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("FELTLAB_NO_CACHE", raising=False)
    rules = load_rules("nh-holdem-stud")
    assert isinstance(rules, HoldemStudRules)
    advisor._tables.clear()
    advisor.advisor_table(rules)  # solved here (or by an earlier test): stored in tmp_path
    run = subprocess.run([sys.executable, "-c", FRESH_PROCESS], capture_output=True,
                         text=True, check=True, timeout=300)
    fresh = json.loads(run.stdout)
    assert fresh["numba"] is False
    here = [advise(rules, parse_cards("Ah Kh")).to_json(),
            advise(rules, parse_cards("Ah Kh"), parse_cards("Qh"), bets=[3]).to_json(),
            advise(rules, parse_cards("7c 2d"), parse_cards("Qh 3s"), bets=[1, 1]).to_json()]
    assert fresh["answers"] == json.loads(json.dumps(here))
