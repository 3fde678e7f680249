"""Every line ``feltlab serve`` writes, bar its one start-up banner, is one JSON object with
time, level and event: its own request lines, uvicorn's and its supervisor's, warnings,
matplotlib's font cache note and the slow steps' notes."""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from feltlab.core import status
from feltlab.server import logs
from server.live_server import LiveServer


def test_every_line_of_a_serve_run_is_json(sqlite_url: str, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "server.log"
    server = LiveServer(sqlite_url, log, workers=2)
    # empty caches: matplotlib builds its font cache and says so, the PAR sheet is drawn
    # (the compiled kernels stay where they are: NUMBA_CACHE_DIR is set by feltlab)
    monkeypatch.setenv("MPLCONFIGDIR", str(tmp_path / "matplotlib"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert os.environ.get("NUMBA_CACHE_DIR")
    monkeypatch.setenv("FELTLAB_REQUEST_LOG_EVERY", "1")  # every request, not one in 100
    server.start()
    try:
        assert httpx.get(server.base + "/no/such/page").status_code == 404
        assert httpx.post(server.base + "/api/v1/login",
                          json={"username": "nobody", "password": "x"}).status_code == 401
        assert httpx.get(server.base + "/math/high-card-flush/par", timeout=300
                         ).status_code == 200  # draws charts with matplotlib
        with socket.create_connection(("127.0.0.1", server.port)) as raw:
            raw.sendall(b"NOT HTTP AT ALL\r\n\r\n")  # uvicorn warns of an invalid request
            raw.recv(1000)
        assert server.process is not None
        os.kill(server.process.pid, signal.SIGTERM)
        server.process.wait(timeout=30)
    finally:
        server.stop()
    lines = log.read_text().splitlines()
    assert lines[0].startswith("feltlab table server on http://")
    events = []
    for line in lines[1:]:
        record = json.loads(line)  # every line, or this fails naming it
        assert isinstance(record, dict), line
        assert {"time", "level", "event"} <= record.keys(), line
        events.append(record["event"])
    assert "request" in events
    assert "generated new fontManager" in events
    assert any("Invalid HTTP request" in event for event in events), events


def test_uvicorn_builds_no_access_line() -> None:
    """Once a worker's logging is configured, uvicorn's access logger neither has a
    handler nor passes its records to the root's: uvicorn's protocol then skips building
    an access line for each response (it asks ``hasHandlers()`` once a connection), as
    ``--no-access-log`` means. (In a process of its own: configuring is for the whole
    process.)"""
    script = ("import logging; from feltlab.server import logs; logs.configure(); "
              "print(logging.getLogger().hasHandlers(), "
              "logging.getLogger('uvicorn.access').hasHandlers())")
    shown = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           check=True, timeout=60)
    assert shown.stdout.split() == ["True", "False"], shown


def test_the_slow_steps_notes_go_to_the_log() -> None:
    """A note of a slow step is a JSON log record once the server logs."""
    class Keep(logging.Handler):
        def __init__(self) -> None:
            super().__init__()
            self.lines: list[str] = []

        def emit(self, record: logging.LogRecord) -> None:
            self.lines.append(logs.JsonFormatter().format(record))

    keep = Keep()
    log = logging.getLogger("feltlab.test-status")
    log.addHandler(keep)
    log.setLevel(logging.INFO)
    status.report_to(log)
    try:
        status.say("loading the compiled exact analysis")
    finally:
        status.report_to(None)
        log.removeHandler(keep)
    record = json.loads(keep.lines[0])
    assert record["event"] == "loading the compiled exact analysis"
    assert record["level"] == "info" and "time" in record
