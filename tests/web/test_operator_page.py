"""The game page an operator's casino frames (``/play/OPERATOR``), in a real Chromium
against a real ``feltlab serve``: only the operator's own sites may frame it (its CSP's
``frame-ancestors``; every other page is framed by nobody); a signed demo launch's URL
opens it, its one-time code leaves the address at once and works once (a reload or the
same link again says so), the session's token stays in memory (no cookie, no storage);
a round of High Card Flush by keyboard alone on a desktop and by touch on a 390 px phone,
axe-clean under the real CSP; a real-money stake the casino's wallet refuses is said and
the same bet goes again; a session the operator ends says so, with the way back."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from feltlab.server.services.database import make_engine
from feltlab.server.services.operators import add_operator, set_disabled
from feltlab.server.signatures import HEADER, sign
from server.wallet_process import SECRET as WALLET_SECRET
from server.wallet_process import WalletProcess
from web.axe import assert_axe_clean
from web.conftest import Server, Watch, screenshot
from web.test_accessibility import focused
from web.test_browser import TIMEOUT, balance, button, check_balance, enabled_decisions, shot
from web.test_keyboard import tab_to

ORIGIN = "https://casino.example"
LOBBY = "https://casino.example/lobby?from=game"
DEMO_SECRET = "demo-operator-secret-for-the-web-tests"
USED = "already used or has expired"
ENDED = "session has ended"
OPENING = 100_000
"""A new player's balance at the reference wallet, in minor units."""
STORED = """() => [document.cookie, JSON.stringify({...localStorage}),
                   JSON.stringify({...sessionStorage}), JSON.stringify(history.state)]"""
_players = itertools.count(1)


def register(server: Server, operator: str, secret: str, wallet_url: str = "http://127.0.0.1:9",
             disabled: bool = False) -> str:
    """An operator in the served database (a demo session never calls its wallet)."""
    engine = make_engine(server.database)
    try:
        add_operator(engine, "admin", operator, wallet_url, {"EUR": 100}, secret,
                     timeout_seconds=2, frame_origins=(ORIGIN, "https://m.casino.example:8443"))
        if disabled:
            set_disabled(engine, "admin", operator, True)
    finally:
        engine.dispose()
    return operator


def signed(server: Server, path: str, payload: dict[str, Any], secret: str) -> Any:
    body = orjson.dumps(payload)
    answer = httpx.post(server.base + path, content=body, headers={
        "content-type": "application/json", HEADER: sign(secret, body)})
    assert answer.status_code in (200, 201), answer.text
    return answer.json()


def launch(server: Server, operator: str, secret: str, mode: str = "demo") -> dict[str, Any]:
    """A signed launch of a new player's session: its token and the page's URL."""
    player = f"web-{int(time.time()) % 100000}-{next(_players)}"
    return dict(signed(server, "/api/v1/operator/sessions", {
        "operator": operator, "player": player, "currency": "EUR",
        "rules": "high-card-flush", "mode": mode, "lobby_url": LOBBY}, secret))


@pytest.fixture(scope="module")
def demo(server: Server) -> str:
    return register(server, "webdemo", DEMO_SECRET)


def open_game(page: Any, url: str) -> None:
    page.goto(url)
    button(page, "Deal").wait_for(timeout=TIMEOUT)
    page.locator("#status", has_text="Pick a chip").wait_for(timeout=TIMEOUT)


def decide_until_settled(page: Any, press: Any) -> int:
    """Take the largest raise open (else fold) with ``press(name)`` until the round
    settles; its total."""
    while not page.query_selector("#round-total"):
        page.wait_for_selector("#round-total, #decisions button:not([disabled])",
                               timeout=TIMEOUT)
        if page.query_selector("#round-total"):
            break
        enabled = enabled_decisions(page)
        press(next(name for name in ("Raise 3x", "Raise 2x", "Raise 1x", "Fold")
                   if name in enabled))
        page.wait_for_function(
            "() => document.querySelector('#round-total') || "
            "[...document.querySelectorAll('#decisions button')].every(b => b.disabled)",
            timeout=TIMEOUT)
    page.wait_for_selector("#deal:not([disabled])", timeout=TIMEOUT)
    return int(page.locator("#round-total").text_content())


