"""Two players at one shared table in two real browser contexts (a desktop and a phone):
an admin opens the table through the API, both players find it in the lobby, sit, bet in
the betting window, see each other's bets, whose turn it is and the timer, decide in
turn, see the dealer's reveal and each seat's settlement, and leave. One gives a client
seed: both pages show it and the round's mixed seed, and each verifies the round.

No hidden card ever reaches a page before its reveal: every WebSocket frame each page
receives and every state of its DOM (recorded by a MutationObserver) is checked against
the round's cards once it is over."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from feltlab.core.rules import load_rules
from feltlab.server.auth import AuthSettings, password_hasher
from feltlab.server.fairness import combine_client_seeds
from feltlab.server.services.accounts import create_account
from feltlab.server.services.database import make_engine, session_factory, transaction
from web.conftest import Server, screenshot
from web.test_browser import TIMEOUT, balance, button, enabled_decisions, shot, sign_up

CARD = re.compile(r"^[2-9TJQKA][shdc]$")
TABLE_API = re.compile(r"/api/v1/(tables|rounds)(/|$|\?)")
RANK_NAMES = {"A": "ace", "K": "king", "Q": "queen", "J": "jack", "T": "10"}
SUIT_NAMES = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}
SUIT_SYMBOLS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
ALICE_SEED = "alice-luck.7"
RECORD_DOM = """
window.__feltDom = [];
new MutationObserver(() => {
  const body = document.body;
  if (!body) return;
  const html = body.innerHTML;
  const seen = window.__feltDom;
  if (seen.length && seen[seen.length - 1].html === html) return;
  seen.push({ html, settled: Boolean(document.getElementById("round-total")) });
}).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
"""


def open_shared_table(server: Server, rules_id: str, seconds: int = 90,
                      title: str = "") -> tuple[int, str]:
    """An admin (created in the database as tests/server do) opens a shared table."""
    name, password = f"admin{int(time.time() * 1000) % 10**8}", "admin-password"
    engine = make_engine(server.database)
    with transaction(session_factory(engine)) as session:
        cheap = AuthSettings(argon2_time_cost=1, argon2_memory_kib=1024)
        create_account(session, password_hasher(cheap), name, password, role="admin")
    engine.dispose()
    token = httpx.post(server.base + "/api/v1/login",
                       json={"username": name, "password": password}).json()["token"]
    title = title or f"Shared {load_rules(rules_id).name}"
    opened = httpx.post(server.base + "/api/v1/admin/tables", json={
        "rules": rules_id, "name": title, "betting_seconds": seconds,
        "decision_seconds": seconds},
        headers={"Authorization": f"Bearer {token}"})
    assert opened.status_code == 201, opened.text
    return int(opened.json()["id"]), title


@dataclass
class Player:
    page: Any
    name: str = ""
    frames: list[dict[str, Any]] = field(default_factory=list)
    answers: list[Any] = field(default_factory=list)  # the API's answers about the table

    def round(self) -> dict[str, Any]:
        return self.frames[-1]["round"]


def seated_player(context: Any, server: Server, title: str, seat: int, lobby_shot: Path,
                  clock_ahead: int = 0) -> Player:
    """A new player on ``context`` sitting at the table (its clock ``clock_ahead`` seconds
    off the server's: the timers must still count down the server's deadlines)."""
    page = context.new_page()
    if clock_ahead:
        page.clock.set_system_time(time.time() + clock_ahead)
    player = Player(page)
    page.add_init_script(RECORD_DOM)
    page.on("websocket", lambda socket: socket.on(
        "framereceived", lambda payload: player.frames.append(json.loads(payload))))
    page.on("response", lambda response: player.answers.append(response)
            if TABLE_API.search(response.url)
            and "/table/" in response.request.headers.get("referer", "") else None)
    player.name = sign_up(page, server)
    join = page.get_by_role("link", name=f"Join {title}")
    join.wait_for(timeout=TIMEOUT)
    screenshot(page, lobby_shot, full_page=True)
    join.click()
    page.wait_for_url(re.compile(r".*/table/\d+$"))
    button(page, f"Sit at seat {seat}").click()
    page.locator(f"#seat-{seat}").wait_for(timeout=TIMEOUT)
    assert button(page, "Leave seat").is_visible()
    return player


def seat_text(page: Any, seat: int) -> str:
    text: str = page.locator(f"#seat-{seat}").text_content()
    return text


def wait_seat(page: Any, seat: int, words: str) -> None:
    page.locator(f"#seat-{seat}", has_text=words).wait_for(timeout=TIMEOUT)


def timer_seconds(page: Any) -> int:
    text = page.locator("#timer").text_content()
    found = re.search(r"(\d+) s\b", text)
    assert found, f"no countdown in the timer: {text!r}"
    return int(found.group(1))


COUNT_DOWN_BOUND_S = 10.0
"""How long the timer may take to show a lower count: 10 times the second it ticks by."""


def counts_down(page: Any) -> None:
    """The timer shows fewer seconds than it does now, soon (polled: no fixed wait)."""
    first = timer_seconds(page)
    deadline = time.monotonic() + COUNT_DOWN_BOUND_S
    while timer_seconds(page) >= first and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    assert timer_seconds(page) < first


PREFERRED = ["Raise 1x", "Bet 1x", "Play"]


def play_turns(players: list[Player], on_turn: Any) -> list[tuple[int, str]]:
    """Whoever has enabled decisions takes one (after ``on_turn(seat, page)``), until both
    pages show the settlement; checks that only the seat to act ever has decisions."""
    taken: list[tuple[int, str]] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if all(player.page.query_selector("#round-total") for player in players):
            return taken
        for seat, player in enumerate(players, start=1):
            enabled = enabled_decisions(player.page)
            if not enabled:
                continue
            other = players[2 - seat]
            assert not enabled_decisions(other.page), "two seats may decide at once"
            wait_seat(other.page, seat, "to act")
            assert f"Seat {seat} ({player.name}) to act" in other.page.locator(
                "#timer").text_content()
            on_turn(seat, player.page)
            choice = next(name for name in [*PREFERRED, "Fold"] if name in enabled)
            button(player.page, choice).click()
            taken.append((seat, choice))
            player.page.wait_for_function(
                "() => document.querySelector('#round-total') || "
                "[...document.querySelectorAll('#decisions button')].every(b => b.disabled)",
                timeout=TIMEOUT)
        players[0].page.wait_for_timeout(150)
    raise AssertionError(f"the round did not finish; decisions taken: {taken}")


def tokens(document: Any) -> set[str]:
    if isinstance(document, dict):
        return set().union(*map(tokens, document.values())) if document else set()
    if isinstance(document, list):
        return set().union(*map(tokens, document)) if document else set()
    if isinstance(document, str):
        return {word for word in document.split() if CARD.match(word)}
    return set()


def dom_cards(html: str) -> set[str]:
    """Every card face or card name a page's DOM shows."""
    found = set()
    for card in (rank + suit for rank in "23456789TJQKA" for suit in "shdc"):
        name = f"{RANK_NAMES.get(card[0], card[0])} of {SUIT_NAMES[card[1]]}"
        face = (rf'class="rank"[^>]*>{"10" if card[0] == "T" else card[0]}</span>'
                rf'<span class="suit"[^>]*>{SUIT_SYMBOLS[card[1]]}<')
        if re.search(rf"\b{name}\b", html) or re.search(face, html):
            found.add(card)
    return found


