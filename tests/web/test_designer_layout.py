"""The variant designer on a 1366 px screen, as a designer reads it: the PAR sheet and the
form's tables whole (no column cut, none behind a scroll bar), more decimals or each edge's
exact fraction on request, and one minus sign (U+2212) in every figure shown there and on
the PAR-sheet pages."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from feltlab.analysis import analyze
from feltlab.core.rules import load_rules
from web.axe import assert_axe_clean
from web.conftest import Server
from web.test_browser import TIMEOUT, shot
from web.test_designer_page import open_designer

HYPHEN_MINUS_NUMBER = re.compile(r"(?<![\w-])-\d")
"""A figure written with the hyphen-minus (a name such as ``high-card-flush`` is not)."""
CUT = """() => [...document.querySelectorAll('.designer .scroll')]
  .filter((node) => node.scrollWidth > node.clientWidth)
  .map((node) => node.id || node.closest('fieldset')?.querySelector('legend')?.textContent)"""


def _exact(value: Fraction) -> str:
    return str(value).replace("-", "\u2212")


def _flush_edge(pays: int) -> Fraction:
    rules = load_rules("high-card-flush")
    edited = rules.model_copy(update={"flush_pays": {**rules.flush_pays, 5: pays}})
    return analyze(edited).wager("flush").house_edge


def test_the_designer_uses_a_wide_screen(server: Server, wide: Any, artifacts: Path) -> None:
    page = wide.new_page()
    open_designer(page, server)
    assert page.evaluate(CUT) == []
    panel = page.locator("#designer-form").bounding_box()
    for remove in page.get_by_role("button", name="Remove this line of Limits").all():
        box = remove.bounding_box()
        assert box["x"] + box["width"] <= panel["x"] + panel["width"], box
    sheet = page.locator("#designer-summary").bounding_box()
    for head in page.locator("#designer-sheet thead th").all():
        box = head.bounding_box()
        assert box["x"] + box["width"] <= sheet["x"] + sheet["width"] + 0.5, head.text_content()
    shot(page, artifacts, "designer-1366")
    texts = page.locator("#designer-sheet, #designer-card, #designer-returns, #odds-body"
                         ).all_text_contents()
    assert not [text for text in texts if HYPHEN_MINUS_NUMBER.search(text)]
    assert "\u22121" in page.locator("#odds-body").text_content()  # a lost wager's net

    page.get_by_label("Decimals").focus()
    page.keyboard.press("ArrowDown")  # 4 to 6 decimals, from the keyboard
    flush = '#designer-sheet tr[data-wager="flush"]'
    edge = _flush_edge(10)
    page.wait_for_function("wanted => document.querySelector('#designer-sheet "
                           "tr[data-wager=\"flush\"] td.edge').textContent === wanted",
                           arg=f"{float(edge):.6%}", timeout=TIMEOUT)
    assert page.evaluate("document.activeElement.id") == "sheet-places"
    exact = page.get_by_label("Exact fractions")
    exact.focus()
    page.keyboard.press("Space")
    page.locator(f"{flush} td.edge .exact").wait_for(timeout=TIMEOUT)
    assert page.evaluate("document.activeElement.id") == "sheet-exact"
    assert page.locator(f"{flush} td.edge .exact").text_content() == _exact(edge)
    assert page.locator(f"{flush} td.change .exact").text_content() == "0"

    page.get_by_label("Flush Pays value", exact=True).nth(1).fill("13")
    changed = _flush_edge(13)
    page.wait_for_function(
        "wanted => document.querySelector('#designer-sheet tr[data-wager=\"flush\"] "
        "td.edge .exact')?.textContent === wanted", arg=_exact(changed), timeout=TIMEOUT)
    assert page.locator(f"{flush} td.change .exact").text_content() == _exact(changed - edge)
    change = page.locator(f"{flush} td.change").text_content() or ""
    assert change.startswith("\u2212") and " pp" in change
    assert page.evaluate(CUT) == []
    shot(page, artifacts, "designer-1366-exact")
    assert_axe_clean(page, "designer-1366-exact", artifacts)
    page.reload()  # the choice is kept
    page.locator(f"{flush} td.edge .exact").wait_for(timeout=TIMEOUT)
    assert page.get_by_label("Decimals").input_value() == "6"
    page.close()


def test_the_par_sheet_page_shows_one_minus_sign(client: TestClient) -> None:
    text = client.get("/math/nh-holdem-stud/par").text
    cells = re.findall(r'<td class="num[^"]*">([^<]*)</td>', text)
    assert [cell for cell in cells if cell.startswith("\u2212")], cells[:20]
    assert not [cell for cell in cells if HYPHEN_MINUS_NUMBER.match(cell)]