def test_only_the_operator_s_sites_may_frame_its_page(server: Server, demo: str) -> None:
    framed = httpx.get(f"{server.base}/play/{demo}")
    other = httpx.get(server.base + "/")
    assert framed.status_code == 200
    policy = framed.headers["content-security-policy"]
    assert ("frame-ancestors 'self' https://casino.example https://m.casino.example:8443;"
            in policy)
    assert other.headers["content-security-policy"] == policy.replace(
        "'self' https://casino.example https://m.casino.example:8443", "'none'")
    assert "x-frame-options" not in framed.headers
    assert "frame-ancestors 'none'" in httpx.get(server.base + "/table/1").headers[
        "content-security-policy"]
    off = register(server, "webdisabled", DEMO_SECRET, disabled=True)
    for missing in ("nobody", off, "NOT-AN-ID"):
        answer = httpx.get(f"{server.base}/play/{missing}")
        assert answer.status_code == 404
        assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
        assert "This game is not available" in answer.text


def test_a_demo_round_by_keyboard_alone(server: Server, demo: str, desktop: Any,
                                        watch: Watch, artifacts: Path) -> None:
    launched = launch(server, demo, DEMO_SECRET)
    token, url = launched["session"], launched["url"]
    page = desktop.new_page()
    open_game(page, url)
    assert page.url == f"{server.base}/play/{demo}"  # the code left the address
    assert not any(token in text or "op." in text for text in page.evaluate(STORED))
    lobby = page.get_by_role("link", name="Back to the casino")
    assert lobby.get_attribute("href") == LOBBY and lobby.get_attribute("target") == "_top"
    assert "Demo game" in page.locator("#who").text_content()
    page.wait_for_function("() => document.querySelector('#balance').textContent !== ''")
    before = balance(page)
    assert_axe_clean(page, "operator-page-open", artifacts)

    page.keyboard.press("Tab")  # the skip link first, then the game
    skip = page.get_by_role("link", name="Skip to the main content")
    assert skip.evaluate("element => element === document.activeElement")
    page.keyboard.press("Enter")
    assert focused(page) == "main"
    tab_to(page, button(page, "Ante"))
    page.keyboard.press("Enter")
    tab_to(page, button(page, "Deal"))
    page.keyboard.press("Enter")
    page.wait_for_selector("#decisions button:not([disabled])", timeout=TIMEOUT)
    page.wait_for_function("() => document.activeElement?.closest('#decisions') !== null",
                           timeout=TIMEOUT)
    shot(page, artifacts, "operator-page-mid-round")
    assert_axe_clean(page, "operator-page-mid-round", artifacts)

    def press(name: str) -> None:
        tab_to(page, button(page, name))
        page.keyboard.press("Enter")

    total = decide_until_settled(page, press)
    page.wait_for_function("() => document.activeElement.id === 'round-result'",
                           timeout=TIMEOUT)
    check_balance(page, before, total)
    assert page.locator("#settlement tbody tr").count() >= 1
    assert page.locator("#last-rounds li").count() == 1
    shot(page, artifacts, "operator-page-settled")
    assert_axe_clean(page, "operator-page-settled", artifacts)
    assert not any(token in text for text in page.evaluate(STORED))

    page.reload()  # the code is gone: the page says so, and still knows the way back
    page.locator("#problem-text", has_text=USED).wait_for(timeout=TIMEOUT)
    assert page.get_by_role("link", name="Back to the casino").get_attribute("href") == LOBBY
    assert not page.locator("#felt").is_visible()
    shot(page, artifacts, "operator-page-reloaded")
    assert_axe_clean(page, "operator-page-reloaded", artifacts)
    again = desktop.new_page()  # the launch URL itself, once more
    again.goto(url)
    again.locator("#problem-text", has_text=USED).wait_for(timeout=TIMEOUT)
    assert focused(again) == "problem-title"
    watch.expected_refusals = 1  # the used code's 401


