"""Response models of the operator's console: reports, alerts, ratings, players, tables
and rule sets (see :mod:`feltlab.server.api.responses` for the conventions)."""

from __future__ import annotations

from pydantic import Field

from feltlab.server.api.responses import Answer, OwnLimits, Table


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
