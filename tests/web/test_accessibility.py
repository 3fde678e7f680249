"""Accessibility in a real Chromium: axe-core (``tests/web/axe.py``, under the pages' real
Content-Security-Policy) finds nothing critical, serious or moderate on the lobby signed
out and in, each table mid-round, a shared table mid-round, the trainers, the math pages
and the PAR sheets; a skip link comes first on every page; after Deal and after each
decision the focus lands on the first decision or on the result, never on the page's
body."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from feltlab.core.rules import builtin_ids, load_rules
from feltlab.present.catalogue import rule_card
from web.axe import AXE_FILE, assert_axe_clean
from web.conftest import Server, Watch
from web.test_browser import TIMEOUT, button, open_practice, shot, sign_up
from web.test_shared_table import open_shared_table

PAGES = ["/", "/trainer", "/dealer", "/math", "/math/high-card-flush", "/table/1",
         "/math/nine-card-flush/par"]
SPOTS = {"high-card-flush": "Flush", "high-card-flush-toledo": "Ante",
         "nh-flush-poker": "Straight Flush", "nine-card-flush": "Player 6",
         "nh-holdem-stud": "3 Card Bonus",
         "toy-pull-back": "Ante"}  # the test game (tests/toy_game) has no bonus
"""A bonus spot to bet beside the main wager at each rule set's table."""


def focused(page: Any) -> str:
    """What has the focus: its id, else its tag and text."""
    found: str = page.evaluate(
        "() => { const a = document.activeElement;"
        " return a ? (a.id || a.tagName + ':' + a.textContent.trim().slice(0, 40)) : ''; }")
    return found


def test_the_bundled_axe_is_the_one_recorded() -> None:
    recorded = (AXE_FILE.parent / "AXE.md").read_text()
    assert hashlib.sha256(AXE_FILE.read_bytes()).hexdigest() in recorded
    assert AXE_FILE.read_text()[:30].startswith("/*! axe v4.14.1")


def test_lobby_signed_out_and_in(server: Server, desktop: Any, artifacts: Path) -> None:
    page = desktop.new_page()
    page.goto(server.base + "/")
    page.wait_for_selector("#games .game, #games > *", timeout=TIMEOUT)
    assert_axe_clean(page, "lobby-signed-out", artifacts)
    sign_up(page, server)
    page.wait_for_selector("#recall, #player:not([hidden])", timeout=TIMEOUT)
    assert_axe_clean(page, "lobby-signed-in", artifacts)


@pytest.mark.parametrize("rules_id", sorted(builtin_ids()))
def test_each_table_mid_round(rules_id: str, server: Server, desktop: Any,
                              artifacts: Path) -> None:
    page = desktop.new_page()
    sign_up(page, server)
    open_practice(page, server, rules_id)
    assert_axe_clean(page, f"table-{rules_id}-open", artifacts)
    main = "All 9" if rules_id == "nine-card-flush" else "Ante"
    button(page, main).click()
    button(page, SPOTS[rules_id]).click()
    button(page, "Deal").click()
    page.wait_for_selector("#decisions button:not([disabled])", timeout=TIMEOUT)
    shot(page, artifacts, f"axe-table-{rules_id}-mid-round")
    assert_axe_clean(page, f"table-{rules_id}-mid-round", artifacts)
    for wager in rule_card(rules_id)["wagers"]:  # each spot is named by what it shows
        spot = button(page, wager["spot"])
        assert spot.inner_text().split() == wager["spot"].upper().split()


def test_a_shared_table_mid_round(server: Server, desktop: Any, artifacts: Path) -> None:
    table_id, _ = open_shared_table(server, "nh-holdem-stud", title="Axe Hold'em Stud")
    page = desktop.new_page()
    sign_up(page, server)
    page.goto(server.base + f"/table/{table_id}")
    button(page, "Sit at seat 1").click()
    page.locator("#seat-1").wait_for(timeout=TIMEOUT)
    page.reload()
    page.locator("#status", has_text="No round yet").wait_for(timeout=TIMEOUT)
    assert_axe_clean(page, "shared-table-seated", artifacts)
    button(page, "Ante").click()
    button(page, "Place bets").click()  # the only seat has bet: the deal
    page.wait_for_selector("#decisions button:not([disabled])", timeout=TIMEOUT)
    page.wait_for_function("() => document.activeElement.closest('#decisions') !== null",
                           timeout=TIMEOUT)
    shot(page, artifacts, "axe-shared-table-mid-round")
    assert_axe_clean(page, "shared-table-mid-round", artifacts)


