"""What publishing checks (issue 35): a design favouring the player is refused naming the
wager and its edge unless the admin allows it (audit-logged); one that can pay one seat
more than the house exposure limit on one round is refused naming the figure, whatever
the admin says; every built-in passes both; a rule set published before the checks and
over the limit opens no table after a restart; an admin never adjusts their own cash."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from fastapi.testclient import TestClient

from feltlab.core import registry
from feltlab.core.exposure import DEFAULT_EXPOSURE_LIMIT
from feltlab.core.rules import parse_rules
from feltlab.server.app import create_app
from feltlab.server.clock import now
from feltlab.server.models import PublishedRuleSet
from feltlab.server.services.context import Services
from feltlab.server.settings import SettingsError, from_environment
from server.conftest import settings_for, sign_up
from server.designs import builtin_data, design, to_toml
from server.test_shared import make_admin
from shipped import own_ids


def _raise_twice_on_four(data: dict[str, Any]) -> None:
    data["id"], data["name"] = "hcf-four-raises-2x", "HCF, a 4-card flush raises 2x"
    data["raise_multiples"]["4"] = 2


PLAYER_FAVOURED = design("high-card-flush", _raise_twice_on_four)
"""The issue's design: the Ante's edge under the optimal strategy is -6.9537%."""


def _pays_everything(data: dict[str, Any]) -> None:
    data["id"], data["name"] = "hcf-everything-pays", "HCF, every pay 100,000 to 1"
    data["limits"] = {name: {"min": 1, "max": 1_000_000} for name in data["limits"]}
    for table in ("flush_pays", "straight_flush_pays"):
        data[table] = {line: 100_000 for line in data[table]}


OVER_EXPOSED = design("high-card-flush", _pays_everything)
"""The issue's other design: 1,000,000 + 3,000,000 raised + 2 x 100,000,000,000 a round."""


def publish(client: TestClient, headers: dict[str, str], text: str,
            allow_player_edge: bool | None = None) -> Any:
    body: dict[str, Any] = {"rules": text}
    if allow_player_edge is not None:
        body["allow_player_edge"] = allow_player_edge
    return client.post("/api/v1/admin/rulesets", json=body, headers=headers)


def audit_lines(client: TestClient, headers: dict[str, str], kind: str) -> list[Any]:
    audit = client.get("/api/v1/admin/audit", headers=headers).json()
    assert audit["intact"]
    return [line for line in audit["latest"] if line["kind"] == kind]


def test_a_player_favoured_design_is_refused_naming_the_wager_and_its_edge(
        client: TestClient) -> None:
    admin = make_admin(client)
    for allow in (None, False):
        refused = publish(client, admin, PLAYER_FAVOURED, allow)
        assert refused.status_code == 422, refused.text
        detail = refused.json()["detail"]
        assert "favours the player" in detail and "ante -6.9537%" in detail
        assert "allow_player_edge" in detail
    assert "hcf-four-raises-2x" not in [rules["id"] for rules in
                                        client.get("/api/v1/rules").json()]
    assert audit_lines(client, admin, "ruleset_published") == []
    checks = client.post("/api/v1/admin/rulesets/check", json={"rules": PLAYER_FAVOURED},
                         headers=admin).json()
    assert checks["player_favoured"] == ["ante"]
    assert f"{checks['house_edges']['ante']:.4%}" == "-6.9537%"
    assert checks["house_edges"]["flush"] > 0 and checks["exposure"] == 834_000


def test_a_player_favoured_design_is_published_when_allowed_and_audit_logged(
        client: TestClient) -> None:
    admin = make_admin(client)
    published = publish(client, admin, PLAYER_FAVOURED, allow_player_edge=True)
    assert published.status_code == 201, published.text
    assert "hcf-four-raises-2x" in [rules["id"] for rules in
                                    client.get("/api/v1/rules").json()]
    [line] = audit_lines(client, admin, "ruleset_published")
    assert line["detail"]["rules"] == "hcf-four-raises-2x"
    assert line["detail"]["allow_player_edge"] is True
    assert f"{line['detail']['player_edges']['ante']:.4%}" == "-6.9537%"
    assert list(line["detail"]["player_edges"]) == ["ante"]
    flagged = {row["rules"]: row for row in
               client.get("/api/v1/admin/console/rules", headers=admin).json()}
    assert flagged["hcf-four-raises-2x"]["player_favoured"] == ["ante"]
    assert flagged["hcf-four-raises-2x"]["over_exposure_limit"] is False


def test_a_design_over_the_exposure_limit_is_refused_naming_the_figure(
        client: TestClient) -> None:
    admin = make_admin(client)
    for allow in (None, True):
        refused = publish(client, admin, OVER_EXPOSED, allow)
        assert refused.status_code == 422, refused.text
        detail = refused.json()["detail"]
        assert "200,004,000,000" in detail and "1,000,000" in detail
        assert "exposure limit" in detail and "FELTLAB_HOUSE_EXPOSURE_LIMIT" in detail
    assert audit_lines(client, admin, "ruleset_published") == []
    checks = client.post("/api/v1/admin/rulesets/check", json={"rules": OVER_EXPOSED},
                         headers=admin).json()
    assert checks["exposure"] == 200_004_000_000 and checks["exposure_limit"] == 1_000_000


