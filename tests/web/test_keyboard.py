"""By keyboard alone: sign up, open a practice table, bet, deal, decide and see the
settlement with Tab, Enter and Space only, every control found by the name a screen
reader reads (Playwright's accessible name)."""

from __future__ import annotations

import re
import time
from typing import Any

from web.conftest import Server
from web.test_browser import TIMEOUT, balance, button, check_balance, enabled_decisions

TABS = 250


def tab_to(page: Any, target: Any) -> None:
    """Press Tab until ``target`` has the focus (fails if Tab never reaches it)."""
    for _ in range(TABS):
        page.keyboard.press("Tab")
        if target.evaluate("element => element === document.activeElement"):
            return
    raise AssertionError(f"Tab never reaches {target}")


def test_a_round_by_keyboard_alone(server: Server, desktop: Any) -> None:
    page = desktop.new_page()
    page.goto(server.base + "/")
    tab_to(page, page.get_by_label("Username"))
    page.keyboard.type(f"keys{int(time.time()) % 100000}")
    tab_to(page, page.get_by_label("Password"))
    page.keyboard.type("correct horse")
    tab_to(page, button(page, "Sign up"))
    page.keyboard.press("Enter")
    page.wait_for_selector("#player:not([hidden])", timeout=TIMEOUT)

    tab_to(page, button(page, "Practice High Card Flush"))
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r".*/table/\d+$"))
    page.wait_for_selector("#status:not(:empty)", timeout=TIMEOUT)
    before = balance(page)
    tab_to(page, button(page, "Ante"))
    page.keyboard.press("Enter")
    tab_to(page, button(page, "Deal"))
    page.keyboard.press("Enter")
    page.wait_for_selector("#decisions button:not([disabled])", timeout=TIMEOUT)
    decision = "Raise 1x" if "Raise 1x" in enabled_decisions(page) else "Fold"
    tab_to(page, button(page, decision))
    page.keyboard.press("Space")
    page.wait_for_selector("#round-total", timeout=TIMEOUT)
    total = int(page.locator("#round-total").text_content())
    check_balance(page, before, total)
