"""The operator's console in a real Chromium against a real ``feltlab serve``: the pit's
hold, theoretical win and win with the chart of win against theoretical win by day,
the same numbers as the reports API; a player found, locked with a reason and unlocked,
by keyboard; the audit log's head shown; no request leaves 127.0.0.1 and the console
shows no error."""

from __future__ import annotations

import itertools
import time
from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from feltlab.server.services.accounts import create_admin
from server.cli_helpers import run_cli
from web.axe import assert_axe_clean
from web.conftest import Server, Watch, screenshot

_names = itertools.count(1)
TIMEOUT = 30_000
PASSWORD = "correct horse"


STALE_FIRST_SEARCH = """
(() => {
  const fetched = window.fetch.bind(window);
  let searches = 0;
  let laterAnswered;
  const later = new Promise((resolve) => { laterAnswered = resolve; });
  window.fetch = async (url, options) => {
    const search = String(url).includes("/admin/players?q=") ? ++searches : 0;
    const answer = await fetched(url, options);
    if (search === 1) {
      await later;
      await new Promise((resolve) => setTimeout(resolve, 200));
      setTimeout(() => { window.firstSearchAnswered = true; }, 300);
    } else if (search > 1) {
      laterAnswered();
    }
    return answer;
  };
})();
"""
"""The console's first search of players (everyone) held until a later search has
answered: the race a loaded machine once ran, when the first answer replaced the rows
of the search typed after it."""


def _api_player(server: Server, rounds: int) -> str:
    """A player who plays ``rounds`` practice rounds of High Card Flush through API v1."""
    name = f"pit{int(time.time()) % 100000}x{next(_names)}"
    with httpx.Client(base_url=server.base, timeout=30) as http:
        assert http.post("/api/v1/accounts",
                         json={"username": name, "password": PASSWORD}).status_code == 201
        token = http.post("/api/v1/login", json={"username": name, "password": PASSWORD})
        headers = {"Authorization": f"Bearer {token.json()['token']}"}
        http.cookies.clear()
        table = http.post("/api/v1/tables", json={"rules": "high-card-flush"},
                          headers=headers).json()["id"]
        for _ in range(rounds):
            view = http.post(f"/api/v1/tables/{table}/rounds",
                             json={"wagers": {"ante": 5, "flush": 1}}, headers=headers).json()
            while view["phase"] != "complete":
                view = http.post(f"/api/v1/rounds/{view['id']}/actions",
                                 json=view["options"][-1], headers=headers).json()
    return name


def _admin(server: Server) -> str:
    name = f"boss{int(time.time()) % 100000}x{next(_names)}"
    code, _, err = run_cli(["admin", "create", name, "--database", server.database,
                            "--password-stdin"], stdin=PASSWORD + "\n")
    assert code == 0, err
    return name


def _report(server: Server, admin: str) -> dict[str, Any]:
    with httpx.Client(base_url=server.base, timeout=30) as http:
        token = http.post("/api/v1/login", json={"username": admin, "password": PASSWORD})
        http.cookies.clear()
        answer = http.get("/api/v1/admin/reports/days", params={"currency": "practice"},
                          headers={"Authorization": f"Bearer {token.json()['token']}"})
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def sign_in(page: Any, server: Server, admin: str) -> None:
    """Sign ``admin`` in on the lobby and open the console."""
    page.goto(server.base + "/")
    page.get_by_label("Username").fill(admin)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in", exact=True).click()
    page.wait_for_selector("#who span", timeout=TIMEOUT)
    page.goto(server.base + "/admin")
    page.wait_for_selector("#console:not([hidden])", timeout=TIMEOUT)


def _money(value: float) -> str:
    return f"{value:,.2f}"


