"""The pages' own JSON routes and the page routes, against the ASGI app (no browser)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from feltlab.core.cards import full_deck
from feltlab.core.engine import ChooseColour, Deal, Decide, HandState, PlaceWager, Reveal
from feltlab.core.payout import settle_request
from feltlab.core.rules import builtin_ids, load_rules
from feltlab.present.catalogue import rule_card


@pytest.mark.parametrize("rules_id", builtin_ids())
def test_deal_layout_matches_the_engine(rules_id: str) -> None:
    """Two seats dealt by the engine from an unshuffled deck land where the layout says."""
    rules = load_rules(rules_id)
    state = HandState(rules, full_deck())
    for seat in (1, 2):
        state.apply(PlaceWager(seat, rules.main_wager, rules.limits[rules.main_wager].min))
        if rules.game == "nine-card-flush":
            state.apply(ChooseColour(seat, "red"))
    state.apply(Deal())
    if rules.game == "nine-card-flush":
        state.apply(Decide(1, "play"))
        state.apply(Decide(2, "play"))
        state.apply(Reveal())
    deck, position = list(full_deck()), 0
    for part in rule_card(rules_id)["deal"]:
        for seat in ((1, 2) if part["per_seat"] else (None,)):
            cards = deck[position:position + part["count"]]
            position += part["count"]
            dealt = {"player": state.seats[seat].cards if seat else None,
                     "dealer": state.dealer_cards, "community": state.community}[part["to"]]
            assert list(dealt) == cards, (part, seat)


def test_spot_names_are_the_rules_card_names() -> None:
    names = {rules_id: [wager["spot"] for wager in rule_card(rules_id)["wagers"]]
             for rules_id in builtin_ids()}
    assert names["high-card-flush"] == ["Ante", "Flush", "Straight Flush"]
    assert names["nine-card-flush"] == ["All 9", "9 Card Bonus", "Player 6", "First 3"]
    assert names["nh-holdem-stud"] == ["Ante", "3 Card Bonus"]
    labels = [item["label"] for item in rule_card("nh-holdem-stud")["decisions"]]
    assert labels == ["Fold", "Bet 1x", "Bet 2x", "Bet 3x"]
    toledo = rule_card("high-card-flush-toledo")
    assert toledo["max_aggregate_payout"] == 25000
    flush = next(wager for wager in toledo["wagers"] if wager["name"] == "flush")
    assert flush["pay_table"]["rows"][0] == {"line": "7", "pays": "400 to 1"}


def test_every_json_route_needs_a_signed_in_caller(client: TestClient) -> None:
    for method, path in (("GET", "/api/v1/rulecards"), ("POST", "/api/v1/advice"),
                         ("GET", "/api/v1/drills?rules=high-card-flush"),
                         ("GET", "/api/v1/dealer-rounds?rules=high-card-flush"),
                         ("POST", "/api/v1/dealer-checks"), ("POST", "/api/v1/display"),
                         ("POST", "/api/v1/paytable-solutions")):
        assert client.request(method, path, json={}).status_code == 401, path


PAGE_PATHS = {"/": ("lobby", "/"), "/table/1": ("table", "/"),
              "/trainer": ("strategy-trainer", "/trainer"), "/dealer": ("dealer", "/dealer"),
              "/math": ("math", "/math"), "/math/nine-card-flush": ("mathrules", "/math"),
              "/designer": ("designer", "/designer")}


@pytest.mark.parametrize("path", sorted(PAGE_PATHS))
def test_pages_are_served_with_the_rule_cards_inline(client: TestClient, path: str) -> None:
    answer = client.get(path)
    assert answer.status_code == 200
    assert "script-src 'self'" in answer.headers["content-security-policy"]
    assert '"id":"high-card-flush"' in answer.text
    assert "http://" not in answer.text and "https://" not in answer.text


@pytest.mark.parametrize("path", sorted(PAGE_PATHS))
def test_every_page_shares_one_head_and_navigation(client: TestClient, path: str) -> None:
    """The layout is set around each page's <main> once, with its own script and the
    current section marked; no placeholder is left."""
    text = client.get(path).text
    script, section = PAGE_PATHS[path]
    script = {"strategy-trainer": "trainer"}.get(script, script)
    assert text.count("<head>") == 1 and text.count('<nav aria-label="Main">') == 1
    assert text.count("<main") == 1 and text.count('id="rulecards"') == 1
    assert f'<script type="module" src="/static/{script}.js"></script>' in text
    assert f'<a href="{section}" aria-current="page">' in text
    assert text.count('aria-current="page"') == 1
    assert "{{" not in text  # (JSON never holds "{{")
    assert shared_head(text) == shared_head(client.get("/").text)


def shared_head(page: str) -> str:
    """The page's head without its title and its script: the same on every page."""
    before_title, rest = page.split("<title>", 1)
    return before_title + rest.split("</title>", 1)[1].split('<script type="module"', 1)[0]


