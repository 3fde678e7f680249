"""The variant designer's answers: a PAR sheet in the shape ``feltlab analyze --json``
prints, the strategy card, protection figures, a starting rule set and the publications."""

from __future__ import annotations

from typing import Any

from feltlab.server.api.responses import Answer


class SheetLine(Answer):
    label: str
    net: float
    count: int
    probability: float
    contribution: float


class SheetWager(Answer):
    name: str
    title: str
    house_edge: float
    house_edge_exact: str
    hit_frequency: float
    std_dev: float
    element_of_risk: float
    """House edge per unit of everything wagered (raises and street bets included); a
    side bet's is its house edge."""
    total: int
    lines: list[SheetLine]
    rates: dict[str, float]
    average_total_wager: float | None = None
    """Wagers with decisions: the average total amount wagered per unit of the wager."""


class SheetCard(Answer):
    lines: list[str]
    house_edge: float
    optimal_house_edge: float
    cost: float


class SheetMapRow(Answer):
    hands: str
    decision: str
    share: float


class ParSheetAnswer(Answer):
    rules: str
    fingerprint: str
    modified: bool
    name: str
    wagers: list[SheetWager]
    notes: list[str]
    strategy_card: SheetCard | None = None
    strategy_map: list[SheetMapRow]


class StrategyAnswer(Answer):
    rules: str
    fingerprint: str
    strategy_card: SheetCard | None
    strategy_map: list[SheetMapRow]


class ProtectionCase(Answer):
    case: str
    colluders: int
    dealer_seen: int
    next_seen: int
    player_edge: float
    player_edge_exact: str | None = None
    std_error: float
    exact: bool
    states: int
    method: str
    seconds: float


class ProtectionLeak(Answer):
    name: str
    title: str
    applies: bool
    why: str


class ProtectionAnswer(Answer):
    rules: str
    fingerprint: str
    house_edge: float
    deals: int
    cases: list[ProtectionCase]
    leaks: list[ProtectionLeak]


class DesignBase(Answer):
    id: str
    name: str
    game: str
    fingerprint: str
    toml: str
    values: dict[str, Any]
    rules_schema: dict[str, Any]
    """The JSON schema of the family's rule-set model: the page builds its form from it."""
    pay_tables: dict[str, str]


class Warmth(Answer):
    warm: bool
    warming: list[str]
    seconds: float


class PublishedRules(Answer):
    id: str
    name: str
    game: str
    fingerprint: str
    published_by: str
    published_at: str
    withdrawn_at: str | None
