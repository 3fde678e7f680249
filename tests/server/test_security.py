"""Security: no answer leaks a face-down card, hostile text is refused or stored as
plain text, ambiguous JSON is refused."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from feltlab.core.family import family_of
from feltlab.core.rules import builtin_ids, load_rules
from feltlab.server.fairness import deck_from_seed
from server.conftest import practice_table, sign_up
from server.helpers import card_tokens
from server.test_rounds import BETS, _hidden_cards

INJECTIONS = ["'; DROP TABLE users; --", "\" OR 1=1 --", "<script>alert(1)</script>",
              "{{7*7}}", "${jndi:ldap://x/a}", "../../etc/passwd", "\u0000nul", "😀" * 10,
              "%00%27", "a\r\nSet-Cookie: x=1"]


def every_view(client: TestClient, headers: dict[str, str], table: int, round_id: int
               ) -> list[Any]:
    """Everything the API answers about a round in progress."""
    return [client.get(f"/api/v1/rounds/{round_id}", headers=headers).json(),
            client.get("/api/v1/me/rounds?limit=100", headers=headers).json(),
            client.get(f"/api/v1/tables/{table}", headers=headers).json(),
            client.get(f"/api/v1/rounds/{round_id}/recall", headers=headers).json(),
            client.get("/api/v1/tables", headers=headers).json()]


@pytest.mark.parametrize("rules_id", builtin_ids())
def test_no_endpoint_leaks_a_hidden_card(client: TestClient, rules_id: str) -> None:
    headers = sign_up(client)
    table = practice_table(client, headers, rules_id)
    view = client.post(f"/api/v1/tables/{table}/rounds", json=BETS[rules_id],
                       headers=headers).json()
    answers: list[tuple[dict[str, Any], list[Any]]] = []
    with client.websocket_connect(f"/api/v1/tables/{table}/live", headers=headers) as live:
        answers.append((view, [live.receive_json()]))
    while view["phase"] != "complete":
        answers.append((view, [view, *every_view(client, headers, table, view["id"])]))
        view = client.post(f"/api/v1/rounds/{view['id']}/actions", json=view["options"][-1],
                           headers=headers).json()
    deck = deck_from_seed(view["seed"], view["client_seed"])
    for moment, documents in answers:
        hidden = _hidden_cards(moment, deck, rules_id)
        for document in documents:
            assert not card_tokens(document) & hidden, document
    dealt = min(5, family_of(load_rules(rules_id)).engine.cards_needed(load_rules(rules_id), 1))
    assert card_tokens(view) >= {str(card) for card in deck[:dealt]}


@pytest.mark.parametrize("text", INJECTIONS)
def test_hostile_text_in_every_field(client: TestClient, text: str) -> None:
    bad_name = client.post("/api/v1/accounts", json={"username": text, "password": "tulip-staple"})
    assert bad_name.status_code == 422
    name_ok = f"user{abs(hash(text)) % 10**8}"
    password = (text + "-padding")[:200]
    assert client.post("/api/v1/accounts", json={"username": name_ok, "password": password}
                       ).status_code == 201
    login = client.post("/api/v1/login", json={"username": name_ok, "password": password})
    assert login.status_code == 200  # any text is a password; it is only hashed
    headers = {"Authorization": f"Bearer {login.json()['token']}"}
    client.cookies.clear()
    for body in ({"rules": text}, {"rules": "high-card-flush", "practice": text}):
        assert client.post("/api/v1/tables", json=body, headers=headers).status_code == 422
    table = practice_table(client, headers, "high-card-flush")
    for body in ({"wagers": {"ante": 5}, "client_seed": text}, {"wagers": {text: 5}},
                 {"wagers": {"ante": 5}, "colour": text}):
        answer = client.post(f"/api/v1/tables/{table}/rounds", json=body, headers=headers)
        assert answer.status_code == 422 and set(answer.json()) == {"detail"}
    assert client.get(f"/api/v1/rules/{quote(text, safe='')}", headers=headers
                      ).status_code in (404, 422)
    if text.isascii() and text.isprintable():  # what an HTTP header can carry
        keyed = client.post(f"/api/v1/tables/{table}/rounds", json={"wagers": {"ante": 5}},
                            headers={**headers, "Idempotency-Key": text})
        assert keyed.status_code == 201
        bad_token = client.get("/api/v1/me", headers={"Authorization": f"Bearer {text}"})
        assert bad_token.status_code == 401
    assert client.get("/healthz").json()["status"] == "ok"


@pytest.mark.parametrize("raw", [
    b'{"wagers": {"ante": 5}, "wagers": {"ante": 500}}',
    b'{"wagers": {"ante": NaN}}',
    b'{"wagers": {"ante": 1' + b"0" * 100 + b"}}",
    b'{"wagers": ' + b'{"a":' * 40 + b"1" + b"}" * 41,
    b"\xff\xfe",
])
def test_ambiguous_json_refused(client: TestClient, raw: bytes) -> None:
    headers = sign_up(client)
    table = practice_table(client, headers, "high-card-flush")
    answer = client.post(f"/api/v1/tables/{table}/rounds", content=raw,
                         headers={**headers, "content-type": "application/json"})
    assert answer.status_code == 422 and set(answer.json()) == {"detail"}
    assert client.get("/api/v1/me/rounds", headers=headers).json() == []


def test_a_player_cannot_act_for_another(client: TestClient) -> None:
    alice, bob = sign_up(client), sign_up(client)
    table = practice_table(client, alice, "high-card-flush")
    view = client.post(f"/api/v1/tables/{table}/rounds", json={"wagers": {"ante": 5}},
                       headers=alice).json()
    for body in ({"action": "fold"}, {"action": "raise", "amount": 5}):
        assert client.post(f"/api/v1/rounds/{view['id']}/actions", json=body,
                           headers=bob).status_code == 404
    assert client.get(f"/api/v1/rounds/{view['id']}", headers=alice).json() == view
