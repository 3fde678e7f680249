"""The way to the operator's console: an admin's top bar links to it (a player's does
not), and ``/admin`` answers anyone else with a page of the site (a stranger: a sign-in
form, 401; a player: "for admins only", 403) that holds nothing of the console's, never
the API's JSON refusal."""

from __future__ import annotations

import itertools
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from feltlab.server.services.accounts import create_admin
from web.axe import assert_axe_clean
from web.conftest import Server, Watch
from web.test_admin_console import PASSWORD, _admin
from web.test_browser import TIMEOUT, shot, sign_up

_names = itertools.count(1)
CONSOLE_MARKS = ("report-table", "pit-figures", "audit-table", "players-table", "admin.js")
"""What only the console's page holds: none of it may reach anyone else."""


def _body(text: str) -> str:
    return text[text.index("<body>") + len("<body>"):].lstrip()


def _nav_links(text: str) -> str:
    return text[text.index("<nav"):text.index("</nav>")]


def test_admin_refusals_are_pages_of_the_site(client: TestClient,
                                              headers: dict[str, str]) -> None:
    client.cookies.clear()
    stranger = client.get("/admin")
    assert stranger.status_code == 401
    assert stranger.headers["content-type"].startswith("text/html")
    assert stranger.headers["www-authenticate"] == "Bearer"
    assert "script-src 'self'" in stranger.headers["content-security-policy"]
    text = stranger.text
    assert _body(text).startswith('<a class="skip-link" href="#main">')
    assert text.count("<h1") == 1 and 'id="gate-form"' in text
    assert 'type="password"' in text and "Traceback" not in text
    assert not [mark for mark in CONSOLE_MARKS if mark in text]

    player = client.get("/admin", headers=headers)
    assert player.status_code == 403
    assert player.headers["content-type"].startswith("text/html")
    assert "For admins only" in player.text and 'id="gate-form"' not in player.text
    assert not [mark for mark in CONSOLE_MARKS if mark in player.text]

    wrong = client.get("/admin", headers={"Authorization": "Bearer not-a-token"})
    assert wrong.status_code == 401 and 'id="gate-form"' in wrong.text
    assert not [mark for mark in CONSOLE_MARKS if mark in wrong.text]


def test_the_console_link_is_an_admins(client: TestClient, headers: dict[str, str]) -> None:
    """Every page's nav holds the console's link hidden (the page's script shows it to an
    admin); the console's own page shows it as the current page."""
    lobby = _nav_links(client.get("/").text)
    assert '<a href="/admin" hidden data-admin-only>Console</a>' in lobby
    found = client.app.state.services  # type: ignore[attr-defined]
    name = f"gate{next(_names)}x{int(time.time()) % 100000}"
    create_admin(found.engine, found.hasher, name, PASSWORD)
    token = client.post("/api/v1/login", json={"username": name, "password": PASSWORD})
    client.cookies.clear()
    console = client.get("/admin", headers={"Authorization": f"Bearer {token.json()['token']}"})
    assert console.status_code == 200
    assert '<a href="/admin" aria-current="page">Console</a>' in _nav_links(console.text)


def test_a_stranger_signs_in_at_the_console(server: Server, desktop: Any, watch: Watch,
                                            artifacts: Path) -> None:
    admin = _admin(server)
    page = desktop.new_page()
    watch.expected_refusals = 1  # Chromium logs the 401 the page itself was answered with
    answer = page.goto(server.base + "/admin")
    assert answer is not None and answer.status == 401
    page.get_by_role("heading", name="Sign in as an admin").wait_for(timeout=TIMEOUT)
    assert page.locator("#console").count() == 0
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to the main content"
    shot(page, artifacts, "admin-gate-sign-in")
    assert_axe_clean(page, "admin-gate-sign-in", artifacts)
    page.get_by_label("Username").fill(admin)
    page.get_by_label("Password").fill("not the password")
    page.get_by_role("button", name="Sign in", exact=True).click()
    page.locator("#gate-status.error").wait_for(timeout=TIMEOUT)
    watch.expected_refusals += 1  # the wrong password's 401
    assert page.locator("#gate-password").count() == 1
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_label("Password").press("Enter")
    page.wait_for_selector("#console:not([hidden])", timeout=TIMEOUT)
    assert page.get_by_role("link", name="Console").get_attribute("aria-current") == "page"
    page.close()


def test_a_player_is_told_the_console_is_for_admins(server: Server, phone: Any, watch: Watch,
                                                    artifacts: Path) -> None:
    page = phone.new_page()
    sign_up(page, server)
    assert not page.get_by_role("link", name="Console").is_visible()
    watch.expected_refusals = 1  # the 403 of the page itself
    answer = page.goto(server.base + "/admin")
    assert answer is not None and answer.status == 403
    page.get_by_role("heading", name="For admins only").wait_for(timeout=TIMEOUT)
    page.wait_for_selector("#who span", timeout=TIMEOUT)  # the header: who, Sign out
    assert page.locator("#console").count() == 0
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, artifacts, "admin-gate-player-phone")
    assert_axe_clean(page, "admin-gate-player-phone", artifacts)
    page.close()


def test_an_admins_nav_leads_to_the_console(server: Server, desktop: Any,
                                            artifacts: Path) -> None:
    admin = _admin(server)
    page = desktop.new_page()
    page.goto(server.base + "/")
    page.get_by_label("Username").fill(admin)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in", exact=True).click()
    page.wait_for_selector("#who span", timeout=TIMEOUT)
    for path in ("/", "/designer", "/math"):
        page.goto(server.base + path)
        link = page.get_by_role("navigation", name="Main").get_by_role("link", name="Console")
        link.wait_for(timeout=TIMEOUT)
    shot(page, artifacts, "admin-nav-console-link")
    link.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#console:not([hidden])", timeout=TIMEOUT)
    assert page.url == server.base + "/admin"
    page.close()
