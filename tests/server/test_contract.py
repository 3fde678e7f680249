"""API v1's contract: ``/openapi.json`` tells the truth. Schemathesis (a property-based
client driven by the document) runs every check it has against a real ``feltlab serve``
on a throwaway database with a player's token and finds no failure; the admin's run and
longer runs are ``pytest -m slow tests/server/test_contract.py`` (docs/server.md).

The cases below pin what Schemathesis found before the contract was declared, so that
each fails fast, by name, should it come back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from feltlab.server.api.contract import ErrorBody
from feltlab.server.app import create_app
from server.conftest import practice_table, settings_for, sign_up
from server.live_server import LiveServer

SCHEMATHESIS = Path(sys.executable).parent / "schemathesis"
CONFIG = Path(__file__).with_name("schemathesis.toml")
EXAMPLES = int(os.environ.get("FELTLAB_CONTRACT_EXAMPLES", "60"))
"""Test cases per operation and phase (about a minute in all on one core at 60; see
:func:`player_config` for the player's run)."""
SEED = os.environ.get("FELTLAB_CONTRACT_SEED", "24")
PASSWORD = "Qv7-contract-Lk2!zeta"  # strong by any estimator


@pytest.fixture(scope="module")
def app_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    folder = tmp_path_factory.mktemp("contract")
    app = create_app(settings_for(f"sqlite:///{folder / 'server.sqlite3'}"), timers=False)
    with TestClient(app) as client:
        yield client
    app.state.services.engine.dispose()


@pytest.fixture(scope="module")
def document(app_client: TestClient) -> dict[str, Any]:
    answer: dict[str, Any] = app_client.get("/openapi.json").json()
    return answer


def operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            yield method, path, operation


def test_every_refusal_is_the_one_error_model(document: dict[str, Any]) -> None:
    error = {"$ref": "#/components/schemas/ErrorBody"}
    assert document["components"]["schemas"]["ErrorBody"] == ErrorBody.model_json_schema()
    assert "HTTPValidationError" not in json.dumps(document)
    for method, path, operation in operations(document):
        refusals = {status: answer for status, answer in operation["responses"].items()
                    if int(status) >= 400}
        for answer in refusals.values():
            assert answer["content"]["application/json"]["schema"] == error, (method, path)
        if operation.get("security"):
            assert {"401", "503"} <= set(refusals), (method, path)
        if method in ("post", "put", "delete"):
            assert {"413", "422"} <= set(refusals), (method, path)
        if "{" in path:
            assert "404" in refusals, (method, path)


def test_the_error_model_is_what_a_refusal_answers(app_client: TestClient) -> None:
    answer = app_client.get("/api/v1/tables/1")
    assert answer.status_code == 401
    assert ErrorBody.model_validate(answer.json()).detail
    answer = app_client.post("/api/v1/accounts", json={"username": "x"})
    assert answer.status_code == 422 and set(answer.json()) == {"detail"}


@pytest.mark.parametrize("method, path, allowed", [
    ("TRACE", "/api/v1/tables", "GET, HEAD, POST"),
    ("PUT", "/api/v1/tables/3/seats", "DELETE, POST"),
    ("DELETE", "/healthz", "GET, HEAD"),
    ("PATCH", "/api/v1/rules/high-card-flush", "GET, HEAD"),
])
def test_405_says_which_methods_are_allowed(app_client: TestClient, method: str, path: str,
                                            allowed: str) -> None:
    answer = app_client.request(method, path)
    assert answer.status_code == 405
    assert answer.headers["allow"] == allowed
    assert set(answer.json()) == {"detail"}


def test_constraints_the_server_checks_are_in_the_schemas(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    account = schemas["NewAccount"]["properties"]
    assert account["username"]["pattern"] == "^[A-Za-z0-9_.-]{3,32}$"
    assert account["password"]["minLength"] == 8
    seed = schemas["RoundRequest"]["properties"]["client_seed"]["anyOf"][0]
    assert seed["pattern"] == "^[A-Za-z0-9_.:-]{0,64}$"
    assert schemas["SeatRequest"]["properties"]["seat"] == {
        "type": "integer", "minimum": 1, "maximum": 20, "title": "Seat"}
    assert schemas["PayoutRequestBody"]["required"] == ["rules"]
    rules = schemas["TableRequest"]["properties"]["rules"]
    assert "enum" not in rules  # free text, checked when the request runs (404)
    assert schemas["AdjustRequest"]["properties"]["amount"]["not"] == {"const": 0}
    # a reason or a note of nothing but spaces is refused: the schema says so
    assert schemas["LockRequest"]["properties"]["reason"]["pattern"] == r"\S"
    assert schemas["ResolveRequest"]["properties"]["note"]["pattern"] == r"\S"


def test_a_whole_number_may_be_written_with_a_point(app_client: TestClient) -> None:
    """JSON Schema's integer is any number without a fraction: ``5.0`` is accepted as 5,
    ``5.5`` is not."""
    headers = sign_up(app_client)
    table = practice_table(app_client, headers, "high-card-flush")
    half = app_client.post(f"/api/v1/tables/{table}/rounds", headers=headers,
                           json={"wagers": {"ante": 5.5}})
    assert half.status_code == 422
    dealt = app_client.post(f"/api/v1/tables/{table}/rounds", headers=headers,
                            json={"wagers": {"ante": 5.0}})
    assert dealt.status_code == 201, dealt.text
    assert dealt.json()["wagers"] == {"ante": 5}
    limits = app_client.put("/api/v1/me/limits", headers=headers,
                            json={"daily_loss_limit": 100.0})
    assert limits.status_code == 200 and limits.json()["limits"]["daily_loss_limit"] == 100


def test_an_unknown_rule_set_is_not_found(app_client: TestClient) -> None:
    headers = sign_up(app_client)
    answer = app_client.post("/api/v1/tables", headers=headers, json={"rules": "nope"})
    assert answer.status_code == 404
    assert "no rule set 'nope'" in answer.json()["detail"]


def test_the_dealer_check_needs_a_rule_set_first(app_client: TestClient) -> None:
    headers = sign_up(app_client)
    shapeless = app_client.post("/api/v1/dealer-checks", headers=headers,
                                json={"request": {}, "answers": {}})
    assert shapeless.status_code == 422 and "request.rules" in shapeless.json()["detail"]
    unknown = app_client.post("/api/v1/dealer-checks", headers=headers,
                              json={"request": {"rules": "nope"}, "answers": {}})
    assert unknown.status_code == 404


# --- Schemathesis against a real server ---------------------------------------------------


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    folder = tmp_path_factory.mktemp("contract-live")
    server = LiveServer(f"sqlite:///{folder / 'server.sqlite3'}", folder / "server.log")
    server.start()
    yield server
    server.stop()


def token(server: LiveServer, username: str, admin: bool = False) -> str:
    if admin:
        subprocess.run([sys.executable, "-m", "feltlab", "admin", "create", username,
                        "--database", server.database_url, "--password-stdin"],
                       input=PASSWORD, text=True, check=True, capture_output=True,
                       env={**os.environ, "FELTLAB_ARGON2_MEMORY_KIB": "1024",
                            "FELTLAB_ARGON2_TIME_COST": "1"})
    else:
        created = httpx.post(server.base + "/api/v1/accounts",
                             json={"username": username, "password": PASSWORD})
        assert created.status_code == 201, created.text
    answer = httpx.post(server.base + "/api/v1/login",
                        json={"username": username, "password": PASSWORD})
    assert answer.status_code == 200, answer.text
    found: str = answer.json()["token"]
    return found


REFUSED_A_PLAYER = r"^/api/v1/(admin/.*|operator/(transactions|sessions.*))$"
"""The operations that refuse a player's token whatever the request holds: an admin's (403)
and an operator's signed calls (401)."""


def player_config(folder: Path) -> Path:
    """:data:`CONFIG` for the player's run: the operations of :data:`REFUSED_A_PLAYER` fuzzed
    with a tenth of the cases. Every case there gets the same refusal before the request is
    read (all 60 of each did), so six check it as well as sixty; the coverage phase still
    sends every boundary case of them, and the admin's run (-m slow) fuzzes them in full.
    That is 1,400 of the run's 6,000 cases (30 of 66 operations), 15 s of one core."""
    config = folder / "schemathesis.toml"
    config.write_text(CONFIG.read_text() + f"""
# tests/server/test_contract.py's player's run (see player_config)
[[operations]]
include-path-regex = '{REFUSED_A_PLAYER}'
generation.max-examples = {max(1, EXAMPLES // 10)}
""")
    return config


def schemathesis(server: LiveServer, bearer: str, folder: Path, config: Path = CONFIG
                 ) -> None:
    """Every check, every phase, logout left out (it would end the token mid-run)."""
    if not SCHEMATHESIS.is_file():
        pytest.fail(f"Schemathesis is not installed ({SCHEMATHESIS}): pip install -e '.[dev]'")
    run = subprocess.run(
        [str(SCHEMATHESIS), "--config-file", str(config), "run", server.base + "/openapi.json",
         "--checks", "all",
         "--header", f"Authorization: Bearer {bearer}", "--exclude-path", "/api/v1/logout",
         "--max-examples", str(EXAMPLES), "--seed", SEED, "--workers", "1",
         "--report", "junit", "--report-dir", str(folder)],
        capture_output=True, text=True, timeout=900, cwd=folder)
    assert run.returncode == 0, run.stdout[-20_000:] + run.stderr[-2_000:]
    assert " passed" in run.stdout and "generated" in run.stdout, run.stdout[-2_000:]


def test_schemathesis_finds_no_failure_for_a_player(live: LiveServer, tmp_path: Path) -> None:
    schemathesis(live, token(live, "contract_player"), tmp_path, player_config(tmp_path))


@pytest.mark.slow
def test_schemathesis_finds_no_failure_for_an_admin(live: LiveServer, tmp_path: Path) -> None:
    schemathesis(live, token(live, "contract_admin", admin=True), tmp_path)
