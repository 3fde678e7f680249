"""`feltlab analyze`, `feltlab advise` and `feltlab solve-paytable` through Typer's CliRunner,
with the math replaced by exact fakes (and on the real math when it is there)."""

from __future__ import annotations

import csv
import importlib.util
import json
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

import feltlab.analysis
from analysis.test_paytable import flush_edge_by_hand
from analysis.test_report import SEVEN_CARD_HANDS, fake_sheet, longest_suit_counts
from feltlab.analysis.report_text import percent
from feltlab.cli import analyze as commands
from feltlab.core.cards import Card, parse_cards
from feltlab.core.model import Advice, OptionValue, ParSheet
from feltlab.core.rules import Rules
from shipped import strategy_file

app = typer.Typer()
commands.register(app)
runner = CliRunner()


@pytest.fixture
def progress_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """Replace the analysis by the fake sheet; record the progress callbacks it makes."""
    calls: list[tuple[int, int]] = []

    def fake_analyze(rules: Rules, progress: Any = None) -> ParSheet:
        for done in (1, 2):
            calls.append((done, 2))
            if progress is not None:
                progress(done, 2)
        return fake_sheet()

    monkeypatch.setattr(feltlab.analysis, "analyze", fake_analyze)
    return calls


def one_error_line(result: Any) -> str:
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    return str(lines[0])


# analyze ---------------------------------------------------------------------------------

