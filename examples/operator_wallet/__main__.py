"""``python -m examples.operator_wallet --port N --db PATH``: serve the wallet with uvicorn.

The shared secret comes from ``OPERATOR_WALLET_SECRET`` (and, during a rotation, the previous one
from ``OPERATOR_WALLET_PREVIOUS_SECRET``); without it, from standard input: the first line is
the secret, an optional second line the previous one.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

import uvicorn

from .app import DEFAULT_STARTING_BALANCE, create_wallet_app
from .faults import FaultPlan

SECRET_VARIABLE = "OPERATOR_WALLET_SECRET"
PREVIOUS_SECRET_VARIABLE = "OPERATOR_WALLET_PREVIOUS_SECRET"
ADMIN_TOKEN_VARIABLE = "OPERATOR_WALLET_ADMIN_TOKEN"


def read_secrets() -> list[str]:
    """The secrets from the environment, else up to two lines of standard input."""
    current = os.environ.get(SECRET_VARIABLE, "")
    if current:
        previous = os.environ.get(PREVIOUS_SECRET_VARIABLE, "")
        return [current, previous] if previous else [current]
    lines = [line.strip() for line in sys.stdin.read().splitlines() if line.strip()]
    if not 1 <= len(lines) <= 2:
        raise SystemExit(f"give the secret in {SECRET_VARIABLE} or as 1-2 lines on stdin")
    return lines


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(prog="python -m examples.operator_wallet",
                                    description="Serve the reference operator wallet.")
    parse.add_argument("--port", type=int, required=True)
    parse.add_argument("--db", required=True, help="the SQLite file (created if need be)")
    parse.add_argument("--host", default="127.0.0.1")
    parse.add_argument("--starting-balance", type=int, default=DEFAULT_STARTING_BALANCE,
                       help="a new player's balance, in minor units, in every currency")
    parse.add_argument("--seed", type=int, default=None, help="seeds the fault generator")
    parse.add_argument("--faults", default=None,
                       help='an initial fault plan, JSON: {"faults": [{"mode": "slow"}]}')
    parse.add_argument("--prefix", default="", help="the wallet calls are POST <prefix>/bet ...")
    parse.add_argument("--max-bet", type=int, default=None)
    parse.add_argument("--log-level", default="warning")
    return parse


def main(argv: Sequence[str] | None = None) -> None:
    args = parser().parse_args(argv)
    plan = FaultPlan.model_validate(json.loads(args.faults)) if args.faults else FaultPlan()
    app = create_wallet_app(
        args.db, read_secrets(), starting_balance=args.starting_balance,
        seed=plan.seed if plan.seed is not None else args.seed, faults=plan.faults,
        admin_token=os.environ.get(ADMIN_TOKEN_VARIABLE) or None, prefix=args.prefix,
        max_bet=args.max_bet)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)


if __name__ == "__main__":
    main()
