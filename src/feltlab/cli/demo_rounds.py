"""What ``feltlab operator demo --rounds N`` does once the servers run: launch the
player's session as the operator does (a signed ``POST /api/v1/operator/sessions``), play
N rounds through the API as the framed page does (the session's bearer token, an
``Idempotency-Key`` each), and reconcile feltlab's rounds with the wallet's ledger.

The reconciliation is the check an operator makes: for each round, feltlab's stake and
return against the wallet's applied bets and wins of that round, and the player's wallet
balance against its opening balance - the stakes + the returns. A demo session
(``mode=demo``) plays play money, so there the wallet must have seen nothing at all.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import httpx
from rich.table import Table

from feltlab.server.signatures import HEADER, SignatureError, sign, verify

BET: Final = 10
"""Chips on each wager the rules require (the ante of the flush games)."""
COLOUR: Final = "red"
"""The colour bet in a game that asks for one."""
WIN_WAIT_SECONDS: Final = 30.0
"""How long the reconciliation waits for the outbox to send the rounds' wins."""


class DemoFailed(RuntimeError):
    """A request of the demo that feltlab refused (the message says which and why)."""


def _refused(what: str, answer: httpx.Response) -> DemoFailed:
    try:
        detail = answer.json().get("detail", answer.text)
    except (ValueError, AttributeError):
        detail = answer.text
    return DemoFailed(f"{what}: HTTP {answer.status_code}: {detail}")


def launch(base_url: str, operator: str, secret: str, player: str, currency: str,
           rules: str, mode: str) -> dict[str, Any]:
    """The operator's signed launch of a session for ``player``; feltlab's answer
    (``session``, ``url``, ``expires_at``), its signature checked as an operator should."""
    body = json.dumps({"operator": operator, "player": player, "currency": currency,
                       "rules": rules, "mode": mode}).encode()
    answer = httpx.post(f"{base_url}/api/v1/operator/sessions", content=body, timeout=10,
                        headers={"Content-Type": "application/json",
                                 HEADER: sign(secret, body)})
    if answer.status_code != 201:
        raise _refused("the signed launch was refused", answer)
    try:
        verify([secret], answer.headers.get(HEADER), answer.content)
    except SignatureError as error:
        raise DemoFailed(f"feltlab's answer to the launch is badly signed: {error}") from None
    launched: dict[str, Any] = answer.json()
    return launched


@dataclass(frozen=True)
class PlayedRound:
    """One round as feltlab settled it, in the currency's minor units."""

    id: int
    stake: int
    returned: int
    """Stake plus net result: what the round gives back to the player (0 for a loss)."""


def play_rounds(base_url: str, session: str, rules: str, count: int, chip_value: int
                ) -> list[PlayedRound]:
    """Open the session's table and play ``count`` rounds: :data:`BET` chips on each
    required wager, then always the last option offered (the biggest raise, or play)."""
    with httpx.Client(base_url=base_url, timeout=30,
                      headers={"Authorization": f"Bearer {session}"}) as client:
        opened = client.post("/api/v1/tables", json={"rules": rules})
        if opened.status_code != 201:
            raise _refused("opening the table", opened)
        table = opened.json()
        wagers = {name: min(max(BET, table["limits"][name]["min"]), table["limits"][name]["max"])
                  for name in table["required_wagers"]}
        played, colour = [], None
        for _ in range(count):
            answer, colour = _bet(client, table["id"], wagers, colour)
            view = answer.json()
            while view["phase"] != "complete":
                acted = client.post(f"/api/v1/rounds/{view['id']}/actions",
                                    json=view["options"][-1], headers=_keyed())
                if acted.status_code != 200:
                    raise _refused(f"round {view['id']}: {view['options'][-1]}", acted)
                view = acted.json()
            played.append(PlayedRound(view["id"], view["staked"] * chip_value,
                                      (view["staked"] + view["total"]) * chip_value))
        return played


def _keyed() -> dict[str, str]:
    return {"Idempotency-Key": uuid.uuid4().hex}


def _bet(client: httpx.Client, table: int, wagers: dict[str, int], colour: str | None
         ) -> tuple[httpx.Response, str | None]:
    """The round's opening bet (with :data:`COLOUR` if the game asks for a colour)."""
    answer = client.post(f"/api/v1/tables/{table}/rounds", headers=_keyed(),
                         json={"wagers": wagers, "colour": colour})
    if answer.status_code == 422 and colour is None and "colour" in answer.text:
        return _bet(client, table, wagers, COLOUR)
    if answer.status_code != 201:
        raise _refused(f"the bet {wagers}", answer)
    return answer, colour


