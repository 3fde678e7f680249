"""The money lane (:mod:`feltlab.server.api.money_lane`) serves a well-formed bet or
decision without FastAPI's routing, and answers every request as the routes do: the
same answer to each request, whichever serves it, and whatever it does not serve passed
on to the routes with its body as it came."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.types import Message, Receive, Scope, Send

from feltlab.server.api import money_lane, stakes
from feltlab.server.api.money_lane import MoneyLane
from feltlab.server.auth import COOKIE_NAME, CSRF_HEADER, csrf_for
from server.conftest import balances, practice_table, sign_up

HCF = {"wagers": {"ante": 10}}


def _answer(response: httpx.Response) -> tuple[int, Any, str | None, str | None]:
    return (response.status_code, response.json(), response.headers.get("idempotent-replay"),
            response.headers.get("www-authenticate"))


def _both_ways(client: TestClient, monkeypatch: pytest.MonkeyPatch, path: str,
               **request: Any) -> tuple[Any, Any]:
    """The answer to one request with the lane, then with the routes alone."""
    with_lane = _answer(client.post(path, **request))
    with monkeypatch.context() as patched:
        patched.setattr(money_lane, "LANES", ())
        routes_alone = _answer(client.post(path, **request))
    return with_lane, routes_alone


def test_every_refusal_is_the_routes_answer(client: TestClient,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    headers = sign_up(client)
    table = practice_table(client, headers, "high-card-flush")
    bet, act = f"/api/v1/tables/{table}/rounds", "/api/v1/rounds/{}/actions"
    json_type = {**headers, "content-type": "application/json"}
    refused: list[tuple[str, dict[str, Any]]] = [
        ("/api/v1/tables/999999/rounds", {"json": HCF, "headers": headers}),  # not found
        (f"/api/v1/tables/{2**31}/rounds", {"json": HCF, "headers": headers}),  # out of range
        ("/api/v1/tables/0/rounds", {"json": HCF, "headers": headers}),
        (bet, {"content": b'{"wagers": ', "headers": json_type}),  # not JSON
        (bet, {"content": b'{"wagers": {"ante": 1, "ante": 2}}', "headers": json_type}),
        (bet, {"content": b'{"wagers": {"ante": NaN}}', "headers": json_type}),
        (bet, {"content": b"\xff\xfe", "headers": json_type}),
        (bet, {"content": b"", "headers": json_type}),
        (bet, {"content": b'{"wagers": {"ante": 10}}',
               "headers": {**headers, "content-type": "text/plain"}}),
        (bet, {"json": {"wagers": {"ante": -1}}, "headers": headers}),  # not valid
        (bet, {"json": {"wagers": {"ante": 10}, "extra": 1}, "headers": headers}),
        (bet, {"json": [1, 2], "headers": headers}),
        (bet, {"json": {**HCF, "client_seed": "not hex!"}, "headers": headers}),
        (bet, {"json": HCF}),  # no token
        (bet, {"json": HCF, "headers": {"Authorization": "Basic abc"}}),
        (bet, {"json": HCF, "headers": {"Authorization": "Bearer "}}),
        (bet, {"json": HCF, "headers": {"Authorization": "Bearer not-a-token"}}),
        (bet, {"json": HCF, "headers": {**headers, "Idempotency-Key": "x" * 101}}),
        (bet, {"json": HCF, "headers": {**headers, "Idempotency-Key": "tab\there"}}),
        (act.format(999999), {"json": {"action": "fold"}, "headers": headers}),
        (act.format(1), {"json": {"action": "dance"}, "headers": headers}),
        (act.format(1), {"json": {"action": "raise", "amount": 10**30},
                         "headers": headers}),
    ]
    for path, request in refused:
        with_lane, routes_alone = _both_ways(client, monkeypatch, path, **request)
        assert with_lane == routes_alone, (path, request)
        assert with_lane[0] >= 400, (path, request, with_lane)
    assert balances(client, headers)["practice"] == 1000  # nothing moved


def test_a_round_played_either_way_answers_alike(client: TestClient,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Two players each bet, fold and retry both with the same keys: one through the
    lane, one through the routes alone. The answers differ only in the round's own
    values (its id, its cards)."""
    played = []
    for lane in (True, False):
        with monkeypatch.context() as patched:
            if not lane:
                patched.setattr(money_lane, "LANES", ())
            headers = sign_up(client)
            table = practice_table(client, headers, "high-card-flush")
            bet = client.post(f"/api/v1/tables/{table}/rounds", json=HCF,
                              headers={**headers, "Idempotency-Key": "bet"})
            fold = client.post(f"/api/v1/rounds/{bet.json()['id']}/actions",
                               json={"action": "fold"},
                               headers={**headers, "Idempotency-Key": "fold"})
            again = client.post(f"/api/v1/tables/{table}/rounds", json=HCF,
                                headers={**headers, "Idempotency-Key": "bet"})
            other = client.post(f"/api/v1/tables/{table}/rounds", json={"wagers": {"ante": 5}},
                                headers={**headers, "Idempotency-Key": "fold"})
            played.append((bet, fold, again, other, balances(client, headers)["practice"]))
    (bet, fold, again, other, left), (bet_r, fold_r, again_r, other_r, left_r) = played
    assert (bet.status_code, fold.status_code, again.status_code) == (201, 200, 201)
    assert [bet_r.status_code, fold_r.status_code, again_r.status_code] == [201, 200, 201]
    assert set(bet.json()) == set(bet_r.json()) and set(fold.json()) == set(fold_r.json())
    assert again.json() == bet.json() and again_r.json() == bet_r.json()
    assert again.headers["idempotent-replay"] == again_r.headers["idempotent-replay"] == "true"
    assert _answer(other) == _answer(other_r)  # a key used for another request
    assert left == left_r == 990


