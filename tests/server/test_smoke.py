"""The server starts on an empty database and answers its operations routes."""

from __future__ import annotations

import pytest
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


def test_metrics_guarded_by_its_token(sqlite_url: str) -> None:
    """With FELTLAB_METRICS_TOKEN set, /metrics answers only its bearer (401 with
    WWW-Authenticate to anyone else)."""
    import dataclasses

    from feltlab.server.app import create_app
    from server.conftest import FAST_HASHING, settings_for

    auth = dataclasses.replace(FAST_HASHING, metrics_token="scrape-7f3a")
    app = create_app(settings_for(sqlite_url, auth), timers=False)
    with TestClient(app) as client:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "scrape-7f3a"},
                        {"Authorization": "Basic scrape-7f3a"}):
            refused = client.get("/metrics", headers=headers)
            assert refused.status_code == 401, headers
            assert refused.headers["WWW-Authenticate"] == "Bearer"
            assert "feltlab_up" not in refused.text
        allowed = client.get("/metrics", headers={"Authorization": "Bearer scrape-7f3a"})
        assert allowed.status_code == 200 and "feltlab_up 1" in allowed.text
    app.state.services.engine.dispose()


def test_metrics_token_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from feltlab.server.settings import from_environment

    monkeypatch.setenv("FELTLAB_METRICS_TOKEN", "scrape-7f3a")
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "10.0.0.1, 10.0.0.2")
    settings = from_environment().auth
    assert settings.metrics_token == "scrape-7f3a"
    assert settings.trusted_proxies == ("10.0.0.1", "10.0.0.2")
    monkeypatch.delenv("FELTLAB_METRICS_TOKEN")
    assert from_environment().auth.metrics_token is None


def test_settle_heap_hides_start_up_from_the_collector() -> None:
    """A serve worker freezes what start-up made and collects its youngest generation
    less often (the process's collector, put back as it was after the test)."""
    import gc

    from feltlab.server.app import YOUNG_COLLECTION_EVERY, settle_heap

    threshold = gc.get_threshold()
    try:
        settle_heap()
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == (YOUNG_COLLECTION_EVERY, *threshold[1:])
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)


def test_opentelemetry_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    from feltlab.server.app import telemetry_settings
    from feltlab.server.settings import OPENTELEMETRY, from_environment

    monkeypatch.delenv(OPENTELEMETRY, raising=False)
    off = telemetry_settings(from_environment().opentelemetry)
    assert not any(off.get(part, True) for part in ("tracing", "metrics", "logs",
                                                     "operation_spans"))
    monkeypatch.setenv(OPENTELEMETRY, "1")
    on = telemetry_settings(from_environment().opentelemetry)
    assert on == {}  # FastAPI's defaults: on where a provider is set
