"""``feltlab simulate`` and ``feltlab session``: JSON, tables, plots, HTML and errors.

The commands are registered on a fresh Typer app here, so these tests do not depend on
the lead wiring them into ``feltlab.cli``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from feltlab.cli import simulate as commands
from feltlab.core.rules import load_rules
from feltlab.simulate.runner import prepare
from feltlab.simulate.session import run_sessions

app = typer.Typer()
commands.register(app)

# Compiling a round loop that takes a game's round as a function value warns.
pytestmark = pytest.mark.filterwarnings(
    "ignore::numba.core.errors.NumbaExperimentalFeatureWarning")


@app.callback()
def _root() -> None:
    """feltlab (test app)."""


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def _json(*args: str) -> Any:
    code, out, err = _run(*args, "--json")
    assert code == 0, err
    return json.loads(out)


def test_simulate_json_fields() -> None:
    data = _json("simulate", "high-card-flush", "--hands", "200000", "--seed", "5")
    assert data["hands"] == 200000 and data["seconds"] > 0
    names = [w["name"] for w in data["wagers"]]
    assert names == ["ante", "flush", "straight_flush", "total"]
    for wager in data["wagers"]:
        assert {"name", "house_edge", "std_error", "interval95", "hit_rate"} <= set(wager)
    assert data["wagers"][0]["exact_house_edge"] is not None


def test_simulate_json_is_reproducible_and_names_nine_card_wagers() -> None:
    args = ("simulate", "nine-card-flush", "--hands", "100000", "--seed", "3", "--seats", "4")
    first, second = _json(*args), _json(*args, "--workers", "1")
    assert [w["house_edge"] for w in first["wagers"]] == [w["house_edge"] for w in
                                                          second["wagers"]]
    assert [w["name"] for w in first["wagers"]] == ["all9", "bonus9", "player6", "first3",
                                                    "total"]


def test_simulate_bets_choose_the_wagers() -> None:
    data = _json("simulate", "nh-holdem-stud", "--hands", "50000", "--bets", "ante=2",
                 "--strategy", "simple")
    assert [w["name"] for w in data["wagers"]] == ["ante", "total"]
    assert data["wagers"][0]["exact_house_edge"] is not None


def test_simulate_table_output() -> None:
    code, out, _ = _run("simulate", "nh-flush-poker", "--hands", "100000")
    assert code == 0
    assert "NH Flush Poker" in out and "rounds a second" in out


@pytest.mark.parametrize(("args", "fragment"), [
    (("simulate", "no-such-game"), "no rule set"),
    (("simulate", "high-card-flush", "--bets", "ante=5000"), "above the maximum"),
    (("simulate", "high-card-flush", "--seats", "7"), "--seats"),
    (("simulate", "high-card-flush", "--strategy", "nonsense"), "--strategy"),
    (("simulate", "high-card-flush", "--mistakes", "2"), "probability"),
    (("session", "high-card-flush", "--bankroll", "3"), "cannot cover"),
])
def test_bad_input_is_refused(args: tuple[str, ...], fragment: str) -> None:
    code, out, err = _run(*args)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and fragment in err


STRATEGY_FILES = {
    "high-card-flush": ('name = "four plus"\n[[rule]]\nmin_length = 4\naction = "max"\n',
                        "ante"),
    "nh-holdem-stud": ('street3 = [{bet = 1}]\nstreet4 = [{bet = 1, when = {made = 1}}]\n'
                       'street5 = [{bet = 1, when = {made = 3}}]\n', "ante"),
    "nine-card-flush": ("play_when = [{flush_cards = 2}]\n", "all9"),
}


@pytest.mark.parametrize("rules_id", sorted(STRATEGY_FILES))
def test_strategy_file_of_the_analysis(tmp_path: Path, rules_id: str) -> None:
    """A TOML strategy file of the analysis: played, with the analysis's exact value."""
    text, main = STRATEGY_FILES[rules_id]
    path = tmp_path / "mine.toml"
    path.write_text(text, "utf-8")
    data = _json("simulate", rules_id, "--hands", "200000", "--strategy", str(path),
                 "--bets", f"{main}=2")
    assert data["strategy"] == "mine"
    wager = data["wagers"][0]
    assert wager["name"] == main and wager["exact_house_edge"] is not None
    assert abs(wager["z_score"]) < 4


def test_never_playing_file_loses_every_all9(tmp_path: Path) -> None:
    path = tmp_path / "never.toml"
    path.write_text("play_when = []\n", "utf-8")
    data = _json("simulate", "nine-card-flush", "--hands", "100000", "--strategy", str(path))
    assert data["counters"]["fold"] == 100000
    main = data["wagers"][0]
    assert main["house_edge"] == 1.0 and main["exact_house_edge"] == 1.0


