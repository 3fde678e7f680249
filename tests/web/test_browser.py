"""End to end in a real Chromium against a real ``feltlab serve``: sign up, a practice
table of every rule set with every kind of decision, the settlement and the balance,
the fairness check, the strategy trainer, the dealer trainer and a PAR sheet; no request
leaves 127.0.0.1 and the console shows no error (see ``conftest.Watch``)."""

from __future__ import annotations

import itertools
import re
import time
from pathlib import Path
from typing import Any

import pytest

from feltlab.core.payout import settle_request
from feltlab.core.rules import builtin_ids, load_rules
from feltlab.present.catalogue import rule_card
from web.conftest import Server, Watch, screenshot

_names = itertools.count(1)
TIMEOUT = 30_000


def shot(page: Any, artifacts: Path, name: str) -> None:
    screenshot(page, artifacts / f"{name}.png", full_page=True)


def sign_up(page: Any, server: Server) -> str:
    name = f"web{int(time.time()) % 100000}x{next(_names)}"
    page.goto(server.base + "/")
    page.get_by_label("Username").fill(name)
    page.get_by_label("Password").fill("correct horse")
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_selector("#player:not([hidden])", timeout=TIMEOUT)
    assert button(page, "Practice High Card Flush").is_enabled()
    return name


def balance(page: Any) -> int:
    return int(page.get_by_label("Balance").text_content())


def button(page: Any, name: str) -> Any:
    return page.get_by_role("button", name=name, exact=True)


def open_practice(page: Any, server: Server, rules_id: str) -> None:
    page.goto(server.base + "/")
    button(page, f"Practice {load_rules(rules_id).name}").click()
    page.wait_for_url(re.compile(r".*/table/\d+$"))
    button(page, "Deal").wait_for()
    page.wait_for_selector("#status:not(:empty)", timeout=TIMEOUT)


def enabled_decisions(page: Any) -> list[str]:
    names: list[str] = page.eval_on_selector_all(
        "#decisions button:not([disabled])",
        "nodes => nodes.map(n => n.getAttribute('aria-label'))")
    return names


def wait_settled(page: Any) -> None:
    page.wait_for_selector("#round-total", timeout=TIMEOUT)
    page.wait_for_selector("#deal:not([disabled])", timeout=TIMEOUT)


def play_round(page: Any, choose: Any) -> tuple[int, int, list[str]]:
    """Deal the wagers on the spots, take decisions with ``choose(enabled)`` until the
    round settles; the balance before, the round's total and the decisions taken."""
    before = balance(page)
    button(page, "Deal").click()
    page.wait_for_selector("#round-total", state="detached", timeout=TIMEOUT)
    taken: list[str] = []
    while True:
        page.wait_for_selector("#round-total, #decisions button:not([disabled])",
                               timeout=TIMEOUT)
        if page.query_selector("#round-total"):
            break
        decision = choose(enabled_decisions(page))
        taken.append(decision)
        button(page, decision).click()
        page.wait_for_function(
            "() => document.querySelector('#round-total') || "
            "[...document.querySelectorAll('#decisions button')].every(b => b.disabled)",
            timeout=TIMEOUT)
    wait_settled(page)
    total = int(page.locator("#round-total").text_content())
    return before, total, taken


def check_balance(page: Any, before: int, total: int) -> None:
    page.wait_for_function("(wanted) => Number(document.querySelector('#balance')"
                           ".textContent) === wanted", arg=before + total, timeout=TIMEOUT)


def first(preferred: list[str]) -> Any:
    def choose(enabled: list[str]) -> str:
        return next(name for name in [*preferred, "Fold"] if name in enabled)
    return choose


# one rule set a test, each with the decisions it shows
PLANS = {
    "high-card-flush": (["Ante", "Flush", "Straight Flush"], ["Raise 3x", "Raise 2x", "Raise 1x"]),
    "high-card-flush-toledo": (["Ante"], ["Fold"]),
    "nh-flush-poker": (["Ante", "Flush", "Straight Flush"], ["Raise 2x", "Raise 1x"]),
    "nine-card-flush": (["All 9", "9 Card Bonus", "Player 6", "First 3"], ["Play"]),
    "nh-holdem-stud": (["Ante", "3 Card Bonus"], ["Bet 3x", "Bet 2x", "Bet 1x"]),
    # the test game installed from outside feltlab (tests/toy_game): its own decision kind
    "toy-pull-back": (["Ante"], ["Pull back half"]),
}


def test_every_rule_set_has_a_plan() -> None:
    assert set(PLANS) == set(builtin_ids())


