"""Run ``feltlab payout`` and ``feltlab verify`` through the real command line."""

from __future__ import annotations

import json
from typing import Any

from typer.testing import CliRunner

from feltlab.cli import app


def run_payout_cli(request: dict[str, Any]) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["payout"], input=json.dumps(request))
    assert result.exit_code == 0, result.stderr
    answer: dict[str, Any] = json.loads(result.stdout)
    return answer


def run_cli(args: list[str], stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, args, input=stdin)
    return result.exit_code, result.stdout, result.stderr
