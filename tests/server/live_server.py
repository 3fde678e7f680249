"""A real ``feltlab serve`` process for the recovery and WebSocket tests."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
from sqlalchemy import make_url

from feltlab.server.notify import forget_dead_peers, peers_folder
from server.pg import free_port

SRC = str(Path(__file__).resolve().parents[2] / "src")


class LiveServer:
    def __init__(self, database_url: str, log: Path, workers: int = 1,
                 options: tuple[str, ...] = ()) -> None:
        self.database_url, self.log, self.workers = database_url, log, workers
        self.options = options  # more `feltlab serve` options
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, **crash: int) -> None:
        env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", ""),
               "FELTLAB_ARGON2_MEMORY_KIB": "1024", "FELTLAB_ARGON2_TIME_COST": "1"}
        env.pop("FELTLAB_CRASH_AFTER_EVENTS", None)
        env.pop("FELTLAB_CRASH_AFTER_COMMITS", None)
        env |= {f"FELTLAB_CRASH_AFTER_{name.upper()}": str(value)
                for name, value in crash.items()}
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "feltlab", "serve", "--port", str(self.port),
                 "--database", self.database_url, "--workers", str(self.workers),
                 *self.options],
                env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        self.starts += 1
        self.wait_healthy()

    def wait_healthy(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}; "
                                   f"see {self.log}")
            try:
                if httpx.get(self.base + "/healthz", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise TimeoutError(f"the server did not answer in {timeout} s; see {self.log}")

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL the server and all its workers (and remove, as the next start would,
        the live-update sockets a killed SQLite worker leaves behind)."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)
        folder = peers_folder(make_url(self.database_url))
        if folder is not None:
            forget_dead_peers(folder)
            with contextlib.suppress(OSError):  # another server on the database keeps it
                folder.rmdir()

    def stop(self) -> None:
        self.kill()
        self.process = None
