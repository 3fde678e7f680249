"""Signing in: failed logins throttle the client that makes them (by username, and over
every username), never the account for everyone; one password hash runs whether the
username exists or not."""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import argon2
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from feltlab.server.app import create_app
from feltlab.server.auth import AuthSettings, dummy_hash, password_hasher
from feltlab.server.models import LoginFailure
from feltlab.server.services import accounts
from server.conftest import FAST_HASHING, settings_for, unique_name

PASSWORD = "tulip-staple-93"
PROXY = ("127.0.0.1", 50000)
"""The test client's address: a trusted proxy, so X-Forwarded-For names the client."""


def app_client(url: str, settings: AuthSettings = FAST_HASHING,
               peer: tuple[str, int] = PROXY) -> Iterator[TestClient]:
    app = create_app(settings_for(url, settings), timers=False)
    with TestClient(app, client=peer) as client:
        yield client
    app.state.services.engine.dispose()


@pytest.fixture
def proxied(database_url: str) -> Iterator[TestClient]:
    yield from app_client(database_url)


def admin(client: TestClient) -> str:
    name = unique_name("admin")
    services = client.app.state.services  # type: ignore[attr-defined]
    with services.transaction() as session:
        accounts.create_account(session, services.hasher, name, PASSWORD, role="admin")
    return name


def login(client: TestClient, name: str, password: str, address: str | None = None
          ) -> Any:
    headers = {"X-Forwarded-For": address} if address else {}
    return client.post("/api/v1/login", json={"username": name, "password": password},
                       headers=headers)


def test_ten_bad_logins_leave_another_client_free_to_sign_in_as_the_admin(
        proxied: TestClient) -> None:
    boss = admin(proxied)
    answers = [login(proxied, boss, "wrong-guess", "203.0.113.5") for _ in range(10)]
    assert [answer.status_code for answer in answers] == [401] * 5 + [429] * 5
    for refused in answers[5:]:
        assert int(refused.headers["Retry-After"]) >= 1
        assert "too many failed logins" in refused.json()["detail"]
    assert login(proxied, boss, PASSWORD, "198.51.100.7").status_code == 200
    assert login(proxied, boss, PASSWORD, "203.0.113.5").status_code == 429
    assert login(proxied, boss, PASSWORD).status_code == 200  # the proxy's own address


def test_forwarded_for_is_believed_only_from_trusted_proxies(sqlite_url: str) -> None:
    for client in app_client(sqlite_url, peer=("192.0.2.10", 40000)):
        name = unique_name()
        client.post("/api/v1/accounts", json={"username": name, "password": PASSWORD})
        for index in range(5):  # a new X-Forwarded-For each time: the same client still
            assert login(client, name, "wrong-guess", f"10.9.9.{index}").status_code == 401
        assert login(client, name, PASSWORD, "10.9.9.99").status_code == 429


def test_the_wait_grows_with_the_failures(proxied: TestClient) -> None:
    name = unique_name()
    proxied.post("/api/v1/accounts", json={"username": name, "password": PASSWORD})
    services = proxied.app.state.services  # type: ignore[attr-defined]
    waits = []
    for _ in range(5):
        login(proxied, name, "wrong-guess", "203.0.113.9")
    for _ in range(4):
        refused = login(proxied, name, PASSWORD, "203.0.113.9")
        assert refused.status_code == 429
        waits.append(int(refused.headers["Retry-After"]))
        with services.transaction() as session:  # the wait passes (moved in the database)
            for failure in session.scalars(select(LoginFailure)):
                failure.at = failure.at - timedelta(seconds=waits[-1] + 1)
        assert login(proxied, name, "wrong-guess", "203.0.113.9").status_code == 401
    assert waits == sorted(waits) and waits[-1] >= 4 * waits[0] >= 4


