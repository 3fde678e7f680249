"""Server test fixtures: the app on SQLite and on a throwaway PostgreSQL, and helpers
that drive API v1 like a client would."""

from __future__ import annotations

import itertools
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from feltlab.server.app import create_app
from feltlab.server.auth import AuthSettings
from feltlab.server.migrate import upgrade
from feltlab.server.services.database import make_engine
from feltlab.server.settings import Settings
from server.answers import CheckingClient
from server.pg import REQUIRE, ThrowawayPostgres

FAST_HASHING = AuthSettings(argon2_time_cost=1, argon2_memory_kib=1024)


def settings_for(database_url: str, auth: AuthSettings = FAST_HASHING, **changes: Any
                 ) -> Settings:
    """The server's settings for a test: on ``database_url``, with cheap password hashing
    (``auth``) unless told otherwise, and ``changes`` to the other settings."""
    return Settings(database_url=database_url, auth=auth, **changes)


_names = itertools.count(1)


@pytest.fixture(scope="session")
def postgres() -> Iterator[ThrowawayPostgres | None]:
    try:
        server = ThrowawayPostgres()
    except (FileNotFoundError, OSError) as error:
        if REQUIRE:
            pytest.fail(f"FELTLAB_REQUIRE_POSTGRES=1 but PostgreSQL cannot start: {error}")
        yield None
        return
    yield server
    server.stop()


def _postgres(request: pytest.FixtureRequest) -> ThrowawayPostgres:
    server: ThrowawayPostgres | None = request.getfixturevalue("postgres")
    if server is None:
        pytest.skip("PostgreSQL binaries (pg_ctl, initdb) are not installed")
    return server


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An SQLite database migrated to the newest revision once for the whole run, for
    :func:`database_url` to copy."""
    path = tmp_path_factory.mktemp("migrated") / "server.sqlite3"
    engine = make_engine(f"sqlite:///{path}")
    try:
        upgrade(engine)
    finally:
        engine.dispose()
    assert not path.with_name(path.name + "-wal").exists()  # all of it in the one file
    return path


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new database of each kind, its schema already at the newest revision: a copy of
    one migrated once a run (the migrations ran again for every test, about a second each
    on PostgreSQL on one core). The app's start-up upgrade finds nothing to do; the
    migrations themselves run from an empty database in the tests that ask for
    :func:`empty_database_url` or :func:`sqlite_url`."""
    if request.param == "sqlite":
        path = tmp_path / "server.sqlite3"
        shutil.copyfile(request.getfixturevalue("migrated_sqlite"), path)
        return f"sqlite:///{path}"
    url: str = _postgres(request).migrated_database()
    return url


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new, empty database of each kind (no schema yet): for the migrations' tests."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'server.sqlite3'}"
    url: str = _postgres(request).new_database()
    return url


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'server.sqlite3'}"


@pytest.fixture
def client(database_url: str) -> Iterator[TestClient]:
    app = create_app(settings_for(database_url), timers=False)
    with CheckingClient(app) as test_client:  # every answer held to its route's model
        yield test_client
    app.state.services.engine.dispose()


def unique_name(prefix: str = "player") -> str:
    return f"{prefix}{next(_names)}"


def sign_up(client: TestClient, name: str | None = None, password: str = "correct horse"
            ) -> dict[str, str]:
    """Register and log in; returns the Authorization header."""
    name = name or unique_name()
    created = client.post("/api/v1/accounts", json={"username": name, "password": password})
    assert created.status_code == 201, created.text
    token = client.post("/api/v1/login", json={"username": name, "password": password})
    assert token.status_code == 200, token.text
    client.cookies.clear()  # API callers use the bearer token, not the cookie
    return {"Authorization": f"Bearer {token.json()['token']}"}


def practice_table(client: TestClient, headers: dict[str, str], rules: str) -> int:
    answer = client.post("/api/v1/tables", json={"rules": rules, "practice": True},
                         headers=headers)
    assert answer.status_code == 201, answer.text
    table_id: int = answer.json()["id"]
    return table_id


def balances(client: TestClient, headers: dict[str, str]) -> dict[str, int]:
    answer = client.get("/api/v1/me", headers=headers)
    assert answer.status_code == 200, answer.text
    found: dict[str, int] = answer.json()["balances"]
    return found


def play_round(client: TestClient, headers: dict[str, str], table: int,
               body: dict[str, Any], choose: Any = None) -> dict[str, Any]:
    """Bet and decide until the round is complete; ``choose(options)`` picks a decision
    (default: the last option, the biggest raise or bet, or play)."""
    answer = client.post(f"/api/v1/tables/{table}/rounds", json=body, headers=headers)
    assert answer.status_code == 201, answer.text
    round_view: dict[str, Any] = answer.json()
    while round_view["phase"] != "complete":
        options = round_view["options"]
        assert options, round_view
        decision = choose(options) if choose else options[-1]
        answer = client.post(f"/api/v1/rounds/{round_view['id']}/actions", json=decision,
                             headers=headers)
        assert answer.status_code == 200, answer.text
        round_view = answer.json()
    return round_view
