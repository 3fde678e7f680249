"""A player's whole history through ``GET /api/v1/me/rounds?before=``: pages of at most
100, newest first, none missing or repeated; a cursor that is not the caller's own
round pages from their next older one; a malformed cursor is refused."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from feltlab.app import create_app
from server.conftest import practice_table, settings_for, sign_up


@pytest.fixture
def sqlite_client(sqlite_url: str) -> Iterator[TestClient]:
    app = create_app(settings_for(sqlite_url), timers=False)
    with TestClient(app) as test_client:
        yield test_client
    app.state.services.engine.dispose()


def play_folds(client: TestClient, headers: dict[str, str], table: int, rounds: int
               ) -> list[int]:
    ids = []
    for number in range(rounds):
        if number and number % 500 == 0:
            client.post("/api/v1/me/practice/reset", headers=headers)
        view = client.post(f"/api/v1/tables/{table}/rounds", json={"wagers": {"ante": 1}},
                           headers=headers).json()
        client.post(f"/api/v1/rounds/{view['id']}/actions", json={"action": "fold"},
                    headers=headers)
        ids.append(view["id"])
    return ids


def all_pages(client: TestClient, headers: dict[str, str], limit: int) -> list[int]:
    seen: list[int] = []
    page = client.get(f"/api/v1/me/rounds?limit={limit}", headers=headers).json()
    while page:
        assert len(page) <= limit
        seen += [view["id"] for view in page]
        page = client.get(f"/api/v1/me/rounds?limit={limit}&before={seen[-1]}",
                          headers=headers).json()
    return seen


def test_pages_through_hundreds_of_rounds(sqlite_client: TestClient) -> None:
    """250 rounds (1,000 took 18 s on one core and paged no differently): two full pages
    of 100 and a part page, and 35 full pages of 7 and a part."""
    client = sqlite_client
    alice, bob = sign_up(client), sign_up(client)
    table, other = practice_table(client, alice, "high-card-flush"), practice_table(
        client, bob, "high-card-flush")
    mine = play_folds(client, alice, table, 250)
    theirs = play_folds(client, bob, other, 3)
    assert all_pages(client, alice, 100) == sorted(mine, reverse=True)
    assert all_pages(client, alice, 7) == sorted(mine, reverse=True)
    # bob's round ids lie above alice's: from one of them, alice's page starts at her newest
    first = client.get(f"/api/v1/me/rounds?limit=3&before={theirs[0]}", headers=alice).json()
    assert [view["id"] for view in first] == sorted(mine, reverse=True)[:3]
    unknown = client.get("/api/v1/me/rounds?limit=2&before=2000000000", headers=alice).json()
    assert [view["id"] for view in unknown] == sorted(mine, reverse=True)[:2]
    assert client.get(f"/api/v1/me/rounds?before={min(mine)}", headers=alice).json() == []


@pytest.mark.parametrize("cursor", ["x", "0", "-5", "1.5", "99999999999999999999"])
def test_a_malformed_cursor_is_refused(sqlite_client: TestClient, cursor: str) -> None:
    headers = sign_up(sqlite_client)
    answer = sqlite_client.get(f"/api/v1/me/rounds?before={cursor}", headers=headers)
    assert answer.status_code == 422 and set(answer.json()) == {"detail"}