def as_table_view(answer: Any) -> dict[str, Any]:
    """An API answer in the live frames' shape: a round view becomes {"round": view}; a
    list of tables is checked as one document."""
    if isinstance(answer, dict) and "phase" in answer:
        return {"round": answer}
    return answer if isinstance(answer, dict) else {"tables": answer}


def check_nothing_hidden_leaked(player: Player, seat: int) -> None:
    final = player.round()
    assert final["phase"] == "complete"
    mine = set(final["cards"]["player"].split())
    community = final["cards"].get("community", "").split()
    hidden = set(final["cards"].get("dealer", "").split())
    for other in final["others"]:
        hidden |= set(other["player"].split())
    assert hidden, "the round revealed no dealer's or other seat's cards to check"
    answered = [as_table_view(response.json()) for response in player.answers
                if response.ok and response.request.method in ("GET", "POST")]
    before = [frame for frame in [*player.frames, *answered]
              if not (frame.get("round") and frame["round"]["id"] == final["id"]
                      and frame["round"]["phase"] == "complete")]
    assert len(answered) >= 3, "the page's own API answers were not recorded"
    assert before, "no frame came before the reveal"
    assert any(tokens(frame) >= mine for frame in before), "own cards never seen in a frame"
    for frame in before:
        shown = tokens(frame)
        turned = (frame.get("round") or {}).get("cards", {}).get("community", "").split()
        assert not shown & hidden, f"seat {seat} received hidden cards {shown & hidden}"
        assert shown <= mine | set(turned), f"seat {seat} received cards {shown - mine}"
        assert turned == community[:len(turned)], f"community cards out of order: {turned}"
        assert len(turned) < max(len(community), 1), f"seat {seat} saw every community card" \
            f" before the round was over: {turned}"
    snapshots = player.page.evaluate("() => window.__feltDom")
    unsettled = [item["html"] for item in snapshots if not item["settled"]]
    assert unsettled, "no DOM state was recorded before the settlement"
    assert any(dom_cards(html) >= mine for html in unsettled), "own cards never seen on the page"
    for html in unsettled:
        shown = dom_cards(html)
        assert not shown & hidden, f"seat {seat}'s page showed hidden cards {shown & hidden}"
        assert shown <= mine | set(community)
        assert len(shown & set(community)) < max(len(community), 1), \
            f"seat {seat}'s page showed every community card before the round was over"
    settled = [item["html"] for item in snapshots if item["settled"]]
    assert hidden <= dom_cards(settled[-1]), "the reveal is not on the page"


