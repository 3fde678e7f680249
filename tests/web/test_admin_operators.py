"""The console's Operators section in a real Chromium against a real ``feltlab serve``:
two operators registered through the admin API (one whose wallet is the reference wallet,
in its own process, and one whose wallet is down), real-money rounds played through the
first, and calls owed to the second (one flagged a day ago) written into the server's
database through the outbox. By keyboard, a flagged call is retried and another resolved
by hand after the confirmation asks how; an operator is disabled after its confirmation and
enabled again; the focus stays where the work is, the messages are in the section's status
region, the audit log shows each change; axe finds nothing on a desktop or a 390 px phone."""

from __future__ import annotations

import itertools
import time
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine, update

from feltlab.server.clock import now
from feltlab.server.operator_models import WalletTransaction
from feltlab.server.services.database import make_engine, normalise_url, write_connection
from feltlab.server.services.outbox import queue_call
from server.operators_helpers import RULES, bearer, keyed, launch
from server.test_outbox import new_round
from server.wallet_process import SECRET, WalletProcess
from web.axe import assert_axe_clean
from web.conftest import Server, Watch, screenshot
from web.test_admin_console import PASSWORD, TIMEOUT, _admin, sign_in

_ids = itertools.count(1)
DOWN = "http://127.0.0.1:9"
"""A wallet nobody answers at (the discard port): its calls stay pending."""


@pytest.fixture(scope="module")
def wallet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WalletProcess]:
    process = WalletProcess(tmp_path_factory.mktemp("console-wallet"))
    yield process
    process.stop()


def token(server: Server, name: str) -> dict[str, str]:
    with httpx.Client(base_url=server.base, timeout=30) as http:
        answer = http.post("/api/v1/login", json={"username": name, "password": PASSWORD})
    assert answer.status_code == 200, answer.text
    return bearer(answer.json()["token"])


def add_operator(server: Server, admin: dict[str, str], operator: str, url: str) -> None:
    with httpx.Client(base_url=server.base, timeout=30) as http:
        answer = http.post("/api/v1/admin/operators", headers=admin, json={
            "id": operator, "wallet_url": url, "currencies": {"EUR": 1, "JPY": 100},
            "timeout_seconds": 0.5, "frame_origins": ["https://casino.example"],
            "secret": SECRET})
    assert answer.status_code == 201, answer.text
    assert SECRET not in answer.text


def play_real_rounds(server: Server, operator: str, currency: str, rounds: int) -> None:
    """Real-money rounds through the operator's wallet, as its framed page plays them."""
    with httpx.Client(base_url=server.base, timeout=30) as http:
        session = launch(http, operator=operator, currency=currency,  # type: ignore[arg-type]
                         player=f"web-{uuid.uuid4().hex[:8]}")["session"]
        table = http.post("/api/v1/tables", json={"rules": RULES},
                          headers=bearer(session)).json()["id"]
        for _ in range(rounds):
            view = http.post(f"/api/v1/tables/{table}/rounds", headers=keyed(session),
                             json={"wagers": {"ante": 10}}).json()
            while view["phase"] != "complete":
                view = http.post(f"/api/v1/rounds/{view['id']}/actions",
                                 headers=keyed(session), json=view["options"][-1]).json()


def owe(engine: Engine, operator: str, amount: int, flagged: bool, age: timedelta,
        kind: str = "win") -> str:
    """A win owed to ``operator``'s player, ``age`` old, flagged if told (or a bet its
    request is sending: held)."""
    round_id = new_round(engine)
    with write_connection(engine) as connection:
        transaction_id = queue_call(
            connection, operator_id=operator, player="p-77", session="s-web",
            currency="EUR", kind=kind, amount=amount, round_id=round_id, now=now() - age,
            first_try_at=now() + timedelta(hours=1), held=kind == "bet")
        if flagged:
            calls = WalletTransaction.__table__
            connection.execute(update(calls).where(
                calls.c.transaction_id == transaction_id).values(
                flagged=True, next_try_at=None, attempts=31,
                last_error="wallet: connection refused"))
    return transaction_id


def focused(page: Any) -> str:
    found: str = page.evaluate("() => document.activeElement.dataset.focus"
                               " || document.activeElement.id || document.activeElement.tagName")
    return found