def test_the_lane_serves_a_bearers_request_and_passes_on_a_cookies(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A well-formed request with a bearer token never reaches the route; a page's, with
    the session cookie and its CSRF header, is the route's, and both bet alike."""
    routed: list[int] = []
    route_bet = stakes.bet

    async def counted(*args: Any, **kwargs: Any) -> Any:
        routed.append(1)
        return await route_bet(*args, **kwargs)

    monkeypatch.setattr(stakes, "bet", counted)  # what the route calls (the lane holds its own)
    headers = sign_up(client)
    table = practice_table(client, headers, "high-card-flush")
    served = client.post(f"/api/v1/tables/{table}/rounds", json=HCF, headers=headers)
    assert served.status_code == 201 and routed == []
    client.post(f"/api/v1/rounds/{served.json()['id']}/actions", json={"action": "fold"},
                headers=headers)
    token = headers["Authorization"].removeprefix("Bearer ")
    client.cookies.set(COOKIE_NAME, token)
    try:
        paged = client.post(f"/api/v1/tables/{table}/rounds", json=HCF,
                            headers={CSRF_HEADER: csrf_for(token)})
    finally:
        client.cookies.clear()
    assert paged.status_code == 201 and routed == [1]


def _passed_on(headers: list[tuple[bytes, bytes]], chunks: list[Message]) -> list[Message]:
    """What the application behind the lane receives of a bet whose request sends
    ``chunks`` (the lane must not answer it itself)."""
    seen: list[Message] = []
    left = list(chunks)

    async def application(scope: Scope, receive: Receive, send: Send) -> None:
        for _ in chunks:
            seen.append(await receive())

    async def receive() -> Message:
        return left.pop(0)

    async def send(message: Message) -> None:
        raise AssertionError("the lane answered a request it does not serve")

    scope = {"type": "http", "method": "POST", "path": "/api/v1/tables/7/rounds",
             "headers": headers}
    asyncio.run(MoneyLane(application)(scope, receive, send))
    return seen


def test_what_the_lane_passes_on_keeps_its_body_as_it_came() -> None:
    """A request the lane does not serve reaches the application with the body messages
    the lane read, in order, then the connection's own."""
    chunks: list[Message] = [
        {"type": "http.request", "body": b'{"wagers":', "more_body": True},
        {"type": "http.request", "body": b' {"ante": 1}}', "more_body": False},
        {"type": "http.disconnect"},
    ]
    headers = [(b"authorization", b"Bearer abc"), (b"content-type", b"text/plain")]
    assert _passed_on(headers, chunks) == chunks


def test_a_body_cut_short_is_passed_on_even_when_what_came_is_json() -> None:
    """A client that stops sending (or a body the Gate cut off at its limit, which it
    reports as a disconnect) is never served from the part that came."""
    chunks: list[Message] = [
        {"type": "http.request", "body": b'{"wagers": {"ante": 1}}', "more_body": True},
        {"type": "http.disconnect"},
    ]
    assert _passed_on([(b"authorization", b"Bearer abc")], chunks) == chunks
