"""Designs are computed by the designer's pool, on SQLite and PostgreSQL: in a process of
their own at the lowest priority (not a request's thread), kept for the next design; a
second design of the same account, or one over the deployment's limit from another app
instance on the same database, is refused (429) while one runs; a design past the time
budget is stopped and refused (422) with the command line that computes it; a design
whose client leaves is stopped (its process ended) at the next look whether it is
there (every quarter second; the test's bound is 10 times what that takes)."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from feltlab.server.app import create_app
from feltlab.server.designer_models import DesignerJob
from feltlab.server.designer_pool import TICK, DesignerPool
from feltlab.server.designer_process import LOWEST_PRIORITY
from server.conftest import settings_for, sign_up
from server.designs import design
from server.pg import free_port

CHEAP = design("high-card-flush", lambda data: None)
LONG = {"rules": design("nh-holdem-stud", lambda data: None), "colluders": 6,
        "deals": 20_000}
"""A minute of computing and more: the issue's design that starved the server."""


def pool_of(app: Any) -> DesignerPool:
    pool: DesignerPool = app.state.designer.pool
    return pool


def running(app: Any) -> int:
    with app.state.services.read() as session:
        return int(session.scalar(select(func.count()).select_from(DesignerJob)) or 0)


def wait_for(condition: Callable[[], object], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "waited too long"
        time.sleep(0.02)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_design_is_computed_in_a_process_of_its_own(database_url: str) -> None:
    app = create_app(settings_for(database_url, designer_budget_seconds=600), timers=False)
    with TestClient(app) as client:
        headers = sign_up(client)
        first = client.post("/api/v1/designer/par", json={"rules": CHEAP}, headers=headers)
        assert first.status_code == 200, first.text
        (pid,) = pool_of(app).pids()
        assert pid != os.getpid() and alive(pid)
        assert os.getpriority(os.PRIO_PROCESS, pid) == LOWEST_PRIORITY
        again = client.post("/api/v1/designer/par", json={"rules": CHEAP}, headers=headers)
        assert again.json() == first.json()
        assert pool_of(app).pids() == (pid,)  # the same process, what it loaded kept
        assert running(app) == 0  # the slot was freed
    assert not alive(pid)  # the server's end ends its processes


def test_over_the_limit_429_and_over_the_budget_422(database_url: str) -> None:
    """Two app instances on one database (two workers, or two hosts), one design at a
    time in the deployment: while one account's design runs in the first, the same
    account and another are refused in the second; the design, past its budget, is
    stopped and answered with the command line that computes it."""
    settings = settings_for(database_url, designer_budget_seconds=2.0)
    one, two = create_app(settings, timers=False), create_app(settings, timers=False)
    with TestClient(one) as first, TestClient(two) as second:
        ann, bob = sign_up(first), sign_up(first)
        answers: dict[str, httpx.Response] = {}
        long_design = threading.Thread(target=lambda: answers.update(long=first.post(
            "/api/v1/designer/protection", json=LONG, headers=ann)))
        long_design.start()
        try:
            wait_for(lambda: running(one) == 1)
            mine = second.post("/api/v1/designer/par", json={"rules": CHEAP}, headers=ann)
            assert mine.status_code == 429 and mine.headers["Retry-After"] == "1"
            assert "a design of yours" in mine.json()["detail"]
            theirs = second.post("/api/v1/designer/par", json={"rules": CHEAP},
                                 headers=bob)
            assert theirs.status_code == 429 and "busy" in theirs.json()["detail"]
        finally:
            long_design.join(120)
        refused = answers["long"]
        assert refused.status_code == 422, refused.text
        detail = refused.json()["detail"]
        assert "more than the 2 s of computing" in detail
        assert "`feltlab protect design.toml --colluders 6 --deals 20000`" in detail
        assert "`feltlab protect design.toml --next-seen 1 --deals 20000`" in detail
        assert running(one) == 0
        after = second.post("/api/v1/designer/par", json={"rules": "id = ["}, headers=bob)
        assert after.status_code == 422 and "TOML" in after.json()["detail"]  # not 429


class Serving:
    """``app`` served by uvicorn in a thread of this process, so that its pool's processes
    are this process's children, whose ids the test checks."""

    def __init__(self, app: FastAPI) -> None:
        self.port = free_port()
        self.server = uvicorn.Server(uvicorn.Config(
            app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="on"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        wait_for(lambda: self.server.started, 30)
        return f"http://127.0.0.1:{self.port}"

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(30)


@pytest.fixture
def served(database_url: str) -> Iterator[tuple[FastAPI, str]]:
    app = create_app(settings_for(database_url, designer_budget_seconds=600), timers=False)
    with Serving(app) as base:
        yield app, base


def test_a_design_whose_client_leaves_is_stopped(
        served: tuple[FastAPI, str]) -> None:
    app, base = served
    with httpx.Client(base_url=base, timeout=30) as client:
        headers = sign_up(client)  # type: ignore[arg-type]
        body = json.dumps(LONG).encode()
        request = (f"POST /api/v1/designer/protection HTTP/1.1\r\nHost: test\r\n"
                   f"Authorization: {headers['Authorization']}\r\n"
                   f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                   f"\r\n").encode() + body
        with socket.create_connection(("127.0.0.1", int(base.rsplit(":", 1)[1]))) as sent:
            sent.sendall(request)
            wait_for(lambda: pool_of(app).computing())
            (pid,) = pool_of(app).computing()
            assert os.getpriority(os.PRIO_PROCESS, pid) == LOWEST_PRIORITY
            me = client.get("/api/v1/me", headers=headers)  # the server answers meanwhile
            assert me.status_code == 200
        left = time.monotonic()  # the client has closed its connection
        wait_for(lambda: not alive(pid), 10)
        # stopped because the client left, not by the 600 s budget nor at the design's
        # end (a minute and more): 5 s, 10 times the half second it takes at most (a
        # look whether the client is there every TICK, 0.25 s, then the kill)
        assert time.monotonic() - left < 10 * 2 * TICK
        wait_for(lambda: running(app) == 0, 10)  # its slot freed
        after = client.post("/api/v1/designer/par", json={"rules": CHEAP}, headers=headers)
        assert after.status_code == 200, after.text