def test_trainers(server: Server, desktop: Any, artifacts: Path) -> None:
    page = desktop.new_page()
    sign_up(page, server)
    page.goto(server.base + "/trainer?rules=nh-holdem-stud")
    page.get_by_role("button", name="New hand").click()
    page.wait_for_selector("#drill-options button", timeout=TIMEOUT)
    assert_axe_clean(page, "strategy-trainer", artifacts)
    page.locator("#drill-options button").first.click()
    page.wait_for_selector("#drill-advice .verdict", timeout=TIMEOUT)
    assert_axe_clean(page, "strategy-trainer-verdict", artifacts)
    page.goto(server.base + "/dealer?rules=high-card-flush")
    page.get_by_role("button", name="New round").click()
    page.wait_for_selector("#answer-lines input", timeout=TIMEOUT)
    assert_axe_clean(page, "dealer-trainer", artifacts)
    for field in page.locator("#answer-lines input").all():
        field.fill("0")
    page.get_by_role("button", name="Check payouts").click()
    page.wait_for_selector("#dealer-result table", timeout=TIMEOUT)
    assert_axe_clean(page, "dealer-trainer-checked", artifacts)


def test_math_pages(server: Server, desktop: Any, artifacts: Path) -> None:
    page = desktop.new_page()
    page.goto(server.base + "/math")
    assert_axe_clean(page, "math", artifacts)
    sign_up(page, server)
    page.goto(server.base + "/math")
    assert_axe_clean(page, "math-signed-in", artifacts)
    for rules_id in sorted(builtin_ids()):
        page.goto(server.base + f"/math/{rules_id}")
        page.wait_for_selector("#math-body table", timeout=120_000)
        assert_axe_clean(page, f"math-{rules_id}", artifacts)
        page.goto(server.base + f"/math/{rules_id}/par")
        page.wait_for_selector("h1", timeout=120_000)
        assert_axe_clean(page, f"par-{rules_id}", artifacts)


@pytest.mark.parametrize("path", PAGES)
def test_a_skip_link_comes_first(path: str, server: Server, desktop: Any,
                                 watch: Watch) -> None:
    if path.startswith("/table/"):
        watch.expected_refusals = 1  # signed out: the table's API answers 401
    page = desktop.new_page()
    page.goto(server.base + path, timeout=120_000)  # a PAR sheet may be computed first
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to the main content")
    assert skip.evaluate("element => element === document.activeElement")
    assert skip.is_visible()  # shown once it has the focus
    page.keyboard.press("Enter")
    assert focused(page) == "main"


def test_focus_follows_the_round(server: Server, desktop: Any) -> None:
    """After Deal the focus is on the first decision; after each decision on the next
    one or, once the round is over, on its result."""
    page = desktop.new_page()
    sign_up(page, server)
    open_practice(page, server, "nh-holdem-stud")
    button(page, "Ante").click()
    button(page, "Deal").click()
    page.wait_for_selector("#decisions button:not([disabled])", timeout=TIMEOUT)
    page.wait_for_function("() => document.activeElement?.closest('#decisions') !== null",
                           timeout=TIMEOUT)
    assert page.evaluate("() => document.activeElement.closest('#decisions') !== null")
    for _ in range(3):
        if page.query_selector("#round-total"):
            break
        page.keyboard.press("Enter")
        page.wait_for_function(
            "() => document.activeElement && document.activeElement !== document.body"
            " && (document.activeElement.closest('#decisions')"
            " || document.activeElement.id === 'round-result')", timeout=TIMEOUT)
    page.wait_for_selector("#round-total", timeout=TIMEOUT)
    page.wait_for_function("() => document.activeElement.id === 'round-result'",
                           timeout=TIMEOUT)
    assert page.locator("#round-result").text_content()
    assert load_rules("nh-holdem-stud").name
