"""The variant designer in a real Chromium against a real ``feltlab serve``: the page opens
on High Card Flush with its PAR sheet, an edit of a pay line changes the shown edge to
the exact value (the analysis's, computed here apart), the form is usable from the
keyboard, it fits a 390 px phone; no request leaves 127.0.0.1 and no console error."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import httpx

from feltlab.analysis import analyze
from feltlab.core.rules import load_rules
from feltlab.server.auth import AuthSettings, password_hasher
from feltlab.server.services.accounts import create_account
from feltlab.server.services.database import make_engine, session_factory, transaction
from web.axe import assert_axe_clean
from web.conftest import Server, Watch, screenshot
from web.test_browser import TIMEOUT, button, check_balance, first, play_round, shot, sign_up

SLOW = 90_000  # the server warms its analysis in the background at start


def shown_edge(page: Any, wager: str) -> str:
    text: str = page.locator(f'#designer-sheet tr[data-wager="{wager}"] td.edge').text_content()
    return text


def wait_warm(server: Server) -> None:
    """Let the server finish warming its analysis (so that no design waits for it)."""
    body = {"username": f"warm{int(time.time() * 1000) % 10**9}", "password": "correct horse"}
    assert httpx.post(server.base + "/api/v1/accounts", json=body).status_code == 201
    token = httpx.post(server.base + "/api/v1/login", json=body).json()["token"]
    headers = {"Authorization": f"Bearer {token}"}
    deadline = time.monotonic() + 180
    while not httpx.get(server.base + "/api/v1/designer/status", headers=headers,
                        timeout=5).json()["warm"]:
        assert time.monotonic() < deadline, "the designer did not warm up in 180 s"
        time.sleep(0.5)


def open_designer(page: Any, server: Server) -> None:
    wait_warm(server)
    sign_up(page, server)
    page.goto(server.base + "/designer")
    page.wait_for_selector('#designer-sheet tr[data-wager="flush"]', timeout=SLOW)


def expected_flush_edge(pays: int) -> str:
    rules = load_rules("high-card-flush")
    edited = rules.model_copy(update={"flush_pays": {**rules.flush_pays, 5: pays}})
    return f"{float(analyze(edited).wager('flush').house_edge):.4%}".replace("-", "\u2212")


def test_an_edit_changes_the_shown_edge(server: Server, desktop: Any, artifacts: Path,
                                       watch: Watch) -> None:
    watch.expected_refusals = 1  # the refused design below (422)
    page = desktop.new_page()
    open_designer(page, server)
    assert page.locator("h1").count() == 1
    assert page.locator("#designer-base").input_value() == "high-card-flush"
    assert shown_edge(page, "flush") == expected_flush_edge(10)
    shot(page, artifacts, "designer-high-card-flush")
    # the lines are listed from the worst hand up: 4, 5, 6, 7 cards
    line = page.get_by_role("textbox", name="Flush Pays: line", exact=True).nth(1)
    assert line.input_value() == "5"
    pays = page.get_by_label("Flush Pays value", exact=True).nth(1)
    pays.fill("13")
    wanted = expected_flush_edge(13)
    page.wait_for_function(
        "wanted => document.querySelector('#designer-sheet tr[data-wager=\"flush\"] td.edge')"
        ".textContent === wanted", arg=wanted, timeout=TIMEOUT)
    change = page.locator('#designer-sheet tr[data-wager="flush"] td.change').text_content()
    assert change is not None and change.startswith("−")  # better pays: a lower edge
    shot(page, artifacts, "designer-flush-pays-edited")
    assert_axe_clean(page, "designer", artifacts)
    # typing fast: the last value wins, whatever order the answers come in
    for value in ("20", "2", "11"):
        pays.fill(value)
    page.wait_for_function(
        "wanted => document.querySelector('#designer-sheet tr[data-wager=\"flush\"] td.edge')"
        ".textContent === wanted", arg=expected_flush_edge(11), timeout=TIMEOUT)
    # a refusal names the field, and the form stays usable
    pays.fill("-3")
    page.locator("#designer-status.error").wait_for(timeout=TIMEOUT)
    assert "flush_pays" in (page.locator("#designer-status").text_content() or "")
    pays.fill("10")
    page.wait_for_function(
        "wanted => document.querySelector('#designer-sheet tr[data-wager=\"flush\"] td.edge')"
        ".textContent === wanted", arg=expected_flush_edge(10), timeout=TIMEOUT)
    page.locator("#odds-body table").first.wait_for()
    shot(page, artifacts, "designer-odds-sheet")


def test_designer_from_the_keyboard_and_other_bases(server: Server, desktop: Any,
                                                    artifacts: Path) -> None:
    page = desktop.new_page()
    open_designer(page, server)
    page.locator("#designer-base").focus()
    page.keyboard.press("End")  # the last rule set, from the keyboard
    if page.locator("#designer-base").input_value() == "toy-pull-back":
        page.keyboard.press("ArrowUp")  # the test game has no exact math to solve with
    page.wait_for_selector('#designer-sheet tr[data-wager="bonus3"], '
                           '#designer-sheet tr[data-wager="bonus9"]', timeout=SLOW)
    page.locator("#solve-target").fill("5%")
    page.locator("#solve-target").press("Enter")
    page.wait_for_function("() => document.querySelector('#solve-result table') || "
                           "document.querySelector('#solve-result.error')", timeout=SLOW)
    assert page.locator("#solve-result table").count() == 1, page.locator(
        "#solve-result").text_content()
    page.get_by_role("button", name="Use these pays in the design").press("Enter")
    page.locator("#protection-colluders").fill("2")
    page.locator("#protection-colluders").press("Enter")
    page.wait_for_function("() => document.querySelector('#protection-result table') || "
                           "document.querySelector('#protection-result.error')", timeout=SLOW)
    assert page.locator("#protection-result table").count() == 1, page.locator(
        "#protection-result").text_content()
    shot(page, artifacts, "designer-solve-protection")
    assert_axe_clean(page, "designer-solve-protection", artifacts)


def test_designer_on_a_phone(server: Server, phone: Any, artifacts: Path) -> None:
    page = phone.new_page()
    open_designer(page, server)
    shot(page, artifacts, "phone-designer")
    assert_axe_clean(page, "phone-designer", artifacts)
    page.locator("#sheet-title").scroll_into_view_if_needed()
    screenshot(page, artifacts / "phone-designer-sheet-screen.png")
    wide: int = page.evaluate("document.documentElement.scrollWidth")
    wider = page.evaluate("""() => [...document.querySelectorAll('body *')]
        .filter((node) => node.getBoundingClientRect().right > 391 && !node.closest('.scroll'))
        .slice(0, 5).map((node) => node.tagName + '#' + node.id + '.' + node.className)""")
    assert wide <= 390, f"the designer is {wide} px wide on a 390 px phone: {wider}"


def test_an_admin_publishes_a_design_then_deals_it(server: Server, desktop: Any,
                                                   artifacts: Path) -> None:
    name, password = f"designer{int(time.time() * 1000) % 10**8}", "admin-password"
    engine = make_engine(server.database)
    with transaction(session_factory(engine)) as session:
        cheap = AuthSettings(argon2_time_cost=1, argon2_memory_kib=1024)
        create_account(session, password_hasher(cheap), name, password, role="admin")
    engine.dispose()
    wait_warm(server)
    page = desktop.new_page()
    page.goto(server.base + "/")
    page.get_by_label("Username").fill(name)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_selector("#player:not([hidden])", timeout=TIMEOUT)
    page.goto(server.base + "/designer")
    page.wait_for_selector('#designer-sheet tr[data-wager="flush"]', timeout=SLOW)
    page.get_by_label("Id", exact=True).fill("hcf-web-special")
    page.get_by_label("Name", exact=True).fill("HCF web special")
    page.get_by_label("Flush Pays value", exact=True).nth(1).fill("12")
    page.wait_for_function(
        "wanted => document.querySelector('#designer-sheet tr[data-wager=\"flush\"] td.edge')"
        ".textContent === wanted", arg=expected_flush_edge(12), timeout=TIMEOUT)
    page.get_by_role("button", name="Publish").click()
    page.locator("#designer-publish-result", has_text="Published hcf-web-special").wait_for(
        timeout=TIMEOUT)
    shot(page, artifacts, "designer-published")
    page.goto(server.base + "/")
    button(page, "Practice HCF web special").click()
    page.wait_for_url(re.compile(r".*/table/\d+$"))
    button(page, "Deal").wait_for()
    button(page, "Ante").click()
    button(page, "Flush").click()
    before, total, _ = play_round(page, first(["Raise 1x"]))
    check_balance(page, before, total)
    button(page, "Verify").click()
    page.locator("#verify-result", has_text=re.compile("^Verified")).wait_for(timeout=TIMEOUT)
    shot(page, artifacts, "table-published-design")
