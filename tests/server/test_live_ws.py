"""Live watchers and shutdown: SIGTERM to ``feltlab serve`` with one watcher reading and
one that dropped without closing (it stopped reading) exits within seconds, and the
reading watcher is closed with a close frame rather than cut."""

from __future__ import annotations

import base64
import os
import secrets
import signal
import socket
import time
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from feltlab.cli.server import GRACEFUL_SECONDS
from server.live_server import LiveServer

PASSWORD = "tulip-staple-93"


def sign_in(base: str) -> str:
    body = {"username": f"watcher{secrets.token_hex(3)}", "password": PASSWORD}
    assert httpx.post(base + "/api/v1/accounts", json=body).status_code == 201
    token: str = httpx.post(base + "/api/v1/login", json=body).json()["token"]
    return token


def dropped_watcher(port: int, path: str, token: str) -> socket.socket:
    """A WebSocket opened by hand whose reader then stops reading (and never closes)."""
    raw = socket.create_connection(("127.0.0.1", port))
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    key = base64.b64encode(os.urandom(16)).decode()
    raw.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                 f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                 f"Sec-WebSocket-Version: 13\r\nAuthorization: Bearer {token}\r\n\r\n"
                 ).encode())
    assert raw.recv(12).startswith(b"HTTP/1.1 101")
    return raw


@pytest.mark.parametrize("workers", [1, 2])
def test_sigterm_with_a_live_and_a_dropped_watcher(sqlite_url: str, tmp_path: Path,
                                                   workers: int) -> None:
    server = LiveServer(sqlite_url, tmp_path / "server.log", workers=workers)
    server.start()
    dropped = None
    try:
        token = sign_in(server.base)
        headers = {"Authorization": f"Bearer {token}"}
        table = httpx.post(server.base + "/api/v1/tables", headers=headers,
                           json={"rules": "high-card-flush"}).json()["id"]
        path = f"/api/v1/tables/{table}/live"
        with connect(f"ws://127.0.0.1:{server.port}{path}", additional_headers=headers
                     ) as live:
            assert live.recv(timeout=10)
            dropped = dropped_watcher(server.port, path, token)
            for number in range(3):  # changes announced to both watchers
                bet = httpx.post(f"{server.base}/api/v1/tables/{table}/rounds",
                                 headers=headers, json={"wagers": {"ante": 5}})
                assert bet.status_code == 201, bet.text
                httpx.post(f"{server.base}/api/v1/rounds/{bet.json()['id']}/actions",
                           headers=headers, json={"action": "fold"})
                assert live.recv(timeout=10), number
            assert server.process is not None
            started = time.monotonic()
            os.kill(server.process.pid, signal.SIGTERM)
            code = server.process.wait(timeout=30)
            seconds = time.monotonic() - started
            print(f"SIGTERM to exit: {seconds:.2f} s ({workers} workers)")
            # the structure: no wait for the backstop that cancels lingering requests
            # (10 s, over 10 times the 0.6-0.8 s a shutdown takes)
            assert seconds < GRACEFUL_SECONDS, f"shutdown took {seconds:.1f} s"
            assert code in (0, -signal.SIGTERM)  # uvicorn re-raises the signal once done
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    live.recv(timeout=5)
            assert closed.value.rcvd is not None  # a close frame came: closed, not cut
            assert closed.value.rcvd.code in (1000, 1001, 1012)
    finally:
        if dropped is not None:
            dropped.close()
        server.stop()