def test_a_demo_round_on_a_phone(server: Server, demo: str, phone: Any,
                                 artifacts: Path) -> None:
    page = phone.new_page()
    open_game(page, launch(server, demo, DEMO_SECRET)["url"])
    page.wait_for_function("() => document.querySelector('#balance').textContent !== ''")
    before = balance(page)
    shot(page, artifacts, "operator-page-phone-open")
    button(page, "Chip 25").tap()
    button(page, "Ante").tap()
    button(page, "Flush").tap()
    button(page, "Deal").tap()
    page.wait_for_selector("#decisions button:not([disabled])", timeout=TIMEOUT)
    page.evaluate("() => window.scrollTo(0, 0)")
    screenshot(page, artifacts / "operator-page-phone-mid-round-screen.png")
    assert_axe_clean(page, "operator-page-phone-mid-round", artifacts)
    total = decide_until_settled(page, lambda name: button(page, name).tap())
    check_balance(page, before, total)
    shot(page, artifacts, "operator-page-phone-settled")
    assert_axe_clean(page, "operator-page-phone-settled", artifacts)
    wide: int = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= 390, f"the game page is {wide} px wide on a 390 px phone"


@pytest.fixture(scope="module")
def wallet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WalletProcess]:
    """The reference operator wallet (tests/server/wallet_process.py) in its process."""
    process = WalletProcess(tmp_path_factory.mktemp("web-wallet"))
    yield process
    process.stop()


def test_a_refused_stake_is_said_and_the_bet_goes_again(
        server: Server, wallet: WalletProcess, desktop: Any, watch: Watch,
        artifacts: Path) -> None:
    operator = register(server, "webreal", WALLET_SECRET, wallet_url=wallet.url)
    launched = launch(server, operator, WALLET_SECRET, mode="real")
    page = desktop.new_page()
    open_game(page, launched["url"])
    assert "1 chip = 1.00 EUR" in page.locator("#who").text_content()
    assert page.locator("#balance-box").is_hidden()  # the casino's to tell, after a round
    wallet.faults([{"mode": "refuse", "endpoints": ["bet"], "count": 1,
                    "error": "INSUFFICIENT_FUNDS"}])
    button(page, "Ante").click()
    button(page, "Deal").click()
    # the page says the refusal at once, then in the player's words once it has read the
    # table again: wait for those
    page.locator("#status.error", has_text="balance is too low").wait_for(timeout=TIMEOUT)
    assert "INSUFFICIENT_FUNDS" in page.locator("#status").text_content()
    shot(page, artifacts, "operator-page-stake-refused")
    assert "5 on Ante" in page.locator("#spot-ante-limits").text_content()  # still on
    assert button(page, "Deal").is_enabled()
    button(page, "Deal").click()  # the same bet again: into the round that waited for it
    total = decide_until_settled(page, lambda name: button(page, name).click())
    check_balance(page, OPENING // 100, total)  # chips of 1.00 EUR, as the wallet said
    signed(server, f"/api/v1/operator/sessions/{launched['session']}/end",
           {"operator": operator}, WALLET_SECRET)
    button(page, "Ante").click()
    button(page, "Deal").click()
    page.locator("#problem-text", has_text=ENDED).wait_for(timeout=TIMEOUT)
    assert page.get_by_role("link", name="Back to the casino").is_visible()
    shot(page, artifacts, "operator-page-session-ended")
    assert_axe_clean(page, "operator-page-session-ended", artifacts)
    watch.expected_refusals = 2  # the refused stake's 409, the ended session's 401
