"""Publishing designs: admins only; a published rule set is listed, dealt at practice,
cash and shared tables, immutable, audit-logged, withdrawable, and its rounds verify
offline from the TOML they carry."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import feltlab.analysis
from analysis.test_report import fake_sheet
from feltlab.core import registry
from feltlab.core.rules import Rules
from feltlab.server.verify import verify_round
from server.cli_helpers import run_cli
from server.conftest import practice_table, sign_up
from server.designs import design
from server.test_shared import make_admin


def _variant(data: dict[str, Any]) -> None:
    data["id"] = "hcf-house-special"
    data["name"] = "High Card Flush (house special)"
    data["flush_pays"]["5"] = 12


SPECIAL = design("high-card-flush", _variant)


@pytest.fixture
def admin(client: TestClient) -> Iterator[dict[str, str]]:
    yield make_admin(client)


def publish(client: TestClient, headers: dict[str, str], text: str = SPECIAL) -> Any:
    return client.post("/api/v1/admin/rulesets", json={"rules": text}, headers=headers)


def test_players_cannot_publish(client: TestClient) -> None:
    player = sign_up(client)
    answer = publish(client, player)
    assert answer.status_code == 403
    assert client.post("/api/v1/admin/rulesets/hcf-house-special/withdraw",
                       headers=player).status_code == 403
    assert "hcf-house-special" not in [rules["id"] for rules in
                                       client.get("/api/v1/rules").json()]


def test_publish_once_then_the_same_answer_then_conflicts(client: TestClient,
                                                          admin: dict[str, str]) -> None:
    first = publish(client, admin)
    assert first.status_code == 201, first.text
    entry = first.json()
    assert entry["id"] == "hcf-house-special" and len(entry["fingerprint"]) == 64
    again = publish(client, admin, "# the same rules, laid out otherwise\n" + SPECIAL)
    assert again.status_code == 200 and again.json() == entry
    changed = publish(client, admin, SPECIAL.replace("5 = 12", "5 = 13"))
    assert changed.status_code == 409 and "new id" in changed.json()["detail"]
    builtin = publish(client, admin, design("high-card-flush", lambda data: None))
    assert builtin.status_code == 409 and "built-in" in builtin.json()["detail"]
    bad = publish(client, admin, SPECIAL.replace("5 = 12", "5 = -2"))
    assert bad.status_code == 422 and "field flush_pays.5" in bad.json()["detail"]
    audit = client.get("/api/v1/admin/audit", headers=admin).json()
    kinds = [line["kind"] for line in audit["latest"]]
    assert kinds.count("ruleset_published") == 1 and audit["intact"]


def test_a_published_rule_set_is_dealt_and_verified(client: TestClient, admin: dict[str, str],
                                                    tmp_path: Path) -> None:
    assert publish(client, admin).status_code == 201
    listed = {rules["id"]: rules for rules in client.get("/api/v1/rules").json()}
    assert listed["hcf-house-special"]["name"] == "High Card Flush (house special)"
    assert client.get("/api/v1/rules/hcf-house-special").json()["definition"][
        "flush_pays"]["5"] == 12
    player = sign_up(client)
    table = practice_table(client, player, "hcf-house-special")
    for _ in range(3):
        answer = client.post(f"/api/v1/tables/{table}/rounds",
                             json={"wagers": {"ante": 10, "flush": 5}}, headers=player)
        assert answer.status_code == 201, answer.text
        view = answer.json()
        while view["phase"] != "complete":
            view = client.post(f"/api/v1/rounds/{view['id']}/actions",
                               json=view["options"][-1], headers=player).json()
        assert view["rules_toml"] == SPECIAL
        recall = client.get(f"/api/v1/rounds/{view['id']}/recall", headers=player).json()
        assert recall["rules_toml"] == SPECIAL
        # offline: no server, no published rule sets known; the round's TOML is enough
        registry.set_published_source(None)
        try:
            assert verify_round(view)["verified"] is True
            path = tmp_path / "round.json"
            path.write_text(json.dumps(view), "utf-8")
            code, _, err = run_cli(["verify", str(path)])
            assert code == 0, err
            tampered = dict(view, rules_toml=SPECIAL.replace("5 = 12", "5 = 50"))
            with pytest.raises(ValueError, match="fingerprint"):
                verify_round(tampered)
        finally:
            from feltlab.server.services import rulesets
            rulesets.install(client.app.state.services)  # type: ignore[attr-defined]
    cash = client.post("/api/v1/tables", json={"rules": "hcf-house-special",
                                               "practice": False}, headers=player)
    assert cash.status_code == 201, cash.text
    shared = client.post("/api/v1/admin/tables", json={"rules": "hcf-house-special"},
                         headers=admin)
    assert shared.status_code == 201, shared.text
    assert shared.json()["fingerprint"] == listed["hcf-house-special"]["fingerprint"]


def test_a_withdrawn_rule_set_opens_no_new_table(client: TestClient,
                                                 admin: dict[str, str]) -> None:
    assert publish(client, admin).status_code == 201
    player = sign_up(client)
    table = practice_table(client, player, "hcf-house-special")
    withdrawn = client.post("/api/v1/admin/rulesets/hcf-house-special/withdraw",
                            headers=admin)
    assert withdrawn.status_code == 200 and withdrawn.json()["withdrawn_at"]
    assert "hcf-house-special" not in [rules["id"] for rules in
                                       client.get("/api/v1/rules").json()]
    refused = client.post("/api/v1/tables", json={"rules": "hcf-house-special"},
                          headers=player)
    assert refused.status_code == 422
    # the table already open still deals it
    assert client.post(f"/api/v1/tables/{table}/rounds", json={"wagers": {"ante": 5}},
                       headers=player).status_code == 201
    assert client.post("/api/v1/admin/rulesets/no-such/withdraw",
                       headers=admin).status_code == 404
    listing = client.get("/api/v1/admin/rulesets", headers=admin).json()
    assert [entry["id"] for entry in listing] == ["hcf-house-special"]


@pytest.fixture
def command_line() -> Iterator[None]:
    """This process as the command line's own: no server's published rule sets known."""
    before = registry.published_source()
    registry.set_published_source(None)
    yield
    registry.set_published_source(before)


def test_the_command_line_finds_a_published_id_in_the_database_named(
        client: TestClient, admin: dict[str, str], database_url: str, command_line: None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``feltlab rules ID`` and ``analyze ID`` find a rule set published from the designer
    in the database ``--database`` or FELTLAB_DATABASE_URL names, and only there."""
    entry = publish(client, admin).json()
    monkeypatch.delenv("FELTLAB_DATABASE_URL", raising=False)
    code, _, err = run_cli(["rules", "hcf-house-special"])
    assert code == 2 and "no rule set 'hcf-house-special'" in err
    code, out, err = run_cli(["rules", "hcf-house-special", "--database", database_url])
    assert code == 0, err
    assert "High Card Flush (house special)" in out and entry["fingerprint"] in out
    analysed: list[Rules] = []

    def analyze(rules: Rules, progress: object = None) -> object:
        analysed.append(rules)
        return fake_sheet()

    monkeypatch.setattr(feltlab.analysis, "analyze", analyze)
    monkeypatch.setenv("FELTLAB_DATABASE_URL", database_url)
    for args in (["analyze", "hcf-house-special", "--json"],
                 ["analyze", "hcf-house-special", "--json", "--database", database_url]):
        code, out, err = run_cli(args)
        assert code == 0, err
    assert [rules.fingerprint for rules in analysed] == [entry["fingerprint"]] * 2
    env = {**os.environ, "FELTLAB_DATABASE_URL": database_url}
    done = subprocess.run([sys.executable, "-m", "feltlab", "rules", "hcf-house-special"],
                          env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert entry["fingerprint"] in done.stdout
