"""The server's settings: one frozen object read from the environment once, every
variable keeping its name, a bad value refused naming its variable, and handed to
uvicorn's workers whole as one JSON variable."""

from __future__ import annotations

import dataclasses
import os

import pytest

from feltlab.server import faults
from feltlab.server.auth import AuthSettings
from feltlab.server.settings import (
    WORKER_VARIABLE,
    Settings,
    SettingsError,
    default_database_url,
    for_worker,
    from_environment,
    from_json,
    hand_to_workers,
)
from server.cli_helpers import run_cli
from server.conftest import settings_for

EVERY_VARIABLE = {
    "FELTLAB_DATABASE_URL": "postgresql://u@db/feltlab",
    "FELTLAB_TOKEN_IDLE_MINUTES": "45",
    "FELTLAB_ARGON2_TIME_COST": "2",
    "FELTLAB_ARGON2_MEMORY_KIB": "2048",
    "FORWARDED_ALLOW_IPS": "10.0.0.1, 10.0.0.2",
    "FELTLAB_METRICS_TOKEN": "scrape-7f3a",
    "FELTLAB_REQUEST_LOG_EVERY": "1",
    "FELTLAB_CRASH_AFTER_EVENTS": "3",
    "FELTLAB_CRASH_AFTER_COMMITS": "4",
    "FELTLAB_OPENTELEMETRY": "1",
    "FELTLAB_LEDGER_CHECK_MINUTES": "2.5",
}


def test_the_defaults() -> None:
    settings = from_environment({})
    assert settings == Settings(database_url=default_database_url())
    assert settings.database_url.startswith("sqlite:///")
    assert settings.auth == AuthSettings()
    assert settings.request_log_every == 100
    assert (settings.crash_after_events, settings.crash_after_commits) == (0, 0)
    assert not settings.opentelemetry and not settings.warm
    assert settings.ledger_check_minutes == 60.0
    assert from_environment({name: "" for name in EVERY_VARIABLE}) == settings


def test_every_variable_keeps_its_name() -> None:
    settings = from_environment(EVERY_VARIABLE)
    assert settings == Settings(
        database_url="postgresql://u@db/feltlab",
        auth=AuthSettings(idle_minutes=45, argon2_time_cost=2, argon2_memory_kib=2048,
                          trusted_proxies=("10.0.0.1", "10.0.0.2"),
                          metrics_token="scrape-7f3a"),
        request_log_every=1, crash_after_events=3, crash_after_commits=4,
        opentelemetry=True, ledger_check_minutes=2.5)
    assert from_environment({"FELTLAB_LEDGER_CHECK_MINUTES": "0"}).ledger_check_minutes == 0
    assert from_environment({"FELTLAB_OPENTELEMETRY": "0"}).opentelemetry is False


def test_read_from_the_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FELTLAB_LEDGER_CHECK_MINUTES", "15")
    monkeypatch.setenv("FELTLAB_DATABASE_URL", "sqlite:////tmp/x.sqlite3")
    settings = from_environment()
    assert settings.ledger_check_minutes == 15.0
    assert settings.database_url == "sqlite:////tmp/x.sqlite3"


def test_settings_are_frozen() -> None:
    settings = from_environment({})
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.warm = True  # type: ignore[misc]


@pytest.mark.parametrize(("name", "value"), [
    ("FELTLAB_REQUEST_LOG_EVERY", "often"),
    ("FELTLAB_REQUEST_LOG_EVERY", "0"),
    ("FELTLAB_TOKEN_IDLE_MINUTES", "1.5"),
    ("FELTLAB_ARGON2_MEMORY_KIB", "-3"),
    ("FELTLAB_ARGON2_TIME_COST", "three"),
    ("FELTLAB_CRASH_AFTER_EVENTS", "x"),
    ("FELTLAB_CRASH_AFTER_COMMITS", "-1"),
    ("FELTLAB_OPENTELEMETRY", "yes please"),
    ("FELTLAB_LEDGER_CHECK_MINUTES", "hourly"),
    ("FELTLAB_LEDGER_CHECK_MINUTES", "-5"),
    ("FELTLAB_LEDGER_CHECK_MINUTES", "nan"),
    ("FELTLAB_WALLET_RETRY_FIRST_SECONDS", "0"),
    ("FELTLAB_WALLET_RETRY_MAX_SECONDS", "soon"),
    ("FELTLAB_WALLET_GIVE_UP_HOURS", "inf"),
    ("FELTLAB_WALLET_ROLLBACK_GRACE_SECONDS", "-1"),
    ("FELTLAB_CRASH_AFTER_WALLET_CALLS", "x"),
])
def test_a_bad_value_names_its_variable(name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name) as refused:
        from_environment({name: value})
    assert repr(value) in str(refused.value)


