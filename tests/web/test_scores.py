"""Trainer scores kept on the server per player and rule set (``feltlab.server.services.scores``):
the strategy trainer's verdicts and the dealer trainer's checks count when the page asks
(``"record": true``), exactly, and only for the caller."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from fastapi.testclient import TestClient

from feltlab.core.payout import settle_request

FOLD_COST = Fraction(40095947, 22689810)  # High Card Flush, fold with Ah Kh 2h 3s 5d 7c 9c
HAND = {"rules": "high-card-flush", "player": "Ah Kh 2h 3s 5d 7c 9c", "ante": 5}


def scores(client: TestClient, headers: dict[str, str]) -> dict[str, Any]:
    answer = client.get("/api/v1/me/trainer-scores", headers=headers)
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()
    return result


def judge(client: TestClient, headers: dict[str, str], chosen: dict[str, Any],
          record: bool = True) -> dict[str, Any]:
    answer = client.post("/api/v1/advice", headers=headers,
                         json={**HAND, "chosen": chosen, "record": record})
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()
    return result


def test_strategy_verdicts_add_up(client: TestClient, headers: dict[str, str]) -> None:
    assert scores(client, headers) == {"strategy": {}, "dealer": {}}
    fold = judge(client, headers, {"action": "fold"})
    assert Fraction(fold["verdict"]["cost_exact"]) == FOLD_COST
    assert fold["score"] == {"right": 0, "total": 1, "cost": round(FOLD_COST * 10**6) / 10**6}
    judge(client, headers, {"action": "fold"})
    raised = judge(client, headers, {"action": "raise", "amount": 5})
    expected_cost = 2 * round(FOLD_COST * 10**6) / 10**6  # each verdict kept in micro-units
    assert raised["score"] == {"right": 1, "total": 3, "cost": expected_cost}
    unrecorded = judge(client, headers, {"action": "fold"}, record=False)
    assert "score" not in unrecorded
    assert scores(client, headers)["strategy"] == {"high-card-flush": raised["score"]}
    no_choice = client.post("/api/v1/advice", headers=headers, json={**HAND, "record": True})
    assert "score" not in no_choice.json()
    assert scores(client, headers)["strategy"]["high-card-flush"]["total"] == 3


def test_scores_are_the_callers_own(client: TestClient, headers: dict[str, str]) -> None:
    judge(client, headers, {"action": "fold"})
    other = client.post("/api/v1/accounts", json={"username": "scoreother",
                                                  "password": "correct horse"})
    assert other.status_code == 201
    token = client.post("/api/v1/login", json={"username": "scoreother",
                                               "password": "correct horse"}).json()["token"]
    client.cookies.clear()
    assert scores(client, {"Authorization": f"Bearer {token}"}) == {"strategy": {},
                                                                    "dealer": {}}
    assert client.get("/api/v1/me/trainer-scores").status_code == 401


def check(client: TestClient, headers: dict[str, str], drill: dict[str, Any],
          answers: dict[str, int], millis: int) -> Any:
    return client.post("/api/v1/dealer-checks", headers=headers, json={
        "request": drill["request"], "answers": answers, "millis": millis, "record": True})


def test_dealer_checks_add_up(client: TestClient, headers: dict[str, str]) -> None:
    drill = client.get("/api/v1/dealer-rounds?rules=nine-card-flush", headers=headers).json()
    results = settle_request(drill["request"])["results"]
    right = check(client, headers, drill, dict(results), 1500).json()
    assert right["score"] == {"rounds": 1, "perfect": 1, "right": len(results),
                              "of": len(results), "seconds": 1.5}
    wrong = {name: net + 1 for name, net in results.items()}
    second = check(client, headers, drill, wrong, 2250).json()
    assert second["score"] == {"rounds": 2, "perfect": 1, "right": len(results),
                               "of": 2 * len(results), "seconds": 3.75}
    assert scores(client, headers)["dealer"] == {"nine-card-flush": second["score"]}
    refused = check(client, headers, drill, dict(results), -1)
    assert refused.status_code == 422
    assert scores(client, headers)["dealer"]["nine-card-flush"]["rounds"] == 2
