"""Request bodies: strict (no coercion), no unknown fields, every size bounded, and every
constraint the server checks stated in the schema where a schema can state it (what only
the rules can judge, such as a rule-set id or a hand's cards, is free text checked when
the request runs: 404 or 422).

A whole number may be written ``10`` or ``10.0`` (JSON Schema's ``integer`` is any number
with no fraction); ``10.5``, ``"10"`` and ``true`` are refused."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import Path
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints

from feltlab.core import registry
from feltlab.core.decisions import FOLD_NAME
from feltlab.core.rules import RULES_ID_PATTERN
from feltlab.server.auth import MAX_PASSWORD, MIN_PASSWORD, USERNAME_PATTERN
from feltlab.server.fairness import CLIENT_SEED_PATTERN


def whole(value: object) -> object:
    """A number with no fraction as an ``int`` (``10.0`` is 10); anything else as it came,
    for the strict check to refuse.

    >>> whole(10.0), whole(10.5), whole(True), whole("10")
    (10, 10.5, True, '10')
    """
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


WHOLE = BeforeValidator(whole)
"""Marks an integer as JSON Schema means it: ``Annotated[int, Field(...), WHOLE]`` (after
the bounds, so that the schema states them)."""

MAX_AMOUNT = 1_000_000_000
Amount = Annotated[int, Field(ge=0, le=MAX_AMOUNT), WHOLE]
WagerName = Annotated[str, StringConstraints(min_length=1, max_length=20)]
ShortText = Annotated[str, StringConstraints(max_length=64)]


class Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")


class Credentials(Strict):
    """A login: any text is tried (a wrong one is 401)."""

    username: Annotated[str, StringConstraints(max_length=64)]
    password: Annotated[str, StringConstraints(max_length=MAX_PASSWORD)]


class NewAccount(Strict):
    """A new account's username and password (the password's strength is judged when
    the request runs: a weak one is 422, saying why)."""

    username: Annotated[str, StringConstraints(pattern=f"^{USERNAME_PATTERN.pattern}$")]
    password: Annotated[str, StringConstraints(min_length=MIN_PASSWORD,
                                               max_length=MAX_PASSWORD)]


RulesId = Annotated[str, StringConstraints(max_length=64, pattern=RULES_ID_PATTERN)]
"""A rule set's id: its form is checked here (422), whether it is a built-in one when the
request runs (404)."""


class TableRequest(Strict):
    rules: RulesId
    practice: bool = True


class SharedTableRequest(Strict):
    rules: RulesId
    currency: Literal["practice", "cash"] = "practice"
    name: Annotated[str, StringConstraints(max_length=64)] = ""
    betting_seconds: Annotated[int, Field(ge=1, le=600), WHOLE] = 20
    decision_seconds: Annotated[int, Field(ge=1, le=600), WHOLE] = 20


class RoundRequest(Strict):
    wagers: Annotated[dict[WagerName, Amount], Field(max_length=10)]
    colour: Literal["red", "black"] | None = None
    client_seed: Annotated[str, StringConstraints(
        pattern=f"^{CLIENT_SEED_PATTERN.pattern}$")] | None = None


def _decision_names() -> tuple[str, ...]:
    """Fold and every installed family's decision kinds, read at start-up."""
    return (FOLD_NAME, *(kind.name for kind in registry.decision_kinds()))


def _decision_help() -> str:
    kinds = [f"`{kind.name}` ({kind.label}{', with an amount' if kind.takes_amount else ''})"
             for kind in registry.decision_kinds()]
    return ("A decision of the round's game: `fold`, or one of the installed games' kinds: "
            + ", ".join(kinds) + ". A kind this table's game lacks is a 409.")


if TYPE_CHECKING:
    DecisionName = str
else:  # the installed games' kinds, not a list written here
    DecisionName = Literal[_decision_names()]


class ActionRequest(Strict):
    action: Annotated[DecisionName, Field(description=_decision_help())]
    amount: Amount | None = None


class SeatRequest(Strict):
    seat: Annotated[int, Field(ge=1, le=20), WHOLE]


class LimitsRequest(Strict):
    daily_loss_limit: Annotated[int, Field(ge=0, le=MAX_AMOUNT), WHOLE] | None = None
    self_exclude_days: Annotated[int, Field(ge=1, le=3650), WHOLE] | None = None


class AdjustRequest(Strict):
    username: ShortText
    amount: Annotated[int, Field(ge=-MAX_AMOUNT, le=MAX_AMOUNT,
                                 json_schema_extra={"not": {"const": 0}}), WHOLE]
    """A credit (> 0) or a debit (< 0); never 0."""
    memo: Annotated[str, StringConstraints(max_length=200)] = ""


# --- the operator's console -----------------------------------------------------------------

Reason = Annotated[str, StringConstraints(min_length=1, max_length=200, pattern=r"\S")]
"""A reason for the audit log: something besides spaces."""


class LockRequest(Strict):
    reason: Reason


class PlayerLimitsRequest(LimitsRequest):
    reason: Reason


class PlayerCashRequest(Strict):
    amount: Annotated[int, Field(ge=-MAX_AMOUNT, le=MAX_AMOUNT,
                                 json_schema_extra={"not": {"const": 0}}), WHOLE]
    """A credit (> 0) or a debit (< 0); never 0."""
    reason: Reason


# --- operators (the admin's side) -------------------------------------------------------------

