"""Response models of API v1: what each route answers, described field by field for the
OpenAPI document (``/openapi.json``).

They describe the JSON as the services build it; they do not change it. Fields are
declared in the order the answers list them; a field that is ``Optional`` in the sense
of "may be absent" has a default and is left out when the answer leaves it out (routes
that validate through a model use ``response_model_exclude_unset``). Structures a game
family lays out itself (pay tables, deal order, hand layouts, payout requests) are
objects of its own keys. Every model is strict and, but for those, forbids unknown keys,
so a change to an answer that the model does not describe fails the tests. The models of
feltlab as a game supplier are in :mod:`feltlab.server.api.operator_responses`, the
pages' in :mod:`feltlab.server.api.page_responses`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Answer(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")


class Message(Answer):
    detail: str


# --- accounts --------------------------------------------------------------------------------

class AccountCreated(Answer):
    username: str
    role: str
    balances: dict[str, int]
    """Balance by currency (``practice``, ``cash``)."""


class LoggedIn(Answer):
    token: str
    csrf: str
    """Send it back as the ``X-CSRF-Token`` header with the session cookie."""
    expires_after_idle_minutes: int


class OwnLimits(Answer):
    daily_loss_limit: int | None
    """The limit in force now."""
    pending_daily_loss_limit: int | None
    """A raised limit waiting out its 24 hours, if any."""
    pending_takes_effect_at: str | None
    """When the pending limit takes effect."""
    excluded_until: str | None
    lost_today: int
    """Cash lost in rounds settled since midnight UTC (net of wins, never below zero)
    plus the stakes still at risk in open rounds: what the limit is checked against."""


class OperatorBalance(Answer):
    """A real-money session's balance at its operator's wallet (its ``balance`` call)."""

    currency: str
    balance: int | None
    """In the currency's minor units; null when the wallet gave no clear answer."""
    chip_value: int


class Me(Answer):
    username: str
    role: str
    balances: dict[str, int]
    limits: OwnLimits
    operator_balance: OperatorBalance | None = None
    """An operator's real-money session: the player's balance at the operator."""


class CashAdjusted(Answer):
    username: str
    cash: int


class AuditLine(Answer):
    id: int
    at: str
    actor: str
    kind: str
    detail: dict[str, Any]
    hash: str


class AuditHead(Answer):
    lines: int
    hash: str


class AuditLog(Answer):
    intact: bool
    lines: int
    broken_at: int | None
    reason: str
    head: AuditHead | None
    latest: list[AuditLine]


# --- rule sets and tables ----------------------------------------------------------------------

class WagerLimit(Answer):
    min: int
    max: int


class RulesSummary(Answer):
    id: str
    name: str
    game: str
    seats: int
    fingerprint: str
    required_wagers: list[str]
    limits: dict[str, WagerLimit]
    max_aggregate_payout: int | None


class RulesDefinition(RulesSummary):
    definition: dict[str, Any]
    """The rule set as its file defines it (its game family's fields)."""


class SeatTaken(Answer):
    seat: int
    player: str


class Table(Answer):
    id: int
    rules: str
    name: str
    fingerprint: str
    currency: str
    practice: bool
    """Whether it plays practice chips: ``currency`` is ``"practice"`` (shared or not)."""
    shared: bool
    status: str
    seats: int
    limits: dict[str, WagerLimit]
    required_wagers: list[str]
    betting_seconds: int | None = None
    """Shared tables only."""
    decision_seconds: int | None = None
    """Shared tables only."""
    seated: list[SeatTaken] | None = None
    """Shared tables only: who sits where."""
    next_commitment: str | None = None
    """Private tables (their owner): SHA-256 of the next round's server seed, fixed
    before the bet; that round's ``commitment`` is this."""


# --- rounds ---------------------------------------------------------------------------------------

class LoggedAction(Answer):
    """One engine action of a round's log."""

    type: str
    seat: int | None = None
    wager: str | None = None
    colour: str | None = None
    amount: int | None = None


class Option(Answer):
    """A decision the caller may send to ``POST /api/v1/rounds/{id}/actions``."""

    action: str
    amount: int | None = None


class Cards(Answer):
    """Cards as text (``"Ah Kh 9h"``), each group present once it may be seen."""

    player: str | None = None
    community: str | None = None
    dealer: str | None = None


class OtherSeat(Answer):
    seat: int
    username: str
    wagers: dict[str, int]
    decisions: list[int]
    player: str | None = None
    """Their cards, once the round is complete."""
    total: int | None = None
    """Their net result, once the round is complete."""


