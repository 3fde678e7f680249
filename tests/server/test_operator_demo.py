"""``feltlab operator demo``: the reference wallet and feltlab run, a signed launch, rounds
played through the API and reconciled with the wallet's ledger (exit 0 when they agree);
the user's own database untouched; a clear refusal without a clone of the repository."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from feltlab.cli import operator_demo
from feltlab.cli.demo_processes import DemoUnavailable, repository_root
from feltlab.cli.demo_rounds import PlayedRound, reconcile
from server.cli_helpers import run_cli
from server.live_server import SRC
from server.pg import free_port

ROOT = Path(__file__).resolve().parents[2]


def test_three_rounds_are_played_and_reconciled_with_the_wallet(tmp_path: Path) -> None:
    port, wallet_port = free_port(), free_port()
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"),
           "PYTHONPATH": os.pathsep.join([SRC, str(ROOT)])}
    for name in ("FELTLAB_DATABASE_URL", "COLUMNS"):
        env.pop(name, None)
    demo = subprocess.Popen(
        [sys.executable, "-m", "feltlab", "operator", "demo", "--rounds", "3",
         "--port", str(port), "--wallet-port", str(wallet_port)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True)
    try:
        out, err = demo.communicate(timeout=240)
    except subprocess.TimeoutExpired:
        os.killpg(demo.pid, signal.SIGKILL)  # the wallet too: it is in the demo's group
        out, err = demo.communicate()
        pytest.fail(f"the demo did not finish in 240 s\n{out}\n{err}")
    assert demo.returncode == 0, f"{out}\n{err}"
    assert f"http://127.0.0.1:{port}/play/demo-casino#launch=" in out
    assert re.search(r"\bop\.[A-Za-z0-9_-]{40,}", out)  # the session token
    assert f"'http://127.0.0.1:{wallet_port}/_ledger?player=demo-player'" in out
    rows = re.findall(r"^│ (\d+) +│ +(\d+) │ +(\d+) │ +(\d+) │ +(\d+) │ ok │$", out, re.M)
    assert len(rows) == 3, out
    assert all(stake == bets and returned == wins for _, stake, returned, bets, wins in rows)
    stakes, returns = (sum(int(row[i]) for row in rows) for i in (1, 2))
    assert (f"wallet balance {100_000 - stakes + returns} = opening 100000 - stakes {stakes} "
            f"+ returns {returns}") in out
    assert "reconciliation: feltlab and the wallet agree" in out
    assert "MISMATCH" not in out
    # both servers stopped, their temporary folder removed, the user's database untouched
    for used in (port, wallet_port):
        with socket.socket() as probe:
            assert probe.connect_ex(("127.0.0.1", used)) != 0
    folder = re.search(r"log: (\S+)wallet\.log", out)
    assert folder and not Path(folder.group(1)).exists()
    assert not (tmp_path / "data" / "feltlab" / "server.sqlite3").exists()


def test_without_a_clone_of_the_repository_the_demo_says_it_needs_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert repository_root() == ROOT
    wheel = str(tmp_path / "site-packages" / "feltlab" / "__init__.py")
    with pytest.raises(DemoUnavailable, match="needs a clone of feltlab's repository"):
        repository_root(wheel)

    def from_a_wheel() -> Path:
        return repository_root(wheel)

    monkeypatch.setattr(operator_demo, "repository_root", from_a_wheel)
    code, out, err = run_cli(["operator", "demo", "--rounds", "1"])
    assert code == 2 and out == "", out
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: ")
    assert "clone of feltlab's repository" in err and "examples/operator_wallet" in err


@pytest.mark.parametrize("args, words", [
    (["--mode", "cash"], "--mode"),
    (["--port", "8123", "--wallet-port", "8123"], "differ"),
    (["--rounds", "-1"], "--rounds"),
])
def test_bad_options_are_refused_before_anything_starts(args: list[str], words: str) -> None:
    code, out, err = run_cli(["operator", "demo", *args])
    assert code == 2 and out == "" and words in err, err


def test_the_reconciliation_finds_what_disagrees() -> None:
    played = [PlayedRound(1, 20, 30), PlayedRound(2, 20, 0)]

    def ledger(*rows: tuple[int, str, int], balance: int = 99_990) -> dict[str, object]:
        return {"accounts": [{"currency": "EUR", "opening_balance": 100_000,
                              "balance": balance}],
                "transactions": [{"round_id": str(round_id), "kind": kind, "amount": amount,
                                  "state": "applied", "currency": "EUR"}
                                 for round_id, kind, amount in rows]}

    paid = [(1, "bet", 20), (1, "win", 30), (2, "bet", 20), (2, "win", 0)]
    assert reconcile(played, ledger(*paid), "EUR", real=True).agrees
    unpaid = reconcile(played, ledger(*paid[:3], balance=99_990), "EUR", real=True)
    assert unpaid.agrees  # a lost round's win of 0 changes no figure
    short = reconcile(played, ledger(*paid[1:], balance=100_010), "EUR", real=True)
    assert not short.agrees and not short.lines[0].agrees and short.lines[1].agrees
    stranger = reconcile(played, ledger(*paid, (9, "bet", 5)), "EUR", real=True)
    assert not stranger.agrees and stranger.others == 1
    assert not reconcile(played, ledger(*paid), "EUR", real=False).agrees  # a demo session
    demo = reconcile(played, {"accounts": [], "transactions": []}, "EUR", real=False)
    assert demo.agrees and demo.balance is None