@dataclass(frozen=True)
class Line:
    """One round: feltlab's figures beside the wallet's."""

    round: PlayedRound
    wallet_bets: int
    wallet_wins: int
    expected_bets: int
    expected_wins: int

    @property
    def agrees(self) -> bool:
        return (self.wallet_bets, self.wallet_wins) == (self.expected_bets, self.expected_wins)


@dataclass(frozen=True)
class Reconciliation:
    """Every round's line and the player's wallet balance (None: no account, as a demo
    session leaves it)."""

    lines: list[Line]
    real: bool
    opening: int | None
    balance: int | None
    others: int
    """The player's wallet transactions that belong to none of the rounds (for a demo
    session: any transaction at all)."""

    @property
    def expected_balance(self) -> int | None:
        if not self.real:
            return self.opening
        if self.opening is None:
            return None
        return self.opening + sum(line.round.returned - line.round.stake
                                  for line in self.lines)

    @property
    def agrees(self) -> bool:
        return (all(line.agrees for line in self.lines) and self.others == 0
                and self.balance == self.expected_balance)


def reconcile(played: list[PlayedRound], ledger: dict[str, Any], currency: str, real: bool
              ) -> Reconciliation:
    """feltlab's rounds against the wallet's ledger (``GET /_ledger?player=``)."""
    ours = {str(p.id) for p in played}
    sums: dict[tuple[str, str], int] = {}
    others = 0
    for transaction in ledger["transactions"]:
        key = (str(transaction["round_id"]), transaction["kind"])
        if not real or transaction["currency"] != currency or key[0] not in ours:
            others += 1
        elif transaction["state"] == "applied" and key[1] in ("bet", "win"):
            sums[key] = sums.get(key, 0) + transaction["amount"]
    lines = [Line(p, sums.get((str(p.id), "bet"), 0), sums.get((str(p.id), "win"), 0),
                  p.stake if real else 0, p.returned if real else 0) for p in played]
    account = next((found for found in ledger["accounts"] if found["currency"] == currency),
                   None)
    if account is None:
        return Reconciliation(lines, real, None, None, others)
    return Reconciliation(lines, real, account["opening_balance"], account["balance"], others)


def wins_sent(played: list[PlayedRound], ledger: dict[str, Any]) -> bool:
    """Whether every round's win (0 for a loss) is applied in the wallet's ledger."""
    paid = {str(found["round_id"]) for found in ledger["transactions"]
            if found["kind"] == "win" and found["state"] == "applied"}
    return all(str(p.id) in paid for p in played)


def wait_for_wins(played: list[PlayedRound], read: Callable[[], dict[str, Any]],
                  seconds: float = WIN_WAIT_SECONDS) -> dict[str, Any]:
    """The wallet's ledger once the outbox has sent every round's win, or as it is after
    ``seconds``."""
    deadline = time.monotonic() + seconds
    ledger = read()
    while not wins_sent(played, ledger) and time.monotonic() < deadline:
        time.sleep(0.2)
        ledger = read()
    return ledger


def reconciliation_table(found: Reconciliation, currency: str) -> Table:
    """The rounds, feltlab's figures beside the wallet's, and the balance."""
    table = Table(title=f"reconciliation ({currency}, minor units)")
    for heading in ("round", "feltlab stake", "feltlab return", "wallet bets",
                    "wallet wins", ""):
        table.add_column(heading, justify="left" if heading == "round" else "right")
    for line in found.lines:
        table.add_row(str(line.round.id), str(line.round.stake), str(line.round.returned),
                      str(line.wallet_bets), str(line.wallet_wins),
                      "ok" if line.agrees else "MISMATCH")
    stakes = sum(line.round.stake for line in found.lines)
    returns = sum(line.round.returned for line in found.lines)
    table.add_row("total", str(stakes), str(returns),
                  str(sum(line.wallet_bets for line in found.lines)),
                  str(sum(line.wallet_wins for line in found.lines)), "", style="bold")
    return table


def balance_line(found: Reconciliation) -> str:
    """The player's wallet balance against what the rounds make it."""
    if not found.real:
        untouched = found.balance is None and found.others == 0
        return ("demo session (play money): the wallet saw no call"
                if untouched else
                f"demo session, yet the wallet has {found.others} transaction(s) and "
                f"balance {found.balance}")
    if found.opening is None:
        return "the wallet has no account for the player"
    stakes = sum(line.round.stake for line in found.lines)
    returns = sum(line.round.returned for line in found.lines)
    sign_ = "=" if found.balance == found.expected_balance else "!="
    extra = f" ({found.others} other transaction(s))" if found.others else ""
    return (f"wallet balance {found.balance} {sign_} opening {found.opening} - stakes "
            f"{stakes} + returns {returns} = {found.expected_balance}{extra}")
