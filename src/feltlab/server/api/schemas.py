"""Request bodies: strict (no coercion), no unknown fields, every size bounded."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import Path
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

MAX_AMOUNT = 1_000_000_000
Amount = Annotated[int, Field(ge=0, le=MAX_AMOUNT)]
WagerName = Annotated[str, StringConstraints(min_length=1, max_length=20)]
ShortText = Annotated[str, StringConstraints(max_length=64)]


class Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")


class Credentials(Strict):
    username: Annotated[str, StringConstraints(max_length=64)]
    password: Annotated[str, StringConstraints(max_length=256)]


class TableRequest(Strict):
    rules: ShortText
    practice: bool = True


class SharedTableRequest(Strict):
    rules: ShortText
    currency: Literal["practice", "cash"] = "practice"
    name: Annotated[str, StringConstraints(max_length=64)] = ""
    betting_seconds: Annotated[int, Field(ge=1, le=600)] = 20
    decision_seconds: Annotated[int, Field(ge=1, le=600)] = 20


class RoundRequest(Strict):
    wagers: Annotated[dict[WagerName, Amount], Field(max_length=10)]
    colour: Literal["red", "black"] | None = None
    client_seed: ShortText | None = None


class ActionRequest(Strict):
    action: Literal["fold", "raise", "play", "bet"]
    amount: Amount | None = None


class SeatRequest(Strict):
    seat: Annotated[int, Field(ge=1, le=20)]


class LimitsRequest(Strict):
    daily_loss_limit: Annotated[int, Field(ge=0, le=MAX_AMOUNT)] | None = None
    self_exclude_days: Annotated[int, Field(ge=1, le=3650)] | None = None


class AdjustRequest(Strict):
    username: ShortText
    amount: Annotated[int, Field(ge=-MAX_AMOUNT, le=MAX_AMOUNT)]
    memo: Annotated[str, StringConstraints(max_length=200)] = ""

RowId = Annotated[int, Path(ge=1, le=2**31 - 1)]
"""A table or round id in a path."""