def test_analyze_prints_the_par_sheet(progress_calls: list[tuple[int, int]]) -> None:
    result = runner.invoke(app, ["analyze", "high-card-flush"], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    sheet = fake_sheet()
    counts = longest_suit_counts()
    for text in (f"{counts[5]:,}", percent(sheet.wager("flush").house_edge), "12.0000%",
                 "Element of risk", "6.8966%", "Strategy card", "0.1000%"):
        assert text in result.stdout, text
    assert progress_calls == [(1, 2), (2, 2)]


def test_analyze_json_is_the_contract_and_nothing_else(
        progress_calls: list[tuple[int, int]]) -> None:
    result = runner.invoke(app, ["analyze", "high-card-flush", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["rules"] == "high-card-flush"
    wagers = {wager["name"]: wager for wager in data["wagers"]}
    assert wagers["ante"]["house_edge"] == pytest.approx(0.12)
    assert wagers["ante"]["element_of_risk"] == pytest.approx(0.12 / 1.74)
    assert wagers["ante"]["average_total_wager"] == pytest.approx(1.74)
    flush_edge = flush_edge_by_hand({7: 300, 6: 100, 5: 10, 4: 1})
    assert Fraction(wagers["flush"]["house_edge_exact"]) == flush_edge
    # a side bet's element of risk is its house edge (one unit wagered, nothing added)
    assert wagers["flush"]["element_of_risk"] == wagers["flush"]["house_edge"]
    assert "average_total_wager" not in wagers["flush"]


def test_analyze_writes_html_and_csv(progress_calls: list[tuple[int, int]],
                                     tmp_path: Path) -> None:
    page, folder = tmp_path / "sheet.html", tmp_path / "csv"
    result = runner.invoke(app, ["analyze", "high-card-flush", "--html", str(page),
                                 "--csv", str(folder)])
    assert result.exit_code == 0, result.output
    assert page.read_text().startswith("<!DOCTYPE html>") and "<svg" in page.read_text()
    with (folder / "flush.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert sum(int(row["count"]) for row in rows) == SEVEN_CARD_HANDS
    assert sorted(path.name for path in folder.iterdir()) == ["ante.csv", "flush.csv",
                                                              "strategy.csv", "summary.csv"]


def test_analyze_with_bets_shows_the_cap(progress_calls: list[tuple[int, int]],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[dict[str, int]] = []

    def fake_capped(rules: Rules, bets: dict[str, int]) -> dict[str, Fraction]:
        seen.append(bets)
        return {"ante": Fraction(13, 100), "flush": Fraction(9, 100), "total": Fraction(1, 9)}

    monkeypatch.setattr(feltlab.analysis, "capped_returns", fake_capped)
    result = runner.invoke(app, ["analyze", "high-card-flush-toledo", "--bets",
                                 "ante=10,flush=10"], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    assert seen == [{"ante": 10, "flush": 10}]
    assert "cap 25,000 a hand" in result.stdout
    assert "13.0000%" in result.stdout and "11.1111%" in result.stdout
    json_result = runner.invoke(app, ["analyze", "high-card-flush-toledo", "--json", "--bets",
                                      "ante=10,flush=10"])
    capped = json.loads(json_result.stdout)["aggregate_cap"]
    assert capped["house_edge_exact"]["total"] == "1/9"
    assert capped["max_aggregate_payout"] == 25000
    assert capped["uncapped_house_edge"]["ante"] == pytest.approx(0.12)


@pytest.mark.parametrize(("arguments", "message"), [
    (["analyze", "no-such-game"], "no rule set"),
    (["analyze", "nh-flush-poker", "--bets", "ante=11"], "above the maximum of 10"),
    (["analyze", "nh-flush-poker", "--bets", "ante=ten"], "not name=amount"),
    (["analyze", "nh-flush-poker", "--bets", "flush=5"], "ante is required"),
])
def test_analyze_refuses_bad_input(arguments: list[str], message: str,
                                   progress_calls: list[tuple[int, int]]) -> None:
    assert message in one_error_line(runner.invoke(app, arguments))


# advise ----------------------------------------------------------------------------------

@pytest.fixture
def advise_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    calls: list[tuple[Any, ...]] = []

    def fake_advise(rules: Rules, player: Sequence[Card], community: Sequence[Card] = (),
                    colour: str | None = None, bets: Sequence[int] = ()) -> Advice:
        calls.append((rules.id, tuple(player), tuple(community), colour, tuple(bets)))
        options = (OptionValue("fold", Fraction(-1)), OptionValue("raise 1x", Fraction(-1, 3)),
                   OptionValue("raise 2x", Fraction(1, 7)))
        return Advice(rules.id, "Ah Kh Qh Jh 9h 2s 3d", options, "raise 2x")

    monkeypatch.setattr(feltlab.analysis, "advise", fake_advise)
    return calls


def test_advise_prints_every_option_and_the_best(advise_calls: list[tuple[Any, ...]]) -> None:
    result = runner.invoke(app, ["advise", "high-card-flush", "Ah Kh Qh Jh 9h 2s 3d"],
                           env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    assert advise_calls == [("high-card-flush", parse_cards("Ah Kh Qh Jh 9h 2s 3d"), (), None,
                             ())]
    for text in ("fold", "-1.000000", "-0.333333", "0.142857", "1/7", "best", "raise 2x"):
        assert text in result.stdout, text


def test_advise_json(advise_calls: list[tuple[Any, ...]]) -> None:
    result = runner.invoke(app, ["advise", "nh-holdem-stud", "Ah Kh", "--community", "Qh",
                                 "--bets", "3", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["best"] == "raise 2x" and data["options"][2]["ev_exact"] == "1/7"
    assert advise_calls[0][1:] == (parse_cards("Ah Kh"), parse_cards("Qh"), None, (3,))


def test_advise_nine_card_takes_the_community_as_cards(
        advise_calls: list[tuple[Any, ...]]) -> None:
    result = runner.invoke(app, ["advise", "nine-card-flush", "Ah Kd 2c", "--colour", "black"])
    assert result.exit_code == 0, result.output
    assert advise_calls[0][1:] == ((), parse_cards("Ah Kd 2c"), "black", ())


@pytest.mark.parametrize(("arguments", "message"), [
    (["advise", "high-card-flush", "Ah Kh Qh Jh 9h 2s"], "player needs 7 cards"),
    (["advise", "high-card-flush", "Ah Kh Qh Jh 9h 2s Xx"], "cannot read card"),
    (["advise", "high-card-flush", "Ah Kh Qh Jh 9h 2s Ah"], "appears twice"),
    (["advise", "high-card-flush", "Ah Kh Qh Jh 9h 2s 3s", "--colour", "red"], "--colour"),
    (["advise", "nh-holdem-stud", "Ah Kh Qh"], "player needs 2 cards"),
    (["advise", "nh-holdem-stud", "Ah Kh", "--community", "Qh"], "one street bet"),
    (["advise", "nh-holdem-stud", "Ah Kh", "--community", "Qh", "--bets", "4"], "1 to 3"),
    (["advise", "nh-holdem-stud", "Ah Kh", "--community", "Qh Kh", "--bets", "1,1"],
     "appears twice"),
    (["advise", "nh-holdem-stud", "Ah Kh", "--community", "Qh Jh 2c", "--bets", "1,1,1"],
     "at most 2 cards"),
    (["advise", "nine-card-flush", "Ah Kd"], "community needs 3 cards"),
    (["advise", "nine-card-flush", "Ah Kd 2c", "--colour", "green"], "colour must be"),
    (["advise", "nine-card-flush", "Ah", "--community", "Kd 2c 3c"], "player"),
])
def test_advise_refuses_bad_hands(arguments: list[str], message: str,
                                  advise_calls: list[tuple[Any, ...]]) -> None:
    assert message in one_error_line(runner.invoke(app, arguments))
    assert advise_calls == []


# solve-paytable --------------------------------------------------------------------------

def test_solve_paytable_linear_through_the_command(monkeypatch: pytest.MonkeyPatch) -> None:
    from analysis.test_paytable import flush_analyzer

    monkeypatch.setattr(feltlab.analysis, "analyze",
                        lambda rules, progress=None: flush_analyzer(rules))
    result = runner.invoke(app, ["solve-paytable", "high-card-flush", "--wager", "flush",
                                 "--line", "5", "--target", "5%", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    pays = {int(length): pays for length, pays in data["table"].items()}
    assert Fraction(data["house_edge_exact"]) == flush_edge_by_hand(pays)
    assert data["method"] == "linear" and data["original"]["5"] == 10
    text = runner.invoke(app, ["solve-paytable", "high-card-flush", "--wager", "flush",
                               "--line", "5", "--target", "0.05"], env={"COLUMNS": "120"})
    assert text.exit_code == 0, text.output
    assert f"{pays[5]} to 1" in text.stdout and percent(Fraction(5, 100)) in text.stdout
    bad = runner.invoke(app, ["solve-paytable", "high-card-flush", "--wager", "flush",
                              "--line", "5", "--target", "lots"])
    assert "not a house edge" in one_error_line(bad)


# On the real math, once it exists --------------------------------------------------------

GAME_FOLDERS = {"flush": "high_card_flush", "nine": "nine_card_flush", "holdem": "holdem_stud"}


def real(module: str) -> bool:
    folder = GAME_FOLDERS[module]
    return importlib.util.find_spec(f"feltlab.games.{folder}.analysis") is not None


@pytest.mark.slow
@pytest.mark.skipif(not real("flush"), reason="the flush analysis is not there yet")
def test_real_flush_analysis_through_the_command(tmp_path: Path) -> None:
    result = runner.invoke(app, ["analyze", "high-card-flush", "--json"])
    assert result.exit_code == 0, result.output
    wagers = {wager["name"]: wager for wager in json.loads(result.stdout)["wagers"]}
    assert Fraction(wagers["flush"]["house_edge_exact"]) == flush_edge_by_hand(
        {7: 300, 6: 100, 5: 10, 4: 1})
    assert "element_of_risk" in wagers["ante"]


@pytest.mark.skipif(not real("nine"), reason="the 9 Card Flush analysis is not there yet")
def test_real_nine_card_flush_reports(tmp_path: Path) -> None:
    from analysis.test_paytable import nine_bonus_edge_by_hand, nine_card_counts

    result = runner.invoke(app, ["analyze", "nine-card-flush", "--json", "--csv",
                                 str(tmp_path)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    wagers = {wager["name"]: wager for wager in data["wagers"]}
    assert Fraction(wagers["bonus9"]["house_edge_exact"]) == nine_bonus_edge_by_hand(
        {9: 500, 8: 250, 7: 100, 6: 20, 5: 3, 4: 1})
    assert {"element_of_risk", "average_total_wager"} <= set(wagers["all9"])
    with (tmp_path / "bonus9.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    counts = nine_card_counts()
    assert [int(row["count"]) for row in rows if row["key"] == "9"] == [counts[9]]
    text = runner.invoke(app, ["analyze", "nine-card-flush"], env={"COLUMNS": "160"})
    assert text.exit_code == 0 and f"{counts[9]:,}" in text.stdout


@pytest.mark.skipif(not real("nine"), reason="the 9 Card Flush analysis is not there yet")
def test_real_nine_card_advice() -> None:
    result = runner.invoke(app, ["advise", "nine-card-flush", "Ah Kd 2c", "--colour", "red",
                                 "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    options = {option["option"]: Fraction(option["ev_exact"]) for option in data["options"]}
    assert options["fold"] == -1
    assert data["best"] == max(options, key=lambda name: options[name])


@pytest.mark.slow
@pytest.mark.skipif(not (real("flush") and real("holdem")), reason="math not there yet")
def test_real_advice_for_the_other_games() -> None:
    flush = runner.invoke(app, ["advise", "high-card-flush", "Th 8h 6h Js Ad Qd Jc", "--json"])
    assert flush.exit_code == 0, flush.output
    assert json.loads(flush.stdout)["best"] == "raise 1x"
    stud = runner.invoke(app, ["advise", "nh-holdem-stud", "Ah Kh", "--community", "Qh",
                               "--bets", "3", "--json"])
    assert stud.exit_code == 0, stud.output
    options = {option["option"]: Fraction(option["ev_exact"])
               for option in json.loads(stud.stdout)["options"]}
    assert options["fold"] == -4  # the Ante and the 3x already bet are lost


def test_the_commands_are_registered() -> None:
    result = runner.invoke(app, ["--help"], env={"COLUMNS": "120"})
    assert result.exit_code == 0
    for name in ("analyze", "advise", "solve-paytable"):
        assert name in result.stdout


# --strategy: any strategy file evaluated exactly ------------------------------------------

def real_cli(args: list[str]) -> Any:
    from feltlab.cli import app as real_app

    return CliRunner().invoke(real_app, args)


def test_analyze_plays_a_strategy_file_exactly() -> None:

    card = strategy_file("high-card-flush")
    result = real_cli(["analyze", "high-card-flush", "--json", "--strategy", str(card)])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    from feltlab.analysis import analyze
    from feltlab.core.rules import load_rules

    sheet = analyze(load_rules("high-card-flush"))
    assert sheet.strategy_card is not None
    assert data["wagers"][0]["name"] == "ante"
    assert data["wagers"][0]["house_edge_exact"] == str(sheet.strategy_card.house_edge)
    assert "more than the optimal strategy" in data["notes"][-1]


def test_analyze_a_nine_card_strategy_file(tmp_path: Path) -> None:
    path = tmp_path / "play-always.toml"
    path.write_text("play_when = [{colour_cards = 0}]\n", "utf-8")
    result = real_cli(["analyze", "nine-card-flush", "--json", "--strategy", str(path)])
    assert result.exit_code == 0, result.stderr
    all9 = json.loads(result.stdout)["wagers"][0]
    optimal = json.loads(real_cli(["analyze", "nine-card-flush", "--json"]).stdout)["wagers"][0]
    assert all9["name"] == "all9" and all9["house_edge"] > optimal["house_edge"]


@pytest.mark.parametrize("rules_id", ["nh-holdem-stud", "nine-card-flush", "high-card-flush"])
def test_a_strategy_file_for_another_game_is_one_line(rules_id: str, tmp_path: Path) -> None:
    path = tmp_path / "wrong.toml"
    path.write_text('colour = "red"\nwhatever = 1\n', "utf-8")
    result = real_cli(["analyze", rules_id, "--strategy", str(path)])
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "field" in lines[0]
