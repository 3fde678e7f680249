"""The hostile inputs of the hardening issue, each refused in one line (or, where valid,
handled correctly), through the real command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import feltlab
import feltlab.cli.program
import feltlab.cli.rulescard
from conftest import assert_refused, payout, run_cli, settled
from feltlab.cli import INTERNAL_ERROR, app
from shipped import rule_set_file, strategy_file

GOOD = {"rules": "nh-flush-poker", "wagers": {"ante": 10, "flush": 5, "straight_flush": 5},
        "player": "Ah Kh Qh 9h 2h 6d 7d", "dealer": "9s 7s 2s 3h 4d 5c Kc", "raise": 0}


def with_wagers(**wagers: object) -> dict[str, object]:
    return {**GOOD, "wagers": {"ante": 10, **wagers}}


@pytest.mark.parametrize(("stdin", "fragments"), [
    ('{"rules": "nh-flush-poker", "rules": "high-card-flush", "wagers": {"ante": 1}}',
     ("key 'rules' appears twice",)),
    ('{"rules": "nh-flush-poker", "wagers": {"ante": 5, "ante": 6}}', ("key 'ante' appears",)),
    ("[" * 1000 + "]" * 1000, ("nested more than 32 deep",)),
    ('{"a": ' * 1000 + "1" + "}" * 1000, ("nested more than 32 deep",)),
    ('{"rules": "nh-flush-poker", "wagers": {"ante": 1' + "0" * 5000 + "}}",
     ("a number of 5,001 characters is too long",)),
    ('{"rules": "nh-flush-poker", "wagers": {"ante": NaN}}', ("NaN is not a JSON number",)),
    (json.dumps(with_wagers(flush=False)), ("wager flush must be a whole number", "false")),
    (json.dumps(with_wagers(flush=0.0)), ("wager flush must be a whole number", "0.0")),
    (json.dumps(with_wagers(flush="5")), ("wager flush must be a whole number", '"5"')),
    (json.dumps({**GOOD, "player": "Ah \u212ah Qh 9h 2h 6d 7d"}),
     ("player: cannot read card '\u212ah'", "KELVIN SIGN")),
    (json.dumps({**GOOD, "raise": True}), ("raise must be a whole number",)),
    (json.dumps({**GOOD, "rules": "x" * 300}), ("cannot read rule set", "too long")),
])
def test_hostile_json_is_refused_in_one_line(stdin: str, fragments: tuple[str, ...]) -> None:
    assert_refused(run_cli(["payout"], stdin), *fragments)


def test_zero_and_null_still_mean_not_bet() -> None:
    assert settled(with_wagers(flush=0, straight_flush=None))["results"] == {"ante": -10}


def test_suit_symbols_as_play_prints_them() -> None:
    symbols = {**GOOD, "player": "A♥ K♥ Q♥ 9♥ 2♥ 6♦ 7♦", "dealer": "9♠ 7♠ 2♠ 3♥ 4♦ 5♣ K♣"}
    assert settled(symbols) == settled(GOOD)
    advice = run_cli(["advise", "high-card-flush", "T♥ 8♥ 6♥ J♠ A♦ Q♦ J♣", "--json"])
    plain = run_cli(["advise", "high-card-flush", "Th 8h 6h Js Ad Qd Jc", "--json"])
    assert advice.exit_code == 0 and advice.json() == plain.json()


@pytest.mark.parametrize("args", [
    ["payout", "--rules", "nh-flush-poker", "--wagers", "ante=10,ante=1"],
    ["payout", "--rules", "nh-flush-poker", "--rules", "high-card-flush"],
    ["advise", "high-card-flush", "Th 8h 6h Js Ad Qd Jc", "--json", "--json"],
    ["simulate", "high-card-flush", "--hands", "5", "--hands=6"],
])
def test_repeated_options_and_wagers_are_refused(args: list[str]) -> None:
    line = assert_refused(run_cli(args))
    assert "twice" in line or "more than once" in line


def test_control_characters_in_a_key_cannot_split_the_refusal(tmp_path: Path) -> None:
    # Found by the long fuzz run: a TOML key "\r" printed raw made the refusal two lines.
    path = tmp_path / "house.toml"
    text = rule_set_file("high-card-flush").read_text("utf-8")
    path.write_text(text.replace("[qualifier]", '[qualifier]\n"\\r\\n" = false'), "utf-8")
    assert_refused(run_cli(["rules", str(path)]), "field qualifier.'\\r\\n': Extra inputs")


def test_a_modified_builtin_is_marked_wherever_its_id_is_shown(tmp_path: Path) -> None:
    path = tmp_path / "house.toml"
    text = rule_set_file("nh-flush-poker").read_text("utf-8")
    path.write_text(text.replace("7 = 200\n6 = 50", "7 = 250\n6 = 50"), "utf-8")
    printed = settled({**GOOD, "rules": str(path)})
    assert printed["rules"] == "nh-flush-poker" and printed["modified"] is True
    assert printed["fingerprint"] != settled(GOOD)["fingerprint"]
    assert settled(GOOD)["modified"] is False
    card = run_cli(["rules", str(path)])
    assert "nh-flush-poker (modified, fingerprint " in card.stdout
    advice = run_cli(["advise", str(path), "Th 8h 6h Js Ad Qd Jc", "--json"]).json()
    assert advice["modified"] is True and advice["fingerprint"] == printed["fingerprint"]


def test_a_strategy_for_another_rule_set_is_refused(tmp_path: Path) -> None:
    nh = strategy_file("nh-flush-poker")
    assert_refused(run_cli(["analyze", "high-card-flush", "--strategy", str(nh)]),
                   "is a strategy for rule set 'nh-flush-poker', not 'high-card-flush'")
    stud = strategy_file("nh-holdem-stud")
    assert_refused(run_cli(["analyze", "high-card-flush", "--strategy", str(stud)]),
                   "is a strategy for a holdem-stud game, not for high-card-flush")
    assert_refused(run_cli(["simulate", "nh-flush-poker", "--hands", "10", "--strategy",
                            str(strategy_file("high-card-flush"))]),
                   "is a strategy for rule set 'high-card-flush'")
    untyped = tmp_path / "mine.toml"
    untyped.write_text(nh.read_text("utf-8").replace('rules = "nh-flush-poker"\n', ""),
                       "utf-8")
    from feltlab.analysis import load_strategy_file
    from feltlab.core.rules import load_rules
    assert load_strategy_file(load_rules("high-card-flush"), untyped).rules == ""


def test_report_destination_is_checked_before_computing(tmp_path: Path) -> None:
    assert_refused(run_cli(["analyze", "high-card-flush", "--html",
                            str(tmp_path / "missing" / "report.html")]),
                   "--html: cannot write", "does not exist")
    (tmp_path / "file").write_text("", "utf-8")
    assert_refused(run_cli(["analyze", "high-card-flush", "--csv", str(tmp_path / "file")]),
                   "--csv: cannot write into", "it is a file")


def test_an_unexpected_failure_is_one_line_and_a_report(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("a bug\nover two lines")

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(feltlab.cli.rulescard, "rules_card", broken)
    outcome = run_cli(["rules", "high-card-flush"])
    assert outcome.exit_code == INTERNAL_ERROR and outcome.stdout == ""
    [line] = outcome.stderr.splitlines()
    assert line.startswith("error: unexpected RuntimeError: a bug over two lines (details in ")
    assert "--debug" in line
    [report] = (tmp_path / "feltlab" / "errors").iterdir()
    assert "Traceback" in report.read_text("utf-8") and "rules high-card-flush" in (
        report.read_text("utf-8"))
    from typer.testing import CliRunner
    result = CliRunner().invoke(app, ["--debug", "rules", "high-card-flush"])
    assert isinstance(result.exception, RuntimeError)
    monkeypatch.setattr(feltlab.cli.program, "_debug", False)


def test_help_is_conventional_and_usage_errors_point_to_it() -> None:
    text = run_cli(["simulate", "--help"]).stdout
    assert "simulate [OPTIONS] RULES" in text
    assert "<bool>" not in text and "{rules}" not in text
    assert_refused(run_cli(["simulate"]), "Missing argument 'RULES'",
                   "see 'feltlab simulate --help'")
    for command in ("payout", "advise"):
        assert "A♠" in run_cli([command, "--help"]).stdout


def test_the_entry_point_keeps_the_promises() -> None:
    process = subprocess.run([sys.executable, "-m", "feltlab", "payout"], input="[" * 5000,
                             capture_output=True, text=True, check=False)
    assert process.returncode == 2 and process.stdout == ""
    assert process.stderr.startswith("error: ") and len(process.stderr.splitlines()) == 1


def test_batch_settles_item_by_item_reading_each_rule_file_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "house.toml"
    path.write_text(rule_set_file("nh-flush-poker").read_text("utf-8"), "utf-8")
    reads: list[str] = []
    import feltlab.core.payout
    real = feltlab.core.payout.load_rules

    def counting(name: str) -> object:
        reads.append(name)
        return real(name)

    monkeypatch.setattr(feltlab.core.payout, "load_rules", counting)
    batch = [{**GOOD, "rules": str(path)}] * 50 + [GOOD] * 50
    outcome = payout(batch)
    assert outcome.exit_code == 0 and len(outcome.json()) == 100
    assert sorted(set(reads)) == sorted({str(path), "nh-flush-poker"}) and len(reads) == 2
    assert outcome.stdout == json.dumps(outcome.json(), indent=2) + "\n"
    broken = payout([GOOD, GOOD, {**GOOD, "raise": 7}])
    assert_refused(broken, "item 2: raise of 7")