@pytest.mark.parametrize("rules_id", sorted(PLANS))
def test_practice_round_of_each_rule_set(rules_id: str, server: Server, desktop: Any,
                                         artifacts: Path) -> None:
    page = desktop.new_page()
    sign_up(page, server)
    open_practice(page, server, rules_id)
    spots, preferred = PLANS[rules_id]
    for wager in rule_card(rules_id)["wagers"]:
        assert button(page, wager["spot"]).is_enabled()
    for spot in spots:
        button(page, spot).click()
    if rules_id == "nine-card-flush":
        assert button(page, "Red").get_attribute("aria-pressed") == "true"
        button(page, "Black").click()
        assert button(page, "Black").get_attribute("aria-pressed") == "true"
    shot(page, artifacts, f"table-{rules_id}-bets")
    before, total, taken = play_round(page, first(preferred))
    check_balance(page, before, total)
    assert taken and all(name in [*preferred, "Fold"] for name in taken)
    rows = page.locator("#settlement tbody tr")
    assert rows.count() >= len(spots)
    shot(page, artifacts, f"table-{rules_id}-settled")
    button(page, "Verify").click()
    page.locator("#verify-result", has_text=re.compile("^Verified")).wait_for(timeout=TIMEOUT)
    button(page, "Rebet").click()
    assert "chip" in (page.locator(f"#spot-{rule_card(rules_id)['main_wager']}").inner_html())


def test_every_decision_kind(server: Server, desktop: Any) -> None:
    """Fold, Raise, Play and Bet (1x, 2x and 3x at the three streets of Hold'em Stud)."""
    page = desktop.new_page()
    sign_up(page, server)
    seen: set[str] = set()
    open_practice(page, server, "nh-holdem-stud")
    for _ in range(3):
        button(page, "Ante").click()
        before, total, taken = play_round(page, lambda enabled: next(
            name for name in ("Bet 1x", "Bet 2x", "Bet 3x") if name in enabled
            and name not in seen) if any(name not in seen for name in enabled
                                         if name.startswith("Bet")) else "Bet 1x")
        seen.update(taken)
        check_balance(page, before, total)
    assert {"Bet 1x", "Bet 2x", "Bet 3x"} <= seen
    open_practice(page, server, "nine-card-flush")
    for decision in ("Fold", "Play"):
        button(page, "All 9").click()
        before, total, taken = play_round(page, lambda enabled, d=decision: d)
        assert taken == [decision]
        check_balance(page, before, total)
    open_practice(page, server, "high-card-flush")
    button(page, "Ante").click()
    before, total, taken = play_round(page, first(["Raise 1x"]))
    assert taken == ["Raise 1x"]
    check_balance(page, before, total)


def test_undo_clear_and_limits(server: Server, desktop: Any, watch: Watch) -> None:
    page = desktop.new_page()
    sign_up(page, server)
    open_practice(page, server, "nh-flush-poker")
    assert button(page, "Chip 5").get_attribute("aria-pressed") == "true"
    button(page, "Chip 1").click()
    button(page, "Ante").click()
    button(page, "Ante").click()
    assert "2 on Ante" in page.locator("#spot-ante-limits").text_content()
    button(page, "Undo").click()
    assert "1 on Ante" in page.locator("#spot-ante-limits").text_content()
    button(page, "Clear").click()
    button(page, "Deal").click()
    assert "Place the Ante first" in page.locator("#status").text_content()
    button(page, "Chip 25").click()
    button(page, "Ante").click()
    assert "limits 1-10" in page.locator("#status").text_content()
    assert "on Ante" not in page.locator("#spot-ante-limits").text_content()
    button(page, "Chip 5").click()
    button(page, "Flush").click()
    button(page, "Ante").click()
    button(page, "Chip 1").click()
    button(page, "Straight Flush").click()
    before = balance(page)
    button(page, "Deal").click()  # the server refuses unequal bonuses (a 4xx, logged)
    page.wait_for_selector("#status.error", timeout=TIMEOUT)
    assert "equal" in page.locator("#status").text_content()
    assert balance(page) == before
    watch.expected_refusals = 1


def test_strategy_trainer(server: Server, desktop: Any, artifacts: Path) -> None:
    page = desktop.new_page()
    sign_up(page, server)
    open_practice(page, server, "high-card-flush")
    switch = page.get_by_role("switch", name="Strategy trainer")
    switch.click()
    assert switch.get_attribute("aria-checked") == "true"
    button(page, "Ante").click()
    button(page, "Deal").click()
    page.wait_for_selector("#advice table", timeout=TIMEOUT)
    options = page.locator("#advice tbody tr")
    assert options.count() >= 2
    assert "(best)" in page.locator("#advice").text_content()
    shot(page, artifacts, "trainer-before-decision")
    button(page, "Fold").click()
    page.wait_for_selector("#verdict:not(:empty)", timeout=TIMEOUT)
    verdict = page.locator("#verdict").text_content()
    assert verdict.startswith(("Right", "Mistake"))
    assert "Accuracy" in page.locator("#trainer-score").text_content()
    wait_settled(page)
    shot(page, artifacts, "trainer-verdict")
    page.evaluate("() => localStorage.removeItem('feltlab:trainer:score:high-card-flush')")
    page.reload()  # the score is the server's, not the browser's
    page.locator("#trainer-score", has_text="Accuracy").wait_for(timeout=TIMEOUT)
    assert "of 1 (" in page.locator("#trainer-score").text_content()
    page.goto(server.base + "/trainer?rules=nine-card-flush")
    page.get_by_label("Close decisions only").check()
    page.get_by_role("button", name="New hand").click()
    page.wait_for_selector("#drill-options button", timeout=TIMEOUT)
    page.locator("#drill-options button").first.click()
    page.wait_for_selector("#drill-advice .verdict")
    shot(page, artifacts, "trainer-drill")