def test_assets_ship_in_the_package(client: TestClient) -> None:
    for name in ("app.css", "common.js", "table.js", "fair.js", "lobby.js", "favicon.svg"):
        assert client.get(f"/static/{name}").status_code == 200, name
    assert client.get("/math/no-such-game").status_code == 404


def test_display_marks_the_playing_flush(client: TestClient, headers: dict[str, str]) -> None:
    answer = client.post("/api/v1/display", headers=headers, json={
        "rules": "high-card-flush", "cards": {"player": "2s Ah 9h Kh 3c 4d 5d"}}).json()
    marked = [card["text"] for card in answer["player"]["cards"] if card["marked"]]
    assert marked == ["Ah", "Kh", "9h"]
    refused = client.post("/api/v1/display", headers=headers, json={
        "rules": "high-card-flush", "cards": {"player": "Xx"}})
    assert refused.status_code == 422 and "Xx" in refused.json()["detail"]


def test_advice_and_verdict(client: TestClient, headers: dict[str, str]) -> None:
    body: dict[str, Any] = {"rules": "high-card-flush", "player": "Ah Kh 2h 3s 5d 7c 9c",
                            "ante": 5, "chosen": {"action": "fold"}}
    answer = client.post("/api/v1/advice", headers=headers, json=body).json()
    assert answer["best"] == "Raise 1x"
    assert answer["verdict"]["right"] is False
    assert answer["verdict"]["cost_exact"] == "40095947/22689810"  # 17406137/22689810 + 1
    body["chosen"] = {"action": "raise", "amount": 5}
    assert client.post("/api/v1/advice", headers=headers,
                       json=body).json()["verdict"]["right"] is True
    body["player"] = "Ah Kh"
    assert client.post("/api/v1/advice", headers=headers, json=body).status_code == 422


@pytest.mark.parametrize("rules_id", builtin_ids())
def test_dealer_round_checked_by_the_payout_calculator(client: TestClient, rules_id: str,
                                                       headers: dict[str, str]) -> None:
    drill = client.get(f"/api/v1/dealer-rounds?rules={rules_id}", headers=headers).json()
    assert "results" not in drill and "total" not in drill
    expected = settle_request(drill["request"])["results"]
    assert [item["wager"] for item in drill["to_settle"]] == list(expected)
    answers = {name: net for name, net in expected.items()}
    checked = client.post("/api/v1/dealer-checks", headers=headers,
                          json={"request": drill["request"], "answers": answers}).json()
    assert checked["right"] == checked["of"] == len(expected)
    wrong = {name: net + 1 for name, net in expected.items()}
    checked = client.post("/api/v1/dealer-checks", headers=headers,
                          json={"request": drill["request"], "answers": wrong}).json()
    assert checked["right"] == 0


def test_drill_gives_a_hand_and_its_advice(client: TestClient, headers: dict[str, str]) -> None:
    drill = client.get("/api/v1/drills?rules=nine-card-flush&close=true",
                       headers=headers).json()
    assert len(drill["community"].split()) == 3 and drill["colour"] in ("red", "black")
    assert {option["label"] for option in drill["advice"]["options"]} == {"Fold", "Play"}
