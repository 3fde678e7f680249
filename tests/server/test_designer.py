"""The variant designer's API: a design's PAR sheet is `feltlab analyze`'s exactly, checked
against independent figures; bad designs are refused naming the field; computations are
limited as tests/server/test_designer_limits.py checks."""

from __future__ import annotations

import json
import math
import shlex
from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import click
import pytest
import typer
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from feltlab.cli import app as cli_app
from feltlab.core.rules import load_rules
from feltlab.server.app import create_app
from feltlab.server.services import designer
from server.conftest import settings_for, sign_up
from server.designs import builtin_data, design

DATA = Path(__file__).parent.parent / "data"


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory
        ) -> Iterator[tuple[TestClient, dict[str, str]]]:
    """One server for the module, so that its designer's process, warmed by the first
    designs, computes the rest (its time budget is not what these tests check)."""
    url = f"sqlite:///{tmp_path_factory.mktemp('designer') / 'server.sqlite3'}"
    app = create_app(settings_for(url, designer_budget_seconds=600), timers=False)
    with TestClient(app) as test_client:
        yield test_client, sign_up(test_client)
    app.state.services.engine.dispose()


def par(client: TestClient, headers: dict[str, str], text: str) -> dict[str, Any]:
    answer = client.post("/api/v1/designer/par", json={"rules": text}, headers=headers)
    assert answer.status_code == 200, answer.text
    sheet: dict[str, Any] = answer.json()
    return sheet


def cli_sheet(text: str, tmp_path: Path) -> dict[str, Any]:
    path = tmp_path / "design.toml"
    path.write_text(text, "utf-8")
    result = CliRunner().invoke(cli_app, ["analyze", str(path), "--json"])
    assert result.exit_code == 0, result.output
    sheet: dict[str, Any] = json.loads(result.stdout)
    return sheet


