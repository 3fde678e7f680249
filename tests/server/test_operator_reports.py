"""The pit's report of the operators' real-money rounds, on SQLite and PostgreSQL, against
the reference operator wallet in its own process: rounds played in two currencies (one
chip worth 1 euro cent, one worth 100 yen) give one row each, whose figures equal sums
computed here from the rounds as played and the PAR sheet's exact edges, whose minor
units equal what the wallet's calls moved, and which never mix into feltlab's own cash
and practice reports (nor do demo rounds, which are play money)."""

from __future__ import annotations

import csv
import io
import math
import random
from collections import defaultdict
from fractions import Fraction
from typing import Any

from fastapi.testclient import TestClient

from server.operators_helpers import RULES, keyed, launch, open_table, wallet_calls
from server.test_operator_play import app_client, bet, drain, unique
from server.test_reports import admin_headers, edges
from server.wallet_process import WalletProcess, wallet_process, wallet_server

__all__ = ["app_client", "wallet_process", "wallet_server"]  # fixtures, used by name
PLAN = (("EUR", 7), ("JPY", 5))
"""Real rounds to play in each currency (the operator's chip: 1 cent, 100 yen)."""


def play(client: TestClient, session: str, table: int, ante: int, rng: random.Random
         ) -> dict[str, Any]:
    """A round bet, then decided at random (fold, or play on) until complete."""
    answer = bet(client, session, table, ante)
    assert answer.status_code == 201, answer.text
    view: dict[str, Any] = answer.json()
    while view["phase"] != "complete":
        decided = client.post(f"/api/v1/rounds/{view['id']}/actions",
                              headers=keyed(session), json=rng.choice(view["options"]))
        assert decided.status_code == 200, decided.text
        view = decided.json()
    return view


def expected_of(views: list[dict[str, Any]]) -> dict[str, Any]:
    """Rounds, handle, win and theoretical win of ``views``, computed here: the handle is
    what was staked, the win the house's result (minus the seat's), the theoretical win
    each wager times its exact edge."""
    edge = edges(RULES)
    theo = sum((amount * edge[name] for view in views
                for name, amount in view["wagers"].items()), Fraction(0))
    return {"rounds": len(views), "seats": len(views),
            "handle": sum(view["staked"] for view in views),
            "win": -sum(view["total"] for view in views), "theo_win": float(theo)}


def test_operator_rounds_are_reported_by_operator_and_currency(
        app_client: TestClient, wallet_server: WalletProcess) -> None:
    client, rng = app_client, random.Random(33)
    played: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for currency, rounds in PLAN:
        session = launch(client, player=unique("rep"), currency=currency)["session"]
        table = open_table(client, session)
        for number in range(rounds):
            played[currency].append(play(client, session, table, 5 + number, rng))
    demo = launch(client, player=unique("demo"), mode="demo")["session"]
    demo_table = open_table(client, demo)
    play(client, demo, demo_table, 10, rng)
    drain(client)
    admin = admin_headers(client)

    answer = client.get("/api/v1/admin/reports/operators", headers=admin)
    assert answer.status_code == 200, answer.text
    report = answer.json()
    assert report["operator"] is None and report["from"] is None
    chip = {"EUR": 1, "JPY": 100}
    assert [(row["operator"], row["currency"], row["chip_value"]) for row in report["rows"]] \
        == [("casino", "EUR", 1), ("casino", "JPY", 100)]
    calls = wallet_calls(client.app.state.services.engine)  # type: ignore[attr-defined]
    for row in report["rows"]:
        currency = row["currency"]
        expected = expected_of(played[currency])
        for name in ("rounds", "seats", "handle", "win"):
            assert row[name] == expected[name], (currency, name)
        assert math.isclose(row["theo_win"], expected["theo_win"], rel_tol=1e-9)
        assert row["hold"] == row["win"] / row["handle"]
        assert row["handle_minor"] == expected["handle"] * chip[currency]
        assert row["win_minor"] == expected["win"] * chip[currency]
        assert math.isclose(row["theo_win_minor"], expected["theo_win"] * chip[currency],
                            rel_tol=1e-9)
        # the wallet's side: what it was debited, less what it paid back, is the house's win
        taken = sum(call.amount for call in calls if call.currency == currency
                    and call.kind == "bet" and call.state == "acknowledged")
        paid = sum(call.amount for call in calls if call.currency == currency
                   and call.kind == "win" and call.state == "acknowledged")
        assert (taken, taken - paid) == (row["handle_minor"], row["win_minor"])
        low, high = row["band"]
        assert low <= row["expected_win"] <= high

    today = played["EUR"][0]["completed_at"][:10]
    same = client.get("/api/v1/admin/reports/operators",
                      params={"operator": "casino", "from": today, "to": today},
                      headers=admin).json()
    assert same["rows"] == report["rows"] and same["operator"] == "casino"
    before = client.get("/api/v1/admin/reports/operators", params={"to": "2000-01-01"},
                        headers=admin).json()
    assert before["rows"] == [] and before["to"] == "2000-01-01"
    nobody = client.get("/api/v1/admin/reports/operators", params={"operator": "nobody"},
                        headers=admin).json()
    assert nobody["rows"] == []
    text = client.get("/api/v1/admin/reports/operators", params={"format": "csv"},
                      headers=admin).text
    lines = list(csv.DictReader(io.StringIO(text)))
    assert [(line["currency"], int(line["handle_minor"])) for line in lines] == [
        (row["currency"], row["handle_minor"]) for row in report["rows"]]

    # feltlab's own reports: no operator round in cash, and only feltlab's own play money
    # (here the demo round, at feltlab's own practice tables) in practice
    for currency in ("cash", "practice"):
        own = client.get("/api/v1/admin/reports/tables", params={"currency": currency},
                         headers=admin).json()
        rounds = own["totals"]["rounds"]
        assert rounds == (1 if currency == "practice" else 0), (currency, own)