def check_seed_proof(players: list[Player]) -> None:
    """Alice's seed went into the deck: each page shows the seats' seeds and their mix,
    and its Verify button re-mixes them and checks every card."""
    mixed = combine_client_seeds({1: ALICE_SEED})
    for player in players:
        final = player.round()
        assert final["client_seeds"] == {"1": ALICE_SEED, "2": ""}
        assert final["client_seed"] == mixed
        page = player.page
        page.locator("#mixed-seed", has_text=mixed).wait_for(timeout=TIMEOUT)
        assert ALICE_SEED in page.locator("#proof").text_content()
        button(page, "Verify").click()
        page.locator("#verify-result", has_text=re.compile(
            "^Verified.*seats' seeds mix into the round's client seed")).wait_for(
            timeout=TIMEOUT)


@pytest.mark.parametrize("rules_id", ["high-card-flush", "nh-holdem-stud"])
def test_two_players_at_a_shared_table(rules_id: str, server: Server, desktop: Any,
                                       phone: Any, artifacts: Path) -> None:
    table_id, title = open_shared_table(server, rules_id)
    alice = seated_player(desktop, server, title, 1, artifacts / "lobby-shared-desktop.png",
                          clock_ahead=3600)
    bob = seated_player(phone, server, title, 2, artifacts / "lobby-shared-phone.png")
    wait_seat(alice.page, 2, bob.name)
    assert "Seat 2: " + bob.name in seat_text(alice.page, 2)
    assert button(alice.page, "Sit at seat 3").count() == 0  # seated: no other seat offered

    button(alice.page, "Ante").click()
    alice.page.get_by_label("Your seed for the next round (optional)").fill(ALICE_SEED)
    alice_before = balance(alice.page)
    button(alice.page, "Place bets").click()
    wait_seat(bob.page, 1, "wagers ")  # bob sees that alice has bet
    wait_seat(alice.page, 2, "no bet yet")
    bob.page.locator("#timer", has_text="Betting closes in").wait_for(timeout=TIMEOUT)
    counts_down(bob.page)
    shot(alice.page, artifacts, f"shared-{rules_id}-desktop-betting")
    shot(bob.page, artifacts, f"shared-{rules_id}-phone-betting")

    button(bob.page, "Ante").click()
    bob_before = balance(bob.page)
    button(bob.page, "Place bets").click()  # every seat has bet: the deal
    bob.page.locator("#timer", has_text="Seat 1").wait_for(timeout=TIMEOUT)
    alice.page.locator("#timer", has_text="Your turn").wait_for(timeout=TIMEOUT)
    assert 60 < timer_seconds(alice.page) <= 90  # alice's clock is an hour fast
    counts_down(alice.page)
    assert enabled_decisions(alice.page) and not enabled_decisions(bob.page)
    shot(alice.page, artifacts, f"shared-{rules_id}-desktop-turn")
    shot(bob.page, artifacts, f"shared-{rules_id}-phone-waiting")

    def on_turn(seat: int, page: Any) -> None:
        if seat == 2 and not (artifacts / f"shared-{rules_id}-phone-turn-screen.png").exists():
            screenshot(page, artifacts / f"shared-{rules_id}-phone-turn-screen.png")

    taken = play_turns([alice, bob], on_turn)
    assert {seat for seat, _ in taken} == {1, 2} and taken[0][0] == 1
    totals = {}
    for seat, player, before in ((1, alice, alice_before), (2, bob, bob_before)):
        player.page.wait_for_selector("#round-total", timeout=TIMEOUT)
        total = int(player.page.locator("#round-total").text_content())
        totals[seat] = total
        player.page.wait_for_function(
            "(wanted) => Number(document.querySelector('#balance').textContent) === wanted",
            arg=before + total, timeout=TIMEOUT)
    for player, other in ((alice, 2), (bob, 1)):
        result = player.page.locator(f"#seat-{other} .seat-result")
        result.wait_for(timeout=TIMEOUT)
        assert int(result.text_content()) == totals[other]
    shot(alice.page, artifacts, f"shared-{rules_id}-desktop-settled")
    shot(bob.page, artifacts, f"shared-{rules_id}-phone-settled")
    screenshot(bob.page, artifacts / f"shared-{rules_id}-phone-settled-screen.png")
    wide: int = bob.page.evaluate("() => document.documentElement.scrollWidth")
    assert wide <= 390, f"the shared table is {wide} px wide on a 390 px phone"

    check_nothing_hidden_leaked(alice, 1)
    check_nothing_hidden_leaked(bob, 2)
    check_seed_proof([alice, bob])

    button(alice.page, "Leave seat").click()
    button(alice.page, "Sit at seat 1").wait_for(timeout=TIMEOUT)
    shot(alice.page, artifacts, f"shared-{rules_id}-desktop-left")
    bob.page.locator("#seat-1").wait_for(state="detached", timeout=TIMEOUT)
    assert table_id > 0