class RoundWalletTransaction(Answer):
    """One of an operator's round's calls to its wallet (amount in minor units)."""

    transaction_id: str
    kind: Literal["bet", "win", "rollback"]
    amount: int
    state: Literal["pending", "acknowledged", "refused", "rolled_back"]


class RoundView(Answer):
    """A round as the caller may see it: no hidden card before its reveal."""

    id: int
    table: int
    number: int
    """The round's number at its table (1 for its first): what a player counts; ``id``
    names it everywhere else."""
    rules: str
    fingerprint: str
    currency: str
    phase: str
    commitment: str
    client_seed: str
    seat: int | None
    wagers: dict[str, int]
    decisions: list[int]
    to_act: int | None
    options: list[Option]
    deadline: str | None
    staked: int
    cards: Cards
    log: list[LoggedAction]
    created_at: str
    client_seeds: dict[str, str] | None = None
    """Shared tables: each seat's client seed, mixed into ``client_seed`` at the deal."""
    colour: str | None = None
    """Games with a colour to choose."""
    raise_range: dict[str, int] | None = None
    """When the caller may raise: ``min``, ``max`` and ``step``."""
    others: list[OtherSeat] | None = None
    """The other seats, when there are any (or the caller has no seat)."""
    seed: str | None = None
    """Complete rounds: the server seed, which hashes to ``commitment``."""
    wallet_transactions: list[RoundWalletTransaction] | None = None
    """An operator's round, read (not a money request's answer): its calls to the
    operator's wallet, oldest first, and their states."""
    completed_at: str | None = None
    results: dict[str, int] | None = None
    """Complete rounds with a seat: each wager's net result."""
    total: int | None = None
    capped: bool | None = None
    settlement: dict[str, Any] | None = None
    balance_before: int | None = None
    balance_after: int | None = None
    payout_request: dict[str, Any] | None = None
    """The seat's round as a ``feltlab payout`` request (the game family's fields)."""
    rules_toml: str | None = None
    """Complete rounds of a published rule set: its whole TOML text, so that
    ``feltlab verify`` checks the round offline."""


class TableWithRound(Table):
    round: RoundView | None
    """The table's current round (or, live, between rounds its last one)."""


class RecallStep(Answer):
    action: LoggedAction
    phase: str
    cards: Cards
    staked: int
    balance: int
    results: dict[str, int] | None = None
    total: int | None = None


class Recall(Answer):
    id: int
    rules: str
    phase: str
    balance_before: int
    balance_after: int | None
    steps: list[RecallStep]
    rules_toml: str | None = None
    """A published rule set's whole TOML text (``feltlab verify`` needs no server)."""


# --- the operator's console ---------------------------------------------------------------

class Figures(Answer):
    rounds: int
    seats: int
    handle: int
    win: int
    hold: float | None
    """win / handle; null when the handle is 0."""
    theo_win: float
    expected_win: float
    decision_cost: float
    """expected_win - theo_win."""
    band: list[float] = Field(min_length=2, max_length=2)
    """The 95% range of the win around the expected win: [low, high]."""
    outside_band: bool


class ReportRow(Figures):
    username: str | None = None
    user_id: int | None = None
    table_id: int | None = None
    rules: str | None = None
    day: str | None = None


class Report(Answer):
    grouping: str
    currency: str
    from_: str | None = Field(alias="from")
    to: str | None
    rows: list[ReportRow]
    totals: Figures
    day: Figures
    """The figures of the report's last day (``to``, else today)."""
    month_to_date: Figures
    year_to_date: Figures


class TableDayAlert(Figures):
    table_id: int
    rules: str
    day: str


class Alerts(Answer):
    table_days: list[TableDayAlert]
    players: list[ReportRow]


class CostlyPattern(Answer):
    rules: str
    pattern: str
    times: int
    each: float
    """EV given away each time, in units of the main wager."""
    total: float
    """EV given away in all, in the currency."""
    text: str


class Rating(Answer):
    user_id: int
    hands: int
    hours: float
    hands_per_hour: float | None
    average_bet: float | None
    handle: int
    theo_win: float
    given_away: float
    decision_cost_per_100: float | None
    costliest: list[CostlyPattern]


class PlayerView(Answer):
    user_id: int
    username: str
    role: str
    balances: dict[str, int]
    limits: OwnLimits
    locked: bool


class PlayerDetail(PlayerView):
    rating: Rating


class ConsoleTable(Table):
    open_round: int | None


class RuleSetInPlay(Answer):
    rules: str
    name: str
    fingerprint: str
    tables: int
    open_tables: int
    edges: dict[str, float]
    player_favoured: list[str]
    over_exposure_limit: bool
