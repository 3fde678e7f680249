"""Refusals: each is a 4xx with one sentence, and changes nothing (balance, round, log)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from server.conftest import balances, play_round, practice_table, sign_up
from server.helpers import assert_books_balance

HCF = {"wagers": {"ante": 10}}


def refused(answer: Any, status: int | None = None) -> str:
    assert 400 <= answer.status_code < 500, answer.text
    if status is not None:
        assert answer.status_code == status, answer.text
    body = answer.json()
    assert set(body) == {"detail"} and isinstance(body["detail"], str)
    assert "\n" not in body["detail"] and "Traceback" not in body["detail"]
    detail: str = body["detail"]
    return detail


def snapshot(client: TestClient, headers: dict[str, str], round_id: int | None = None
             ) -> tuple[Any, ...]:
    state: tuple[Any, ...] = (balances(client, headers),)
    if round_id is not None:
        state += (client.get(f"/api/v1/rounds/{round_id}", headers=headers).json(),)
    return state


@pytest.mark.parametrize("body, status, words", [
    ({"wagers": {"ante": 1001}}, 422, "above the maximum"),
    ({"wagers": {"ante": 0}}, 422, "required"),
    ({"wagers": {"flush": 5}}, 422, "required"),
    ({"wagers": {"ante": 10, "bogus": 1}}, 422, "unknown wager"),
    ({"wagers": {"ante": True}}, 422, "wagers.ante"),
    ({"wagers": {"ante": "10"}}, 422, "wagers.ante"),
    ({"wagers": {"ante": 10.5}}, 422, "wagers.ante"),
    ({"wagers": {"ante": -5}}, 422, "wagers.ante"),
    ({"wagers": {"ante": 10 ** 30}}, 422, "wagers.ante"),
    ({"wagers": {"ante": 10}, "colour": "red"}, 422, "no colour"),
    ({"wagers": {"ante": 10}, "client_seed": "'; DROP TABLE rounds;--"}, 422, "client_seed"),
    ({"wagers": {"ante": 10}, "extra": 1}, 422, "extra"),
    ({"wagers": {"ante": 1000, "flush": 100}}, 409, "balance"),
])
def test_bad_bets_change_nothing(client: TestClient, database_url: str, body: Any,
                                 status: int, words: str) -> None:
    headers = sign_up(client)
    table = practice_table(client, headers, "high-card-flush")
    before = snapshot(client, headers)
    detail = refused(client.post(f"/api/v1/tables/{table}/rounds", json=body,
                                 headers=headers), status)
    assert words in detail
    assert snapshot(client, headers) == before
    assert client.get("/api/v1/me/rounds", headers=headers).json() == []
    assert_books_balance(database_url)


def test_bad_decisions_change_nothing(client: TestClient) -> None:
    headers = sign_up(client)
    table = practice_table(client, headers, "nh-holdem-stud")
    view = client.post(f"/api/v1/tables/{table}/rounds", json={"wagers": {"ante": 5}},
                       headers=headers).json()
    before = snapshot(client, headers, view["id"])
    for body, status in [({"action": "raise", "amount": 5}, 409),  # another game's kind
                         ({"action": "bet", "amount": 7}, 422),  # not 1x-3x the ante
                         ({"action": "bet", "amount": 20}, 422),
                         ({"action": "bet"}, 422),
                         ({"action": "fold", "amount": 5}, 422),
                         ({"action": "surrender"}, 422),
                         ({"action": "play"}, 409)]:
        refused(client.post(f"/api/v1/rounds/{view['id']}/actions", json=body,
                            headers=headers), status)
        assert snapshot(client, headers, view["id"]) == before
    refused(client.post(f"/api/v1/tables/{table}/rounds", json={"wagers": {"ante": 5}},
                        headers=headers), 409)  # the round is not finished
    assert snapshot(client, headers, view["id"]) == before


def test_out_of_turn_after_completion(client: TestClient) -> None:
    headers = sign_up(client)
    table = practice_table(client, headers, "high-card-flush")
    done = play_round(client, headers, table, HCF)
    before = snapshot(client, headers, done["id"])
    detail = refused(client.post(f"/api/v1/rounds/{done['id']}/actions",
                                 json={"action": "fold"}, headers=headers), 409)
    assert "complete" in detail
    assert snapshot(client, headers, done["id"]) == before


def test_raise_beyond_balance_refused(client: TestClient) -> None:
    headers = sign_up(client)
    table = practice_table(client, headers, "high-card-flush")
    view = client.post(f"/api/v1/tables/{table}/rounds", json={"wagers": {"ante": 600}},
                       headers=headers).json()
    assert {"action": "raise", "amount": 600} in view["options"]  # every hand may raise 1x
    before = snapshot(client, headers, view["id"])
    detail = refused(client.post(f"/api/v1/rounds/{view['id']}/actions",
                                 json={"action": "raise", "amount": 600}, headers=headers), 409)
    assert "balance of 400" in detail
    assert snapshot(client, headers, view["id"]) == before


def test_foreign_round_and_table_are_not_found(client: TestClient) -> None:
    alice, mallory = sign_up(client), sign_up(client)
    table = practice_table(client, alice, "high-card-flush")
    view = client.post(f"/api/v1/tables/{table}/rounds", json=HCF, headers=alice).json()
    before = snapshot(client, alice, view["id"])
    refused(client.get(f"/api/v1/rounds/{view['id']}", headers=mallory), 404)
    refused(client.get(f"/api/v1/rounds/{view['id']}/recall", headers=mallory), 404)
    refused(client.post(f"/api/v1/rounds/{view['id']}/actions", json={"action": "fold"},
                        headers=mallory), 404)
    refused(client.post(f"/api/v1/tables/{table}/rounds", json=HCF, headers=mallory), 404)
    refused(client.get(f"/api/v1/tables/{table}", headers=mallory), 404)
    assert snapshot(client, alice, view["id"]) == before


def test_malformed_and_oversized_bodies(client: TestClient) -> None:
    headers = sign_up(client)
    table = practice_table(client, headers, "high-card-flush")
    url = f"/api/v1/tables/{table}/rounds"
    refused(client.post(url, content=b"{not json", headers={**headers,
                                                             "content-type": "application/json"}))
    refused(client.post(url, content=b"[" * 100_000, headers={
        **headers, "content-type": "application/json"}), 413)
    refused(client.post(url, json={"wagers": {f"w{i}": 1 for i in range(50)}}, headers=headers))
    refused(client.get("/api/v1/rounds/99999999999999999999999", headers=headers))
    refused(client.get("/api/v1/me/rounds?limit=1000", headers=headers))
    refused(client.get("/api/v1/nowhere", headers=headers), 404)


def test_idempotency_key_posts_once(client: TestClient, database_url: str) -> None:
    headers = sign_up(client)
    table = practice_table(client, headers, "high-card-flush")
    keyed = {**headers, "Idempotency-Key": "bet-1"}
    first = client.post(f"/api/v1/tables/{table}/rounds", json=HCF, headers=keyed)
    second = client.post(f"/api/v1/tables/{table}/rounds", json=HCF, headers=keyed)
    assert first.status_code == second.status_code == 201
    assert first.json() == second.json()
    assert balances(client, headers)["practice"] == 990
    other = client.post(f"/api/v1/tables/{table}/rounds", json={"wagers": {"ante": 20}},
                        headers=keyed)
    assert "different request" in refused(other, 422)
    round_id = first.json()["id"]
    act = {**headers, "Idempotency-Key": "act-1"}
    answers = [client.post(f"/api/v1/rounds/{round_id}/actions", json={"action": "fold"},
                           headers=act) for _ in range(3)]
    assert all(answer.status_code == 200 for answer in answers)
    assert answers[0].json() == answers[2].json()
    assert balances(client, headers)["practice"] == 990
    reset = {**headers, "Idempotency-Key": "reset-1"}
    assert client.post("/api/v1/me/practice/reset", headers=reset).status_code == 200
    assert client.post("/api/v1/me/practice/reset", headers=reset).status_code == 200
    assert balances(client, headers)["practice"] == 1000
    assert_books_balance(database_url)


def test_practice_reset_between_rounds_only(client: TestClient) -> None:
    headers = sign_up(client)
    table = practice_table(client, headers, "high-card-flush")
    view = client.post(f"/api/v1/tables/{table}/rounds", json=HCF, headers=headers).json()
    refused(client.post("/api/v1/me/practice/reset", headers=headers), 409)
    client.post(f"/api/v1/rounds/{view['id']}/actions", json={"action": "fold"},
                headers=headers)
    assert client.post("/api/v1/me/practice/reset", headers=headers).json()[
        "balances"]["practice"] == 1000
