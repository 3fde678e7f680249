"""``feltlab verify`` derives every field a round records for its seat from the seeds and
the log, and fails when any one of them was edited; a private table shows the next
round's commitment before the bet, and the player's client seed goes into its deck."""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from cli.test_bad_flags import run_fresh
from cli.test_quick_path import run_full
from feltlab.server.fairness import commitment
from feltlab.server.verify import VerifyError, verify_round
from server.cli_helpers import run_cli
from server.conftest import play_round, practice_table, sign_up
from server.test_rounds import BETS
from shipped import own_ids

Round = dict[str, Any]


def _bump_first(mapping: dict[str, Any]) -> None:
    key = next(iter(mapping))
    mapping[key] += 1


def _edit_decisions(view: Round) -> None:
    view["decisions"] = [*view["decisions"][:-1], (view["decisions"] or [0])[-1] + 1]


def _edit_raise(view: Round) -> None:
    request = view["payout_request"]
    key = next(name for name in ("raise", "play", "streets") if name in request)
    request[key] = request[key] + 1 if isinstance(request[key], int) else [*request[key], 1]


EDITS: dict[str, Callable[[Round], None]] = {
    "wagers": lambda view: _bump_first(view["wagers"]),
    "decisions": _edit_decisions,
    "staked": lambda view: view.update(staked=view["staked"] + 1),
    "results": lambda view: _bump_first(view["results"]),
    "total": lambda view: view.update(total=view["total"] + 1),
    "capped": lambda view: view.update(capped=not view["capped"]),
    "settlement": lambda view: view["settlement"].update(total=view["settlement"]["total"] + 1),
    "payout_request": lambda view: _bump_first(view["payout_request"]["wagers"]),
    "raise": _edit_raise,
    "balance_before": lambda view: view.update(balance_before=view["balance_before"] - 1),
    "balance_after": lambda view: view.update(balance_after=view["balance_after"] + 1),
    "client_seed": lambda view: view.update(client_seed=view["client_seed"] + "x"),
    "log": lambda view: view.update(log=view["log"][:-1]),
}


def biggest(options: list[dict[str, Any]]) -> dict[str, Any]:
    """The largest raise or bet (so that the round records a decision's stake)."""
    return max(options, key=lambda option: option.get("amount") or 0)


@pytest.mark.parametrize("rules_id", own_ids())
def test_every_edited_field_fails_verify(client: TestClient, rules_id: str) -> None:
    headers = sign_up(client)
    table = practice_table(client, headers, rules_id)
    view = play_round(client, headers, table, BETS[rules_id] | {"client_seed": "edit-me"},
                      choose=biggest)
    assert verify_round(view)["verified"]
    edits = dict(EDITS)
    if "colour" in view:
        edits["colour"] = lambda changed: changed.update(
            colour="black" if changed["colour"] == "red" else "red")
    for field, edit in edits.items():
        changed = copy.deepcopy(view)
        edit(changed)
        assert changed != view, field
        with pytest.raises(VerifyError):
            verify_round(changed)


def test_verify_command_names_the_edited_field(client: TestClient, tmp_path: Path) -> None:
    headers = sign_up(client)
    table = practice_table(client, headers, "nh-holdem-stud")
    view = play_round(client, headers, table, BETS["nh-holdem-stud"], choose=biggest)
    path = tmp_path / "round.json"
    for field in ("staked", "balance_after", "settlement"):
        changed = copy.deepcopy(view)
        EDITS[field](changed)
        path.write_text(json.dumps(changed))
        code, out, err = run_cli(["verify", str(path)])
        assert code == 2 and out == "" and len(err.splitlines()) == 1, err
        assert ("balances" if field == "balance_after" else repr(field)) in err


def test_verify_imports_no_numba(client: TestClient, tmp_path: Path) -> None:
    """Checking a round deals and settles it again in plain Python: ``feltlab verify`` is
    one of the quick commands (``benchmarks/bench_quick_commands.py`` times it), run
    without Typer or pydantic and answering as the full command line does."""
    headers = sign_up(client)
    table = practice_table(client, headers, "nine-card-flush")
    path = tmp_path / "round.json"
    path.write_text(json.dumps(play_round(client, headers, table, BETS["nine-card-flush"])))
    done, imported = run_fresh(["verify", str(path)])
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["verified"] is True
    assert not {name.split(".")[0] for name in imported} & {"numba", "typer", "pydantic"}
    full = run_full(["verify", str(path)], dict(os.environ))
    assert (done.stdout, done.stderr, done.returncode) == (
        full.stdout, full.stderr, full.returncode)


def test_next_commitment_is_shown_before_the_bet(client: TestClient) -> None:
    """The owner sees the next round's commitment before betting and choosing a seed;
    the round dealt has exactly that commitment, the player's seed, and verifies."""
    headers = sign_up(client)
    table = practice_table(client, headers, "high-card-flush")
    shown = client.get(f"/api/v1/tables/{table}", headers=headers).json()["next_commitment"]
    assert len(shown) == 64
    for seed in ("first-seed", "second:seed"):
        view = play_round(client, headers, table, {"wagers": {"ante": 5}, "client_seed": seed})
        assert view["commitment"] == shown and view["client_seed"] == seed
        assert commitment(view["seed"]) == shown and verify_round(view)["verified"]
        following = client.get(f"/api/v1/tables/{table}", headers=headers).json()
        assert following["next_commitment"] not in (None, shown)
        shown = following["next_commitment"]


def test_next_commitment_is_the_owners_alone(client: TestClient) -> None:
    owner, stranger = sign_up(client), sign_up(client)
    table = practice_table(client, owner, "high-card-flush")
    assert client.get(f"/api/v1/tables/{table}", headers=stranger).status_code == 404
    listed = client.get("/api/v1/tables", headers=owner).json()
    assert all("next_commitment" in item for item in listed if not item["shared"])
    refused = client.post(f"/api/v1/tables/{table}/rounds", headers=owner,
                          json={"wagers": {"ante": 5}, "client_seed": "no spaces allowed"})
    assert refused.status_code == 422
    before = client.get(f"/api/v1/tables/{table}", headers=owner).json()["next_commitment"]
    view = play_round(client, owner, table, {"wagers": {"ante": 5}})
    assert view["commitment"] == before  # a refused bet drew no new seed
