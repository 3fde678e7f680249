"""The table's words on a 390 px phone, as a player reads them: the decision line asks
for a choice ("Choose: Fold or Play.") rather than reading like one made; a new table's
rounds count from 1 (not the id every table shares); the colour chosen at 9 Card Flush
still looks chosen while the hand is decided (not switched off), with AA contrast."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from web.axe import assert_axe_clean
from web.conftest import Server
from web.test_browser import TIMEOUT, button, open_practice, shot, sign_up, wait_settled

CHOOSE = re.compile(r"^Choose: [A-Z][\w ]*(?:, [A-Z][\w ]*)*(?: or [A-Z][\w ]*)?\.$")
STYLE = """node => { const style = getComputedStyle(node);
  return [style.opacity, style.color, style.backgroundColor]; }"""


def _luminance(css: str) -> float:
    red, green, blue = (int(part) / 255 for part in re.findall(r"\d+", css)[:3])

    def linear(value: float) -> float:
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)


def _contrast(one: str, other: str) -> float:
    light, dark = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_the_table_speaks_to_the_player(server: Server, phone: Any, artifacts: Path) -> None:
    page = phone.new_page()
    sign_up(page, server)
    open_practice(page, server, "high-card-flush")  # another table's round first
    button(page, "Ante").click()
    button(page, "Deal").click()
    page.wait_for_selector("#decisions button:not([disabled])", timeout=TIMEOUT)
    status = page.locator("#status").text_content() or ""
    assert CHOOSE.match(status) and " or Raise " in status, status
    button(page, "Fold").click()
    wait_settled(page)

    open_practice(page, server, "nine-card-flush")
    button(page, "Black").click()
    button(page, "All 9").click()
    button(page, "Deal").click()
    page.wait_for_selector("#decisions button:not([disabled])", timeout=TIMEOUT)
    assert page.locator("#status").text_content() == "Choose: Fold or Play."
    black, red = button(page, "Black"), button(page, "Red")
    assert black.is_disabled() and black.get_attribute("aria-pressed") == "true"
    opacity, ink, paper = black.evaluate(STYLE)
    assert opacity == "1", "the chosen colour looks switched off"
    assert _contrast(ink, paper) >= 4.5, (ink, paper)
    assert float(red.evaluate(STYLE)[0]) < 1  # the other colour is off
    proof = page.locator("#proof dt", has_text=re.compile("^Round ")).text_content() or ""
    found = re.match(r"Round 1 \(round id (\d+)\): commitment", proof)
    assert found and int(found.group(1)) > 1, proof
    shot(page, artifacts, "phone-nine-card-flush-deciding")
    assert_axe_clean(page, "phone-nine-card-flush-deciding", artifacts)
    button(page, "Play").click()
    wait_settled(page)
    page.locator("#last-rounds li", has_text=re.compile(r"^Round 1: ")).wait_for(
        timeout=TIMEOUT)
    assert black.get_attribute("aria-pressed") == "true" and black.is_enabled()
    page.close()
