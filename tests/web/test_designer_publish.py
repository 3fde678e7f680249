"""Publishing a player-favoured design from the designer page (issue 35): the page asks
for a confirmation showing every wager's edge, publishes nothing when cancelled, and
publishes with ``allow_player_edge`` when confirmed (the audit log records it); the admin
console's rule-set list then flags it."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx

from feltlab.server.auth import AuthSettings, password_hasher
from feltlab.server.services.accounts import create_account
from feltlab.server.services.database import make_engine, session_factory, transaction
from web.axe import assert_axe_clean
from web.conftest import Server, screenshot
from web.test_browser import TIMEOUT, shot
from web.test_designer_page import SLOW, shown_edge, wait_warm

DESIGN = "hcf-web-four-raises-2x"


def admin_account(server: Server) -> tuple[str, str]:
    name, password = f"publisher{int(time.time() * 1000) % 10**8}", "admin-password"
    engine = make_engine(server.database)
    with transaction(session_factory(engine)) as session:
        cheap = AuthSettings(argon2_time_cost=1, argon2_memory_kib=1024)
        create_account(session, password_hasher(cheap), name, password, role="admin")
    engine.dispose()
    return name, password


def published_ids(server: Server, headers: dict[str, str]) -> list[str]:
    answer = httpx.get(server.base + "/api/v1/admin/rulesets", headers=headers, timeout=10)
    return [entry["id"] for entry in answer.json()]


def test_publishing_a_player_favoured_design_asks_first(server: Server, desktop: Any,
                                                        artifacts: Path) -> None:
    name, password = admin_account(server)
    token = httpx.post(server.base + "/api/v1/login",
                       json={"username": name, "password": password}).json()["token"]
    headers = {"Authorization": f"Bearer {token}"}
    wait_warm(server)
    page = desktop.new_page()
    page.goto(server.base + "/")
    page.get_by_label("Username").fill(name)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_selector("#player:not([hidden])", timeout=TIMEOUT)
    page.goto(server.base + "/designer")
    page.wait_for_selector('#designer-sheet tr[data-wager="flush"]', timeout=SLOW)
    page.get_by_label("Id", exact=True).fill(DESIGN)
    page.get_by_label("Name", exact=True).fill("HCF, a 4-card flush raises 2x")
    page.get_by_label("Raise Multiples value", exact=True).nth(2).fill("2")  # lines 2..7
    page.wait_for_function(
        "() => document.querySelector('#designer-sheet tr[data-wager=\"ante\"] td.edge')"
        ".textContent === '\u22126.9537%'", timeout=TIMEOUT)
    dialog = page.locator("#publish-dialog")
    page.get_by_role("button", name="Publish", exact=True).click()
    dialog.wait_for(state="visible", timeout=SLOW)
    ante = dialog.locator("tbody tr", has_text="ante")
    assert ante.locator("td.num").text_content() == "\u22126.9537%" == shown_edge(page, "ante")
    assert "favours the player" in (ante.text_content() or "")
    assert dialog.locator("tbody tr.flagged").count() == 1
    assert dialog.locator("tbody tr").count() == 3  # every wager's edge, the bonuses too
    assert "ante" in (dialog.locator("#publish-dialog-text").text_content() or "")
    shot(page, artifacts, "designer-publish-confirmation")
    screenshot(page, artifacts / "designer-publish-confirmation-screen.png")
    assert_axe_clean(page, "designer-publish-confirmation", artifacts)
    page.keyboard.press("Escape")  # cancelled: nothing is published
    result = page.locator("#designer-publish-result")
    result.filter(has_text="Not published").wait_for(timeout=TIMEOUT)
    assert dialog.is_hidden() and DESIGN not in published_ids(server, headers)
    page.get_by_role("button", name="Publish", exact=True).click()
    dialog.wait_for(state="visible", timeout=SLOW)
    page.get_by_role("button", name="Publish anyway").click()
    result.filter(has_text=f"Published {DESIGN}").wait_for(timeout=TIMEOUT)
    assert "favouring the player" in (result.text_content() or "")
    shot(page, artifacts, "designer-published-player-favoured")
    assert DESIGN in published_ids(server, headers)
    audit = httpx.get(server.base + "/api/v1/admin/audit", headers=headers, timeout=10).json()
    [line] = [line for line in audit["latest"] if line["kind"] == "ruleset_published"
              and line["detail"]["rules"] == DESIGN]
    assert line["actor"] == name and line["detail"]["allow_player_edge"] is True
    assert f"{line['detail']['player_edges']['ante']:.4%}" == "-6.9537%"
    # the console's rule-set list flags it
    page.goto(server.base + "/admin")
    row = page.locator("#rules-table tr.flagged", has_text=DESIGN)
    row.wait_for(timeout=SLOW)
    assert "Favours the player (ante)" in (row.text_content() or "")
    row.scroll_into_view_if_needed()
    screenshot(page.locator("#rules-table"), artifacts / "console-player-favoured.png")