def wager(sheet: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(item for item in sheet["wagers"] if item["name"] == name)
    return found


def _set(path: tuple[str, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        target = data
        for part in path[:-1]:
            target = target[part]
        target[path[-1]] = value
    return edit


def _edits(*edits: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        for each in edits:
            each(data)
    return edit


NH_RAISES = builtin_data("nh-flush-poker")["raise_multiples"]
OWNER_FLUSH_PAYS = builtin_data("high-card-flush")["flush_pays"]

# one pay-table edit and one that changes the optimal strategy, for every rule set
EDITS = [
    ("high-card-flush", _set(("flush_pays", "5"), 11)),
    ("high-card-flush", _set(("raise_multiples",), NH_RAISES)),
    ("high-card-flush-toledo", _set(("flush_pays",), OWNER_FLUSH_PAYS)),
    ("high-card-flush-toledo", _set(("raise_multiples", "7"), 4)),
    ("nh-flush-poker", _edits(_set(("straight_flush_pays", "3"), 9),
                              _set(("settled_on_fold", "flush"), True))),
    ("nh-flush-poker", _set(("raise_multiples", "2"), 1)),
    ("nine-card-flush", _set(("bonus9_pays", "9"), 600)),
    ("nine-card-flush", _set(("all9_win_at",), builtin_data("nine-card-flush")["all9_win_at"]
                             + 1)),
    ("nh-holdem-stud", _set(("bonus3_pays", "straight_flush"), 50)),
    ("nh-holdem-stud", _set(("pays", "flush"), 7)),
]


@pytest.mark.parametrize(("rules_id", "edit"), EDITS)
def test_a_design_sheet_is_feltlab_analyze_exactly(
        api: tuple[TestClient, dict[str, str]], tmp_path: Path, rules_id: str,
        edit: Callable[[dict[str, Any]], None]) -> None:
    client, headers = api
    text = design(rules_id, edit)
    sheet = par(client, headers, text)
    assert sheet == cli_sheet(text, tmp_path)
    assert sheet["modified"] is True and sheet["rules"] == rules_id
    for each in sheet["wagers"]:
        assert "element_of_risk" in each


def test_hcf_with_nh_raises_has_nh_ante_edge(api: tuple[TestClient, dict[str, str]]) -> None:
    """NH Flush Poker differs from High Card Flush in what its main game is played by only
    through its raise sizes (its qualifier is the same)."""
    client, headers = api
    assert builtin_data("nh-flush-poker")["qualifier"] == builtin_data("high-card-flush")[
        "qualifier"]
    mixed = par(client, headers, design("high-card-flush",
                                        _set(("raise_multiples",), NH_RAISES)))
    nh = par(client, headers, design("nh-flush-poker", lambda data: None))
    assert wager(mixed, "ante")["house_edge_exact"] == wager(nh, "ante")["house_edge_exact"]


def test_toledo_with_owner_flush_pays_has_owner_flush_edge(
        api: tuple[TestClient, dict[str, str]]) -> None:
    client, headers = api
    toledo = par(client, headers, design("high-card-flush-toledo",
                                         _set(("flush_pays",), OWNER_FLUSH_PAYS)))
    owner = par(client, headers, design("high-card-flush", lambda data: None))
    assert wager(toledo, "flush")["house_edge_exact"] == wager(owner, "flush")[
        "house_edge_exact"]


def test_a_pay_change_moves_the_edge_by_the_pay_times_its_probability(
        api: tuple[TestClient, dict[str, str]]) -> None:
    """High Card Flush settles its Flush bonus on a fold, so line 5 pays exactly on the
    hands whose longest suit has 5 cards: 4 C(13,5) C(39,2) of C(52,7) (the test data,
    counted apart from feltlab)."""
    client, headers = api
    counts = json.loads((DATA / "seven_card_longest_suit.json").read_text("utf-8"))
    probability = Fraction(counts["counts"]["5"], counts["total"])
    assert counts["counts"]["5"] == 4 * math.comb(13, 5) * math.comb(39, 2)
    before = par(client, headers, design("high-card-flush", lambda data: None))
    after = par(client, headers, design("high-card-flush", _set(("flush_pays", "5"), 13)))
    moved = Fraction(wager(before, "flush")["house_edge_exact"]) - Fraction(
        wager(after, "flush")["house_edge_exact"])
    assert moved == 3 * probability
    assert wager(after, "ante") == wager(before, "ante")


def test_element_of_risk_is_edge_over_one_plus_the_average_raise(
        api: tuple[TestClient, dict[str, str]]) -> None:
    client, headers = api
    sheet = par(client, headers, design("high-card-flush", lambda data: None))
    ante = wager(sheet, "ante")
    average_raise = sum(int(name[len("raise_"):-1]) * share
                        for name, share in ante["rates"].items()
                        if name.startswith("raise_") and name.endswith("x"))
    assert ante["element_of_risk"] == pytest.approx(ante["house_edge"] / (1 + average_raise),
                                                    rel=1e-12)
    for side in ("flush", "straight_flush"):
        assert wager(sheet, side)["element_of_risk"] == wager(sheet, side)["house_edge"]


BAD_DESIGNS = [
    (design("high-card-flush", _set(("flush_pays", "4"), -1)), "field flush_pays.4"),
    (design("high-card-flush", _set(("flush_pays", "6"), 5)), "flush_pays"),
    (design("high-card-flush", _set(("qualifier", "min_high_card"), "Z")),
     "field qualifier.min_high_card"),
    (design("high-card-flush", _set(("seats",), "6")), "field seats"),
    (design("nh-holdem-stud", _set(("pays", "flush"), "lots")), "field pays"),
    (design("nine-card-flush", _set(("all9_win_at",), 12)), "field all9_win_at"),
    (design("high-card-flush", _set(("game",), "craps")), "field game"),
    ("id = [", "not valid TOML"),
    ("", "String should have at least 1 character"),
]


@pytest.mark.parametrize(("text", "named"), BAD_DESIGNS)
def test_a_bad_design_is_refused_naming_the_field(
        api: tuple[TestClient, dict[str, str]], text: str, named: str) -> None:
    client, headers = api
    for endpoint in ("par", "strategy", "protection"):
        answer = client.post(f"/api/v1/designer/{endpoint}", json={"rules": text},
                             headers=headers)
        assert answer.status_code == 422, answer.text
        assert named in answer.json()["detail"], answer.json()


def test_the_designer_needs_a_sign_in(api: tuple[TestClient, dict[str, str]]) -> None:
    client, _ = api
    text = design("high-card-flush", lambda data: None)
    assert client.post("/api/v1/designer/par", json={"rules": text}).status_code == 401


def test_strategy_and_solve_and_base(api: tuple[TestClient, dict[str, str]]) -> None:
    client, headers = api
    text = design("high-card-flush", _set(("raise_multiples",), NH_RAISES))
    card = client.post("/api/v1/designer/strategy", json={"rules": text}, headers=headers)
    assert card.status_code == 200, card.text
    sheet = par(client, headers, text)
    assert card.json()["strategy_card"] == sheet["strategy_card"]
    solved = client.post("/api/v1/designer/solve", json={
        "rules": text, "wager": "flush", "target": "5%", "line": "5"}, headers=headers)
    assert solved.status_code == 200, solved.text
    assert abs(solved.json()["house_edge"] - 0.05) < 0.01
    refused = client.post("/api/v1/designer/solve", json={
        "rules": text, "wager": "nothing", "target": "5%"}, headers=headers)
    assert refused.status_code == 422
    base = client.get("/api/v1/designer/base/nh-holdem-stud", headers=headers)
    assert base.status_code == 200
    assert base.json()["toml"].startswith("#") or "id = " in base.json()["toml"]
    assert "properties" in base.json()["rules_schema"]
    assert client.get("/api/v1/designer/base/no-such", headers=headers).status_code == 404


def test_protection_of_a_design(api: tuple[TestClient, dict[str, str]]) -> None:
    client, headers = api
    text = design("nine-card-flush", lambda data: None)
    answer = client.post("/api/v1/designer/protection",
                         json={"rules": text, "colluders": 2, "deals": 100}, headers=headers)
    assert answer.status_code == 200, answer.text
    cases = answer.json()["cases"]
    assert [case["colluders"] for case in cases] == [1, 2]
    assert cases[1]["player_edge"] == pytest.approx(-answer.json()["house_edge"])
    too_many = client.post("/api/v1/designer/protection",
                           json={"rules": text, "colluders": 9}, headers=headers)
    assert too_many.status_code == 422 and "colluders" in too_many.json()["detail"]


@pytest.mark.parametrize("rules_id", ["high-card-flush", "nine-card-flush", "nh-holdem-stud"])
def test_no_design_is_answered_with_a_500(api: tuple[TestClient, dict[str, str]],
                                          rules_id: str) -> None:
    """Every top-level field of a rule set replaced by values of every wrong kind: each
    design is answered (200) or refused naming a field (422), never a 500."""
    client, headers = api
    for field in builtin_data(rules_id):
        for value in ("x", -1, True, [], {}, 10**30, {"4": "push"}):
            text = design(rules_id, _set((field,), value))
            answer = client.post("/api/v1/designer/par", json={"rules": text},
                                 headers=headers)
            assert answer.status_code in (200, 422), (field, value, answer.text)
            if answer.status_code == 422:  # the field, or the one it breaks a rule with
                assert "field " in answer.json()["detail"], (field, value, answer.text)


def command_lines(advice: str) -> list[list[str]]:
    """The command lines quoted (between backticks) in a design's advice."""
    return [shlex.split(quoted) for quoted in advice.split("`")[1::2]]


TOO_LONG = [
    designer.ParSheet(design("high-card-flush", lambda data: None)),
    designer.StrategyCard(design("nh-holdem-stud", lambda data: None)),
    designer.Protection(design("nh-holdem-stud", lambda data: None), 6, 50_000),
    designer.Protection(design("high-card-flush", lambda data: None), 2, 100),
    designer.Protection(design("nine-card-flush", lambda data: None), 3, 100),
    designer.DesignSolution(design("high-card-flush", lambda data: None), "flush", "5%", "5"),
    designer.DesignSolution(design("high-card-flush", lambda data: None), "flush", "1/20",
                            None),
    designer.PaySolution(load_rules("nh-holdem-stud"), "bonus3", "4%", "straight_flush"),
]


@pytest.mark.parametrize("made", TOO_LONG, ids=lambda made: type(made).__name__)
def test_a_design_over_the_budget_names_command_lines_the_cli_takes(
        made: designer.Design) -> None:
    """What a design too long for the server says to run is what ``feltlab`` parses, with
    the design's own options (the server's deal count, its case, its line)."""
    lines = command_lines(made.command())
    assert lines and all(line[0] == "feltlab" for line in lines)
    group = typer.main.get_command(cli_app)
    for _, name, *rest in lines:
        command = group.get_command(click.Context(group), name)  # type: ignore[attr-defined]
        assert command is not None, name
        command.make_context(name, rest)  # refuses an option it does not take
    if isinstance(made, designer.Protection):
        assert lines[0][:5] == ["feltlab", "protect", "design.toml", "--colluders",
                                str(made.colluders)]
        flashed = {"high-card-flush": "--dealer-seen", "nh-holdem-stud": "--next-seen",
                   "nine-card-flush": "--next-seen"}  # the dealer's card, or the next
        rules_id = designer.design_rules(made.text).id
        assert len(lines) == 2 and lines[1][3:5] == [flashed[rules_id], "1"]
        exact = rules_id == "nine-card-flush"  # every case exact: no deals to give
        assert ("--deals" in lines[0]) != exact
        if not exact:
            assert lines[0][5:7] == ["--deals", str(min(made.deals, 20_000))]
