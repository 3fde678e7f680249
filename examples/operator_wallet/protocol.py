"""The four calls feltlab makes to the wallet, as pydantic models of their JSON bodies.

Amounts are integers in the currency's minor unit; the models are strict, so ``"10"`` or
``10.0`` is refused rather than guessed at. Unknown fields are ignored.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Endpoint = Literal["balance", "bet", "win", "rollback"]
ENDPOINTS: tuple[Endpoint, ...] = ("balance", "bet", "win", "rollback")

# The ``error`` values of a refusal (HTTP 200, ``{"error": ..., "balance": ...}``).
INSUFFICIENT_FUNDS = "INSUFFICIENT_FUNDS"
PLAYER_BLOCKED = "PLAYER_BLOCKED"
LIMIT_EXCEEDED = "LIMIT_EXCEEDED"
SESSION_EXPIRED = "SESSION_EXPIRED"
# A bet whose transaction id was rolled back before (or after) it arrived: never applied.
TRANSACTION_ROLLED_BACK = "TRANSACTION_ROLLED_BACK"
# A transaction id seen before with a different kind, player, currency, amount or reference.
DUPLICATE_TRANSACTION = "DUPLICATE_TRANSACTION"
# A win naming a bet that is not an applied bet of the same player, currency and round.
UNKNOWN_BET = "UNKNOWN_BET"
# A second win (new transaction id) for a round whose win was already applied.
ROUND_ALREADY_SETTLED = "ROUND_ALREADY_SETTLED"

Answer = dict[str, Any]


class _Call(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)

    request_id: str = Field(min_length=1)
    player: str = Field(min_length=1)
    currency: str = Field(min_length=1)
    session: str


class BalanceCall(_Call):
    pass


class BetCall(_Call):
    transaction_id: str = Field(min_length=1)
    amount: int = Field(gt=0)
    round_id: str = Field(min_length=1)
    rules: Any


class WinCall(_Call):
    transaction_id: str = Field(min_length=1)
    amount: int = Field(ge=0)
    round_id: str = Field(min_length=1)
    bets: list[str]


class RollbackCall(_Call):
    transaction_id: str = Field(min_length=1)
    rolled_back: str = Field(min_length=1)
    round_id: str = Field(min_length=1)


CALLS: dict[Endpoint, type[_Call]] = {
    "balance": BalanceCall,
    "bet": BetCall,
    "win": WinCall,
    "rollback": RollbackCall,
}