def test_dealer_trainer(server: Server, desktop: Any, artifacts: Path) -> None:
    page = desktop.new_page()
    sign_up(page, server)
    page.goto(server.base + "/dealer?rules=nine-card-flush")
    with page.expect_response(re.compile(r".*/api/v1/dealer-rounds.*")) as answer:
        page.get_by_role("button", name="New round").click()
    drill = answer.value.json()
    results = settle_request(drill["request"])["results"]
    for item in drill["to_settle"]:
        page.locator(f"#answer-{item['wager']}").fill(str(results[item["wager"]]))
    shot(page, artifacts, "dealer-trainer-round")
    page.get_by_role("button", name="Check payouts").click()
    page.wait_for_selector("#dealer-result table", timeout=TIMEOUT)
    count = len(results)
    assert f"{count} of {count} right" in page.locator("#dealer-result").text_content()
    assert "1 of 1 rounds perfect" in page.locator("#dealer-score").text_content()
    page.get_by_role("button", name="Next step").click()
    assert page.locator("#procedure li.current").count() == 1
    shot(page, artifacts, "dealer-trainer-checked")
    page.evaluate("() => localStorage.clear()")
    page.reload()  # the score is the server's, not the browser's
    page.locator("#dealer-score", has_text="1 of 1 rounds perfect").wait_for(timeout=TIMEOUT)


def test_par_sheet_and_strategy_page(server: Server, desktop: Any, artifacts: Path) -> None:
    page = desktop.new_page()
    page.goto(server.base + "/math")
    page.get_by_role("link", name="PAR sheet: 9 Card Flush").click()
    page.wait_for_selector("h1", timeout=60_000)
    assert page.locator("h1").text_content() == "PAR sheet: 9 Card Flush"
    assert page.locator("table.overview").count() == 1
    assert page.get_by_role("link", name="← Strategy card and charts").is_visible()
    shot(page, artifacts, "par-sheet-nine-card-flush")
    page.goto(server.base + "/math/nine-card-flush")
    page.wait_for_selector("#math-body table.overview", timeout=60_000)
    shot(page, artifacts, "math-nine-card-flush")


def test_phone_size(server: Server, phone: Any, artifacts: Path) -> None:
    page = phone.new_page()
    page.goto(server.base + "/")
    shot(page, artifacts, "phone-lobby-signed-out")
    sign_up(page, server)
    shot(page, artifacts, "phone-lobby")
    open_practice(page, server, "nine-card-flush")
    button(page, "All 9").click()
    before, total, _ = play_round(page, first(["Play"]))
    check_balance(page, before, total)
    shot(page, artifacts, "phone-table-nine-card-flush")
    page.evaluate("() => window.scrollTo(0, 0)")
    screenshot(page, artifacts / "phone-table-nine-card-flush-screen.png")
    wide: int = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= 390, f"the table page is {wide} px wide on a 390 px phone"
    page.goto(server.base + "/dealer")
    shot(page, artifacts, "phone-dealer")


def test_the_test_game_at_the_trainers(server: Server, desktop: Any, artifacts: Path) -> None:
    """A game with only the required facets (tests/toy_game): the strategy trainer says it
    has no advisor; the dealer trainer deals it and checks its payouts, the pull-back in
    the game's own words."""
    page = desktop.new_page()
    sign_up(page, server)
    page.goto(server.base + "/trainer?rules=toy-pull-back")
    page.get_by_role("button", name="New hand").click()
    page.locator("#drill-advice", has_text="has no advisor").wait_for(timeout=TIMEOUT)
    assert page.locator("#drill-options button").count() == 0
    shot(page, artifacts, "trainer-toy-no-advisor")
    page.goto(server.base + "/dealer?rules=toy-pull-back")
    with page.expect_response(re.compile(r".*/api/v1/dealer-rounds.*")) as answer:
        page.get_by_role("button", name="New round").click()
    drill = answer.value.json()
    assert drill["decided"].split(" ")[0] in ("Fold", "Play", "Pull")  # the game's words
    results = settle_request(drill["request"])["results"]
    for item in drill["to_settle"]:
        page.locator(f"#answer-{item['wager']}").fill(str(results[item["wager"]]))
    page.get_by_role("button", name="Check payouts").click()
    page.wait_for_selector("#dealer-result table", timeout=TIMEOUT)
    count = len(results)
    assert f"{count} of {count} right" in page.locator("#dealer-result").text_content()
    shot(page, artifacts, "dealer-trainer-toy")
