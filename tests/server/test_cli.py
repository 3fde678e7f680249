"""The server's commands: a fresh machine serves with no other step; bad input is one
error line with exit status 2."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
from alembic.script import ScriptDirectory

from server.cli_helpers import run_cli
from server.live_server import SRC
from server.pg import free_port


def test_serve_on_a_fresh_machine(tmp_path: Path) -> None:
    """``feltlab serve`` with no options: an empty data folder, SQLite created there."""
    port = free_port()
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "PYTHONPATH": SRC,
           "FELTLAB_ARGON2_MEMORY_KIB": "1024"}
    env.pop("FELTLAB_DATABASE_URL", None)
    server = subprocess.Popen([sys.executable, "-m", "feltlab", "serve", "--port", str(port)],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2)
                break
            except httpx.TransportError:
                assert server.poll() is None, server.stderr.read() if server.stderr else ""
                time.sleep(0.2)
        # alive at once; ready once the start-up warm-up is done (it runs in the background)
        assert health.json() | {"ready": True} == {"status": "ok", "database": "sqlite",
                                                    "ready": True}
        created = httpx.post(f"http://127.0.0.1:{port}/api/v1/accounts",
                             json={"username": "first", "password": "first-password"})
        assert created.status_code == 201
        assert (tmp_path / "data" / "feltlab" / "server.sqlite3").exists()
    finally:
        server.kill()
        server.wait()


def head_revision() -> str:
    """The newest migration's revision (the lead re-chains them when merging)."""
    from alembic.config import Config

    from feltlab.server.migrate import MIGRATIONS

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None
    return head


def test_db_upgrade_and_bad_urls(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'new' / 'x.sqlite3'}"
    code, out, _ = run_cli(["db", "upgrade", "--database", url])
    assert code == 0 and f"revision {head_revision()}" in out
    for bad in ("mysql://x/y", "not a url"):
        code, out, err = run_cli(["db", "upgrade", "--database", bad])
        assert code == 2 and out == "" and err.startswith("error: ")
        assert len(err.strip().splitlines()) == 1
    code, _, err = run_cli(["serve", "--database", "mysql://x/y"])
    assert code == 2 and "sqlite" in err


def test_verify_refuses_bad_files(tmp_path: Path) -> None:
    code, _, err = run_cli(["verify", str(tmp_path / "missing.json")])
    assert code == 2 and "cannot read" in err
    for text, words in (("{", "JSON"), ('{"phase": "decisions"}', "complete"), ("[]", "object")):
        path = tmp_path / "round.json"
        path.write_text(text)
        code, out, err = run_cli(["verify", str(path)])
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
        assert words in err


def test_admin_create_refusals(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'a.sqlite3'}"
    code, _, err = run_cli(["admin", "create", "x", "--database", url, "--password-stdin"],
                           "long-enough-pw\n")
    assert code == 2 and "username" in err
    code, _, err = run_cli(["admin", "create", "boss", "--database", url, "--password-stdin"],
                           "short\n")
    assert code == 2 and "password" in err