def test_a_ceiling_per_client_over_every_username(proxied: TestClient) -> None:
    name = unique_name()
    proxied.post("/api/v1/accounts", json={"username": name, "password": PASSWORD})
    settings = FAST_HASHING
    for index in range(settings.max_client_failures):
        assert login(proxied, f"nobody{index}", "wrong-guess", "203.0.113.77").status_code == 401
    ceiling = login(proxied, name, PASSWORD, "203.0.113.77")
    assert ceiling.status_code == 429 and int(ceiling.headers["Retry-After"]) >= 1
    assert login(proxied, name, PASSWORD, "203.0.113.78").status_code == 200


def test_one_password_hash_whether_the_username_exists_or_not(
        proxied: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Structurally: every login runs the hasher's verify exactly once, against the
    account's hash or a dummy of the same cost."""
    services = proxied.app.state.services  # type: ignore[attr-defined]
    hasher = services.hasher
    name = unique_name()
    proxied.post("/api/v1/accounts", json={"username": name, "password": PASSWORD})
    calls: list[str] = []

    class Counting(argon2.PasswordHasher):
        def verify(self, hash: str | bytes, password: str | bytes) -> bool:
            calls.append(str(hash))
            return super().verify(hash, password)

    monkeypatch.setattr(services, "hasher", Counting(
        time_cost=hasher.time_cost, memory_cost=hasher.memory_cost, parallelism=1))
    for username, password, status in ((f"{name}x", PASSWORD, 401),
                                       (name, "wrong-guess", 401), (name, PASSWORD, 200)):
        calls.clear()
        assert login(proxied, username, password, "198.51.100.20").status_code == status
        assert len(calls) == 1, (username, calls)
    monkeypatch.undo()
    ours = argon2.extract_parameters(dummy_hash(hasher))
    assert (ours.time_cost, ours.memory_cost, ours.parallelism) == (
        hasher.time_cost, hasher.memory_cost, hasher.parallelism)


def test_unknown_and_known_usernames_take_the_same_time(sqlite_url: str) -> None:
    """Loosely, by the clock: with a hash that costs tens of milliseconds, a login for an
    unknown username and one with a wrong password for a known one are within 1.5x.
    Not a bound on a time (a slower machine slows both): the two are timed in turn, under
    the same load, and their medians compared; the structure behind it is
    test_one_password_hash_whether_the_username_exists_or_not."""
    costly = AuthSettings(argon2_time_cost=2, argon2_memory_kib=32768)
    assert password_hasher(costly).memory_cost == 32768
    for client in app_client(sqlite_url, costly):
        name = unique_name()
        client.post("/api/v1/accounts", json={"username": name, "password": PASSWORD})
        times: dict[str, list[float]] = {"unknown": [], "known": []}
        for index in range(24):
            kind = "unknown" if index % 2 else "known"
            started = time.perf_counter()
            answer = login(client, name + ("zz" if kind == "unknown" else ""), "wrong-guess",
                           f"198.51.100.{100 + index}")
            times[kind].append(time.perf_counter() - started)
            assert answer.status_code == 401
        unknown, known = (statistics.median(times[kind]) for kind in ("unknown", "known"))
        assert max(unknown, known) / min(unknown, known) < 1.5, times


def test_a_burst_of_guesses_at_once_gets_no_more_tries(proxied: TestClient) -> None:
    """Twenty wrong passwords sent at once from one client: each try is counted before
    its password is checked, so only the allowed five are checked at all."""
    name = unique_name()
    proxied.post("/api/v1/accounts", json={"username": name, "password": PASSWORD})

    def guess(number: int) -> int:
        status: int = login(proxied, name, f"wrong-guess-{number}", "203.0.113.50").status_code
        return status

    with ThreadPoolExecutor(20) as pool:
        statuses = list(pool.map(guess, range(20)))
    assert statuses.count(401) == FAST_HASHING.max_failures
    assert statuses.count(429) == 20 - FAST_HASHING.max_failures
