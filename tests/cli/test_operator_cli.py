"""``feltlab operator``: the secret read from standard input and never printed, a bad
secret or field refused in one line with exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import assert_refused, run_cli

SECRET = "s3cret-shared-with-the-casino-0001"
NEW = "the-next-secret-for-the-casino-0002"


@pytest.fixture
def database(tmp_path: Path) -> list[str]:
    return ["--database", f"sqlite:///{tmp_path / 'server.sqlite3'}"]


def add(database: list[str], *extra: str, secret: str = SECRET + "\n") -> None:
    outcome = run_cli(["operator", "add", "casino", "--wallet-url",
                       "https://wallet.casino.example/feltlab", "--currencies", "EUR,JPY:100",
                       *extra, *database], secret)
    assert outcome.exit_code == 0, outcome.stderr
    assert outcome.stdout == "operator casino added\n"


def listed(database: list[str]) -> list[dict[str, object]]:
    outcome = run_cli(["operator", "list", "--json", *database])
    assert outcome.exit_code == 0, outcome.stderr
    assert SECRET not in outcome.stdout and NEW not in outcome.stdout
    found: list[dict[str, object]] = outcome.json()
    return found


def test_add_then_list_never_shows_the_secret(database: list[str]) -> None:
    add(database, "--timeout", "1.5", "--frame-origin", "https://casino.example",
        "--frame-origin", "http://localhost:8080")
    [operator] = listed(database)
    assert {key: operator[key] for key in ("id", "wallet_url", "currencies",
                                           "timeout_seconds", "frame_origins", "disabled")} \
        == {"id": "casino", "wallet_url": "https://wallet.casino.example/feltlab",
            "currencies": {"EUR": 1, "JPY": 100}, "timeout_seconds": 1.5,
            "frame_origins": ["https://casino.example", "http://localhost:8080"],
            "disabled": False}
    assert "secret" not in json.dumps(operator)
    table = run_cli(["operator", "list", *database])
    assert table.exit_code == 0 and "casino" in table.stdout and "JPY:100" in table.stdout
    assert SECRET not in table.stdout


@pytest.mark.parametrize(("stdin", "fragment"), [
    ("too-short\n", "at least 32 characters"),
    ("", "on standard input"),
    (SECRET + "\nmore\n", "one line"),
])
def test_a_bad_secret_is_refused_with_exit_2(database: list[str], stdin: str,
                                             fragment: str) -> None:
    outcome = run_cli(["operator", "add", "casino", "--wallet-url", "https://w.example",
                       "--currencies", "EUR", *database], stdin)
    assert_refused(outcome, "secret", fragment)
    assert listed(database) == []


@pytest.mark.parametrize(("args", "fragment"), [
    (["--wallet-url", "https://w.example/", "--currencies", "EUR"], "wallet_url: "),
    (["--wallet-url", "https://w.example", "--currencies", "euro"], "currencies: "),
    (["--wallet-url", "https://w.example", "--currencies", "EUR:x"], "--currencies: EUR"),
    (["--wallet-url", "https://w.example", "--currencies", "EUR,EUR"], "given twice"),
    (["--wallet-url", "https://w.example", "--currencies", "EUR", "--timeout", "0"],
     "timeout_seconds: "),
    (["--wallet-url", "https://w.example", "--currencies", "EUR", "--frame-origin",
      "https://c.example/x"], "frame_origins: "),
])
def test_a_bad_field_is_refused_by_name(database: list[str], args: list[str],
                                        fragment: str) -> None:
    outcome = run_cli(["operator", "add", "casino", *args, *database], SECRET + "\n")
    assert_refused(outcome, fragment)


def test_a_duplicate_is_refused(database: list[str]) -> None:
    add(database)
    outcome = run_cli(["operator", "add", "casino", "--wallet-url", "https://w.example",
                       "--currencies", "USD", *database], SECRET + "\n")
    assert_refused(outcome, "already exists")


def test_disable_enable_rotate(database: list[str]) -> None:
    add(database)
    outcome = run_cli(["operator", "disable", "casino", *database])
    assert outcome.exit_code == 0 and outcome.stdout == "operator casino disabled\n"
    assert listed(database)[0]["disabled"] is True
    assert run_cli(["operator", "enable", "casino", *database]).exit_code == 0
    assert listed(database)[0]["disabled"] is False

    assert_refused(run_cli(["operator", "rotate", "casino", *database], "short\n"), "secret")
    outcome = run_cli(["operator", "rotate", "casino", *database], NEW + "\n")
    assert outcome.exit_code == 0, outcome.stderr
    assert NEW not in outcome.stdout
    assert listed(database)[0]["rotating"] is True
    assert_refused(run_cli(["operator", "disable", "nobody", *database]),
                   "no operator has id 'nobody'")


def test_report_as_json_and_csv(tmp_path: Path) -> None:
    from feltlab.server.migrate import upgrade
    from feltlab.server.services.database import make_engine, normalise_url
    from server.test_operator_ledger import make_ledger

    url = f"sqlite:///{tmp_path / 'server.sqlite3'}"
    engine = make_engine(normalise_url(url))
    upgrade(engine)
    make_ledger(engine)
    engine.dispose()
    span = ["--from", "2026-03-01", "--to", "2026-03-02", "--database", url]
    outcome = run_cli(["operator", "report", "casino", *span, "--json"])
    assert outcome.exit_code == 0, outcome.stderr
    report = outcome.json()
    assert [(day["day"], day["currency"], day["bets"], day["wins"], day["rollbacks"],
             day["rolled_back_amount"], day["ggr"]) for day in report["days"]] == [
        ("2026-03-01", "EUR", 100, 250, 1, 40, -150), ("2026-03-01", "JPY", 60, 0, 0, 0, 60),
        ("2026-03-02", "EUR", 500, 0, 0, 0, 500)]
    assert report["totals"]["EUR"]["ggr"] == 350
    assert (report["operator"], report["from"], report["to"]) == \
        ("casino", "2026-03-01", "2026-03-02")
    csv_lines = run_cli(["operator", "report", "casino", *span, "--csv"]).stdout.splitlines()
    assert csv_lines[0] == "day,currency,bets,wins,rollbacks,rolled_back_amount,ggr"
    assert csv_lines[1] == "2026-03-01,EUR,100,250,1,40,-150"
    table = run_cli(["operator", "report", "casino", *span])
    assert table.exit_code == 0 and "-150" in table.stdout and "350" in table.stdout
    assert_refused(run_cli(["operator", "report", "nobody", *span]), "nobody")
    assert_refused(run_cli(["operator", "report", "casino", "--from", "2026-03-02", "--to",
                            "2026-03-01", "--database", url]), "--from")
    assert_refused(run_cli(["operator", "report", "casino", "--from", "March", "--to",
                            "2026-03-01", "--database", url]), "--from", "YYYY-MM-DD")
