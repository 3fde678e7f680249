"""Rounds recorded before decisions became the games' data (issue 34) still verify.

``tests/data/rounds_before_issue34/`` holds complete rounds of every built-in rule set
as GET /api/v1/rounds/{id} answered them at commit 9b85eeb (a practice table; the
largest decision, a fold, and the smallest), written by that code. ``verify`` derives
every recorded field again from the seeds and the log with today's engine, so a pass
means today's code records the same JSON for those rounds, their logs included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from feltlab.core.engine import Decide, action_from_json, action_to_json
from feltlab.core.rules import builtin_ids
from feltlab.server.verify import verify_round
from server.cli_helpers import run_cli

RECORDED = Path(__file__).resolve().parent.parent / "data" / "rounds_before_issue34"
ROUNDS = sorted(RECORDED.glob("*.json"))


def test_every_built_in_rule_set_has_recorded_rounds() -> None:
    recorded = {path.name.rsplit("-", 1)[0] for path in ROUNDS}
    assert recorded == set(builtin_ids()) - {"toy-pull-back"}


@pytest.mark.parametrize("path", ROUNDS, ids=[path.stem for path in ROUNDS])
def test_a_round_recorded_before_verifies(path: Path) -> None:
    document = json.loads(path.read_text())
    verify_round(document)
    actions = [action_from_json(entry) for entry in document["log"]]
    assert [action_to_json(action) for action in actions] == document["log"]


def test_the_recorded_rounds_hold_every_kind_of_decision() -> None:
    kinds = {action.kind for path in ROUNDS for entry in json.loads(path.read_text())["log"]
             if isinstance(action := action_from_json(entry), Decide)}
    assert kinds == {"raise", "play", "bet"}


def test_the_verify_command_passes_a_round_recorded_before() -> None:
    code, out, err = run_cli(["verify", str(RECORDED / "nh-holdem-stud-biggest.json")])
    assert code == 0, err
    assert "verified" in out.lower() or "ok" in out.lower(), out
