"""``feltlab simulate`` and ``feltlab session``: JSON, tables, plots, HTML and errors.

The commands are registered on a fresh Typer app here, so these tests do not depend on
the lead wiring them into ``feltlab.cli``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from feltlab.rules import load_rules
from feltlab.simulate import commands
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


def test_strategy_file(tmp_path: Path) -> None:
    rules = load_rules("nine-card-flush")
    path = tmp_path / "never.npz"
    np.savez(path, table=np.zeros(16, dtype=np.int8))
    data = _json("simulate", "nine-card-flush", "--hands", "100000", "--strategy", str(path))
    assert data["strategy"] == "never"
    assert data["counters"]["fold"] == 100000
    main = data["wagers"][0]
    assert main["house_edge"] == 1.0 and main["exact_house_edge"] == 1.0
    assert rules.id == data["rules"]


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


def test_strategy_file_of_the_wrong_shape_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "short.npz"
    np.savez(path, table=np.zeros(10, dtype=np.int8))
    code, out, err = _run("simulate", "nh-holdem-stud", "--hands", "1000", "--strategy",
                          str(path))
    assert code == 2 and out == "" and "needs shape" in err
