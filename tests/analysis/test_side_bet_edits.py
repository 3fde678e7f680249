"""A side bet's pays do not change the main game's strategy, so an edit of one re-solves
nothing, in any process: what the optimal strategy decides is kept in the derived-data
cache beside the process's memo. Counted in a fresh process (as a new server worker or a
designer's own process is) once this one has filled the cache: analysing every built-in
rule set and every side-bet pay edit runs no solver, counts nothing afresh and stores
nothing; and the figures are the same as this process's."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from feltlab.analysis import analyze
from feltlab.analysis.paytable import pay_table, with_pay_table
from feltlab.core.rules import Rules, load_rules
from feltlab.games.high_card_flush import analysis as flush
from feltlab.games.holdem_stud import analysis as stud
from feltlab.games.nine_card_flush import analysis as nine
from shipped import own_ids


def side_bet_edits(rules: Rules) -> list[Rules]:
    """Each line of each side bet's pay table paid one more."""
    edits = []
    for wager in rules.pay_table_fields():
        if wager == rules.main_wager or wager not in rules.limits:
            continue
        table = pay_table(rules, wager)
        edits += [with_pay_table(rules, wager, {**table, line: pay + 1})
                  for line, pay in table.items() if isinstance(pay, int)]
    return edits


PROBE = """
import json, sys
import feltlab.core.cache as derived
from feltlab.analysis import analyze
from feltlab.core.rules import load_rules
from feltlab.games.high_card_flush import analysis as flush
from feltlab.games.holdem_stud import analysis as stud
from feltlab.games.nine_card_flush import analysis as nine
from shipped import own_ids
from analysis.test_side_bet_edits import side_bet_edits

seen = {"solved": [], "stored": []}

def counted(kind, function, name):
    def wrapper(*args, **kwargs):
        seen[kind].append(name)
        return function(*args, **kwargs)
    return wrapper

stud.solution_for = counted("solved", stud.solution_for, "Hold'em Stud solution")
stud.three_card_hands = counted("solved", stud.three_card_hands, "3 Card Bonus count")
nine.optimal_plays = counted("solved", nine.optimal_plays, "9 Card Flush plays")
flush.optimal_decisions = counted("solved", flush.optimal_decisions, "flush decisions")
derived.store = counted("stored", derived.store, "a derived-data entry")
sheets = {}
for rules_id in own_ids():
    rules = load_rules(rules_id)
    sheets[rules_id] = [analyze(each).to_json() for each in [rules, *side_bet_edits(rules)]]
print(json.dumps({**seen, "sheets": sheets}))
"""


def test_a_fresh_process_answers_side_bet_edits_without_solving() -> None:
    for memo in (flush._strategy_parts, stud._strategy_parts, nine._strategy_parts):
        memo.clear()  # built again here: read from the cache, or solved and stored there
    here = {}
    for rules_id in own_ids():
        rules = load_rules(rules_id)
        here[rules_id] = [analyze(each).to_json() for each in [rules, *side_bet_edits(rules)]]
    tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.pathsep.join([tests, os.environ.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", PROBE], env={**os.environ, "PYTHONPATH": path},
                          capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    fresh = json.loads(done.stdout.strip().splitlines()[-1])
    assert fresh["solved"] == [], "a fresh process solved the main game again"
    assert fresh["stored"] == [], "a fresh process derived data the cache had"
    assert sum(len(sheets) for sheets in here.values()) > 5 + 10
    assert fresh["sheets"] == json.loads(json.dumps(here))
