"""The toy game of ``tests/toy_game`` (installed as its own package) end to end through
the engine and the command line: its pull-back decision, an estimate for its math, the
engine's simulator, and the faces that need what it lacks saying so."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from feltlab.cli import app
from feltlab.core import registry
from feltlab.core.cards import full_deck, parse_cards
from feltlab.core.engine import Deal, Decide, HandState, PlaceWager, action_to_json
from feltlab.core.rules import load_rules

TOY = "toy-pull-back"
TOY_GAME = "toy-pull-back"  # the family's game, named as its one rule set
runner = CliRunner()


def test_pulling_back_half_is_refunded_with_the_settlement() -> None:
    rules = load_rules(TOY)
    top = parse_cards("2h Ks 7c")
    deck = [*top, *(card for card in full_deck() if card not in top)]
    state = HandState(rules, deck)
    for seat in (1, 2):
        state.apply(PlaceWager(seat, "ante", 10))
    state.apply(Deal())
    assert [action.kind for action in state.choices(1)[1:]] == ["play", "pull_back"]
    state.apply(Decide(1, "pull_back"))
    state.apply(Decide(2, "play"))
    state.advance()
    first, second = (state.seats[seat].settlement for seat in (1, 2))
    assert first is not None and second is not None
    assert (first.results, first.total) == ({"ante": -5}, -5)  # half back, half lost
    assert second.results == {"ante": 10, "play": 10}  # a king beats the dealer's seven
    assert action_to_json(state.log[3]) == {"type": "PullBack", "seat": 1}


def test_analyze_prints_an_estimate_with_its_standard_error() -> None:
    result = runner.invoke(app, ["analyze", TOY, "--json"],
                           env={"FELTLAB_ESTIMATE_ROUNDS": "4000"})
    assert result.exit_code == 0, result.output
    sheet = json.loads(result.output)
    assert sheet["estimate"]["rounds"] == 4000 and sheet["estimate"]["std_errors"]["ante"] > 0
    assert "Monte Carlo estimates" in sheet["notes"][0]


def test_simulate_plays_through_the_engine() -> None:
    result = runner.invoke(app, ["simulate", TOY, "--hands", "3000", "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert (answer["path"], answer["strategy"], answer["hands"]) == ("engine", "default", 3000)
    assert answer["counters"]["play"] == 3000


def test_sessions_play_through_the_engine() -> None:
    """A bankroll of 8 at an Ante of 2 (4 at risk a hand): some sessions are ruined."""
    args = ["session", TOY, "--sessions", "200", "--hands", "30", "--bankroll", "8", "--json"]
    first, again = (runner.invoke(app, args) for _ in range(2))
    assert first.exit_code == 0, first.output
    answer, repeated = json.loads(first.output), json.loads(again.output)
    assert answer["most_at_risk_per_hand"] == 4 and answer["sessions"] == 200
    assert 0 < answer["ruin_probability"] < 1 and answer["hands_played"] < 200 * 30
    for timed in (answer, repeated):
        del timed["seconds"], timed["timings"]
    assert answer == repeated  # the same seed, the same sessions


def test_advise_and_protect_say_the_game_has_none() -> None:
    advised = runner.invoke(app, ["advise", TOY, "Ah"])
    assert advised.exit_code == 2 and "has no exact math" in advised.output
    protected = runner.invoke(app, ["protect", TOY])
    assert protected.exit_code != 0 and "has no protection model" in protected.output
    assert "Traceback" not in advised.output + protected.output


def test_the_toy_is_one_small_folder_of_required_facets() -> None:
    """A new game in an afternoon: at most 300 lines of Python in at most 3 modules,
    only the required facets (no exact math, kernel or protection model), and a
    decision kind no other family has."""
    folder = Path(__file__).resolve().parents[1] / "toy_game" / "feltlab_toy"
    modules = sorted(folder.glob("*.py"))
    assert len(modules) <= 3, modules
    assert sum(len(path.read_text().splitlines()) for path in modules) <= 300
    toy = registry.family(TOY_GAME)
    assert not toy.provides
    others = {kind.name for family in registry.families() if family.game != TOY_GAME
              for kind in family.decisions}
    assert {kind.name for kind in toy.decisions} - others == {"pull_back"}


def test_feltlab_rules_lists_and_shows_the_toy() -> None:
    listed = runner.invoke(app, ["rules"])
    assert listed.exit_code == 0 and TOY in listed.stdout
    shown = runner.invoke(app, ["rules", TOY])
    assert shown.exit_code == 0, shown.output
    assert "Toy Pull Back" in shown.stdout and "pull back half" in shown.stdout.lower()
