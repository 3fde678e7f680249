"""In Chromium: the sign-up form shows why a password is refused, and a private table
shows the next round's commitment before the bet and takes the player's seed."""

from __future__ import annotations

import re
import time
from typing import Any

from web.conftest import Server, Watch

TIMEOUT = 30_000


def fill_account(page: Any, name: str, password: str) -> None:
    page.get_by_label("Username").fill(name)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign up", exact=True).click()


def test_sign_up_says_why_a_password_is_refused(server: Server, desktop: Any,
                                                watch: Watch) -> None:
    page = desktop.new_page()
    page.goto(server.base + "/")
    name = f"weak{int(time.time() * 1000) % 10**8}"
    fill_account(page, name, "12345678")
    status = page.locator("#account-status")
    status.filter(has_text="too weak").wait_for(timeout=TIMEOUT)
    assert "common password" in status.text_content()
    fill_account(page, name, name)
    status.filter(has_text="must not be the username").wait_for(timeout=TIMEOUT)
    watch.expected_refusals = 2  # Chromium logs each 422 it was answered
    fill_account(page, name, "tulip-staple-93")
    page.wait_for_selector("#player:not([hidden])", timeout=TIMEOUT)


def test_table_shows_the_next_commitment_and_takes_a_seed(server: Server,
                                                          desktop: Any) -> None:
    page = desktop.new_page()
    page.goto(server.base + "/")
    fill_account(page, f"seed{int(time.time() * 1000) % 10**8}", "tulip-staple-93")
    page.wait_for_selector("#player:not([hidden])", timeout=TIMEOUT)
    page.get_by_role("button", name="Practice High Card Flush", exact=True).click()
    page.wait_for_url(re.compile(r".*/table/\d+$"))
    shown = page.locator("#next-commitment")
    shown.wait_for(timeout=TIMEOUT)
    before = shown.text_content()
    assert re.fullmatch(r"[0-9a-f]{64}", before)
    page.locator("#client-seed").fill("page-seed-1")
    page.locator("#spot-ante").click()
    page.get_by_role("button", name="Deal", exact=True).click()
    fold = page.locator("#decisions button[data-action=fold]:not([disabled])")
    fold.wait_for(timeout=TIMEOUT)
    fold.click()
    page.wait_for_selector("#round-total", timeout=TIMEOUT)
    page.wait_for_function("(old) => document.querySelector('#next-commitment') && "
                           "document.querySelector('#next-commitment').textContent !== old",
                           arg=before, timeout=TIMEOUT)
    proof = page.locator("#proof").text_content()
    assert before in proof and "page-seed-1" in proof  # the round's commitment and seed
    page.get_by_role("button", name="Verify", exact=True).click()
    page.locator("#verify-result").filter(has_text="Verified").wait_for(timeout=TIMEOUT)
