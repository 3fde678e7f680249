"""The toy game (``tests/toy_game``, installed from outside feltlab) dealt at a practice
table through API v1: its own decision kind (pull back half the Ante) offered, taken,
logged and settled; another game's kind is a 409 at its table, a malformed one a 422;
the round verifies like any other."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from feltlab.core.registry import builtin_text
from feltlab.server.verify import verify_round
from server.conftest import balances, practice_table, sign_up

RULES = "toy-pull-back"
ANTE = 10


def _opened(client: TestClient, headers: dict[str, str]) -> dict[str, Any]:
    table = practice_table(client, headers, RULES)
    answer = client.post(f"/api/v1/tables/{table}/rounds", json={"wagers": {"ante": ANTE}},
                         headers=headers)
    assert answer.status_code == 201, answer.text
    view: dict[str, Any] = answer.json()
    return view


def test_pulling_back_half_the_ante_at_a_practice_table(client: TestClient) -> None:
    headers = sign_up(client)
    before = balances(client, headers)["practice"]
    view = _opened(client, headers)
    assert view["phase"] == "decisions"
    assert {"action": "pull_back"} in view["options"]
    assert {"action": "fold"} in view["options"]
    answer = client.post(f"/api/v1/rounds/{view['id']}/actions",
                         json={"action": "pull_back"}, headers=headers)
    assert answer.status_code == 200, answer.text
    done = answer.json()
    assert done["phase"] == "complete"
    assert done["total"] == -ANTE // 2  # half the Ante back with the settlement
    assert {"type": "PullBack", "seat": 1} in done["log"]
    assert balances(client, headers)["practice"] == before - ANTE // 2
    verify_round(client.get(f"/api/v1/rounds/{view['id']}", headers=headers).json())


def test_another_games_decision_is_a_conflict_and_a_bad_one_refused(
        client: TestClient) -> None:
    headers = sign_up(client)
    view = _opened(client, headers)
    act = f"/api/v1/rounds/{view['id']}/actions"
    raised = client.post(act, json={"action": "raise", "amount": ANTE}, headers=headers)
    assert raised.status_code == 409, raised.text
    assert "toy-pull-back has no 'raise' decision" in raised.json()["detail"]
    priced = client.post(act, json={"action": "pull_back", "amount": 3}, headers=headers)
    assert priced.status_code == 422, priced.text
    assert "takes no amount" in priced.json()["detail"]
    unknown = client.post(act, json={"action": "surrender"}, headers=headers)
    assert unknown.status_code == 422, unknown.text  # no installed game has it: the schema
    played = client.post(act, json={"action": "play"}, headers=headers)
    assert played.status_code == 200, played.text
    assert played.json()["phase"] == "complete"


def test_the_schema_lists_the_installed_games_decisions(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    action = schema["components"]["schemas"]["ActionRequest"]["properties"]["action"]
    assert set(action["enum"]) == {"fold", "raise", "play", "bet", "pull_back"}
    assert "Pull back half" in action["description"]


def test_the_designer_gives_the_toy_an_estimated_sheet(client: TestClient) -> None:
    """A game without exact math: the designer's sheet is a labelled estimate, each
    wager's house edge with its standard error (the route's model holds them)."""
    headers = sign_up(client)
    answer = client.post("/api/v1/designer/par", json={"rules": builtin_text(RULES)},
                         headers=headers)
    assert answer.status_code == 200, answer.text
    sheet = answer.json()
    assert sheet["estimate"]["method"] == "monte carlo"
    assert sheet["estimate"]["rounds"] >= 1000
    ante = next(wager for wager in sheet["wagers"] if wager["name"] == "ante")
    assert 0 < ante["std_error"] == sheet["estimate"]["std_errors"]["ante"]
    assert "estimate" in sheet["notes"][0].lower()
