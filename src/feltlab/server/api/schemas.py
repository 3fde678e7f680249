"""Request bodies: strict (no coercion), no unknown fields, every size bounded."""

from __future__ import annotations

from typing import Annotated, Any, Literal

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


# --- the pages' JSON -----------------------------------------------------------------------

RulesId = Annotated[str, StringConstraints(max_length=64)]
CardsText = Annotated[str, StringConstraints(max_length=200)]
SpotName = Annotated[str, StringConstraints(max_length=20)]


class DisplayRequest(Strict):
    rules: RulesId
    cards: dict[SpotName, CardsText] = Field(default_factory=dict, max_length=4)
    colour: CardsText | None = None
    round: dict[str, Any] | None = None


class AdviceRequest(Strict):
    rules: RulesId
    player: CardsText = ""
    community: CardsText = ""
    colour: CardsText | None = None
    bets: Annotated[list[int], Field(max_length=3)] = Field(default_factory=list)
    ante: Annotated[int, Field(ge=1, le=1_000_000)] = 1
    chosen: dict[str, Any] | None = None
    record: bool = False
    """Count the verdict on ``chosen`` in the caller's strategy-trainer score."""


class DealerCheckRequest(Strict):
    request: dict[str, Any]
    answers: Annotated[dict[SpotName, Annotated[int, Field(ge=-10**13, le=10**13)]],
                       Field(max_length=12)]
    millis: Annotated[int, Field(ge=0, le=86_400_000)] = 0
    record: bool = False
    """Count the check (and ``millis`` taken) in the caller's dealer-trainer score."""


class SolveRequest(Strict):
    rules: RulesId
    wager: SpotName
    target: Annotated[str, StringConstraints(max_length=40)]
    line: Annotated[str, StringConstraints(max_length=40)] | None = None


RowId = Annotated[int, Path(ge=1, le=2**31 - 1)]
"""A table or round id in a path."""


RulesText = Annotated[str, StringConstraints(min_length=1, max_length=60_000)]
"""A rule set as TOML text (the request body's limit bounds it first)."""


class DesignRequest(Strict):
    rules: RulesText


class DesignProtectionRequest(DesignRequest):
    colluders: Annotated[int, Field(ge=1, le=10)] = 2
    deals: Annotated[int, Field(ge=1, le=20_000)] = 20_000


class DesignSolveRequest(DesignRequest):
    wager: SpotName
    target: Annotated[str, StringConstraints(max_length=40)]
    line: Annotated[str, StringConstraints(max_length=40)] | None = None
