"""The two servers ``feltlab operator demo`` runs: the reference operator wallet
(``examples/operator_wallet``, from the repository's checkout) as a subprocess, and
feltlab's own server in a thread of this process.

The wallet stands for an operator's code, so it runs as its own process, exactly as
``python -m examples.operator_wallet`` would, with a fresh random secret and admin token
and its ledger in the demo's temporary folder. feltlab's server is
:func:`feltlab.app.create_app` under uvicorn in a thread, with its timers on, so the
wallet outbox sends the wins as it would under ``feltlab serve``.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import feltlab

if TYPE_CHECKING:
    import uvicorn

WALLET_PACKAGE: Final = Path("examples") / "operator_wallet"
START_SECONDS: Final = 30.0
"""How long either server may take to answer its first request."""
STOP_SECONDS: Final = 10.0
"""How long either server may take to stop before it is killed (the wallet) or left
behind (feltlab's thread, a daemon)."""


class DemoUnavailable(RuntimeError):
    """Something the demo needs is missing or could not start (the message says what)."""


def repository_root(package_file: str | None = None) -> Path:
    """The checkout that holds the reference wallet: the folder two levels above the
    ``feltlab`` package (``src/feltlab``), or :class:`DemoUnavailable` if it has no
    ``examples/operator_wallet`` (feltlab installed from a wheel)."""
    package = Path(package_file or feltlab.__file__).resolve().parent
    root = package.parents[1] if len(package.parents) > 1 else package
    if not (root / WALLET_PACKAGE / "__main__.py").is_file():
        raise DemoUnavailable(
            "the demo needs a clone of feltlab's repository: it runs the reference operator "
            "wallet from examples/operator_wallet, which an installed wheel does not include "
            f"(looked in {root}); clone the repository and run pip install -e . there")
    return root


def check_port_free(port: int, option: str) -> None:
    """:class:`DemoUnavailable` naming ``option`` if nothing can listen on ``port``."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        if os.name != "nt":  # as uvicorn binds: a port left in TIME_WAIT is free
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError as error:
            raise DemoUnavailable(f"{option} {port}: cannot listen there "
                                  f"({error.strerror}); give another port") from None


def _wait_until(ready: Callable[[], bool], alive: Callable[[], bool], what: str,
                seconds: float = START_SECONDS) -> None:
    """Poll ``ready()`` until true; :class:`DemoUnavailable` once ``alive()`` is false or
    ``seconds`` have passed."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive():
            raise DemoUnavailable(f"{what} stopped while starting")
        if ready():
            return
        time.sleep(0.05)
    raise DemoUnavailable(f"{what} did not answer within {seconds:g} s")


def _answers(url: str) -> bool:
    import httpx

    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


@dataclass
class WalletProcess:
    """The reference wallet on ``port``, its ledger in ``folder``; :meth:`start` it,
    :meth:`stop` it."""

    root: Path
    port: int
    folder: Path
    secret: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    admin_token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log(self) -> Path:
        return self.folder / "wallet.log"

    def start(self) -> None:
        path = os.environ.get("PYTHONPATH")
        environment = dict(os.environ, OPERATOR_WALLET_SECRET=self.secret,
                           OPERATOR_WALLET_ADMIN_TOKEN=self.admin_token,
                           PYTHONPATH=os.pathsep.join([str(self.root), *([path] if path else [])]))
        environment.pop("OPERATOR_WALLET_PREVIOUS_SECRET", None)
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "examples.operator_wallet", "--port", str(self.port),
                 "--db", str(self.folder / "wallet.sqlite3"), "--log-level", "warning"],
                cwd=self.root, env=environment, stdin=subprocess.DEVNULL, stdout=log,
                stderr=subprocess.STDOUT)
        try:
            _wait_until(lambda: _answers(f"{self.url}/_health"), self.alive,
                        "the operator wallet")
        except DemoUnavailable as error:
            self.stop()
            raise DemoUnavailable(f"{error}; its log ends: {self.log_tail()}") from None

    def log_tail(self, lines: int = 4) -> str:
        """The last lines of the wallet's log, as one line (the log goes with the demo's
        temporary folder)."""
        try:
            text = self.log.read_text("utf-8", "replace")
        except OSError:
            return "(no log)"
        return " | ".join(line.strip() for line in text.splitlines()[-lines:]
                          if line.strip()) or "(empty)"

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def ledger(self, player: str) -> dict[str, Any]:
        """``GET /_ledger?player=`` with the admin token: the player's accounts and
        transactions, as the operator's back office sees them."""
        import httpx

        answer = httpx.get(f"{self.url}/_ledger", params={"player": player}, timeout=5,
                           headers={"Authorization": f"Bearer {self.admin_token}"})
        answer.raise_for_status()
        found: dict[str, Any] = answer.json()
        return found

    def curl_line(self, player: str) -> str:
        """A ready command line that prints the player's part of the wallet's ledger."""
        return (f"curl -s -H 'Authorization: Bearer {self.admin_token}' "
                f"'{self.url}/_ledger?player={player}'")

    def stop(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


@dataclass
class FeltlabThread:
    """feltlab's app (pages and API v1, timers on) served by uvicorn on ``port`` in a
    daemon thread; :meth:`start` it, :meth:`stop` it."""

    database_url: str
    port: int
    _server: uvicorn.Server | None = None
    _thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        from dataclasses import replace

        import uvicorn

        from feltlab.app import create_app
        from feltlab.cli.server import GRACEFUL_SECONDS, _settings

        settings = replace(_settings(self.database_url), warm=False)
        config = uvicorn.Config(create_app(settings, timers=True), host="127.0.0.1",
                                port=self.port, log_level="warning", access_log=False,
                                log_config=None, lifespan="on",
                                timeout_graceful_shutdown=GRACEFUL_SECONDS)
        server = self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=server.run, name="feltlab-demo-server",
                                        daemon=True)
        self._thread.start()
        try:
            _wait_until(lambda: server.started, self.alive, "feltlab's server")
        except DemoUnavailable:
            self.stop()
            raise

    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop(self) -> None:
        """Stop serving: the app's lifespan ends, which stops the outbox and closes the
        database."""
        if self._thread is None or self._server is None:
            return
        self._server.should_exit = True
        with contextlib.suppress(RuntimeError):
            self._thread.join(timeout=STOP_SECONDS)
        self._thread = None