def _shown_report(page: Any, server: Server, admin: str) -> dict[str, Any]:
    """The report's totals once the page shows the same as the API answers: rounds of
    other tests' shared tables may settle on their timers between the page's read and
    the test's, so both are read again until they agree."""
    for _ in range(5):
        page.get_by_role("button", name="Show report").click()
        totals: dict[str, Any] = _report(server, admin)["totals"]
        try:
            page.wait_for_function(
                "text => document.getElementById('pit-handle').textContent === text",
                arg=_money(totals["handle"]), timeout=TIMEOUT // 5)
        except PlaywrightTimeout:
            continue
        return totals
    raise AssertionError("the console's pit never showed the report the API answers")


def test_console_shows_the_pit(server: Server, desktop: Any, watch: Watch,
                               artifacts: Path) -> None:
    player = _api_player(server, 12)
    admin = _admin(server)
    page = desktop.new_page()
    page.add_init_script(STALE_FIRST_SEARCH)
    sign_in(page, server, admin)
    page.get_by_label("Report currency").select_option("practice")
    totals = _shown_report(page, server, admin)
    assert page.locator("#pit-win").text_content() == _money(totals["win"])
    assert page.locator("#pit-theo").text_content() == _money(totals["theo_win"])
    assert page.locator("#pit-hold").text_content() == f"{totals['hold'] * 100:.2f}%"
    chart = page.locator("#chart-days svg")
    assert chart.get_attribute("role") == "img"
    assert "theoretical" in (chart.get_attribute("aria-label") or "")
    assert page.locator("#chart-days svg polyline").count() == 3
    assert page.locator("#chart-hold svg rect").count() >= 2
    assert page.locator("#report-table tbody tr").count() >= 1
    csv_link = page.get_by_role("link", name="Download CSV")
    assert "format=csv" in (csv_link.get_attribute("href") or "")
    assert page.locator("h1").count() == 1
    screenshot(page, artifacts / "admin-console.png", full_page=True)
    assert_axe_clean(page, "admin-console", artifacts)

    # a player, found and locked by keyboard alone, then unlocked
    page.get_by_label("Find a player by name").focus()
    page.keyboard.type(player)
    page.keyboard.press("Enter")
    opener = page.get_by_role("button", name=f"Open {player}")
    opener.wait_for(timeout=TIMEOUT)
    # the console's first search (everyone) answers after this one, and is dropped
    page.wait_for_function("() => window.firstSearchAnswered", timeout=TIMEOUT)
    assert page.locator("#players-table tbody tr").count() == 1
    opener.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#player-detail:not([hidden])", timeout=TIMEOUT)
    assert page.locator("#player-rating").text_content().count("Hands") >= 1
    page.get_by_label("Reason for locking or unlocking").focus()
    page.keyboard.type("test of the lock")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.getElementById('lock-button').textContent === 'Unlock'",
                           timeout=TIMEOUT)
    # the console reloads the player and the audit log at once: wait for the log's line
    page.wait_for_function(
        "() => document.getElementById('audit-table').textContent.includes('account_locked')",
        timeout=TIMEOUT)
    # with the log's head, to write down or publish, as the API answers it
    audit = page.evaluate("fetch('/api/v1/admin/audit?limit=1').then((r) => r.json())")
    assert audit["intact"] and len(audit["head"]["hash"]) == 64
    assert page.locator("#audit-head").text_content() == audit["head"]["hash"]
    assert page.locator("#audit-head-lines").text_content() == str(audit["head"]["lines"])
    screenshot(page, artifacts / "admin-console-player.png", full_page=True)
    assert_axe_clean(page, "admin-console-player", artifacts)
    page.get_by_label("Reason for locking or unlocking").fill("cleared")
    page.get_by_role("button", name="Unlock").click()
    page.wait_for_function("() => document.getElementById('lock-button').textContent === 'Lock'",
                           timeout=TIMEOUT)
    # the skip link comes first
    page.goto(server.base + "/admin")
    page.wait_for_selector("#console:not([hidden])", timeout=TIMEOUT)
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to the main content"
    page.close()


def test_console_is_for_admins_only(client: TestClient, headers: dict[str, str]) -> None:
    client.cookies.clear()
    signed_out = client.get("/admin")  # a page of the site (test_admin_gate)
    assert signed_out.status_code == 401 and "report-table" not in signed_out.text
    assert client.get("/admin", headers=headers).status_code == 403
    found = client.app.state.services  # type: ignore[attr-defined]
    name = f"boss{next(_names)}x{int(time.time()) % 100000}"
    create_admin(found.engine, found.hasher, name, PASSWORD)
    token = client.post("/api/v1/login", json={"username": name, "password": PASSWORD})
    client.cookies.clear()
    page = client.get("/admin", headers={"Authorization": f"Bearer {token.json()['token']}"})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    text = page.text
    body = text[text.index("<body>") + len("<body>"):].lstrip()
    assert body.startswith('<a class="skip-link" href="#main">')
    assert text.count("<h1") == 1 and '<main id="main">' in text
    assert "http://" not in body.replace("http://www.w3.org/2000/svg", "")
