"""The pit's reports: every figure of every grouping equals a sum computed here from the
rounds as played through API v1 and from the PAR sheets' exact edges; the groupings agree;
CSV and ``feltlab report --json`` give the API's numbers; only admins see them."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import random
import re
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import delete, func, select, update

from feltlab.analysis import analyze
from feltlab.core.rules import load_rules
from feltlab.server.figure_models import ReportDays, SeatFigure, SeatFigureDay
from feltlab.server.services.accounts import create_admin
from feltlab.server.services.figures import forget_day_sums
from server.cli_helpers import run_cli
from server.conftest import play_round, practice_table, sign_up, unique_name

ROUNDS = 30
GROUPINGS = ("players", "tables", "days", "rules")
FIGURES = ("handle", "win", "theo_win", "expected_win", "decision_cost")


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def same_figures(one: dict[str, Any], other: dict[str, Any]) -> bool:
    """Two sets of figures equal within 1e-9 relative (floats summed in another order)."""
    for name, value in one.items():
        if isinstance(value, list):
            if not all(close(a, b) for a, b in zip(value, other[name], strict=True)):
                return False
        elif isinstance(value, float):
            if not close(value, other[name]):
                return False
        elif value != other[name]:
            return False
    return set(one) == set(other)


def admin_headers(client: TestClient) -> dict[str, str]:
    found = client.app.state.services  # type: ignore[attr-defined]
    name = unique_name("boss")
    create_admin(found.engine, found.hasher, name, "correct horse")
    token = client.post("/api/v1/login", json={"username": name, "password": "correct horse"})
    client.cookies.clear()
    return {"Authorization": f"Bearer {token.json()['token']}"}


def edges(rules_id: str) -> dict[str, Fraction]:
    return {wager.name: wager.house_edge for wager in analyze(load_rules(rules_id)).wagers}


class Played:
    """What the test saw of every round, by player: the sums it expects."""

    def __init__(self) -> None:
        self.rounds: list[dict[str, Any]] = []

    def add(self, username: str, view: dict[str, Any]) -> None:
        assert view["staked"] == sum(view["wagers"].values()) + sum(view["decisions"])
        edge = edges(view["rules"])
        theo = sum((amount * edge[name] for name, amount in view["wagers"].items()),
                   Fraction(0))
        self.rounds.append({"username": username, "table": view["table"],
                            "rules": view["rules"], "day": view["completed_at"][:10],
                            "handle": view["staked"], "win": -view["total"],
                            "theo_win": float(theo), "view": view})

    def sums(self, key: str) -> dict[Any, dict[str, float]]:
        found: dict[Any, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        for item in self.rounds:
            for figure in ("handle", "win", "theo_win"):
                found[item[key]][figure] += item[figure]
            found[item[key]]["rounds"] += 1
        return found


@pytest.fixture
def played(client: TestClient) -> Iterator[tuple[Played, dict[str, Any]]]:
    """Three players at High Card Flush and 9 Card Flush practice tables: one who always
    folds (with both bonuses), one who decides at random, one who plays on."""
    seen = Played()
    rng = random.Random(22)
    players: dict[str, Any] = {}
    plans = {"folder": ("high-card-flush", {"ante": 5, "flush": 2, "straight_flush": 3},
                        lambda options: options[0]),
             "random": ("high-card-flush", {"ante": 5, "flush": 1},
                        lambda options: rng.choice(options)),
             "nine": ("nine-card-flush", {"all9": 4, "bonus9": 1}, None)}
    for role, (rules_id, wagers, choose) in plans.items():
        name = unique_name(role)
        headers = sign_up(client, name)
        table = practice_table(client, headers, rules_id)
        body: dict[str, Any] = {"wagers": wagers}
        if rules_id == "nine-card-flush":
            body["colour"] = "red"
        for _ in range(ROUNDS):
            view = play_round(client, headers, table, body, choose)
            assert view["options"] == [] and view["phase"] == "complete"
            assert view["decisions"][0] == 0 or role != "folder"
            seen.add(name, view)
        players[role] = {"name": name, "headers": headers, "table": table,
                         "wagers": wagers}
    yield seen, players


def report(client: TestClient, headers: dict[str, str], grouping: str, **params: str
           ) -> dict[str, Any]:
    answer = client.get(f"/api/v1/admin/reports/{grouping}",
                        params={"currency": "practice", **params}, headers=headers)
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def test_every_figure_is_a_sum_of_the_rounds(client: TestClient,
                                             played: tuple[Played, dict[str, Any]]) -> None:
    seen, players = played
    admin = admin_headers(client)
    keyed = {"players": ("username", "username"), "tables": ("table", "table_id"),
             "days": ("day", "day"), "rules": ("rules", "rules")}
    answers = {grouping: report(client, admin, grouping) for grouping in GROUPINGS}
    for grouping, (mine, theirs) in keyed.items():
        expected = seen.sums(mine)
        rows = answers[grouping]["rows"]
        assert {row[theirs] for row in rows} == set(expected)
        for row in rows:
            sums = expected[row[theirs]]
            assert row["handle"] == sums["handle"] and row["win"] == sums["win"]
            assert close(row["theo_win"], sums["theo_win"])
            assert row["seats"] == sums["rounds"]
            assert row["hold"] == row["win"] / row["handle"]
            assert close(row["decision_cost"], row["expected_win"] - row["theo_win"])
            low, high = row["band"]
            assert low <= row["expected_win"] <= high
            assert row["outside_band"] == (row["win"] < low or row["win"] > high)
    # the groupings agree with each other and with the totals
    totals = answers["players"]["totals"]
    for grouping in GROUPINGS:
        assert same_figures(answers[grouping]["totals"], totals)
        for figure in FIGURES:
            assert close(sum(row[figure] for row in answers[grouping]["rows"]),
                         totals[figure])
        variance = sum(((row["band"][1] - row["expected_win"]) / 1.96) ** 2
                       for row in answers[grouping]["rows"])
        assert close(variance, ((totals["band"][1] - totals["expected_win"]) / 1.96) ** 2)
    assert totals["rounds"] == 3 * ROUNDS
    by_name = {row["username"]: row for row in answers["players"]["rows"]}
    # the folder: every ante lost for certain, each bonus at its exact edge
    folder = players["folder"]
    edge = edges("high-card-flush")
    exact = ROUNDS * (folder["wagers"]["ante"] + sum(
        amount * edge[name] for name, amount in folder["wagers"].items() if name != "ante"))
    assert close(by_name[folder["name"]]["expected_win"], float(exact))
    # the random player gives EV away: expected win above theoretical win
    chaotic = by_name[players["random"]["name"]]
    assert chaotic["expected_win"] > chaotic["theo_win"]
    # the day, month and year to date hold everything played today
    for span in ("day", "month_to_date", "year_to_date"):
        assert same_figures(answers["days"][span], totals)


def test_csv_cli_and_dates_give_the_apis_numbers(client: TestClient, database_url: str,
                                                 played: tuple[Played, dict[str, Any]]
                                                 ) -> None:
    admin = admin_headers(client)
    for grouping in GROUPINGS:
        answer = report(client, admin, grouping)
        text = client.get(f"/api/v1/admin/reports/{grouping}", headers=admin,
                          params={"currency": "practice", "format": "csv"})
        assert text.status_code == 200 and text.headers["content-type"].startswith("text/csv")
        lines = list(csv.DictReader(io.StringIO(text.text)))
        assert len(lines) == len(answer["rows"]) + 1
        for line, row in zip(lines, [*answer["rows"], answer["totals"]], strict=True):
            for figure in ("rounds", "seats", "handle", "win"):
                assert int(line[figure]) == row[figure]
            for figure in ("hold", "theo_win", "expected_win", "decision_cost"):
                assert float(line[figure]) == row[figure]
            assert [float(line["band_low"]), float(line["band_high"])] == row["band"]
            assert line["outside_band"] == str(row["outside_band"]).lower()
        code, out, err = run_cli(["report", grouping, "--database", database_url,
                                  "--currency", "practice", "--json"])
        assert code == 0, err
        assert json.loads(out) == answer
        code, out, err = run_cli(["report", grouping, "--database", database_url,
                                  "--currency", "practice", "--csv"])
        assert code == 0 and out == text.text
        code, out, err = run_cli(["report", grouping, "--database", database_url,
                                  "--currency", "practice"])
        assert code == 0 and "totals" in out
    day = report(client, admin, "days")["rows"][0]["day"]
    assert same_figures(report(client, admin, "days", **{"from": day, "to": day})["totals"],
                        report(client, admin, "days")["totals"])
    empty = report(client, admin, "players", **{"from": "2000-01-01", "to": "2000-01-02"})
    assert empty["rows"] == [] and empty["totals"]["hold"] is None
    assert empty["totals"]["handle"] == 0
    assert report(client, admin, "players", currency="cash")["rows"] == []
    bad = client.get("/api/v1/admin/reports/players", params={"from": "2026-13-01"},
                     headers=admin)
    assert bad.status_code == 422 and "from" in bad.json()["detail"]
    reversed_days = client.get("/api/v1/admin/reports/players", headers=admin,
                               params={"from": "2026-02-01", "to": "2026-01-01"})
    assert reversed_days.status_code == 422
    assert client.get("/api/v1/admin/reports/hands", headers=admin).status_code == 404


def test_backfill_writes_the_same_figures(client: TestClient, database_url: str,
                                          played: tuple[Played, dict[str, Any]]) -> None:
    admin = admin_headers(client)
    before = {grouping: report(client, admin, grouping) for grouping in GROUPINGS}
    found = client.app.state.services  # type: ignore[attr-defined]
    with found.engine.begin() as connection:
        connection.execute(delete(SeatFigure))
    assert report(client, admin, "players")["rows"] == []
    code, out, err = run_cli(["db", "backfill", "--database", database_url])
    assert code == 0, err
    assert f"figures written for {3 * ROUNDS} rounds" in out
    for grouping in GROUPINGS:
        again = report(client, admin, grouping)
        for row, old in zip(again["rows"], before[grouping]["rows"], strict=True):
            for figure, value in old.items():
                if isinstance(value, float):
                    assert close(row[figure], value)
                elif figure != "band":
                    assert row[figure] == value
    code, out, _ = run_cli(["db", "backfill", "--database", database_url])
    assert code == 0 and "figures written for 0 rounds" in out


def test_days_that_are_over_are_summed_once(client: TestClient,
                                            played: tuple[Played, dict[str, Any]]) -> None:
    """Seats moved into past days (the sums kept so far forgotten, as ``feltlab db
    backfill`` does): the first report sums those days into
    ``seat_figure_days``, and every report after reads them there, with the same
    figures as the seats themselves give."""
    admin = admin_headers(client)
    live = {grouping: report(client, admin, grouping) for grouping in GROUPINGS}
    found = client.app.state.services  # type: ignore[attr-defined]
    with found.engine.begin() as connection:
        connection.execute(update(SeatFigure).where(SeatFigure.id % 3 == 0)
                           .values(day="2026-01-05"))
        connection.execute(update(SeatFigure).where(SeatFigure.id % 3 == 1)
                           .values(day="2026-02-10"))
        forget_day_sums(connection)  # as backfill does after writing into past days
    for _ in range(2):
        moved = report(client, admin, "players", **{"to": "2026-12-31"})
        for row, old in zip(moved["rows"], live["players"]["rows"], strict=True):
            assert same_figures(row, old)
    with found.engine.connect() as connection:
        kept = connection.execute(select(func.count()).select_from(SeatFigureDay)).scalar()
        through = connection.execute(select(ReportDays.summed_through)).scalars().all()
    assert kept and through
    days = report(client, admin, "days", **{"to": "2026-12-31"})
    assert [row["day"] for row in days["rows"]][:2] == ["2026-01-05", "2026-02-10"]
    assert same_figures(days["totals"], live["days"]["totals"])
    january = report(client, admin, "rules", **{"from": "2026-01-01", "to": "2026-01-31"})
    assert january["totals"]["seats"] == days["rows"][0]["seats"]
    first_day = {name: value for name, value in days["rows"][0].items() if name != "day"}
    assert same_figures(january["month_to_date"], first_day)


def test_ratings_alerts_and_metrics(client: TestClient,
                                    played: tuple[Played, dict[str, Any]]) -> None:
    seen, players = played
    admin = admin_headers(client)
    user_id = {row["username"]: row["user_id"]
               for row in report(client, admin, "players")["rows"]}
    chaotic = players["random"]["name"]
    detail = client.get(f"/api/v1/admin/players/{user_id[chaotic]}", headers=admin,
                        params={"currency": "practice"})
    assert detail.status_code == 200, detail.text
    rating = detail.json()["rating"]
    assert rating["hands"] == ROUNDS
    assert rating["average_bet"] == sum(
        item["handle"] for item in seen.rounds if item["username"] == chaotic) / ROUNDS
    assert rating["decision_cost_per_100"] > 0
    assert 1 <= len(rating["costliest"]) <= 3
    costs = [pattern["total"] for pattern in rating["costliest"]]
    assert costs == sorted(costs, reverse=True)
    assert all("time" in pattern["text"] for pattern in rating["costliest"])
    folder = client.get(f"/api/v1/admin/players/{user_id[players['folder']['name']]}",
                        headers=admin, params={"currency": "practice"}).json()["rating"]
    assert folder["hands"] == ROUNDS and folder["hours"] < 1
    alerts = client.get("/api/v1/admin/alerts", params={"currency": "practice"},
                        headers=admin)
    assert alerts.status_code == 200
    flagged = {row["username"] for row in alerts.json()["players"]}
    rows = report(client, admin, "players")["rows"]
    assert flagged == {row["username"] for row in rows if row["outside_band"]}
    metrics = client.get("/metrics").text
    assert f'feltlab_report_alerts{{currency="practice",kind="player"}} {len(flagged)}' \
        in metrics
    assert 'feltlab_report_alerts{currency="cash",kind="table_day"} 0' in metrics


def test_reports_are_for_admins_only(client: TestClient) -> None:
    player = sign_up(client)
    for path in ("/api/v1/admin/reports/players", "/api/v1/admin/alerts",
                 "/api/v1/admin/players", "/api/v1/admin/console/tables",
                 "/api/v1/admin/console/rules"):
        assert client.get(path, headers=player).status_code == 403
        client.cookies.clear()
        signed_out = client.get(path)
        assert signed_out.status_code == 401 and signed_out.json()["detail"]


def test_admin_changes_a_player_with_reasons(client: TestClient) -> None:
    admin = admin_headers(client)
    name = unique_name("kept")
    player = sign_up(client, name)
    found = client.get("/api/v1/admin/players", params={"q": name.upper()}, headers=admin)
    assert [row["username"] for row in found.json()] == [name]
    user_id = found.json()[0]["user_id"]
    table = practice_table(client, player, "high-card-flush")
    path = f"/api/v1/admin/players/{user_id}"
    assert client.post(f"{path}/lock", json={"reason": ""}, headers=admin).status_code == 422
    locked = client.post(f"{path}/lock", json={"reason": "chargeback"}, headers=admin)
    assert locked.status_code == 200 and locked.json()["locked"] is True
    refused = client.post(f"/api/v1/tables/{table}/rounds", json={"wagers": {"ante": 5}},
                          headers=player)
    assert refused.status_code == 403 and "locked" in refused.json()["detail"]
    assert client.post(f"{path}/unlock", json={"reason": "cleared"},
                       headers=admin).json()["locked"] is False
    play_round(client, player, table, {"wagers": {"ante": 5}})
    limits = client.put(f"{path}/limits", json={"daily_loss_limit": 50,
                                                 "self_exclude_days": 2,
                                                 "reason": "asked by phone"}, headers=admin)
    assert limits.status_code == 200
    assert limits.json()["limits"]["daily_loss_limit"] == 50
    assert limits.json()["limits"]["excluded_until"] is not None
    credit = client.post(f"{path}/cash", json={"amount": 300, "reason": "deposit 881"},
                         headers=admin)
    assert credit.status_code == 200 and credit.json() == {"username": name, "cash": 300}
    debit = client.post(f"{path}/cash", json={"amount": -301, "reason": "too much"},
                        headers=admin)
    assert debit.status_code == 409
    audit = client.get("/api/v1/admin/audit", headers=admin).json()
    assert audit["intact"]
    mine = [line for line in audit["latest"] if line["detail"].get("username") == name]
    kinds = {line["kind"]: line for line in mine}
    assert {"account_locked", "account_unlocked", "limits_changed", "cash_adjusted"} <= set(
        kinds)
    admin_name = client.get("/api/v1/me", headers=admin).json()["username"]
    assert all(line["actor"] == admin_name for line in mine)
    assert kinds["account_locked"]["detail"]["reason"] == "chargeback"
    assert kinds["limits_changed"]["detail"]["reason"] == "asked by phone"
    assert kinds["cash_adjusted"]["detail"]["memo"] == "deposit 881"
    missing = client.post("/api/v1/admin/players/999999/lock", json={"reason": "x"},
                          headers=admin)
    assert missing.status_code == 404


def test_console_tables_and_rule_sets(client: TestClient) -> None:
    admin = admin_headers(client)
    opened = client.post("/api/v1/admin/tables", json={"rules": "high-card-flush"},
                         headers=admin)
    assert opened.status_code == 201
    tables = client.get("/api/v1/admin/console/tables", headers=admin).json()
    assert tables[0]["id"] == opened.json()["id"] and tables[0]["open_round"] is None
    rules = client.get("/api/v1/admin/console/rules", headers=admin).json()
    edge = edges("high-card-flush")
    assert rules[0]["rules"] == "high-card-flush"
    assert rules[0]["edges"] == {name: float(value) for name, value in edge.items()}



def test_a_name_that_starts_a_formula_is_quoted_and_figures_stay_numbers(
        client: TestClient, database_url: str) -> None:
    """A username may start with ``-``: the API's CSV and ``feltlab report --csv`` write it
    behind a single quote, so that no spreadsheet runs ``-2-3``; a negative figure (the
    band's low end) is written as the number it is."""
    name = unique_name("-2-3")
    player = sign_up(client, name)
    table = practice_table(client, player, "high-card-flush")
    play_round(client, player, table, {"wagers": {"ante": 10}})
    admin = admin_headers(client)
    text = client.get("/api/v1/admin/reports/players", headers=admin,
                      params={"currency": "practice", "format": "csv"}).text
    code, out, err = run_cli(["report", "players", "--database", database_url,
                              "--currency", "practice", "--csv"])
    assert code == 0 and out == text, err
    [line] = [line for line in csv.DictReader(io.StringIO(text)) if line["user_id"]
              and line["username"].endswith(name[1:])]
    assert line["username"] == "'" + name
    assert line["band_low"].startswith("-") and float(line["band_low"]) < 0


def _fresh_report(database_url: str, *args: str) -> str:
    """``feltlab report ARGS`` in a fresh process, as an operator runs it."""
    done = subprocess.run([sys.executable, "-m", "feltlab", "report", *args, "--database",
                           database_url, "--currency", "practice"], capture_output=True,
                          text=True, timeout=120, check=False,
                          env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    return done.stdout


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in re.split(r"[│┃]", line)[1:-1]]


def test_seats_stand_beside_rounds_where_they_differ(client: TestClient,
                                                     database_url: str) -> None:
    """Two players in each of two rounds of a shared table: each played 2 rounds, the
    table 2 rounds of 4 seats. The report says both, in the API, the CSV and ``feltlab
    report``; and names its grouping by rule set "rule set"."""
    admin = admin_headers(client)
    opened = client.post("/api/v1/admin/tables", json={"rules": "high-card-flush"},
                         headers=admin)
    table = opened.json()["id"]
    players = [sign_up(client) for _ in range(2)]
    for seat, headers in enumerate(players, start=1):
        client.post(f"/api/v1/tables/{table}/seats", json={"seat": seat}, headers=headers)
    for _ in range(2):
        round_id = 0
        for headers in players:
            round_id = client.post(f"/api/v1/tables/{table}/rounds",
                                   json={"wagers": {"ante": 5}}, headers=headers).json()["id"]
        for headers in players:
            client.post(f"/api/v1/rounds/{round_id}/actions", json={"action": "fold"},
                        headers=headers)
    answer = report(client, admin, "players")
    assert [(row["rounds"], row["seats"]) for row in answer["rows"]] == [(2, 2), (2, 2)]
    assert (answer["totals"]["rounds"], answer["totals"]["seats"]) == (2, 4)
    header, *_, total = csv.reader(io.StringIO(client.get(
        "/api/v1/admin/reports/players", headers=admin,
        params={"currency": "practice", "format": "csv"}).text))
    assert header[header.index("rounds") + 1] == "seats"
    assert total[header.index("rounds"):header.index("rounds") + 2] == ["2", "4"]

    lines = _fresh_report(database_url, "players").splitlines()
    titles = _cells(next(line for line in lines if "┃" in line))
    assert titles[:4] == ["player", "user id", "rounds", "seats"], titles
    totals = _cells(next(line for line in lines if line.startswith("│ totals")))
    assert totals[2:4] == ["2", "4"], totals
    by_rules = _fresh_report(database_url, "rules")
    assert "by rule set (practice)" in by_rules
    assert _cells(next(line for line in by_rules.splitlines() if "┃" in line))[0] == "rule set"
