"""Browser test fixtures: a real ``feltlab serve`` process on a temporary SQLite
database, and Debian's Chromium driven by Playwright for Python (no browser download).

Without /usr/bin/chromium (or ``FELTLAB_CHROMIUM``) or Playwright the browser tests skip,
unless ``FELTLAB_REQUIRE_CHROMIUM=1``: then they fail. Screenshots are taken when
``FELTLAB_WEB_ARTIFACTS`` names a folder for them (:func:`screenshot`); axe's results go
there too, or to a ``web-artifacts`` folder under pytest's temp dir.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import httpx
import pytest
from fastapi.testclient import TestClient

from feltlab.app import create_app
from feltlab.server.auth import AuthSettings
from feltlab.server.settings import Settings

_api_names = itertools.count(1)
SRC = str(Path(__file__).resolve().parents[2] / "src")
CHROMIUM = os.environ.get("FELTLAB_CHROMIUM", "/usr/bin/chromium")
REQUIRE = os.environ.get("FELTLAB_REQUIRE_CHROMIUM") == "1"
REFUSAL = "Failed to load resource: the server responded with a status of 4"
SCREENSHOTS = bool(os.environ.get("FELTLAB_WEB_ARTIFACTS"))
"""Screenshots are for a person to look at, so they are taken when ``FELTLAB_WEB_ARTIFACTS``
says where that person will look: nothing is checked on them, and each costs Chromium
0.3-1 s of one core (some 45 s of the browser tests' 5 minutes on one core)."""
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
WIDE = {"width": 1366, "height": 900}  # a common laptop screen: the designer's


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _missing_browser() -> str | None:
    if not Path(CHROMIUM).is_file():
        return f"Chromium is not installed at {CHROMIUM}"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed"
    return None


def screenshot(target: Any, path: Path, **options: Any) -> None:
    """``target.screenshot`` (a page's or a locator's) to ``path``, when screenshots are
    wanted (:data:`SCREENSHOTS`)."""
    if SCREENSHOTS:
        target.screenshot(path=str(path), **options)


@dataclass
class Server:
    base: str
    process: subprocess.Popen[bytes]
    log: Path
    database: str


@pytest.fixture(scope="session")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = Path(os.environ.get("FELTLAB_WEB_ARTIFACTS")
                  or tmp_path_factory.mktemp("web-artifacts"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """``feltlab serve`` on an empty temporary SQLite database (cheap password hashing).

    It reads and fills the derived-data cache the rest of the run uses (entries are named
    by the code's hash, so no other code's data is read): its warm-up and its designer's
    process then load what the tests before it computed instead of computing it all
    again beside the browser (half a minute of one core). A start on an empty cache is
    ``tests/server/test_warmup.py``'s and ``test_logs.py``'s to check."""
    folder = tmp_path_factory.mktemp("web-server")
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "FELTLAB_ARGON2_MEMORY_KIB": "1024", "FELTLAB_ARGON2_TIME_COST": "1",
           "XDG_DATA_HOME": str(folder / "data")}
    log = folder / "server.log"
    database = f"sqlite:///{folder / 'web.sqlite3'}"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "feltlab", "serve", "--port", str(port), "--database",
             database],
            env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"feltlab serve exited with {process.returncode}: {log.read_text()}")
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(base + "/healthz", timeout=2).status_code == 200:
                break
        time.sleep(0.2)
    else:
        process.kill()
        pytest.fail(f"feltlab serve did not answer in 90 s: {log.read_text()}")
    yield Server(base, process, log, database)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=15)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    problem = _missing_browser()
    if problem:
        if REQUIRE:
            pytest.fail(f"FELTLAB_REQUIRE_CHROMIUM=1 but {problem}")
        pytest.skip(problem)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM)
        yield launched
        launched.close()


@dataclass
class Watch:
    """What a page did: requests that left 127.0.0.1 (blocked) and console errors."""

    outside: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    expected_refusals: int = 0  # 4xx answers a test provokes (Chromium logs each one)

    def check(self) -> None:
        assert not self.outside, f"requests left the server: {self.outside}"
        refused = [error for error in self.errors if error.startswith(REFUSAL)]
        others = [error for error in self.errors if not error.startswith(REFUSAL)]
        assert not others, f"console errors: {others}"
        assert len(refused) == self.expected_refusals, f"console errors: {refused}"


def _guard(context: Any, watch: Watch) -> None:
    def route(route: Any) -> None:
        host = urlparse(route.request.url).hostname
        if host in ("127.0.0.1", None) or route.request.url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            watch.outside.append(route.request.url)
            route.abort()

    context.route("**/*", route)

    def on_page(page: Any) -> None:
        page.on("console", lambda message: watch.errors.append(message.text)
                if message.type == "error" else None)
        page.on("pageerror", lambda error: watch.errors.append(str(error)))

    context.on("page", on_page)


@pytest.fixture
def watch() -> Watch:
    return Watch()


@pytest.fixture
def desktop(browser: Any, watch: Watch) -> Iterator[Any]:
    context = browser.new_context(viewport=DESKTOP)
    _guard(context, watch)
    yield context
    context.close()
    watch.check()


@pytest.fixture
def wide(browser: Any, watch: Watch) -> Iterator[Any]:
    context = browser.new_context(viewport=WIDE)
    _guard(context, watch)
    yield context
    context.close()
    watch.check()


@pytest.fixture
def phone(browser: Any, watch: Watch) -> Iterator[Any]:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True,
                                  device_scale_factor=2)
    _guard(context, watch)
    yield context
    context.close()
    watch.check()


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The ASGI app in process on a temporary SQLite database (no browser)."""
    folder: Path = tmp_path_factory.mktemp("web-api")
    app = create_app(Settings(f"sqlite:///{folder / 'web.sqlite3'}",
                              AuthSettings(argon2_time_cost=1, argon2_memory_kib=1024)),
                     timers=False)
    with TestClient(app) as test_client:
        yield test_client
    app.state.services.engine.dispose()


@pytest.fixture
def headers(client: TestClient) -> dict[str, str]:
    """A new signed-up player's bearer header."""
    name = f"webapi{next(_api_names)}"
    body = {"username": name, "password": "correct horse"}
    assert client.post("/api/v1/accounts", json=body).status_code == 201
    token = client.post("/api/v1/login", json=body).json()["token"]
    client.cookies.clear()
    return {"Authorization": f"Bearer {token}"}
