"""What a new player found wrong on the pages, each checked as they would see it: a shared
table before its first round, the bonus badges and the 9 Card Flush hand line, the phone's
control bar over the felt, the shared table's betting countdown, the dealer trainer's
empty check and its columns, the math page's solver for a signed-in player and its
strategy tables."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx

from web.conftest import Server, screenshot
from web.test_browser import TIMEOUT, button, open_practice, shot, sign_up, wait_settled
from web.test_shared_table import open_shared_table

RECORD_STATUS = """
window.__statuses = [];
new MutationObserver(() => {
  const node = document.getElementById("status");
  if (node && node.textContent && window.__statuses.at(-1) !== node.textContent)
    window.__statuses.push(node.textContent);
}).observe(document, { subtree: true, childList: true, characterData: true });
"""


def test_a_shared_table_before_its_first_round(server: Server, desktop: Any,
                                               artifacts: Path) -> None:
    table_id, _ = open_shared_table(server, "high-card-flush", title="Before the first round")
    page = desktop.new_page()
    page.add_init_script(RECORD_STATUS)
    sign_up(page, server)
    page.goto(server.base + f"/table/{table_id}")
    button(page, "Sit at seat 1").click()
    page.locator("#seat-1").wait_for(timeout=TIMEOUT)
    page.reload()  # a seated player comes back to the table
    page.locator("#status", has_text="No round yet").wait_for(timeout=10_000)
    statuses: list[str] = page.evaluate("() => window.__statuses")
    assert not [text for text in statuses if "Round over" in text], statuses
    shot(page, artifacts, "shared-before-first-round")


def test_badges_and_hand_line_of_9_card_flush(server: Server, desktop: Any,
                                              artifacts: Path) -> None:
    """Only the bonuses bet get a badge; the line under the cards says each hand once."""
    page = desktop.new_page()
    sign_up(page, server)
    open_practice(page, server, "nine-card-flush")
    button(page, "All 9").click()
    button(page, "Player 6").click()
    button(page, "Deal").click()
    page.wait_for_selector("#decisions button:not([disabled])", timeout=TIMEOUT)
    badges = page.locator("#bonus-hands li").all_text_contents()
    assert all(badge.startswith("Player 6: ") for badge in badges), badges
    button(page, "Play").click()
    wait_settled(page)
    shot(page, artifacts, "nine-card-flush-badges")
    badges = page.locator("#bonus-hands li").all_text_contents()
    assert len(badges) == 1 and badges[0].startswith("Player 6: "), badges
    line = page.locator("#player-desc").text_content()
    assert re.fullmatch(r"All 9: \d+ (red|black) flush cards?", line), line


def test_badges_of_a_main_wager_alone(server: Server, desktop: Any) -> None:
    page = desktop.new_page()
    sign_up(page, server)
    open_practice(page, server, "high-card-flush")
    button(page, "Ante").click()
    button(page, "Deal").click()
    page.wait_for_selector("#decisions button:not([disabled])", timeout=TIMEOUT)
    assert page.locator("#bonus-hands li").count() == 0


def covered(page: Any) -> list[tuple[int, float]]:
    """Scroll positions (with the height covered) at which the control bar lies over the
    felt on screen."""
    found: list[tuple[int, float]] = page.evaluate("""() => {
      const found = [];
      const end = document.documentElement.scrollHeight - innerHeight;
      for (let y = 0; y <= end + 40; y += 40) {
        window.scrollTo(0, y);
        const bar = document.getElementById("controls").getBoundingClientRect();
        const felt = document.getElementById("felt").getBoundingClientRect();
        const top = Math.max(bar.top, felt.top, 0);
        const bottom = Math.min(bar.bottom, felt.bottom, innerHeight);
        if (bottom - top > 1) found.push([y, bottom - top]);
      }
      window.scrollTo(0, 0);
      return found;
    }""")
    return found


def test_the_phone_bar_leaves_the_felt_uncovered(server: Server, phone: Any,
                                                 artifacts: Path) -> None:
    page = phone.new_page()
    sign_up(page, server)
    for rules_id, spot in (("high-card-flush", "Ante"), ("nine-card-flush", "All 9")):
        open_practice(page, server, rules_id)
        button(page, spot).click()
        assert not covered(page), f"{rules_id} while betting: {covered(page)}"
        button(page, "Deal").click()
        page.wait_for_selector("#decisions button:not([disabled])", timeout=TIMEOUT)
        assert not covered(page), f"{rules_id} mid-round: {covered(page)}"
        screenshot(page, artifacts / f"phone-{rules_id}-mid-round-screen.png")


def test_the_dealer_trainer_answers_an_empty_check(server: Server, desktop: Any) -> None:
    page = desktop.new_page()
    sign_up(page, server)
    page.goto(server.base + "/dealer?rules=high-card-flush")
    page.get_by_role("button", name="New round").click()
    page.wait_for_selector("#answer-lines input", timeout=TIMEOUT)
    page.get_by_role("button", name="Check payouts").click()
    page.locator("#dealer-result", has_text="Enter a whole number").wait_for(timeout=5_000)
    assert page.evaluate("() => document.activeElement.matches('#answer-lines input')")
    for field in page.locator("#answer-lines input").all():
        field.fill("0")
    page.get_by_role("button", name="Check payouts").click()
    page.wait_for_selector("#dealer-result table", timeout=TIMEOUT)
    heads = page.locator("#dealer-result thead th").all_text_contents()
    assert len(heads) == 4 and all(head.strip() for head in heads), heads


def test_the_solver_speaks_to_a_signed_in_player(server: Server, desktop: Any) -> None:
    page = desktop.new_page()
    page.goto(server.base + "/math")
    page.locator("#solver-result", has_text="Sign in").wait_for(timeout=TIMEOUT)
    sign_up(page, server)
    page.goto(server.base + "/math")
    page.wait_for_selector("#solver-wager option", state="attached", timeout=TIMEOUT)
    assert "Sign in" not in page.locator("main").text_content()


def test_the_strategy_tables_are_styled(server: Server, desktop: Any, artifacts: Path) -> None:
    page = desktop.new_page()
    page.goto(server.base + "/math/nine-card-flush")
    page.wait_for_selector("#math-body table.overview", timeout=120_000)
    for table in ("overview", "summary", "strategy-map"):
        cell = page.locator(f"#math-body table.{table} td").first
        style = cell.evaluate("cell => { const s = getComputedStyle(cell);"
                              " return [s.paddingLeft, s.borderBottomStyle]; }")
        assert float(style[0].removesuffix("px")) >= 8 and style[1] == "solid", (table, style)
    shot(page, artifacts, "math-nine-card-flush-styled")


def test_a_table_s_practice_field_means_its_currency(server: Server) -> None:
    admin_table, _ = open_shared_table(server, "nh-flush-poker", title="Practice field")
    name = "practicefield"
    body = {"username": name, "password": "Qv7-practice-Lk2!zeta"}
    httpx.post(server.base + "/api/v1/accounts", json=body)
    token = httpx.post(server.base + "/api/v1/login", json=body).json()["token"]
    headers = {"Authorization": f"Bearer {token}"}
    shared = httpx.get(server.base + f"/api/v1/tables/{admin_table}", headers=headers).json()
    assert shared["currency"] == "practice" and shared["practice"] is True
    private = httpx.post(server.base + "/api/v1/tables", headers=headers,
                         json={"rules": "nh-flush-poker", "practice": False}).json()
    assert private["currency"] == "cash" and private["practice"] is False



def test_the_betting_countdown_says_when_it_is_over(server: Server, desktop: Any,
                                                    browser: Any) -> None:
    """A watcher who has not bet sees the betting window count down; once its deadline
    has passed (the page's clock is moved past it before the server deals), the timer
    says betting is closed rather than leave "0 s" standing."""
    table_id, _ = open_shared_table(server, "high-card-flush", seconds=5,
                                    title="Countdown")
    better = desktop.new_page()
    sign_up(better, server)
    better.goto(server.base + f"/table/{table_id}")
    button(better, "Sit at seat 1").click()
    other = browser.new_context()
    try:
        watcher = other.new_page()
        watcher.clock.install()
        sign_up(watcher, server)
        watcher.goto(server.base + f"/table/{table_id}")
        button(watcher, "Sit at seat 2").click()
        button(better, "Ante").click()
        button(better, "Place bets").click()
        watcher.locator("#timer", has_text="Betting closes in").wait_for(timeout=TIMEOUT)
        count = int(re.findall(r"\d+", watcher.locator("#timer").text_content())[0])
        assert 1 <= count <= 5
        now: float = watcher.evaluate("() => Date.now()")
        watcher.clock.pause_at(now + count * 1000 + 100)
        watcher.clock.run_for(500)
        text = watcher.locator("#timer").text_content()
    finally:
        other.close()
    assert " 0 s" not in text, text
    assert text == "Betting is closed: the deal is coming.", text