def test_the_workers_get_the_settings_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = dataclasses.replace(from_environment(EVERY_VARIABLE), warm=True)
    assert from_json(settings.to_json()) == settings
    monkeypatch.setenv(WORKER_VARIABLE, "")  # put back as it was after the test
    hand_to_workers(settings)
    assert os.environ[WORKER_VARIABLE] == settings.to_json()
    monkeypatch.setenv("FELTLAB_REQUEST_LOG_EVERY", "7")  # the handed settings win
    assert for_worker() == settings


def test_a_worker_started_by_hand_reads_the_environment(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(WORKER_VARIABLE, raising=False)
    monkeypatch.setenv("FELTLAB_REQUEST_LOG_EVERY", "7")
    settings = for_worker()
    assert settings.request_log_every == 7 and settings.warm


@pytest.mark.parametrize("text", ["", "[]", "{}", '{"database_url": "x"}',
                                  '{"database_url": "x", "auth": {}, "colour": 1}'])
def test_anything_else_in_the_worker_variable_is_refused(text: str) -> None:
    with pytest.raises(SettingsError, match=WORKER_VARIABLE):
        from_json(text)


def test_the_app_takes_its_settings(sqlite_url: str) -> None:
    """``create_app`` applies the settings: the request log's sampling, the fault
    injection's limits, and keeps the object on the application's state."""
    from fastapi.testclient import TestClient

    from feltlab.server.app import create_app
    from feltlab.server.middleware import Gate

    settings = settings_for(sqlite_url, request_log_every=3, crash_after_commits=999_999)
    app = create_app(settings, timers=False)
    try:
        assert app.state.settings is settings
        assert faults._limits == {"events": 0, "commits": 999_999, "wallet_calls": 0}
        (gate,) = [entry for entry in app.user_middleware if entry.cls is Gate]
        assert gate.kwargs["log_every"] == 3
        with TestClient(app) as client:
            assert client.get("/healthz").status_code == 200
    finally:
        faults.configure(0, 0)
        app.state.services.engine.dispose()


def test_the_commands_refuse_a_bad_setting(monkeypatch: pytest.MonkeyPatch,
                                           sqlite_url: str) -> None:
    monkeypatch.setenv("FELTLAB_REQUEST_LOG_EVERY", "often")
    code, _, err = run_cli(["db", "upgrade", "--database", sqlite_url])
    assert code == 2
    assert "FELTLAB_REQUEST_LOG_EVERY" in err and "'often'" in err


def test_the_commands_take_the_database_from_the_settings(
        monkeypatch: pytest.MonkeyPatch, sqlite_url: str) -> None:
    monkeypatch.setenv("FELTLAB_DATABASE_URL", sqlite_url)
    code, out, err = run_cli(["db", "upgrade"])
    assert code == 0, err
    assert sqlite_url.removeprefix("sqlite:///") in out


def test_the_designers_limit_and_time_budget() -> None:
    defaults = from_environment({})
    assert (defaults.designer_jobs, defaults.designer_budget_seconds) == (1, 30.0)
    given = from_environment({"FELTLAB_DESIGNER_JOBS": "3",
                              "FELTLAB_DESIGNER_BUDGET_SECONDS": "90"})
    assert (given.designer_jobs, given.designer_budget_seconds) == (3, 90.0)
    assert from_json(given.to_json()) == given
    for name, value in (("FELTLAB_DESIGNER_JOBS", "0"), ("FELTLAB_DESIGNER_JOBS", "two"),
                        ("FELTLAB_DESIGNER_BUDGET_SECONDS", "0"),
                        ("FELTLAB_DESIGNER_BUDGET_SECONDS", "inf")):
        with pytest.raises(SettingsError, match=name):
            from_environment({name: value})