OperatorIdText = Annotated[str, StringConstraints(pattern=r"^[a-z0-9_-]{1,32}$")]
CurrencyCode = Annotated[str, StringConstraints(pattern=r"^[A-Z]{3}$")]
Secret = Annotated[str, StringConstraints(min_length=32, max_length=256),
                   Field(json_schema_extra={"format": "password", "writeOnly": True})]
"""An operator's shared secret: it goes in, and no answer ever carries it."""
UrlText = Annotated[str, StringConstraints(min_length=1, max_length=500)]


class NewOperator(Strict):
    """An operator to register (``POST /api/v1/admin/operators``). The form of each field
    is checked here; what only the registry can judge (a wallet URL's parts, an origin
    exactly as a browser sends it) when the request runs: 422 naming the field."""

    id: OperatorIdText
    wallet_url: UrlText
    """The wallet's base URL: http or https, no query, no trailing slash."""
    currencies: Annotated[dict[CurrencyCode, Annotated[int, Field(ge=1, le=MAX_AMOUNT),
                                                       WHOLE]],
                          Field(min_length=1, max_length=50)]
    """ISO 4217 code → the minor units one chip is worth (``{"EUR": 1}``)."""
    timeout_seconds: Annotated[float, Field(ge=0.05, le=60)] = 3.0
    frame_origins: Annotated[list[UrlText], Field(max_length=20)] = Field(
        default_factory=list)
    """The origins allowed to frame the tables (``https://casino.example``)."""
    secret: Secret


class SecretRequest(Strict):
    """An operator's new secret (``POST /api/v1/admin/operators/{id}/rotate``)."""

    secret: Secret


class ResolveRequest(Strict):
    """How a pending wallet call was settled outside the outbox, for its row and the
    audit log."""

    note: Annotated[str, StringConstraints(min_length=1, max_length=500, pattern=r"\S")]


# --- the pages' JSON -----------------------------------------------------------------------

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
    bets: Annotated[list[Annotated[int, WHOLE]], Field(max_length=3)] = Field(
        default_factory=list)
    ante: Annotated[int, Field(ge=1, le=1_000_000), WHOLE] = 1
    chosen: dict[str, Any] | None = None
    record: bool = False
    """Count the verdict on ``chosen`` in the caller's strategy-trainer score."""


class PayoutRequestBody(BaseModel):
    """A round as a ``feltlab payout`` request, as ``GET /api/v1/dealer-rounds`` gives it:
    the rule set's id and its game family's fields (cards, wagers, decisions), which the
    engine checks when the request runs."""

    model_config = ConfigDict(strict=True, extra="allow")

    rules: RulesId


class DealerCheckRequest(Strict):
    request: PayoutRequestBody
    answers: Annotated[dict[SpotName, Annotated[int, Field(ge=-10**13, le=10**13), WHOLE]],
                       Field(max_length=12)]
    millis: Annotated[int, Field(ge=0, le=86_400_000), WHOLE] = 0
    record: bool = False
    """Count the check (and ``millis`` taken) in the caller's dealer-trainer score."""


class SolveRequest(Strict):
    rules: RulesId
    wager: SpotName
    target: Annotated[str, StringConstraints(max_length=40)]
    line: Annotated[str, StringConstraints(max_length=40)] | None = None


RowId = Annotated[int, Path(ge=1, le=2**31 - 1)]
"""A table or round id in a path."""

RulesPath = Annotated[str, Path(max_length=64, pattern=RULES_ID_PATTERN)]
"""A rule set's id in a path."""

OperatorPath = Annotated[str, Path(max_length=32, pattern=r"^[a-z0-9_-]{1,32}$")]
"""An operator's id in a path."""

TransactionPath = Annotated[str, Path(min_length=1, max_length=64)]
"""A wallet call's transaction id in a path (``fl-`` and 32 hex digits)."""

RulesText = Annotated[str, StringConstraints(min_length=1, max_length=5_000)]
"""A rule set as TOML text (a built-in one is about 1,000 characters). At most 5,000, so
that any text the schema allows, each character escaped in JSON (up to 12 bytes), fits the
request body's limit of 64 KiB."""


class DesignRequest(Strict):
    rules: RulesText


class PublishRequest(DesignRequest):
    allow_player_edge: bool = False
    """Publish even if a wager's house edge is negative (the audit log records it)."""


class DesignProtectionRequest(DesignRequest):
    colluders: Annotated[int, Field(ge=1, le=10)] = 2
    deals: Annotated[int, Field(ge=1, le=20_000)] = 20_000


class DesignSolveRequest(DesignRequest):
    wager: SpotName
    target: Annotated[str, StringConstraints(max_length=40)]
    line: Annotated[str, StringConstraints(max_length=40)] | None = None


class LaunchRequest(Strict):
    """A signed launch (``POST /api/v1/operator/sessions``)."""

    operator: str = Field(min_length=1, max_length=32, pattern=r"^[a-z0-9_-]{1,32}$")
    player: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]{1,64}$")
    currency: str = Field(min_length=3, max_length=3, pattern=r"^[A-Z]{3}$")
    rules: str = Field(min_length=1, max_length=64)
    mode: Literal["real", "demo"]
    lobby_url: str | None = Field(default=None, max_length=500)


class SessionEndRequest(Strict):
    """A signed end of a session (``POST /api/v1/operator/sessions/{session}/end``)."""

    operator: str = Field(min_length=1, max_length=32, pattern=r"^[a-z0-9_-]{1,32}$")


class LaunchCodeRequest(Strict):
    """The framed page's one-time launch code (``POST /api/v1/operator/launch``)."""

    code: str = Field(min_length=1, max_length=200)