@pytest.mark.parametrize("rules_id", own_ids())
def test_every_built_in_rule_set_passes_both_checks(client: TestClient, rules_id: str) -> None:
    admin = make_admin(client)
    data = builtin_data(rules_id)
    data["id"] = f"copy-of-{rules_id}"
    published = publish(client, admin, to_toml(data))
    assert published.status_code == 201, published.text
    checks = client.post("/api/v1/admin/rulesets/check",
                         json={"rules": registry.builtin_text(rules_id)}, headers=admin).json()
    assert checks["player_favoured"] == [] and checks["exposure"] <= checks["exposure_limit"]
    player = sign_up(client)
    cash = client.post("/api/v1/tables", json={"rules": rules_id, "practice": False},
                       headers=player)
    assert cash.status_code == 201, cash.text


def test_an_admin_cannot_adjust_their_own_cash(client: TestClient) -> None:
    admin = make_admin(client)
    me = client.get("/api/v1/me", headers=admin).json()
    players = client.get("/api/v1/admin/players", params={"q": me["username"]},
                         headers=admin).json()
    own_id = next(row["user_id"] for row in players if row["username"] == me["username"])
    by_id = client.post(f"/api/v1/admin/players/{own_id}/cash",
                        json={"amount": 1_000, "reason": "a bonus"}, headers=admin)
    by_name = client.post("/api/v1/admin/cash", json={"username": me["username"],
                                                      "amount": 1_000, "memo": "a bonus"},
                          headers=admin)
    for refused in (by_id, by_name):
        assert refused.status_code == 403, refused.text
        assert "own cash" in refused.json()["detail"]
    assert client.get("/api/v1/me", headers=admin).json()["balances"]["cash"] == 0
    assert audit_lines(client, admin, "cash_adjusted") == []
    other = make_admin(client)  # another admin may
    assert client.post(f"/api/v1/admin/players/{own_id}/cash",
                       json={"amount": 1_000, "reason": "a bonus"},
                       headers=other).status_code == 200


def _published_before_the_checks(found: Services, text: str) -> None:
    """A rule set stored as publishing stored them before it checked anything."""
    rules = parse_rules(text, "rules")
    with found.transaction() as session:
        session.add(PublishedRuleSet(id=rules.id, name=rules.name, game=rules.game,
                                     fingerprint=rules.fingerprint, toml=text,
                                     published_by="an-old-admin", published_at=now()))


def test_a_rule_set_over_the_limit_opens_no_table_after_a_restart(
        database_url: str, caplog: pytest.LogCaptureFixture) -> None:
    first = create_app(settings_for(database_url), timers=False)
    with TestClient(first) as client:
        _published_before_the_checks(first.state.services, OVER_EXPOSED)
        _published_before_the_checks(first.state.services, PLAYER_FAVOURED)
        admin = make_admin(client)
        within = design("high-card-flush", lambda data: data.update(id="hcf-within"))
        assert publish(client, admin, within).status_code == 201
    first.state.services.engine.dispose()
    # restarted with a lower limit: hcf-within (834,000, as High Card Flush) is over it now
    restarted = create_app(settings_for(database_url, house_exposure_limit=500_000),
                           timers=False)
    with caplog.at_level(logging.WARNING, "feltlab.server"), TestClient(restarted) as client:
        logged = caplog.text
        assert "hcf-everything-pays opens no new table" in logged
        assert "hcf-within opens no new table" in logged
        player = sign_up(client)
        for rules_id, figure in (("hcf-everything-pays", "200,004,000,000"),
                                 ("hcf-within", "834,000")):
            for practice in (True, False):
                refused = client.post("/api/v1/tables", json={"rules": rules_id,
                                                              "practice": practice},
                                      headers=player)
                assert refused.status_code == 422, refused.text
                detail = refused.json()["detail"]
                assert f"{rules_id!r} opens no new table" in detail
                assert figure in detail and "500,000" in detail
        admin = make_admin(client)
        shared = client.post("/api/v1/admin/tables", json={"rules": "hcf-everything-pays"},
                             headers=admin)
        assert shared.status_code == 422 and "exposure limit" in shared.json()["detail"]
        again = publish(client, admin, OVER_EXPOSED, allow_player_edge=True)
        assert again.status_code == 422 and "200,004,000,000" in again.json()["detail"]
        # the limit holds every rule set: within it opens, over it (a built-in too) does not
        assert client.post("/api/v1/tables", json={"rules": "high-card-flush-toledo"},
                           headers=player).status_code == 201
        for over in ("high-card-flush", "hcf-four-raises-2x"):
            assert client.post("/api/v1/tables", json={"rules": over},
                               headers=player).status_code == 422
        console = {row["rules"]: row for row in
                   client.get("/api/v1/admin/console/rules", headers=admin).json()}
        assert console["hcf-four-raises-2x"]["player_favoured"] == ["ante"]
        assert console["hcf-everything-pays"]["over_exposure_limit"] is True
        assert console["hcf-within"]["over_exposure_limit"] is True
        assert console["hcf-within"]["player_favoured"] == []
    restarted.state.services.engine.dispose()


def test_the_limit_is_a_setting() -> None:
    assert from_environment({}).house_exposure_limit == DEFAULT_EXPOSURE_LIMIT == 1_000_000
    given = from_environment({"FELTLAB_HOUSE_EXPOSURE_LIMIT": "250000"})
    assert given.house_exposure_limit == 250_000
    for bad in ("0", "1e6", "lots"):
        with pytest.raises(SettingsError, match="FELTLAB_HOUSE_EXPOSURE_LIMIT must be a whole"):
            from_environment({"FELTLAB_HOUSE_EXPOSURE_LIMIT": bad})