def test_operators_and_their_wallet_calls(server: Server, desktop: Any, phone: Any,
                                          watch: Watch, wallet: WalletProcess,
                                          artifacts: Path) -> None:
    admin = _admin(server)
    headers = token(server, admin)
    suffix = f"{int(time.time()) % 100000}x{next(_ids)}"
    live, down = f"live-{suffix}", f"down-{suffix}"
    add_operator(server, headers, live, wallet.url)
    add_operator(server, headers, down, DOWN)
    play_real_rounds(server, live, "EUR", 4)
    play_real_rounds(server, live, "JPY", 2)
    engine = make_engine(normalise_url(server.database))
    try:
        flagged = owe(engine, down, 1250, True, timedelta(hours=30))
        waiting = owe(engine, down, 300, False, timedelta(minutes=5))
        held = owe(engine, down, 500, False, timedelta(seconds=2), kind="bet")
    finally:
        engine.dispose()

    page = desktop.new_page()
    sign_in(page, server, admin)
    page.get_by_label("Operator", exact=True).select_option(down)
    page.get_by_role("button", name="Show calls").click()
    retry = page.get_by_role("button", name=f"Retry now: win {flagged}")
    retry.wait_for(timeout=TIMEOUT)
    row = page.locator("#calls-table tbody tr", has=page.locator(f"text={flagged}"))
    assert "EUR 12.50" in row.inner_text() and "flagged" in row.inner_text()
    assert "30 h" in row.inner_text()
    held_row = page.locator("#calls-table tbody tr", has=page.locator(f"text={held}"))
    assert "held" in held_row.inner_text() and held_row.get_by_role("button").count() == 0
    figures = page.locator("#operator-figures-table tbody")
    figures.locator("tr", has_text=live).first.wait_for(timeout=TIMEOUT)
    assert figures.locator("tr", has_text=live).count() == 2  # EUR and JPY
    screenshot(page, artifacts / "admin-operators.png", full_page=True)
    assert_axe_clean(page, "admin-operators", artifacts)

    # a flagged call retried now, by keyboard: the focus stays on its row's button
    retry.focus()
    page.keyboard.press("Enter")
    status = page.locator("#operators-status")
    status.filter(has_text="Retrying").wait_for(timeout=TIMEOUT)
    assert focused(page) == f"retry:{flagged}"
    assert "attempt 32" in status.inner_text()  # (unanswered, it is flagged again)

    # another resolved by hand: the confirmation asks how first
    page.get_by_role("button", name=f"Resolve by hand: win {waiting}").focus()
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog")
    dialog.wait_for(timeout=TIMEOUT)
    assert focused(page) == "ask-note"
    assert "EUR 3.00" in dialog.inner_text()
    page.wait_for_timeout(300)  # (the backdrop is painted a frame after the dialog)
    screenshot(page, artifacts / "admin-operators-resolve.png", full_page=False)
    assert_axe_clean(page, "admin-operators-resolve", artifacts)
    page.get_by_role("button", name="Resolve by hand", exact=True).click()
    page.locator("#ask-status", has_text="Say how").wait_for(timeout=TIMEOUT)
    page.keyboard.type("paid by the casino's cashier, ticket 4411")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    status.filter(has_text="Resolved").wait_for(timeout=TIMEOUT)
    assert not dialog.is_visible()
    assert waiting not in page.locator("#calls-table").inner_text()
    assert focused(page).startswith("resolve:") or focused(page) == "calls-title"
    page.wait_for_function("() => document.getElementById('audit-table').textContent"
                           ".includes('wallet_call_resolved_by_hand')", timeout=TIMEOUT)

    # an operator disabled after its confirmation, then enabled again
    page.get_by_role("button", name=f"Disable {down}").click()
    dialog.wait_for(timeout=TIMEOUT)
    assert focused(page) == "ask-confirm"
    page.keyboard.press("Enter")
    status.filter(has_text=f"{down} is disabled").wait_for(timeout=TIMEOUT)
    assert focused(page) == f"operator:{down}"
    assert page.get_by_role("button", name=f"Enable {down}").is_visible()
    screenshot(page, artifacts / "admin-operators-done.png", full_page=True)
    page.keyboard.press("Enter")
    status.filter(has_text=f"{down} is enabled").wait_for(timeout=TIMEOUT)
    assert focused(page) == f"operator:{down}"
    page.wait_for_function("() => document.getElementById('audit-table').textContent"
                           ".includes('operator_enabled')", timeout=TIMEOUT)
    page.close()

    # a 390 px phone: the page itself does not scroll sideways (the tables do)
    small = phone.new_page()
    sign_in(small, server, admin)
    small.get_by_role("button", name=f"Retry now: win {flagged}").wait_for(timeout=TIMEOUT)
    # each call a card on the phone, still a table's row to a screen reader
    assert small.get_by_role("rowheader", name=flagged).count() == 1
    assert small.get_by_role("columnheader", name="Amount").count() == 1
    small.locator("#operators-title").scroll_into_view_if_needed()
    screenshot(small, artifacts / "admin-operators-phone.png", full_page=True)
    wide = small.evaluate("""() => [...document.querySelectorAll('main *')]
        .filter(e => e.getBoundingClientRect().right > 391 && !e.closest('.scroll'))
        .map(e => `${e.tagName}#${e.id}.${e.className}`)""")  # what sticks out, if any
    assert small.evaluate("document.documentElement.scrollWidth") <= 390, wide
    assert_axe_clean(small, "admin-operators-phone", artifacts)
    small.close()