@pytest.mark.parametrize(("rules_id", "text", "fragment"), [
    ("high-card-flush", '[[rule]]\nmin_length = 9\naction = "max"\n', "min_length"),
    ("high-card-flush", "[[rule]\n", "not valid TOML"),
    ("nh-holdem-stud", "street3 = [{bet = 1, when = {colour = 2}}]\n", "colour"),
    ("nh-holdem-stud", "street3 = [{bet = 5}]\n", "above the maximum"),
    ("nine-card-flush", "play_when = [{flush = 2}]\n", "flush"),
    ("nine-card-flush", "fold_when = []\n", "fold_when"),
])
def test_bad_strategy_file_is_refused_in_one_line(tmp_path: Path, rules_id: str, text: str,
                                                  fragment: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text, "utf-8")
    code, out, err = _run("simulate", rules_id, "--hands", "1000", "--strategy", str(path))
    assert code == 2 and out == ""
    assert err.startswith("error: --strategy bad.toml: ") and fragment in err
    assert err.count("\n") == 1


def test_total_unit_is_explicit() -> None:
    data = _json("simulate", "high-card-flush", "--hands", "70000", "--bets",
                 "ante=3,flush=1,straight_flush=2")
    assert data["total_unit"] == "per unit of all the initial wagers"
    wagers = {w["name"]: w for w in data["wagers"]}
    assert wagers["total"]["stake"] == 6
    assert wagers["total"]["unit"].startswith("per unit of all the initial wagers")
    assert wagers["ante"]["unit"] == "per unit of ante"
    # no cap: the total's estimate is the stake-weighted mean of the wagers' estimates
    weighted = sum(wagers[n]["house_edge"] * wagers[n]["stake"] for n in
                   ("ante", "flush", "straight_flush")) / 6
    assert wagers["total"]["house_edge"] == pytest.approx(weighted, rel=1e-12)


@pytest.mark.parametrize("rules_id", ["high-card-flush-toledo", "nine-card-flush",
                                      "nh-holdem-stud"])
def test_table_fits_80_columns(rules_id: str) -> None:
    result = CliRunner().invoke(app, ["simulate", rules_id, "--hands", "100000", "--seats",
                                      "2"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    rows = [line.split() for line in lines if ".." in line]
    labels = {" ".join(row[:-6]) for row in rows}
    assert {"total", "All 9" if rules_id == "nine-card-flush" else "Ante"} <= labels
    assert all(".." in row[-4] for row in rows)
    assert "per unit of all the initial wagers" in result.stdout


def test_session_json_plots_and_html(tmp_path: Path) -> None:
    png, svg, page = tmp_path / "s.png", tmp_path / "s.svg", tmp_path / "s.html"
    data = _json("session", "high-card-flush", "--bankroll", "200", "--hands", "300",
                 "--sessions", "500", "--bets", "ante=5,flush=1,straight_flush=1",
                 "--seed", "4", "--plot", str(png), "--html", str(page))
    assert data["sessions"] == 500
    assert 0 <= data["ruin_probability"] <= 1 and 0 <= data["double_probability"] <= 1
    assert set(data["result_percentiles"]) == {"p1", "p5", "p10", "p25", "p50", "p75", "p90",
                                               "p95", "p99"}
    assert data["theoretical_win_per_hour"] > 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = page.read_text("utf-8")
    assert "<svg" in text and "ruin_probability" in text
    code, _, err = _run("session", "nine-card-flush", "--bankroll", "50", "--hands", "50",
                        "--sessions", "100", "--plot", str(svg))
    assert code == 0, err
    assert svg.read_text("utf-8").lstrip().startswith("<?xml")


def test_session_figures_follow_their_definitions() -> None:
    setup = prepare(load_rules("high-card-flush"),
                    bets={"ante": 1, "flush": 1, "straight_flush": 1})
    assert setup.most_at_risk == 1 + 3 + 1 + 1
    result = run_sessions(setup, bankroll=20, hands=400, sessions=400, seed=8)
    ruined = result.ruined_at >= 0
    assert (result.final[ruined] < setup.most_at_risk).all()
    assert (result.played[~ruined] == 400).all()
    assert (result.played[ruined] == result.ruined_at[ruined]).all()
    doubled = result.doubled_at >= 0
    assert (result.drawdown >= 0).all()
    assert (result.trajectory[:, 0] == 20).all()
    assert (result.trajectory[:, -1] == result.final).all()
    assert ruined.any() and doubled.any()
    again = run_sessions(setup, bankroll=20, hands=400, sessions=400, seed=8, workers=1)
    assert (again.final == result.final).all()
    theoretical = result.theoretical_win_per_hour()
    assert theoretical is not None
    expected = sum(float(setup.exact[name]) for name in ("ante", "flush", "straight_flush"))
    assert theoretical == pytest.approx(60 * expected)
