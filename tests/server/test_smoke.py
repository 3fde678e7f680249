"""The server starts on an empty database and answers its operations routes."""

from __future__ import annotations

from fastapi.testclient import TestClient

from server.conftest import balances, play_round, practice_table, sign_up


def test_health_metrics_openapi(client: TestClient) -> None:
    assert client.get("/healthz").json()["status"] == "ok"
    assert "feltlab_up 1" in client.get("/metrics").text
    paths = client.get("/openapi.json").json()["paths"]
    assert "/api/v1/rounds/{round_id}/actions" in paths


def test_one_practice_round(client: TestClient) -> None:
    headers = sign_up(client)
    assert balances(client, headers) == {"practice": 1000, "cash": 0}
    table = practice_table(client, headers, "high-card-flush")
    done = play_round(client, headers, table, {"wagers": {"ante": 10, "flush": 5}})
    assert done["balance_after"] == 1000 + done["total"]
    assert balances(client, headers)["practice"] == done["balance_after"]
