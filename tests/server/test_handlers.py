"""How the server answers a failure, under a real uvicorn: an unexpected one is a 500
that closes its keep-alive connection in the open (``Connection: close``), so that the
client's next request goes on a new connection instead of into a dropped one."""

from __future__ import annotations

import http.client
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from fastapi import FastAPI

from feltlab.server.app import create_app
from feltlab.server.handlers import UNEXPECTED
from server.conftest import settings_for
from server.pg import free_port


@pytest.fixture
def failing_server(database_url: str) -> Iterator[int]:
    """The app under uvicorn on a free port, with a route that fails unexpectedly."""
    app: FastAPI = create_app(settings_for(database_url), timers=False)

    def fails() -> None:
        raise RuntimeError("a failure the handlers do not expect")

    app.add_api_route("/fails", fails)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="critical"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    yield port
    server.should_exit = True
    thread.join(10)


def test_a_500_closes_its_keep_alive_connection_in_the_open(failing_server: int) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", failing_server, timeout=10)
    try:
        connection.request("GET", "/healthz")
        first = connection.getresponse()
        first.read()
        assert first.status == 200 and first.getheader("connection") != "close"
        connection.request("GET", "/fails")
        failed = connection.getresponse()
        assert failed.status == 500 and UNEXPECTED in failed.read().decode()
        assert failed.getheader("connection") == "close"
        connection.request("GET", "/healthz")  # on a new connection, as the answer said
        again = connection.getresponse()
        assert again.status == 200, again.read()
    finally:
        connection.close()
